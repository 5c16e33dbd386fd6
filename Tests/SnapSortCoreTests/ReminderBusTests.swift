import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Testing

/// Against a real `dbus-daemon` with the fake notification server on it.
@Suite("Reminder D-Bus", .serialized)
struct ReminderBusTests {
    static let tz = TimeZone(identifier: "Europe/Stockholm")!

    @Test("Notify carries susssasa{sv}i: app, icon, actions, hints, replaces_id")
    func notifyArguments() throws {
        let bus = try NotificationBus()
        let c = try DBusConnection(address: bus.address)
        #expect(try c.notificationCapabilities().contains("actions"))
        let n = DesktopNotification(
            appName: "SnapSort", icon: "image-x-generic", summary: "Time for a short SnapSort session", body: "23 similar shots",
            actions: [("default", "Open SnapSort"), ("start", "Start a session"), ("later", "Later")],
            urgency: .normal, category: "reminder", desktopEntry: "snapsort")
        let id = try c.notify(n)
        #expect(id != 0)
        var again = n
        again.replacesID = id
        #expect(try c.notify(again) == id)
        #expect(bus.waitForCalls("Notify", count: 2))
        let calls = bus.calls("Notify")
        let first = calls[0]
        #expect(first["signature"] as? String == "susssasa{sv}i")
        #expect(first["app_name"] as? String == "SnapSort")
        #expect(first["icon"] as? String == "image-x-generic")
        #expect(first["summary"] as? String == "Time for a short SnapSort session")
        #expect(first["body"] as? String == "23 similar shots")
        #expect(first["actions"] as? [String] == ["default", "Open SnapSort", "start", "Start a session", "later", "Later"])
        let hints = try #require(first["hints"] as? [String: [Any]])
        #expect(hints["urgency"]?[0] as? String == "y" && hints["urgency"]?[1] as? Int == 1)
        #expect(hints["category"]?[1] as? String == "reminder")
        #expect(hints["desktop-entry"]?[1] as? String == "snapsort")
        #expect(first["expire_timeout"] as? Int == -1)
        #expect(first["replaces_id"] as? Int == 0)
        #expect(calls[1]["replaces_id"] as? Int == Int(id))
    }

    @Test("ActionInvoked and NotificationClosed arrive as signals")
    func signals() throws {
        let bus = try NotificationBus()
        let c = try DBusConnection(address: bus.address)
        try c.listenForNotificationSignals()
        let id = try c.notify(DesktopNotification(appName: "SnapSort", summary: "s"))
        try bus.command("action \(id) start")
        try bus.command("activate \(id) default wl-token-1")
        try bus.command("close \(id) 2")
        var got: [NotificationSignal] = []
        let deadline = Date().addingTimeInterval(10)
        while got.count < 4 && Date() < deadline { got += try c.waitForSignals(timeout: .seconds(1)) }
        #expect(
            got == [
                .actionInvoked(id: id, action: "start"), .activationToken(id: id, token: "wl-token-1"),
                .actionInvoked(id: id, action: "default"), .closed(id: id, reason: 2),
            ])
        // The same signal from another client of the bus (not the notification server) is not ours.
        let forged = Process()
        forged.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-send")
        forged.arguments = [
            "--bus=" + bus.address, "--type=signal", "/org/freedesktop/Notifications", "org.freedesktop.Notifications.ActionInvoked",
            "uint32:\(id)", "string:start",
        ]
        try forged.run()
        forged.waitUntilExit()
        #expect(forged.terminationStatus == 0)
        try bus.command("close \(id) 1")
        var after: [NotificationSignal] = []
        let end = Date().addingTimeInterval(10)
        while !after.contains(.closed(id: id, reason: 1)) && Date() < end { after += try c.waitForSignals(timeout: .seconds(1)) }
        #expect(after == [.closed(id: id, reason: 1)], "\(after)")
    }

    /// A service on the real bus, with an opener that records.
    static func service(
        _ bus: NotificationBus, lib: TestLibrary, inputs: ReminderInputs, logs: LogCapture,
        timeout: Duration = .seconds(3)
    ) -> ReminderService {
        var config = Configuration()
        config.reminder = "daily"
        config.quietHours = nil
        let deps = ReminderDependencies(
            timeZone: { tz }, progress: { inputs.progress }, facts: { ReminderFacts(similarShots: 2, bytesToFree: 5_000_000, awaitingReview: 2) },
            deck: { "group:similar" },
            page: ReviewPage(
                url: { "http://127.0.0.1:9/?token=x#deck=" + $0 },
                open: { url, token in
                    inputs.opened.append(url)
                    inputs.activationTokens.append(token)
                }),
            logger: logs.logger(label: "reminders"))
        return ReminderService(
            library: lib.library, configuration: config,
            notifier: DesktopNotifier(address: bus.address, callTimeout: timeout), dependencies: deps)
    }

    /// Runs the service's loop turn until `condition` holds (polling its descriptors, like the agent).
    static func loop(_ s: ReminderService, now: Date, until condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while !condition() && Date() < deadline {
            let ready = (try? Poll.readable(s.descriptors, timeoutMs: 200)) ?? []
            s.fire(now: now, readable: ready)
        }
        return condition()
    }

    @Test("a reminder over the bus: Start a session opens the page; Later snoozes; closed ends the wait")
    func service() throws {
        let bus = try NotificationBus()
        let lib = try TestLibrary()
        let inputs = ReminderInputs()
        let logs = LogCapture()
        let s = ReminderBusTests.service(bus, lib: lib, inputs: inputs, logs: logs)
        let day = Wall.date("2026-06-10 10:00", ReminderBusTests.tz)
        s.start(now: day)
        let at = Wall.date("2026-06-10 19:00", ReminderBusTests.tz)
        s.fire(now: at)
        #expect(bus.waitForCalls("Notify", count: 1))
        let id = try #require(s.activeNotification)
        #expect(bus.calls("Notify")[0]["actions"] as? [String] == ["default", "Open SnapSort", "start", "Start a session", "later", "Later"])
        // SnapSort's own icon, as the packages install it (review 8: a generic picture icon).
        #expect(bus.calls("Notify")[0]["icon"] as? String == "snapsort")

        // A server that sends an activation token first (spec 1.2; GNOME Shell, KDE, mako):
        // the browser is started with it, so its window may take the focus.
        try bus.command("activate \(id) start xdg-token-42")
        #expect(ReminderBusTests.loop(s, now: at) { inputs.opened.count == 1 })
        #expect(inputs.opened == ["http://127.0.0.1:9/?token=x#deck=group:similar"])
        #expect(inputs.activationTokens == ["xdg-token-42"])
        // Not "opened": the opener says which one ran (review 8: "opened" was claimed).
        #expect(logs.messages.contains { $0.contains("opening the review page") }, "\(logs.messages)")

        // A token is good for its action only: the next action without one opens without.
        try bus.command("action \(id) default")
        #expect(ReminderBusTests.loop(s, now: at) { inputs.opened.count == 2 })
        #expect(inputs.activationTokens == ["xdg-token-42", nil])

        try bus.command("action \(id) later")
        #expect(ReminderBusTests.loop(s, now: at) { s.state.snoozedUntil != nil })
        #expect(s.nextDeadline(now: at) == at.addingTimeInterval(3600))
        s.fire(now: at.addingTimeInterval(3600))
        #expect(bus.waitForCalls("Notify", count: 2))
        #expect(bus.calls("Notify")[1]["replaces_id"] as? Int == Int(id))

        try bus.command("close \(id) 2")
        #expect(ReminderBusTests.loop(s, now: at) { s.activeNotification == nil })
    }

    /// `remind --now --wait` without an agent (review 7, F7): its "Later" adds a snooze to the
    /// schedule as it stands. It saved a fresh state, and the agent's next start showed the
    /// reminder at once for a slot long past; `remind --next` then printed a past time.
    /// No review page running (an agent with --no-web): the reminder offers no "Start a
    /// session" that would do nothing, and says how to start one (review 7, F8).
    @Test("without the review page a reminder says how to start a session")
    func withoutThePage() throws {
        let bus = try NotificationBus()
        let lib = try TestLibrary()
        var config = Configuration()
        config.reminder = "daily"
        config.quietHours = nil
        let deps = ReminderDependencies(
            timeZone: { ReminderBusTests.tz }, facts: { ReminderFacts(similarShots: 2, awaitingReview: 2) }, page: .none,
            logger: LogCapture().logger(label: "r"))
        let s = ReminderService(library: lib.library, configuration: config, notifier: DesktopNotifier(address: bus.address), dependencies: deps)
        s.isOneShot = true
        s.loadState(now: Date())
        _ = try s.sendNow(now: Date())
        #expect(bus.waitForCalls("Notify", count: 1))
        let call = bus.calls("Notify")[0]
        #expect(call["actions"] as? [String] == ["later", "Later"])
        #expect((call["body"] as? String)?.contains("'snapsort review'") == true, "\(String(describing: call["body"]))")
    }

    @Test("Later on a one-shot reminder snoozes it and keeps the schedule")
    func oneShotLater() throws {
        let bus = try NotificationBus()
        let lib = try TestLibrary()
        let inputs = ReminderInputs()
        let tz = ReminderBusTests.tz
        // The agent ran once on the 10th (its schedule starts there), then stopped.
        let agent = ReminderBusTests.service(bus, lib: lib, inputs: inputs, logs: LogCapture())
        agent.start(now: Wall.date("2026-06-10 10:00", tz))
        // Later that day, before the 19:00 reminder: `remind --now --wait`, and "Later".
        let now = Wall.date("2026-06-10 12:00", tz)
        let oneShot = ReminderBusTests.service(bus, lib: lib, inputs: inputs, logs: LogCapture())
        oneShot.isOneShot = true
        oneShot.loadState(now: now)
        let id = try oneShot.sendNow(now: now)
        try bus.command("action \(id) later")
        #expect(ReminderBusTests.loop(oneShot, now: now) { oneShot.state.snoozedUntil != nil })
        var config = Configuration()
        config.reminder = "daily"
        config.quietHours = nil
        // The snooze, then the schedule's 19:00: nothing due before the snooze ends.
        #expect(ReminderService.nextReminder(library: lib.library, configuration: config, now: now, timeZone: tz) == now.addingTimeInterval(3600))
        let restarted = ReminderBusTests.service(bus, lib: lib, inputs: inputs, logs: LogCapture())
        restarted.start(now: now.addingTimeInterval(60))
        #expect(restarted.nextDeadline(now: now.addingTimeInterval(60)) == now.addingTimeInterval(3600))
        // A snooze that ran out with no agent to deliver it is due now, never "then".
        let later = now.addingTimeInterval(3 * 3600)
        #expect(ReminderService.nextReminder(library: lib.library, configuration: config, now: later, timeZone: tz) == later)
    }

    @Test("a server without the actions capability gets no actions")
    func noActions() throws {
        let bus = try NotificationBus()
        try bus.command("caps body")
        let notifier = DesktopNotifier(address: bus.address)
        _ = try notifier.show(DesktopNotification(appName: "SnapSort", summary: "s", actions: [("start", "Start a session")]))
        #expect(notifier.supportsActions == false)
        #expect(bus.waitForCalls("Notify", count: 1))
        #expect(bus.calls("Notify")[0]["actions"] as? [String] == [])
    }

    /// A reminder service of `reminder` cadence (no quiet hours, one photo waiting) on `notifier`.
    static func plainService(_ lib: TestLibrary, _ logs: LogCapture, reminder: String, notifier: DesktopNotifier) -> ReminderService {
        let deps = ReminderDependencies(
            timeZone: { ReminderBusTests.tz }, facts: { ReminderFacts(awaitingReview: 1) }, logger: logs.logger(label: "reminders"))
        var config = Configuration()
        config.reminder = reminder
        config.quietHours = nil
        return ReminderService(library: lib.library, configuration: config, notifier: notifier, dependencies: deps)
    }

    @Test("no session bus: the service keeps running, says so once, and tries again in ten minutes")
    func noBus() throws {
        let lib = try TestLibrary()
        let logs = LogCapture()
        let s = Self.plainService(lib, logs, reminder: "daily", notifier: DesktopNotifier(address: "unix:path=" + lib.dir.at("no-such-bus")))
        s.start(now: Wall.date("2026-06-10 10:00", ReminderBusTests.tz))
        s.fire(now: Wall.date("2026-06-10 19:00", ReminderBusTests.tz))
        s.fire(now: Wall.date("2026-06-11 19:00", ReminderBusTests.tz))
        #expect(s.problem?.contains("session bus") == true)
        #expect(logs.messages.filter { $0.contains("cannot show a notification") }.count == 1)
        // Tried again in ten minutes, not a day later (review 8).
        #expect(s.nextDeadline(now: Wall.date("2026-06-11 19:00", ReminderBusTests.tz)) == Wall.date("2026-06-11 19:10", ReminderBusTests.tz))
    }

    /// A reminder that found no notification server is shown once one runs (ten minutes later
    /// at most), and the problem goes: it waited a whole cadence, the bars' ⚠ with it (review 8).
    @Test func aReminderNoServerShowedIsShownOnceOneRuns() throws {
        let bus = try NotificationBus(withServer: false)
        let lib = try TestLibrary()
        let s = Self.plainService(lib, LogCapture(), reminder: "weekly", notifier: DesktopNotifier(address: bus.address))
        let start = Wall.date("2026-06-10 10:00", ReminderBusTests.tz)
        s.start(now: start)
        let due = try #require(s.nextDeadline(now: start))
        s.fire(now: due)
        #expect(s.problem != nil && s.state.lastOutcome == "failed")
        try bus.startServer()
        let retry = try #require(s.nextDeadline(now: due))
        #expect(retry == due.addingTimeInterval(600), "\(retry) \(due)")
        s.fire(now: retry)
        #expect(bus.waitForCalls("Notify", count: 1))
        #expect(s.problem == nil && s.state.lastOutcome == "shown")
        // And then the weekly schedule again.
        #expect(try #require(s.nextDeadline(now: retry)) > retry.addingTimeInterval(6 * 86_400))
    }

    @Test("a bus without a notification server: noServer, quickly; a server started later is used")
    func noServer() throws {
        let bus = try NotificationBus(withServer: false)
        let notifier = DesktopNotifier(address: bus.address)
        let started = Date()
        #expect(throws: DBusError.self) { try notifier.show(DesktopNotification(appName: "SnapSort", summary: "s")) }
        do { _ = try notifier.show(DesktopNotification(appName: "SnapSort", summary: "s")) } catch let e as DBusError {
            #expect(e.code == .noServer)
            // Said in words first, the bus's own text after (review 7, F9).
            #expect(e.explained.hasPrefix("no notification server is running (dunst, mako"), "\(e.explained)")
        }
        #expect(Date().timeIntervalSince(started) < 3)
        try bus.startServer()
        #expect(try notifier.show(DesktopNotification(appName: "SnapSort", summary: "s")) != 0)
    }

    @Test("a server that does not answer: the call times out instead of hanging")
    func timeout() throws {
        let bus = try NotificationBus()
        try bus.command("hang on")
        let c = try DBusConnection(address: bus.address, callTimeout: .milliseconds(500))
        let started = Date()
        do {
            _ = try c.notify(DesktopNotification(appName: "SnapSort", summary: "s"))
            Issue.record("expected a timeout")
        } catch {
            #expect(error.code == .timeout)
        }
        #expect(Date().timeIntervalSince(started) < 3)
        try bus.command("hang off")
        #expect(try c.notify(DesktopNotification(appName: "SnapSort", summary: "s")) != 0)
    }
}

@Suite("Reminder timer")
struct ReminderTimerTests {
    @Test("the wall-clock timer fires at its deadline and can be re-armed or disarmed")
    func fires() throws {
        let t = try RealtimeTimer()
        try t.arm(at: Date().addingTimeInterval(0.05))
        #expect(try Poll.readable([t.fd], timeoutMs: 5000) == [t.fd])
        #expect(t.read() == .expired)
        try t.arm(at: Date().addingTimeInterval(3600))
        #expect(try Poll.readable([t.fd], timeoutMs: 0).isEmpty)
        try t.arm(at: nil)
        #expect(try Poll.readable([t.fd], timeoutMs: 0).isEmpty)
        try t.arm(at: Date().addingTimeInterval(-10))
        #expect(try Poll.readable([t.fd], timeoutMs: 5000) == [t.fd])
        #expect(t.read() == .expired)
    }
}
