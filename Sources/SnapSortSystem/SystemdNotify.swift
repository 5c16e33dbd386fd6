import CSystemd

/// `sd_notify(3)` behind a typed wrapper; a no-op when `NOTIFY_SOCKET` is unset.
public enum SystemdNotify {
    /// Sends a newline-separated assignment list such as "READY=1\nSTATUS=…".
    /// Returns true when a notification socket received it.
    @discardableResult
    public static func send(_ state: String) -> Bool {
        sd_notify(0, state) > 0
    }

    /// The watchdog interval in microseconds when the service manager expects pings.
    public static func watchdogMicroseconds() -> UInt64? {
        var usec: UInt64 = 0
        return sd_watchdog_enabled(0, &usec) > 0 ? usec : nil
    }
}
