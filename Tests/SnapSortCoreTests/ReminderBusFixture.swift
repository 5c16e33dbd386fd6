import Foundation
import SnapSortTestSupport

/// A private session bus (a real `dbus-daemon` on a socket in a temp folder) with the fake
/// notification server of `Tests/Fixtures/dbus/fake_notifications.py` on it.
final class NotificationBus: @unchecked Sendable {
    private let bus: PrivateBus
    /// The servers started, the one running last (what they printed is kept across restarts).
    private var servers: [FakeBusService] = []
    private var running = false
    var dir: TempDir { bus.dir }
    var address: String { bus.address }

    /// Starts the daemon and, with `withServer`, the fake server (waiting until it owns its name).
    init(withServer: Bool = true) throws {
        bus = try PrivateBus()
        if withServer { try startServer() }
    }

    /// Starts the fake server (again, after `stopServer`).
    func startServer() throws {
        servers.append(try FakeBusService("fake_notifications.py", on: address))
        running = true
    }

    func stopServer() {
        guard running else { return }
        servers.last?.stop()
        running = false
    }

    /// Sends a command to the fake server and waits until it was carried out.
    func command(_ line: String) throws {
        guard running, let server = servers.last else { throw FixtureError("the fake server is not running") }
        try server.command(line)
    }

    /// What the fake server printed, by `event`.
    func events(_ kind: String) -> [[String: Any]] { servers.flatMap { $0.events(kind) } }

    /// The recorded calls of one method.
    func calls(_ method: String) -> [[String: Any]] { events("call").filter { $0["method"] as? String == method } }

    /// Waits until `n` calls of `method` were recorded.
    func waitForCalls(_ method: String, count n: Int, timeout: TimeInterval = 10) -> Bool {
        waitUntil(timeout: timeout) { self.calls(method).count >= n }
    }

    // The server first, then the bus under it.
    deinit { stopServer() }
}
