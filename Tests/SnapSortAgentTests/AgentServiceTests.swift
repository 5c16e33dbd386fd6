import Foundation
import Glibc
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import SnapSortWeb
import Synchronization
import Testing

@testable import SnapSortAgent

/// A service that records what the agent asks of it; its descriptor is a pipe the test writes.
final class ProbeService: AgentService, @unchecked Sendable {
    let name = "probe"
    private let calls = Mutex<[String]>([])
    let pipe: (read: Int32, write: Int32)
    var deadline: Date?
    /// Keeps a past deadline after firing (a service that never moves it).
    var keepsDeadline = false
    var problemText: String?
    /// How often the loop asked for the deadline: it does at each of its turns.
    private let asked = Mutex(0)
    var deadlineAsked: Int { asked.withLock { $0 } }

    init() {
        var fds: [Int32] = [0, 0]
        precondition(Glibc.pipe(&fds) == 0)
        _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
        pipe = (fds[0], fds[1])
    }
    deinit {
        close(pipe.read)
        close(pipe.write)
    }

    var log: [String] { calls.withLock { $0 } }
    func count(_ prefix: String) -> Int { log.filter { $0.hasPrefix(prefix) }.count }
    private func note(_ s: String) { calls.withLock { $0.append(s) } }

    func start(now: Date) { note("start") }
    var descriptors: [Int32] { [pipe.read] }
    func nextDeadline(now: Date) -> Date? {
        asked.withLock { $0 += 1 }
        return deadline
    }
    func fire(now: Date, readable: [Int32]) {
        if readable.contains(pipe.read) {
            var buf = [UInt8](repeating: 0, count: 64)
            while read(pipe.read, &buf, buf.count) > 0 {}
            note("fire:readable")
        } else {
            note("fire:deadline")
        }
        if let d = deadline, d <= now, !keepsDeadline { deadline = nil }
    }
    func configurationChanged(_ c: Configuration, now: Date) { note("config:\(c.sessionGoal)") }
    func databaseChanged(now: Date) { note("database") }
    func stop() { note("stop") }
    var problem: String? { problemText }
}

@Suite("Agent services", .serialized)
struct AgentServiceTests {
    /// The models' helper built beside the test binaries' `snapsort`.
    static var helperPath: String { (SnapsortBinary.path as NSString).deletingLastPathComponent + "/snapsort-vision" }

    /// The demo library written and scanned (tier 1), and how many photos it holds.
    static func scannedDemo() throws -> (TestLibrary, photos: Int64) {
        let t = try TestLibrary()
        try t.writeDemo(to: t.root)
        try t.scan()
        return (t, try t.library.db.scalar("SELECT count(*) FROM files WHERE status = 'ok' AND kind = 'photo'") ?? 0)
    }

    @Test("services start before READY, fire on their descriptors and deadlines, hear reloads and database writes, stop last")
    func lifecycle() throws {
        let probe = ProbeService()
        let (clock, time) = Clock.manual(Date(timeIntervalSince1970: 1_800_000_000))
        let h = try AgentHarness(tweak: {
            $0.clock = clock
            $0.services = { _ in [probe] }
        })
        h.start()
        #expect(h.waitIdle())
        #expect(probe.log.first == "start")

        // The descriptor is in the poll set.
        _ = write(probe.pipe.write, "x", 1)
        #expect(waitUntil { probe.count("fire:readable") == 1 })

        // A deadline on the injected clock: not before it is due, once when it is.
        probe.deadline = time.current.addingTimeInterval(30)
        // The loop turned after the wake (it asked for the deadline again), and did not fire.
        let asked = probe.deadlineAsked
        h.agent.wake()
        #expect(waitUntil { probe.deadlineAsked > asked })
        #expect(probe.count("fire:deadline") == 0)
        time.advance(31)
        h.agent.wake()
        #expect(waitUntil { probe.count("fire:deadline") == 1 })

        // Another process's write to the database.
        let other = try h.reader()
        try other.setAgentState("probe", "1", at: Date())
        // The agent looks 0.1 s (on its clock) after the write was noticed.
        let tick = {
            time.advance(0.2); h.agent.wake()
        }
        #expect(
            waitUntil {
                tick(); return probe.count("database") >= 1
            })

        // A configuration change (the agent reloads on a changed snapsort.conf).
        try FileSystem.makeDirectories(h.dir.at("config/snapsort"))
        try "session_goal = 40\n".write(toFile: h.dir.at("config/snapsort/snapsort.conf"), atomically: true, encoding: .utf8)
        #expect(
            waitUntil {
                tick(); return probe.log.contains("config:40")
            })

        // A problem shows in the status file's last_error.
        probe.problemText = "no session bus"
        try other.setAgentState("probe", "2", at: Date())
        #expect(
            waitUntil {
                tick(); return h.status()?["agent"]?["last_error"]?.stringValue == "probe: no session bus"
            })

        #expect(h.stop())
        #expect(probe.log.last == "stop")
    }

    @Test("a deadline that stays in the past does not spin the loop")
    func pastDeadlineDoesNotSpin() throws {
        let probe = ProbeService()
        let (clock, time) = Clock.manual(Date(timeIntervalSince1970: 1_800_000_000))
        let h = try AgentHarness(tweak: {
            $0.clock = clock
            $0.services = { _ in [probe] }
        })
        probe.deadline = Date(timeIntervalSince1970: 0)
        probe.keepsDeadline = true  // stuck in the past
        h.start()
        #expect(h.waitIdle())
        #expect(waitUntil { probe.count("fire:deadline") >= 1 })
        let fired = probe.count("fire:deadline")
        // Five wakes, each waited for (the loop asks for the deadline at every turn): a loop that
        // spun would turn thousands of times meanwhile and fire again on a clock that did not move.
        let askedBefore = probe.deadlineAsked
        for _ in 0..<5 {
            let asked = probe.deadlineAsked
            h.agent.wake()
            #expect(waitUntil { probe.deadlineAsked > asked })
        }
        let turns = probe.deadlineAsked - askedBefore
        #expect(turns <= 40, "the loop asked \(turns) times for 5 wakes")
        #expect(probe.count("fire:deadline") == fired, "fired again on a clock that did not move")
        // A second later on the agent's clock it fires once more.
        time.advance(1.5)
        h.agent.wake()
        #expect(waitUntil { probe.count("fire:deadline") == fired + 1 })
        #expect(h.stop())
    }

    /// The review page on a free loopback port, for the agent's database and configuration.
    static func page(_ c: AgentServiceContext, env: Environment) -> WebAgentService {
        var w = WebServer.Options(dbPath: c.dbPath, config: c.configuration, env: env)
        w.port = 0
        w.addresses = ["127.0.0.1"]
        return WebAgentService(options: w)
    }

    @Test("the agent serves the review page while it runs and removes web.json when it stops")
    func servesThePage() throws {
        var env: Environment?
        let h = try AgentHarness(tweak: { o in
            env = o.env
            o.services = { c in [Self.page(c, env: c.env)] }
        })
        h.start()
        #expect(h.waitIdle())
        let info = try #require(WebInfo.read(env!))
        #expect(WebClient.answers(info))
        let mode = try FileSystem.lstatus(WebInfo.path(env!)).mode & 0o777
        #expect(mode == 0o600)
        let anonymous = try LoopbackHTTP.request("GET", "/api/summary", port: info.port, headers: [])
        #expect(anonymous.status == 401)
        #expect(h.stop())
        #expect(WebInfo.read(env!) == nil)
        #expect(!WebClient.answers(info))
    }

    @Test("a page that cannot start leaves the agent watching, says why in the status file, and is retried")
    func pageRetried() throws {
        let (clock, time) = Clock.manual(Date(timeIntervalSince1970: 1_800_000_000))
        let dir = TempDir("snapsort-webrun")
        // web.json cannot be written while `snapsort` under the runtime folder is a file.
        let blocker = dir.write("snapsort", Array("not a folder".utf8))
        var webEnv: Environment?
        let h = try AgentHarness(tweak: { o in
            o.clock = clock
            var e = o.env
            e.variables["XDG_RUNTIME_DIR"] = dir.path
            webEnv = e
            o.services = { [e] c in [Self.page(c, env: e)] }
        })
        h.start()
        #expect(h.waitIdle())
        #expect(waitUntil { (h.status()?["agent"]?["last_error"]?.stringValue ?? "").hasPrefix("web: cannot serve the review page") })
        #expect(WebInfo.read(webEnv!) == nil)
        try FileManager.default.removeItem(atPath: blocker)
        time.advance(WebAgentService.retryInterval + 1)
        h.agent.wake()
        #expect(waitUntil { WebInfo.read(webEnv!).map(WebClient.answers) == true })
        #expect(waitUntil { h.status()?["agent"]?["last_error"]?.stringValue == nil })
        #expect(h.stop())
    }

    /// The runtime folder removed under a running agent (`rm -rf`, a tmpfs cleaner): the bars
    /// said "stopped" and `snapsort open` found no page until the agent restarted. Both files
    /// are written again within a check's interval (by the agent's clock).
    @Test("the status file and web.json come back when their folder is removed under the agent")
    func runtimeFilesComeBack() throws {
        let (clock, time) = Clock.manual(Date(timeIntervalSince1970: 1_800_000_000))
        var env: Environment?
        let h = try AgentHarness(tweak: { o in
            o.clock = clock
            env = o.env
            o.services = { c in [Self.page(c, env: c.env)] }
        })
        h.start()
        #expect(h.waitIdle())
        let info = try #require(WebInfo.read(env!))
        #expect(h.status()?["agent"]?["state"]?.stringValue == "watching")
        try FileManager.default.removeItem(atPath: h.dir.at("run/snapsort"))
        #expect(h.status() == nil && WebInfo.read(env!) == nil)
        time.advance(max(StatusPublisher.fileCheckInterval, WebAgentService.infoCheckInterval) + 1)
        h.agent.wake()
        #expect(waitUntil { h.status()?["agent"]?["state"]?.stringValue == "watching" })
        #expect(waitUntil { WebInfo.read(env!) == info })
        #expect(h.stop())
    }

    /// Today's numbers turn over at local midnight with nothing else happening: the bars said
    /// "Goal: 3/3 today" into the next day.
    @Test("the status file's day turns over at local midnight")
    func theStatusDayTurnsOverAtMidnight() throws {
        let midnight = StatusPublisher.nextLocalMidnight(after: Date(timeIntervalSince1970: 1_800_000_000))
        let (clock, time) = Clock.manual(midnight.addingTimeInterval(-300))
        let h = try AgentHarness(
            setup: { dir in dir.write("Pictures/a.jpg", photo(21)) },
            tweak: { o in o.clock = clock })
        h.start()
        #expect(h.waitIdle())
        let lib = try h.reader()
        let id = try #require(try h.live(lib)["\(h.root)/a.jpg"]?.id)
        try Review.decide(.keep, fileID: id, library: lib, clock: clock)
        // The agent looks at the database a moment (by its clock) after it sees the write.
        #expect(
            waitUntil {
                time.advance(0.05)
                h.agent.wake()
                return h.status()?["goal"]?["done_today"]?.intValue == 1
            }, "\(String(describing: h.status()?["goal"]))")
        #expect(clock.now() < midnight)
        time.advance(midnight.timeIntervalSince(clock.now()) + 1)
        h.agent.wake()
        #expect(waitUntil { h.status()?["goal"]?["done_today"]?.intValue == 0 }, "\(String(describing: h.status()?["goal"]))")
        #expect(h.stop())
    }

    @Test("a reminder due with no session bus: the agent keeps watching and says why in its log and status file")
    func reminderWithoutABus() throws {
        let utc = TimeZone(identifier: "UTC")!
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = utc
        let start = cal.date(from: DateComponents(year: 2026, month: 3, day: 2, hour: 18, minute: 59, second: 0))!
        let (clock, time) = Clock.manual(start)
        let logs = LogCapture()
        let h = try AgentHarness(
            setup: { dir in
                dir.write("config/snapsort/snapsort.conf", Array("reminder = daily\nreminder_time = 19:00\n".utf8))
            },
            tweak: { o in
                o.clock = clock
                o.services = { c in
                    let deps = ReminderDependencies(
                        timeZone: { utc }, facts: { ReminderFacts(awaitingReview: 3) }, logger: logs.logger(label: "reminders"))
                    let notifier = DesktopNotifier(address: "unix:path=/nonexistent/snapsort-test-bus", callTimeout: .seconds(1))
                    return [
                        ReminderAgentService(
                            ReminderService(
                                library: c.library, configuration: c.configuration, notifier: notifier,
                                dependencies: deps))
                    ]
                }
            })
        h.start()
        #expect(h.waitIdle())
        #expect(h.status()?["agent"]?["last_error"]?.stringValue == nil)
        let before = try #require(h.status()?["next_reminder"]?.stringValue)
        time.advance(61)
        h.agent.wake()
        #expect(waitUntil { (h.status()?["agent"]?["last_error"]?.stringValue ?? "").hasPrefix("reminders: cannot show a notification") })
        #expect(h.status()?["agent"]?["last_error_severity"]?.stringValue == "warning")  // a warning on the bars, not an alarm
        #expect(logs.messages.contains { $0.contains("tried again every ten minutes") })
        #expect(h.agent.isIdle)
        // Delivered (and failed) once, not retried in a loop: tried again ten minutes later.
        let after = try #require(h.status()?["next_reminder"]?.stringValue)
        #expect(after > before)
        #expect(h.stop())
    }

    @Test("tier 2 runs in the agent: a new photo of a person lands in People without a scan")
    func modelsInTheAgent() throws {
        let helperPath = Self.helperPath
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Fixtures/vision/astronaut.jpg").standardized.path
        let h = try AgentHarness(tweak: { o in
            o.services = { c in
                [VisionAgentService(library: c.library, helper: VisionHelper(executable: helperPath), logger: c.logger, clock: c.clock)]
            }
        })
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        h.dir.write("Pictures/astronaut.jpg", try FileSystem.readFile(fixture, limit: 1 << 22))
        let lib = try h.reader()
        let people = {
            (try? lib.db.scalar("SELECT v.people_faces FROM vision v JOIN files f ON f.id = v.file_id WHERE f.path LIKE '%/astronaut.jpg'")) ?? nil
        }
        #expect(waitUntil(timeout: 60) { (people() ?? 0) >= 1 })
        #expect(h.waitIdle())
    }

    /// The models pass regroups the sets it changed once it ends (and meanwhile every
    /// `RegroupPacing` interval), not after every slice: a regroup reads every file's row, and on
    /// 100 000 files in sets one per half-second slice took nine tenths of the pass. The members
    /// waiting for it are kept in the library, so an agent stopped before regroups them when it
    /// starts again.
    @Test func theModelsPassRegroupsItsSetsOnceAndAfterARestart() throws {
        let helperPath = Self.helperPath
        let (t, _) = try Self.scannedDemo()
        try Grouper(library: t.library).regroupAll()
        let members = try t.library.similarGroups().flatMap(\.members).count
        #expect(members >= 4, "the demo's sets: the case under test")
        // A clock that moves a hundredth of a second at each read: a slice's budget is spent
        // after its first photo, whatever the host's speed, and the pass's work stays far below
        // the pacing's 30 s (so the regroups counted are the pass's end's only).
        let (clock, _) = Clock.ticking(Date(timeIntervalSince1970: 1_800_000_000), step: 0.01)
        func service() -> VisionAgentService {
            let s = VisionAgentService(library: t.library, helper: VisionHelper(executable: helperPath), logger: .silent, clock: clock)
            s.slice = 0.001  // a photo a slice
            return s
        }
        // The first agent does three slices and is stopped: nothing regrouped yet, the members
        // its slices changed kept.
        let first = service()
        for _ in 0..<3 { first.fire(now: Date(), readable: []) }
        first.stop()
        #expect(first.problem == nil)
        #expect(first.regroups == 0)
        let seen = try t.library.db.scalar("SELECT count(*) FROM vision") ?? 0
        let kept = try #require(try t.library.agentState(VisionAgentService.unregroupedKey), "\(seen) looked at")
        #expect(!kept.isEmpty)
        // The next one finishes the pass and regroups once, the kept members with its own.
        let second = service()
        defer { second.stop() }
        var slices = 0
        while second.nextDeadline(now: Date()) != nil && slices < 500 {
            second.fire(now: Date(), readable: [])
            slices += 1
        }
        #expect(second.problem == nil)
        #expect(slices > 3, "a pass of several slices")
        #expect(second.regroups == 1)
        #expect(try t.library.agentState(VisionAgentService.unregroupedKey) == nil)
        #expect(try t.library.db.scalar("SELECT count(*) FROM vision") ?? 0 >= Int64(members))
    }

    /// A models slice spends its budget on the agent's clock (so a test drives it, and the pace
    /// is the clock's, not the wall's): on a clock that moves 400 s at each read, a 1000 s slice
    /// is over after a few photos, however fast the host; its work is counted for the regroup
    /// pacing in the clock's seconds. On a clock that stands still, one slice takes every
    /// photo. Read from the wall clock, the first slice would take every photo and count
    /// milliseconds of work.
    @Test func aModelsSliceSpendsItsBudgetOnTheAgentsClock() throws {
        let helperPath = Self.helperPath
        let (t, photos) = try Self.scannedDemo()
        #expect(photos > 3, "more photos than a slice of the ticking clock takes: the case under test")
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let looked = { try t.library.db.scalar("SELECT count(*) FROM vision") ?? 0 }

        let (ticking, _) = Clock.ticking(start, step: 400)
        let sliced = VisionAgentService(library: t.library, helper: VisionHelper(executable: helperPath), logger: .silent, clock: ticking)
        sliced.slice = 1000
        sliced.pacing = RegroupPacing(minimumWork: 1e9)  // no regroup: the slice's work stays counted
        sliced.fire(now: start, readable: [])
        sliced.stop()
        #expect(sliced.problem == nil)
        let first = try looked()
        #expect((1...3).contains(first), "\(first) of \(photos) photos in a slice of three clock reads")
        #expect(sliced.pacing.workSince >= 1000, "the slice's work in the clock's seconds")
        #expect(sliced.nextDeadline(now: start) != nil, "photos left for the next slice")

        let (frozen, _) = Clock.manual(start)
        let whole = VisionAgentService(library: t.library, helper: VisionHelper(executable: helperPath), logger: .silent, clock: frozen)
        defer { whole.stop() }
        whole.slice = 0.5
        whole.fire(now: start, readable: [])
        #expect(whole.problem == nil)
        #expect(try looked() == photos, "a clock that stands still never ends the slice")
        #expect(whole.pacing.workSince == 0)
    }

    /// The models' helper holds ~160 MB of models: it ends once the models have had no work for
    /// `idleRelease` seconds of the agent's clock, and a new photo starts it again. Before, it
    /// stood beside the watching agent for as long as the agent ran.
    @Test func theModelsHelperEndsWhenIdleAndANewPhotoStartsItAgain() throws {
        let helperPath = Self.helperPath
        let (t, photos) = try Self.scannedDemo()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let (clock, time) = Clock.manual(start)
        let helper = VisionHelper(executable: helperPath)
        let service = VisionAgentService(library: t.library, helper: helper, logger: .silent, clock: clock)
        defer { service.stop() }
        var now = start
        var turns = 0
        while let d = service.nextDeadline(now: now), d <= now, turns < 20 {
            service.fire(now: now, readable: [])
            turns += 1
        }
        #expect(service.problem == nil)
        let looked = { try t.library.db.scalar("SELECT count(*) FROM vision") ?? 0 }
        #expect(try looked() == photos, "the pass is over")
        let pid = try #require(helper.processID)
        #expect(kill(pid, 0) == 0, "the helper is up after the pass")
        #expect(service.nextDeadline(now: now) == start.addingTimeInterval(service.idleRelease))

        now = start.addingTimeInterval(service.idleRelease - 1)
        time.set(now)
        service.fire(now: now, readable: [])
        #expect(service.helperRunning, "not idle long enough")
        now = start.addingTimeInterval(service.idleRelease)
        time.set(now)
        service.fire(now: now, readable: [])
        #expect(!service.helperRunning)
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "the helper process ended and was reaped")
        #expect(service.nextDeadline(now: now) == nil, "nothing left to wait for")

        // A new photo: the helper starts again and looks at it.
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Fixtures/vision/astronaut.jpg").standardized.path
        try FileManager.default.copyItem(atPath: fixture, toPath: t.root + "/astronaut.jpg")
        try t.scan()
        service.reconciled(now: now)
        turns = 0
        while let d = service.nextDeadline(now: now), d <= now, turns < 20 {
            service.fire(now: now, readable: [])
            turns += 1
        }
        #expect(service.problem == nil)
        #expect(try looked() == photos + 1)
        #expect(service.helperRunning)
        #expect(helper.starts == 2)
        #expect(
            try t.library.db.scalar(
                "SELECT v.people_faces FROM vision v JOIN files f ON f.id = v.file_id WHERE f.path LIKE '%/astronaut.jpg'") ?? 0 >= 1)
    }

    /// A helper that dies between two slices (a crash on a hostile photo, the OOM killer) is
    /// started again by the next slice and the pass goes on. Before, the next slice's pass took
    /// the models for unavailable (`start` answered for the dead child) and stopped until the
    /// next change.
    @Test func aHelperThatDiesBetweenSlicesIsStartedAgainAndThePassGoesOn() throws {
        let helperPath = Self.helperPath
        let (t, photos) = try Self.scannedDemo()
        #expect(photos > 4, "several slices: the case under test")
        let (clock, _) = Clock.ticking(Date(timeIntervalSince1970: 1_800_000_000), step: 0.01)
        let helper = VisionHelper(executable: helperPath)
        let service = VisionAgentService(library: t.library, helper: helper, logger: .silent, clock: clock)
        defer { service.stop() }
        service.slice = 0.001  // a photo a slice
        service.fire(now: Date(), readable: [])
        let pid = try #require(helper.processID)
        #expect(kill(pid, SIGKILL) == 0)
        var slices = 1
        while service.nextDeadline(now: Date()).map({ $0 <= Date() }) ?? false, slices < 200 {
            service.fire(now: Date(), readable: [])
            slices += 1
        }
        #expect(service.problem == nil)
        #expect(helper.starts == 2, "started again once")
        let failed = try t.library.db.scalar("SELECT count(*) FROM vision WHERE status = 'failed'") ?? 0
        let looked = try t.library.db.scalar("SELECT count(*) FROM vision") ?? 0
        #expect(failed <= 1, "only the photo sent to the dead helper")
        #expect(looked == photos, "every photo looked at: \(looked) of \(photos), \(failed) failed")
    }

    /// While analysis waits (paused, on battery, a reconcile), an analysis service is not fired
    /// for its work, but what it holds idle is still given back at its idle deadline, and the
    /// loop wakes for that deadline.
    @Test func anAnalysisServiceGivesBackWhatItHoldsWhileAnalysisWaits() throws {
        final class Holder: AgentService {
            let name = "holder"
            var isAnalysis: Bool { true }
            var idleAt: Date?
            var fired = 0, idled = 0
            func nextDeadline(now: Date) -> Date? { now }
            func fire(now: Date, readable: [Int32]) { fired += 1 }
            func idleDeadline(now: Date) -> Date? { idleAt }
            func idle(now: Date) {
                idled += 1
                idleAt = nil
            }
        }
        let t = try TestLibrary()
        let holder = Holder()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        holder.idleAt = start.addingTimeInterval(120)
        let runner = ServiceRunner(logger: .silent)
        let context = AgentServiceContext(
            library: t.library, configuration: Configuration(), dbPath: t.dbPath, env: Environment(variables: [:]),
            clock: Clock.manual(start).0, logger: .silent)
        runner.start({ _ in [holder] }, context: context, now: start)
        #expect(runner.deadlines(now: start, analysisMayRun: false) == [start.addingTimeInterval(120)], "the loop wakes for it")
        _ = runner.fire(ready: [], now: start.addingTimeInterval(60), analysisMayRun: false)
        #expect(holder.fired == 0 && holder.idled == 0)
        _ = runner.fire(ready: [], now: start.addingTimeInterval(120), analysisMayRun: false)
        #expect(holder.fired == 0, "no work while analysis waits")
        #expect(holder.idled == 1)
        #expect(runner.deadlines(now: start.addingTimeInterval(121), analysisMayRun: false).isEmpty)
        _ = runner.fire(ready: [], now: start.addingTimeInterval(130), analysisMayRun: true)
        #expect(holder.fired == 1, "analysis may run again: its work goes on")
    }

    @Test("snapsort remind --now through the running agent: the request in the database is answered once")
    func remindThroughAgent() throws {
        let notifier = AgentRecordingNotifier()
        let h = try AgentHarness(tweak: { o in
            o.services = { c in
                [
                    ReminderAgentService(
                        ReminderService(
                            library: c.library, configuration: c.configuration, notifier: notifier,
                            dependencies: ReminderDependencies(
                                page: ReviewPage(url: { "http://127.0.0.1:9/#deck=" + $0 }, open: { _, _ in }), logger: c.logger)))
                ]
            }
        })
        h.start()
        #expect(h.waitIdle())
        let cli = try h.reader()
        try cli.setAgentState(ReminderAgentService.requestKey, "r1", at: Date())
        #expect(waitUntil { ((try? cli.agentState(ReminderAgentService.resultKey)) ?? nil) == "r1 shown 1" })
        #expect(notifier.shown.count == 1)
        #expect(notifier.shown.first?.actions.map(\.0) == ["default", "start", "later"])
        // An unrelated write does not repeat it: once the agent heard of it, still one.
        let heard = h.agent.counters.databaseChanges
        try cli.setAgentState("something", "else", at: Date())
        #expect(waitUntil { h.agent.counters.databaseChanges > heard })
        #expect(notifier.shown.count == 1)
        // A failing notification server: the answer says why.
        notifier.failure = DBusError(.noBus, "no session bus")
        try cli.setAgentState(ReminderAgentService.requestKey, "r2", at: Date())
        #expect(waitUntil { ((try? cli.agentState(ReminderAgentService.resultKey)) ?? nil)?.hasPrefix("r2 failed") == true })
        #expect(h.agent.isIdle)
        #expect(h.stop())
    }
}

/// Records notifications (the agent tests' copy of the core tests' fake).
final class AgentRecordingNotifier: ReminderNotifier, @unchecked Sendable {
    private let box = Mutex<([DesktopNotification], DBusError?)>(([], nil))
    var shown: [DesktopNotification] { box.withLock { $0.0 } }
    var failure: DBusError? {
        get { box.withLock { $0.1 } }
        set { box.withLock { $0.1 = newValue } }
    }
    func show(_ n: DesktopNotification) throws -> UInt32 {
        try box.withLock { b in
            if let f = b.1 { throw f }
            b.0.append(n)
            return UInt32(b.0.count)
        }
    }
    var fd: Int32? { nil }
    func signals() -> [NotificationSignal] { [] }
}
