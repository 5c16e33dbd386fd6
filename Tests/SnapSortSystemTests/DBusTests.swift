import Foundation
import SnapSortTestSupport
import Testing

@testable import SnapSortSystem

/// The D-Bus wrapper on its own, against a real `dbus-daemon` (`PrivateBus`) and the fake
/// UPower of Tests/Fixtures/dbus: a bus that is not there, a method call, a property signal.
/// (Notifications over the same wrapper: `ReminderBusTests`.)
@Suite("System: D-Bus", .serialized)
struct DBusTests {
    @Test func aBusThatIsNotThereIsNoBus() {
        do {
            _ = try DBusConnection(address: "unix:path=/nonexistent/snapsort-no-bus")
            Issue.record("connected to a bus that is not there")
        } catch {
            #expect(error.code == .noBus, "\(error)")
        }
    }

    @Test func aCallIsAnsweredAndAPropertyChangeArrives() throws {
        let bus = try PrivateBus(dir: TempDir("snapsort-dbus-system"))
        let upower = try FakeBusService("fake_upower.py", on: bus.address, arguments: ["on"])
        defer { upower.stop() }
        let c = try DBusConnection.system(address: bus.address)
        #expect(try c.onBattery())
        try c.listenForPowerChanges()
        #expect(try c.powerChanged() == false)
        try upower.command("battery off")
        // Wait on the bus's descriptor with a deadline: the signal is due at once.
        #expect(
            waitUntil {
                (try? c.powerChanged()) == true
            })
        #expect(try c.onBattery() == false)
    }

    @Test func aCallWithNoServiceOnTheBusFailsWithoutHanging() throws {
        let bus = try PrivateBus(dir: TempDir("snapsort-dbus-empty"))
        let c = try DBusConnection.system(address: bus.address, callTimeout: .seconds(5))
        #expect(throws: DBusError.self) { try c.onBattery() }
    }
}
