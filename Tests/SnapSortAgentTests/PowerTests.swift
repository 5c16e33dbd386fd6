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
    private let bus: PrivateBus
    private let server: FakeBusService
    var address: String { bus.address }

    init(onBattery: Bool) throws {
        bus = try PrivateBus(dir: TempDir("snapsort-upower"))
        server = try FakeBusService("fake_upower.py", on: bus.address, arguments: [onBattery ? "on" : "off"])
    }

    func battery(_ on: Bool) { try? server.command("battery \(on ? "on" : "off")") }

    // The server first, then the bus under it.
    deinit { server.stop() }
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
        // Seen, and left waiting for the resume.
        #expect(waitUntil { (h.status()?["agent"]?["pending"]?.intValue ?? 0) > 0 })
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
