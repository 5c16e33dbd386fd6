import Glibc

/// The signal numbers the agent and the CLI handle, for code that does not import Glibc
/// (see signal(7)).
public enum SignalNumber {
    public static let terminate = SIGTERM
    public static let interrupt = SIGINT
    public static let hangUp = SIGHUP
}
