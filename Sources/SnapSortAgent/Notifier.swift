import Foundation
import SnapSortSystem

/// The service manager's notification channel (sd_notify(3)), injectable for tests.
public struct Notifier: Sendable {
    /// Sends newline-separated assignments (`READY=1`, `STATUS=…`, `WATCHDOG=1`, `STOPPING=1`).
    public var send: @Sendable (String) -> Void
    /// The watchdog interval the service manager expects, if any (`WATCHDOG_USEC`).
    public var watchdogInterval: TimeInterval?

    public init(send: @escaping @Sendable (String) -> Void, watchdogInterval: TimeInterval?) {
        self.send = send
        self.watchdogInterval = watchdogInterval
    }

    /// libsystemd's `sd_notify`; a no-op without `NOTIFY_SOCKET`.
    public static var live: Notifier {
        Notifier(send: { SystemdNotify.send($0) }, watchdogInterval: SystemdNotify.watchdogMicroseconds().map { Double($0) / 1_000_000 })
    }

    /// Drops everything.
    public static let silent = Notifier(send: { _ in }, watchdogInterval: nil)
}
