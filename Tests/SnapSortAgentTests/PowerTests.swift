import Foundation
import Glibc
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Synchronization
import Testing

@testable import SnapSortAgent

/// A private bus (a real `dbus-daemon`) with the fake UPower of Tests/Fixtures/dbus on it.
final class FakeUPower: @unchecked Sendable {
    let dir = TempDir("snapsort-upower")
    private(set) var address = ""
    private let daemon = Process()
    private let server = Process()
    private let input = Pipe()
    private let lines = LineBox()

    final class LineBox: @unchecked Sendable {
        private var value: [String] = []
        private let lock = NSLock()
        func append(_ s: String) { lock.lock(); value.append(s); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return value }
    }

    static var fixtures: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fixtures/dbus").standardized.path
    }

    init(onBattery: Bool) throws {
        let template = try String(contentsOfFile: Self.fixtures + "/session.conf.in", encoding: .utf8)
        try template.replacingOccurrences(of: "@SOCKET@", with: dir.at("bus")).write(toFile: dir.at("bus.conf"), atomically: true, encoding: .utf8)
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--config-file=" + dir.at("bus.conf"), "--print-address", "--nofork"]
        let out = Pipe()
        daemon.standardOutput = out
        try daemon.run()
        let first = out.fileHandleForReading.availableData
        address = String(decoding: first, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
        server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        server.arguments = [Self.fixtures + "/fake_upower.py", address, onBattery ? "on" : "off"]
        let sout = Pipe()
        server.standardOutput = sout
        server.standardInput = input
        try server.run()
        let handle = sout.fileHandleForReading
        let lines = self.lines
        Thread {
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let nl = buffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...nl)
                    lines.append(line)
                }
            }
        }.start()
        guard waitUntil(timeout: 15, { self.count("ready") == 1 }) else { throw FakeUPowerError() }
    }

    struct FakeUPowerError: Error {}

    func count(_ event: String) -> Int { lines.all.filter { $0.contains("\"\(event)\"") }.count }

    func battery(_ on: Bool) {
        let before = count("done")
        input.fileHandleForWriting.write(Data("battery \(on ? "on" : "off")\n".utf8))
        _ = waitUntil(timeout: 10) { self.count("done") > before }
    }

    deinit {
        try? input.fileHandleForWriting.close()
        server.waitUntilExit()
        // SIGKILL: children of test threads inherit a blocked SIGTERM.
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()
    }
}

@Suite("Pause on battery", .serialized)
struct PowerTests {
    @Test("on battery analysis waits (watching goes on); on power it catches up")
    func pausesOnBattery() throws {
        let upower = try FakeUPower(onBattery: true)
        let h = try AgentHarness(
            setup: { dir in
                dir.write("Pictures/a.jpg", photo(31))
            },
            tweak: { o in
                let address = upower.address
                o.services = { c in [PowerAgentService(enabled: true, address: address, logger: c.logger)] }
            })
        h.start()
        defer { h.stop() }
        #expect(waitUntil { h.status()?["agent"]?["state"]?.stringValue == "paused" })
        let lib = try h.reader()
        h.dir.write("Pictures/b.jpg", photo(32))
        usleep(500_000)
        #expect(try lib.db.scalar("SELECT count(*) FROM files WHERE status = 'ok'") == 0)
        #expect(h.agent.statusLine().hasPrefix("Paused on battery"))
        upower.battery(false)
        #expect(waitUntil(timeout: 30) { ((try? lib.db.scalar("SELECT count(*) FROM files WHERE status = 'ok'")) ?? 0) == 2 })
        #expect(h.waitIdle())
        upower.battery(true)
        #expect(waitUntil { h.status()?["agent"]?["state"]?.stringValue == "paused" })
    }

    @Test("without UPower the agent analyzes as usual and says why")
    func withoutUPower() throws {
        let h = try AgentHarness(
            setup: { dir in dir.write("Pictures/a.jpg", photo(33)) },
            tweak: { o in
                o.services = { c in [PowerAgentService(enabled: true, address: "unix:path=/nonexistent/snapsort-system-bus", logger: c.logger)] }
            })
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        let lib = try h.reader()
        #expect(try lib.db.scalar("SELECT count(*) FROM files WHERE status = 'ok'") == 1)
        let lastError = h.status()?["agent"]?["last_error"]?.stringValue ?? ""
        #expect(lastError.hasPrefix("power: cannot read the power state from UPower"), "\(lastError)")
    }
}
