import Foundation
import Glibc

/// A private session bus for tests: a real `dbus-daemon` on a socket in a temp folder (the
/// configuration of `Tests/Fixtures/dbus/session.conf.in`), killed when released.
public final class PrivateBus: @unchecked Sendable {
    /// Where the socket (`dir/bus`) and the daemon's configuration are.
    public let dir: TempDir
    public let address: String
    private let daemon = Process()

    /// `Tests/Fixtures/dbus`: the bus's configuration and the fake services.
    public static var fixtures: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Tests/Fixtures/dbus").standardized.path
    }

    /// Starts the daemon and waits until it prints its address (its socket then listens).
    public init(dir: TempDir = TempDir("snapsort-dbus")) throws {
        self.dir = dir
        let template = try String(contentsOfFile: Self.fixtures + "/session.conf.in", encoding: .utf8)
        try template.replacingOccurrences(of: "@SOCKET@", with: dir.at("bus")).write(toFile: dir.at("bus.conf"), atomically: true, encoding: .utf8)
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--config-file=" + dir.at("bus.conf"), "--print-address", "--nofork"]
        let out = Pipe()
        daemon.standardOutput = out
        daemon.standardInput = FileHandle.nullDevice
        try daemon.run()
        let lines = LockedLines<String>()
        readLines(out.fileHandleForReading) { lines.append($0) }
        guard waitUntil(timeout: 10, { !lines.all.isEmpty }) else {
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
            throw FixtureError("dbus-daemon did not print its address")
        }
        address = lines.all[0].trimmingCharacters(in: .whitespaces)
    }

    deinit {
        // SIGKILL, not terminate(): children started from a test's (libdispatch) thread inherit
        // its blocked signal mask, so a SIGTERM would stay pending forever.
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()
    }
}

/// One of the fake D-Bus services of `Tests/Fixtures/dbus` (a Python script on a bus): the JSON
/// events it prints, one a line, collected; commands written to its stdin. Stopped (its input
/// closed) when released.
public final class FakeBusService: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let lines = LockedLines<[String: Any]>()
    private var running = true

    /// Starts `script` (in `PrivateBus.fixtures`) with the bus's address and `arguments`, and
    /// waits until it says it is ready (it owns its name).
    public init(_ script: String, on address: String, arguments: [String] = []) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [PrivateBus.fixtures + "/" + script, address] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = input
        try process.run()
        readLines(out.fileHandleForReading) { [lines] line in
            guard let obj = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return }
            lines.append(obj)
        }
        guard waitUntil(timeout: 15, { self.events("ready").count == 1 }) else { throw FixtureError("\(script) did not start") }
    }

    /// What the service printed, by `event`.
    public func events(_ kind: String) -> [[String: Any]] { lines.all.filter { $0["event"] as? String == kind } }

    /// Sends a command and waits until the service says it is done with it; throws when it is
    /// not, or when it printed an error for it.
    public func command(_ line: String) throws {
        let before = (events("done").count, events("error").count)
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
        guard waitUntil(timeout: 10, { self.events("done").count > before.0 }) else { throw FixtureError("the fake service did not do '\(line)'") }
        if events("error").count > before.1 { throw FixtureError("'\(line)': \(events("error").last?["message"] ?? "")") }
    }

    /// Ends the service (its input closed) and waits for it.
    public func stop() {
        guard running else { return }
        running = false
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { stop() }
}

/// Values appended by one thread, read by another.
public final class LockedLines<T>: @unchecked Sendable {
    private var value: [T] = []
    private let lock = NSLock()
    public init() {}
    public func append(_ v: T) { lock.withLock { value.append(v) } }
    public var all: [T] { lock.withLock { value } }
}

/// A test fixture that could not be set up or did not do what it was told.
public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}

/// Reads `handle` on a thread and calls `onLine` for each line.
func readLines(_ handle: FileHandle, _ onLine: @escaping @Sendable (String) -> Void) {
    Thread {
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
    }.start()
}
