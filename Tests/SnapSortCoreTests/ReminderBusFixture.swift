import Foundation
import SnapSortTestSupport

/// A private session bus (a real `dbus-daemon` on a socket in a temp folder) with the fake
/// notification server of `Tests/Fixtures/dbus/fake_notifications.py` on it.
final class NotificationBus: @unchecked Sendable {
    let dir = TempDir("snapsort-dbus")
    let address: String
    private let daemon: Process
    private var server: Process?
    private var serverInput: FileHandle?
    private let lines = Locked<[[String: Any]]>([])
    private let daemonLines = Locked<[String]>([])

    static var fixtures: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/dbus").path
    }

    /// Starts the daemon and, with `withServer`, the fake server (waiting until it owns its name).
    init(withServer: Bool = true) throws {
        let socket = dir.at("bus")
        let template = try String(contentsOfFile: NotificationBus.fixtures + "/session.conf.in", encoding: .utf8)
        let config = dir.at("session.conf")
        try template.replacingOccurrences(of: "@SOCKET@", with: socket).write(toFile: config, atomically: true, encoding: .utf8)
        daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--config-file=" + config, "--print-address", "--nofork"]
        let out = Pipe()
        daemon.standardOutput = out
        daemon.standardInput = FileHandle.nullDevice
        try daemon.run()
        let lines = daemonLines
        NotificationBus.readLines(out.fileHandleForReading) { line in lines.withLock { $0.append(line) } }
        guard waitUntil(timeout: 10, { !lines.withLock { $0.isEmpty } }) else {
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
            throw FixtureError("dbus-daemon did not print its address")
        }
        address = lines.withLock { $0[0] }.trimmingCharacters(in: .whitespaces)
        if withServer { try startServer() }
    }

    /// Starts the fake server (again, after `stopServer`).
    func startServer() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [NotificationBus.fixtures + "/fake_notifications.py", address]
        let out = Pipe()
        let input = Pipe()
        p.standardOutput = out
        p.standardInput = input
        try p.run()
        server = p
        serverInput = input.fileHandleForWriting
        let before = events("ready").count
        NotificationBus.readLines(out.fileHandleForReading) { [lines] line in
            guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return }
            lines.withLock { $0.append(obj) }
        }
        guard waitUntil(timeout: 15, { self.events("ready").count > before }) else {
            throw FixtureError("the fake notification server did not start")
        }
    }

    func stopServer() {
        guard let p = server else { return }
        try? serverInput?.close()
        p.waitUntilExit()
        server = nil
    }

    /// Sends a command to the fake server and waits until it was carried out.
    func command(_ line: String) throws {
        let before = events("done").count
        serverInput?.write(Data((line + "\n").utf8))
        guard waitUntil(timeout: 10, { self.events("done").count > before }) else { throw FixtureError("the fake server did not do '\(line)'") }
    }

    /// What the fake server printed, by `event`.
    func events(_ kind: String) -> [[String: Any]] { lines.withLock { $0.filter { $0["event"] as? String == kind } } }

    /// The recorded calls of one method.
    func calls(_ method: String) -> [[String: Any]] { events("call").filter { $0["method"] as? String == method } }

    /// Waits until `n` calls of `method` were recorded.
    func waitForCalls(_ method: String, count n: Int, timeout: TimeInterval = 10) -> Bool {
        waitUntil(timeout: timeout) { self.calls(method).count >= n }
    }

    deinit {
        stopServer()
        // SIGKILL, not terminate(): children started from a test's (libdispatch) thread inherit
        // its blocked signal mask, so a SIGTERM would stay pending forever.
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()
    }

    /// Reads `handle` on a thread and calls `onLine` for each line.
    static func readLines(_ handle: FileHandle, _ onLine: @escaping @Sendable (String) -> Void) {
        let t = Thread {
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let nl = buffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...nl)
                    onLine(line)
                }
            }
        }
        t.start()
    }
}

/// A value behind a lock, shareable with reader threads.
final class Locked<T>: @unchecked Sendable {
    private var value: T
    private let lock = NSLock()
    init(_ v: T) { value = v }
    func withLock<R>(_ body: (inout T) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
