import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Synchronization
import Testing

/// A notifier that records what it shows; can fail, and can deliver signals.
final class RecordingNotifier: ReminderNotifier, @unchecked Sendable {
    var shown: [DesktopNotification] = []
    var failure: DBusError?
    var pending: [NotificationSignal] = []
    private var nextID: UInt32 = 1

    func show(_ n: DesktopNotification) throws -> UInt32 {
        if let failure { throw failure }
        shown.append(n)
        if n.replacesID != 0 { return n.replacesID }
        defer { nextID += 1 }
        return nextID
    }

    var fd: Int32? { nil }

    func signals() -> [NotificationSignal] {
        defer { pending = [] }
        return pending
    }
}

/// Mutable inputs for the service's injected closures.
final class ReminderInputs: @unchecked Sendable {
    var progress: ReminderProgress? = ReminderProgress(reviewedToday: 0, sessionGoal: 25)
    var awaitingReview = 163
    var milestones: [String] = []
    var opened: [String] = []
    var activationTokens: [String?] = []
    var tz = TimeZone(identifier: "Europe/Stockholm")!
}

@Suite("Reminder service")
struct ReminderServiceTests {
    static let tz = TimeZone(identifier: "Europe/Stockholm")!

    struct Harness {
        let lib: TestLibrary
        let notifier = RecordingNotifier()
        let inputs = ReminderInputs()
        let logs = LogCapture()
        var config = Configuration()

        init(_ configure: (inout Configuration) -> Void = { _ in }) throws {
            lib = try TestLibrary()
            config.reminder = "daily"
            config.reminderTime = "19:00"
            config.quietHours = "22:00-08:00"
            configure(&config)
        }

        /// A new service on the same library (an agent start).
        func service() -> ReminderService {
            let inputs = self.inputs
            let deps = ReminderDependencies(
                timeZone: { inputs.tz }, progress: { inputs.progress },
                facts: {
                    ReminderFacts(
                        similarShots: 23, screenshots: 140, bytesToFree: 1_200_000_000, awaitingReview: inputs.awaitingReview, streakDays: 6)
                },
                milestones: { inputs.milestones }, deck: { "group:similar" },
                page: ReviewPage(url: { "http://127.0.0.1:8765/?token=t#deck=" + $0 }, open: { url, _ in inputs.opened.append(url) }),
                logger: logs.logger(label: "reminders"))
            return ReminderService(library: lib.library, configuration: config, notifier: notifier, dependencies: deps)
        }
    }

    static func at(_ s: String) -> Date { Wall.date(s, tz) }

    @Test("a reminder opens the page with its token, and not a page whose server is gone")
    func reviewPageURL() throws {
        let dir = TempDir("snapsort-web")
        let env = Environment(variables: ["HOME": dir.path, "XDG_RUNTIME_DIR": dir.path], home: dir.path)
        func info(pid: Int32) {
            dir.write("snapsort/web.json", Array(#"{"url": "http://127.0.0.1:5555/", "port": 5555, "token": "t0k", "pid": \#(pid)}"#.utf8))
        }
        info(pid: getpid())
        #expect(ReviewPage.webURL(env, deck: "group:blurry") == "http://127.0.0.1:5555/?token=t0k#deck=group:blurry")
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        info(pid: gone.processIdentifier)
        #expect(ReviewPage.webURL(env, deck: "later") == nil)
    }

    @Test("with two libraries served, a reminder opens its own library's page, never the other's")
    func reviewPageOfTheLibrary() throws {
        let dir = TempDir("snapsort-web2")
        let env = Environment(variables: ["HOME": dir.path, "XDG_RUNTIME_DIR": dir.path], home: dir.path)
        func page(_ path: String, port: Int, database: String?) {
            let db = database.map { #", "database": "\#($0)""# } ?? ""
            let text = #"{"url": "http://127.0.0.1:\#(port)/", "port": \#(port), "token": "t\#(port)", "pid": \#(getpid())\#(db)}"#
            dir.write(String(path.dropFirst(dir.path.count + 1)), Array(text.utf8))
        }
        // B's page started last: web.json names it; A's page is in A's own file.
        page(LibraryFiles.sharedWebInfo(env), port: 6002, database: "/libs/b.sqlite3")
        page(LibraryFiles(database: "/libs/a.sqlite3").webInfo(env), port: 6001, database: "/libs/a.sqlite3")
        page(LibraryFiles(database: "/libs/b.sqlite3").webInfo(env), port: 6002, database: "/libs/b.sqlite3")
        #expect(ReviewPage.webURL(env, deck: "later", database: "/libs/a.sqlite3") == "http://127.0.0.1:6001/?token=t6001#deck=later")
        #expect(ReviewPage.webURL(env, deck: "later", database: "/libs/b.sqlite3") == "http://127.0.0.1:6002/?token=t6002#deck=later")
        // A library with no page of its own: web.json serves another one, so nothing opens.
        #expect(ReviewPage.webURL(env, deck: "later", database: "/libs/c.sqlite3") == nil)
        // A web.json written before pages named their library still opens.
        page(LibraryFiles.sharedWebInfo(env), port: 6003, database: nil)
        #expect(ReviewPage.webURL(env, deck: "later", database: "/libs/c.sqlite3") == "http://127.0.0.1:6003/?token=t6003#deck=later")
    }

    @Test("Start a session opens a real deck: the later stack when it has items, else a rediscovery deck")
    func startDeck() throws {
        let lib = try TestLibrary()
        lib.dir.write("Pictures/a.jpg", Fixtures.jpeg(seed: 61, width: 64, height: 48))
        lib.dir.write("Pictures/b.jpg", Fixtures.jpeg(seed: 62, width: 64, height: 48))
        try lib.scan()
        let (clock, time) = Clock.manual(Date(timeIntervalSince1970: 1_800_000_000))
        let first = ReminderDependencies.standardDeck(library: lib.library, clock: clock)
        #expect(first.hasPrefix("rediscover:"))
        #expect(DeckID(first) != nil)
        let id = try #require(try lib.library.item(path: lib.root + "/a.jpg")).id
        try Review.decide(.later, fileID: id, library: lib.library, clock: clock)
        time.advance(8 * 86_400)  // past the 7-day cool-down
        #expect(ReminderDependencies.standardDeck(library: lib.library, clock: clock) == "later")
    }

    @Test("a daily reminder is shown at its time, once, with the real numbers")
    func daily() throws {
        let h = try Harness()
        let s = h.service()
        s.start(now: Self.at("2026-06-10 10:00"))
        #expect(s.nextDeadline(now: Self.at("2026-06-10 10:00")) == Self.at("2026-06-10 19:00"))
        s.fire(now: Self.at("2026-06-10 18:59"))
        #expect(h.notifier.shown.isEmpty)
        s.fire(now: Self.at("2026-06-10 19:00"))
        s.fire(now: Self.at("2026-06-10 19:01"))
        #expect(h.notifier.shown.count == 1)
        let n = try #require(h.notifier.shown.first)
        #expect(n.appName == "SnapSort")
        #expect(n.body.contains("23 similar shots and 140 screenshots — about 1.2 GB to free"))
        #expect(n.body.contains("Day 6 of your streak"))
        #expect(n.actions.map(\.key) == ["default", "start", "later"])
        #expect(n.actions[1].label == "Start a session" && n.actions[2].label == "Later")
        #expect(n.desktopEntry == "snapsort" && n.urgency == .normal && n.category != nil)
        #expect(s.nextDeadline(now: Self.at("2026-06-10 19:01")) == Self.at("2026-06-11 19:00"))
        #expect(try h.lib.library.reminderState()?.lastOutcome == "shown")
    }

    @Test("a reminder missed while the agent was stopped comes once at the next start, never twice")
    func missedWhileOff() throws {
        let h = try Harness {
            $0.reminder = "weekly"; $0.reminderWeekday = "mon"
        }
        var s = h.service()
        s.start(now: Self.at("2026-06-05 12:00"))  // a Friday
        // Stopped over the weekend and Monday; started again on Wednesday.
        s = h.service()
        s.start(now: Self.at("2026-06-10 09:00"))
        #expect(s.nextDeadline(now: Self.at("2026-06-10 09:00")) == Self.at("2026-06-10 09:00"))
        s.fire(now: Self.at("2026-06-10 09:00"))
        #expect(h.notifier.shown.count == 1)
        // Another restart the same day: nothing again.
        s = h.service()
        s.start(now: Self.at("2026-06-10 09:05"))
        s.fire(now: Self.at("2026-06-10 09:05"))
        #expect(h.notifier.shown.count == 1)
        #expect(s.nextDeadline(now: Self.at("2026-06-10 09:05")) == Self.at("2026-06-15 19:00"))
        // Two weeks off: still one reminder.
        s = h.service()
        s.start(now: Self.at("2026-06-30 10:00"))
        s.fire(now: Self.at("2026-06-30 10:00"))
        s.fire(now: Self.at("2026-06-30 10:01"))
        #expect(h.notifier.shown.count == 2)
    }

    @Test("the first start does not count earlier slots as missed")
    func firstStart() throws {
        let h = try Harness()
        let s = h.service()
        s.start(now: Self.at("2026-06-10 20:00"))
        s.fire(now: Self.at("2026-06-10 20:00"))
        #expect(h.notifier.shown.isEmpty)
    }

    @Test("missed during quiet hours: delivered when they end")
    func missedInQuietHours() throws {
        let h = try Harness()
        var s = h.service()
        s.start(now: Self.at("2026-06-10 12:00"))
        s = h.service()
        s.start(now: Self.at("2026-06-10 23:30"))
        s.fire(now: Self.at("2026-06-10 23:30"))
        #expect(h.notifier.shown.isEmpty)
        #expect(s.nextDeadline(now: Self.at("2026-06-10 23:30")) == Self.at("2026-06-11 08:00"))
        s.fire(now: Self.at("2026-06-11 08:00"))
        #expect(h.notifier.shown.count == 1)
    }

    @Test("no nagging: skipped when today's goal is reached, or (daily) anything was reviewed")
    func noNag() throws {
        let h = try Harness()
        let s = h.service()
        s.start(now: Self.at("2026-06-10 10:00"))
        h.inputs.progress = ReminderProgress(reviewedToday: 25, sessionGoal: 25)
        s.fire(now: Self.at("2026-06-10 19:00"))
        #expect(h.notifier.shown.isEmpty)
        #expect(try h.lib.library.reminderState()?.lastOutcome == "skipped-goal")
        h.inputs.progress = ReminderProgress(reviewedToday: 3, sessionGoal: 25)
        s.fire(now: Self.at("2026-06-11 19:00"))
        #expect(h.notifier.shown.isEmpty)
        #expect(try h.lib.library.reminderState()?.lastOutcome == "skipped-reviewed")
        h.inputs.progress = ReminderProgress(reviewedToday: 0, sessionGoal: 25)
        s.fire(now: Self.at("2026-06-12 19:00"))
        #expect(h.notifier.shown.count == 1)
        // Everything decided (kept or staged): no nudge towards an empty deck.
        h.inputs.awaitingReview = 0
        s.fire(now: Self.at("2026-06-13 19:00"))
        #expect(h.notifier.shown.count == 1)
        #expect(try h.lib.library.reminderState()?.lastOutcome == "skipped-nothing-waiting")
    }

    /// What the reminder says waits is what still waits: kept items and overlapping groups do not
    /// count, each file's bytes once (the groups' totals made more than the whole library).
    @Test("the reminder's numbers count undecided clutter, each file once")
    func waitingClutterCountsEachUndecidedFileOnce() throws {
        let lib = try ReviewFixture.scanned(["a.jpg", "b.jpg", "c.jpg", "d.jpg"])
        let ids = try ["a.jpg", "b.jpg", "c.jpg", "d.jpg"].map { try #require(try lib.library.item(path: lib.root + "/" + $0)).id }
        let size = try ids.map { try #require(try lib.library.item(id: $0)).bytes }
        // As a regroup would store them: a and b one set (a the keeper, b also blurry), c a
        // screenshot, d only heavy (no clutter).
        try lib.library.db.run("DELETE FROM similar_sets")
        try lib.library.db.run("DELETE FROM group_members")
        try lib.library.db.run("INSERT INTO similar_sets(file_id, set_key, keeper) VALUES(?,1,1),(?,1,0)", ids[0], ids[1])
        try lib.library.db.run(
            "INSERT INTO group_members(group_id, file_id, score) VALUES('similar',?,0),('similar',?,0),('blurry',?,1),('screenshot',?,0),('heavy',?,0)",
            ids[0], ids[1], ids[1], ids[2], ids[3])
        let clock = Clock.manual(Self.at("2026-06-10 10:00")).0
        var w = try Decks.waitingClutter(library: lib.library, clock: clock)
        #expect(w.similarShots == 2 && w.screenshots == 1 && w.bytes == size[1] + size[2], "\(w)")
        try Review.decide(.keep, fileID: ids[1], library: lib.library, clock: clock)
        try Review.decide(.trash, fileID: ids[2], library: lib.library, clock: clock)
        w = try Decks.waitingClutter(library: lib.library, clock: clock)
        #expect(w.similarShots == 1 && w.screenshots == 0 && w.bytes == 0, "\(w)")
    }

    @Test("weekly: reviewing a little today does not skip; reaching the goal does")
    func noNagWeekly() throws {
        let h = try Harness {
            $0.reminder = "weekly"; $0.reminderWeekday = "wed"
        }
        let s = h.service()
        s.start(now: Self.at("2026-06-09 10:00"))
        h.inputs.progress = ReminderProgress(reviewedToday: 3, sessionGoal: 25)
        s.fire(now: Self.at("2026-06-10 19:00"))
        #expect(h.notifier.shown.count == 1)
        h.inputs.progress = ReminderProgress(reviewedToday: 30, sessionGoal: 25)
        s.fire(now: Self.at("2026-06-17 19:00"))
        #expect(h.notifier.shown.count == 1)
    }

    @Test("Later snoozes by an hour and the reminder comes back, replacing the first")
    func snooze() throws {
        let h = try Harness()
        let s = h.service()
        s.start(now: Self.at("2026-06-10 10:00"))
        s.fire(now: Self.at("2026-06-10 19:00"))
        let id = try #require(s.activeNotification)
        h.notifier.pending = [.actionInvoked(id: id, action: "later")]
        s.fire(now: Self.at("2026-06-10 19:02"))
        #expect(s.nextDeadline(now: Self.at("2026-06-10 19:02")) == Self.at("2026-06-10 20:02"))
        s.fire(now: Self.at("2026-06-10 20:01"))
        #expect(h.notifier.shown.count == 1)
        s.fire(now: Self.at("2026-06-10 20:02"))
        #expect(h.notifier.shown.count == 2)
        #expect(h.notifier.shown[1].replacesID == id)
        // Closed: the next one starts fresh.
        h.notifier.pending = [.closed(id: id, reason: 2)]
        s.fire(now: Self.at("2026-06-10 20:03"))
        #expect(s.activeNotification == nil)
        s.fire(now: Self.at("2026-06-11 19:00"))
        #expect(h.notifier.shown[2].replacesID == 0)
    }

    @Test("a snooze survives a restart; one into quiet hours waits for their end")
    func snoozePersistsAndQuiet() throws {
        let h = try Harness()
        var s = h.service()
        s.start(now: Self.at("2026-06-10 10:00"))
        s.fire(now: Self.at("2026-06-10 21:30"))
        let id = try #require(s.activeNotification)
        h.notifier.pending = [.actionInvoked(id: id, action: "later")]
        s.fire(now: Self.at("2026-06-10 21:31"))
        s = h.service()
        s.start(now: Self.at("2026-06-10 21:40"))
        #expect(s.nextDeadline(now: Self.at("2026-06-10 21:40")) == Self.at("2026-06-11 08:00"))
        s.fire(now: Self.at("2026-06-10 22:31"))
        #expect(h.notifier.shown.count == 1)
        s.fire(now: Self.at("2026-06-11 08:00"))
        #expect(h.notifier.shown.count == 2)
    }

    @Test("Start a session opens the review page on the deck; other ids are ignored")
    func startSession() throws {
        let h = try Harness()
        let s = h.service()
        s.start(now: Self.at("2026-06-10 10:00"))
        s.fire(now: Self.at("2026-06-10 19:00"))
        let id = try #require(s.activeNotification)
        h.notifier.pending = [.actionInvoked(id: id + 100, action: "start"), .actionInvoked(id: id, action: "start")]
        s.fire(now: Self.at("2026-06-10 19:01"))
        #expect(h.inputs.opened == ["http://127.0.0.1:8765/?token=t#deck=group:similar"])
    }

    @Test("no notification server: logged once, retried every ten minutes, then works again")
    func failures() throws {
        let h = try Harness()
        let s = h.service()
        s.start(now: Self.at("2026-06-10 10:00"))
        h.notifier.failure = DBusError(.noBus, "cannot connect to the session bus: No such file or directory")
        s.fire(now: Self.at("2026-06-10 19:00"))
        s.fire(now: Self.at("2026-06-10 19:05"))
        #expect(s.problem?.contains("session bus") == true)
        #expect(try h.lib.library.reminderState()?.lastOutcome == "failed")
        // Tried again in ten minutes, not a whole cadence later (review 8).
        #expect(s.nextDeadline(now: Self.at("2026-06-10 19:05")) == Self.at("2026-06-10 19:10"))
        s.fire(now: Self.at("2026-06-10 19:10"))
        s.fire(now: Self.at("2026-06-11 19:00"))
        #expect(h.logs.messages.filter { $0.contains("cannot show a notification") }.count == 1)
        h.notifier.failure = nil
        s.fire(now: Self.at("2026-06-12 19:00"))
        #expect(h.notifier.shown.count == 1)
        #expect(s.problem == nil)
    }

    @Test("remind --now bypasses cadence, quiet hours and the no-nag rule")
    func now() throws {
        let h = try Harness { $0.reminder = "off" }
        let s = h.service()
        s.start(now: Self.at("2026-06-10 23:00"))
        h.inputs.progress = ReminderProgress(reviewedToday: 100, sessionGoal: 25)
        #expect(s.nextDeadline(now: Self.at("2026-06-10 23:00")) == nil)
        try s.sendNow(now: Self.at("2026-06-10 23:00"))
        #expect(h.notifier.shown.count == 1)
    }

    @Test("milestones and the goal are announced once each, one at a time; off by configuration")
    func achievements() throws {
        let h = try Harness()
        h.inputs.milestones = ["reviewed_100"]
        let s = h.service()
        s.start(now: Self.at("2026-06-10 10:00"))
        s.checkAchievements(now: Self.at("2026-06-10 10:01"))
        #expect(h.notifier.shown.isEmpty)  // reached before the first start
        h.inputs.milestones = ["reviewed_100", "cleared_1gb", "streak_7"]
        s.checkAchievements(now: Self.at("2026-06-10 10:02"))
        #expect(h.notifier.shown.map(\.summary) == ["Milestone: a 7-day streak"])
        s.checkAchievements(now: Self.at("2026-06-10 10:03"))
        #expect(h.notifier.shown.count == 1)
        h.inputs.progress = ReminderProgress(reviewedToday: 25, sessionGoal: 25)
        s.checkAchievements(now: Self.at("2026-06-10 10:04"))
        s.checkAchievements(now: Self.at("2026-06-10 10:05"))
        #expect(h.notifier.shown.map(\.summary).last == "Today's goal reached")
        #expect(h.notifier.shown.count == 2)
        #expect(h.notifier.shown[1].replacesID == 1)  // replaces the milestone
        var off = h.config
        off.milestoneNotifications = false
        s.configure(off, now: Self.at("2026-06-11 10:00"))
        s.checkAchievements(now: Self.at("2026-06-11 10:00"))
        #expect(h.notifier.shown.count == 2)
    }

    @Test("a time-zone change moves the next reminder to 19:00 in the new zone")
    func zoneChange() throws {
        let h = try Harness()
        let s = h.service()
        let now = Wall.utc("2026-06-10T12:00:00Z")
        s.start(now: now)
        #expect(s.nextDeadline(now: now) == Wall.utc("2026-06-10T17:00:00Z"))
        h.inputs.tz = TimeZone(identifier: "America/New_York")!
        #expect(s.nextDeadline(now: now) == Wall.utc("2026-06-10T23:00:00Z"))
    }

    @Test("next reminder without a running service (status file, remind --next)")
    func staticNext() throws {
        let h = try Harness()
        let next = ReminderService.nextReminder(
            library: h.lib.library, configuration: h.config,
            now: Self.at("2026-06-10 10:00"), timeZone: Self.tz)
        #expect(next == Self.at("2026-06-10 19:00"))
    }
}
