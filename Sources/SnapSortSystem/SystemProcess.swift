import Glibc

/// The calls on processes the rest of SnapSort makes: this one's id, its end, its broken-pipe
/// signal, and whether another is running.
public enum SystemProcess {
    /// `getpid(2)`.
    public static var currentID: Int32 { getpid() }

    /// Ends this process with `code` (`exit(3)`: buffered output is flushed).
    public static func exit(_ code: Int32) -> Never { Glibc.exit(code) }

    /// A write to a closed pipe fails with `EPIPE` instead of killing the process
    /// (`signal(SIGPIPE, SIG_IGN)`; `snapsort status | head` must not die of SIGPIPE).
    public static func ignoreBrokenPipe() { _ = signal(SIGPIPE, SIG_IGN) }

    /// Sets the environment variable `name` to `value` for this process and its children
    /// (`setenv(3)`; not thread-safe: at the start of a process only).
    public static func setEnvironment(_ name: String, _ value: String) { _ = setenv(name, value, 1) }

    /// Whether a process with id `pid` exists: `kill(pid, 0)` succeeds, or is refused
    /// (`EPERM`: it exists and belongs to another user). See: man 2 kill.
    public static func exists(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}
