import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortWeb

/// Something that lives in the agent's loop besides watching: the review page's server, the
/// reminders. The agent calls every method on its one thread, with its clock's `now`:
/// `start` once before `READY=1`; each loop turn it adds `descriptors` to the `poll` set and
/// `nextDeadline` to the timeout, and calls `fire` when the deadline passed or a descriptor is
/// readable; `configurationChanged` after a reload, `databaseChanged` after another process
/// wrote to the database; `stop` before `STOPPING=1` ends the loop. A service never throws into
/// the loop: it reports a `problem` (shown as the status file's `last_error`) and carries on.
public protocol AgentService: AnyObject {
    /// For logs: "web", "reminders".
    var name: String { get }
    func start(now: Date)
    var descriptors: [Int32] { get }
    func nextDeadline(now: Date) -> Date?
    func fire(now: Date, readable: [Int32])
    func configurationChanged(_ configuration: Configuration, now: Date)
    func databaseChanged(now: Date)
    func stop()
    /// Why the service does not fully work right now (nil: it does).
    var problem: String? { get }
    /// Why analysis should wait now (e.g. "on battery"); nil: it may run. Watching goes on.
    var holdReason: String? { get }
    /// An analysis service (tier 2) is not fired for its deadline while analysis is paused,
    /// held, or a reconcile runs.
    var isAnalysis: Bool { get }
    /// A reconcile changed the library (new or changed files analyzed, moves, removals).
    func reconciled(now: Date)
    /// When an analysis service gives back what it holds idle (the models' helpers) while
    /// analysis waits; nil: nothing to give back. `idle` is called once it passed.
    func idleDeadline(now: Date) -> Date?
    func idle(now: Date)
    /// The status document's content changed (what the status file and the bars show); also
    /// called once with the first document after `start`.
    func statusChanged(_ document: StatusDocument, now: Date)
}

extension AgentService {
    public func start(now: Date) {}
    public var descriptors: [Int32] { [] }
    public func nextDeadline(now: Date) -> Date? { nil }
    public func fire(now: Date, readable: [Int32]) {}
    public func configurationChanged(_ configuration: Configuration, now: Date) {}
    public func databaseChanged(now: Date) {}
    public func stop() {}
    public var problem: String? { nil }
    public var holdReason: String? { nil }
    public var isAnalysis: Bool { false }
    public func reconciled(now: Date) {}
    public func idleDeadline(now: Date) -> Date? { nil }
    public func idle(now: Date) {}
    public func statusChanged(_ document: StatusDocument, now: Date) {}
}

/// What a service factory gets from the agent.
public struct AgentServiceContext: Sendable {
    /// The agent's own connection (use it only from the agent's thread).
    public let library: Library
    public let configuration: Configuration
    public let dbPath: String
    public let env: Environment
    public let clock: Clock
    public let logger: Logger
}

/// The reminders (issue 8) in the agent's loop, plus `snapsort remind --now` through the
/// running agent: the CLI writes `remind_now_request` to the agent state and waits for
/// `remind_now_result`.
public final class ReminderAgentService: AgentService {
    public let service: ReminderService
    private let library: Library
    private var handledRequest: String?

    public init(_ service: ReminderService) {
        self.service = service
        self.library = service.library
        handledRequest = (try? library.agentState(ReminderAgentService.requestKey)) ?? nil
    }

    public static let requestKey = "remind_now_request"
    public static let resultKey = "remind_now_result"

    public var name: String { "reminders" }
    public func start(now: Date) { service.start(now: now) }
    public var descriptors: [Int32] { service.descriptors }
    public func nextDeadline(now: Date) -> Date? { service.nextDeadline(now: now) }
    public func fire(now: Date, readable: [Int32]) { service.fire(now: now, readable: readable) }
    public func configurationChanged(_ c: Configuration, now: Date) { service.configure(c, now: now) }
    public var problem: String? { service.problem }

    public func databaseChanged(now: Date) {
        answerRequest(now: now)
        service.checkAchievements(now: now)
    }

    /// Shows the reminder for a `snapsort remind --now` that asked through the database.
    private func answerRequest(now: Date) {
        guard let request = (try? library.agentState(ReminderAgentService.requestKey)) ?? nil, request != handledRequest else { return }
        handledRequest = request
        let result: String
        do {
            let id = try service.sendNow(now: now)
            result = "\(request) shown \(id)"
        } catch {
            result = "\(request) failed \(error)"
        }
        try? library.setAgentState(ReminderAgentService.resultKey, result, at: now)
    }
}

/// The review page (issue 7) served by the agent while it runs: started before `READY=1`,
/// stopped (and `web.json` removed) on shutdown. When it cannot start (no free port), the agent
/// keeps watching, says why in the status file, and tries again every few minutes.
public final class WebAgentService: AgentService {
    private var options: WebServer.Options
    public private(set) var server: WebServer?
    public private(set) var problem: String?
    private var retryAt: Date?
    private let logger: Logger
    public static let retryInterval: TimeInterval = 300

    public init(options: WebServer.Options) {
        self.options = options
        self.logger = options.logger
    }

    /// The live server for the agent's database and configuration.
    public convenience init(_ context: AgentServiceContext) {
        var o = WebServer.Options(dbPath: context.dbPath, config: context.configuration, env: context.env)
        o.clock = context.clock
        o.logger = context.logger
        self.init(options: o)
    }

    public var name: String { "web" }

    public func start(now: Date) { serve(now: now) }

    /// How often a running page checks that its `web.json` is still there.
    public static let infoCheckInterval: TimeInterval = 10
    private var infoCheckAt: Date?

    public func nextDeadline(now: Date) -> Date? { server == nil ? retryAt : infoCheckAt }

    public func fire(now: Date, readable: [Int32]) {
        if server == nil, let at = retryAt, at <= now { serve(now: now) }
        if let server, let at = infoCheckAt, at <= now {
            if server.restoreInfoIfMissing() { logger.notice("web.json was gone; written again") }
            infoCheckAt = now.addingTimeInterval(WebAgentService.infoCheckInterval)
        }
    }

    public func configurationChanged(_ configuration: Configuration, now: Date) {
        let portChanged = configuration.webPort != options.config.webPort
        options.config = configuration
        if portChanged || server == nil {
            server?.stop()
            server = nil
            serve(now: now)
        } else {
            server?.update(configuration: configuration)
        }
    }

    public func stop() {
        server?.stop()
        server = nil
    }

    private func serve(now: Date) {
        do {
            server = try WebServer.start(options)
            infoCheckAt = now.addingTimeInterval(WebAgentService.infoCheckInterval)
            if problem != nil { logger.notice("the review page is served again") }
            problem = nil
            retryAt = nil
        } catch {
            let message = "cannot serve the review page: \(error)"
            if problem != message { logger.warning(message) }
            problem = message
            retryAt = now.addingTimeInterval(WebAgentService.retryInterval)
        }
    }
}

/// `pause_on_battery = yes`: analysis waits while UPower says the machine runs on battery
/// (watching goes on, so nothing is missed; the queued work runs once it is on power again).
/// Reads `OnBattery` from the system bus at start and on every `PropertiesChanged`. Without
/// UPower the agent analyzes as usual and says why in `problem`.
public final class PowerAgentService: AgentService {
    private var enabled: Bool
    private let address: String?
    private let logger: Logger
    private var connection: DBusConnection?
    public private(set) var onBattery = false
    public private(set) var problem: String?

    /// `address`: the system bus to use (nil: the real one).
    public init(enabled: Bool, address: String? = nil, logger: Logger) {
        self.enabled = enabled
        self.address = address
        self.logger = logger
    }

    public var name: String { "power" }
    public var holdReason: String? { enabled && onBattery ? "on battery" : nil }
    public var descriptors: [Int32] { connection.map { [$0.fd] } ?? [] }

    public func start(now: Date) { if enabled { connect() } }

    public func fire(now: Date, readable: [Int32]) {
        guard let c = connection else { return }
        do {
            if try c.powerChanged() { read(c) }
        } catch {
            connection = nil
            onBattery = false
            note("lost the system bus: \(error)")
        }
    }

    public func configurationChanged(_ configuration: Configuration, now: Date) {
        guard configuration.pauseOnBattery != enabled else { return }
        enabled = configuration.pauseOnBattery
        if enabled {
            connect()
        } else {
            connection = nil
            onBattery = false
            problem = nil
        }
    }

    public func stop() { connection = nil }

    private func connect() {
        do {
            let c = try DBusConnection.system(address: address)
            try c.listenForPowerChanges()
            connection = c
            problem = nil
            read(c)
        } catch {
            note("cannot read the power state from UPower: \(error)")
        }
    }

    private func read(_ c: DBusConnection) {
        do {
            let now = try c.onBattery()
            if now != onBattery {
                logger.notice(now ? "on battery: analysis paused" : "on power: analysis resumes")
            }
            onBattery = now
            problem = nil
        } catch {
            note("cannot read the power state from UPower: \(error)")
        }
    }

    private func note(_ message: String) {
        if problem != message { logger.warning(message) }
        problem = message
    }
}

/// Tier 2 (issue 9) in the agent: the local models over photos that lack a current result, in
/// slices of about half a second between loop turns (events, signals and the watchdog are served
/// in between), not while analysis is paused or a reconcile runs. The helper runs at nice 10.
/// Without a helper or models it says so once (`snapsort groups` shows the groups unavailable)
/// and waits for the next change.
/// The helper holds its models (~160 MB: dlib's landmarks 72 MB, the classifier 50 MB), so it
/// ends once the models have had no work for `idleRelease` seconds — the pass over, or analysis
/// paused or held — and the next photo starts it again (~3 s of CPU to load the models). Kept
/// up, it stood beside an agent watching at 50 MB for as long as the agent ran.
public final class VisionAgentService: AgentService {
    private let models: ModelsStep
    private let logger: Logger
    /// The agent's clock: a slice's budget and the pacing's durations are measured on it.
    private let clock: Clock
    private var pending = true
    public private(set) var problem: String?
    /// How long one slice may run.
    public var slice: TimeInterval = 0.5
    /// When the sets the slices changed are regrouped (`RegroupPacing`).
    public var pacing = RegroupPacing()
    /// Set members changed by slices since the last regroup.
    private var unregrouped: Set<Int64> = []
    /// How many regroups the models pass ran (a tuning aid, and for the tests).
    public private(set) var regroups = 0
    /// Seconds (on the agent's clock) the helpers stay up after the models' last work: a folder
    /// copied in a few goes, or photos arriving from a sync, keep one helper.
    public var idleRelease: TimeInterval = 120
    /// When a slice last ran the models.
    private var lastWork: Date?

    /// The set members a slice changed and no regroup has seen yet, kept in the library until
    /// one has (space-separated ids): an agent stopped or killed before the regroup regroups
    /// them when it starts again (the models' results are stored; nothing else would notice).
    public static let unregroupedKey = "models_unregrouped"

    /// `parallel`: helpers side by side (the agent's workers); `clock`: the agent's
    /// (`AgentServiceContext.clock`).
    public init(library: Library, helper: VisionHelper, logger: Logger, clock: Clock, parallel: Int = 1) {
        models = ModelsStep(library: library, helper: helper, logger: logger, clock: clock)
        models.analyzer.parallel = max(1, parallel)
        self.logger = logger
        self.clock = clock
        if let kept = try? library.agentState(Self.unregroupedKey) {
            unregrouped = Set(kept.split(separator: " ").compactMap { Int64($0) })
        }
    }

    public var name: String { "models" }
    public var isAnalysis: Bool { true }
    public func nextDeadline(now: Date) -> Date? { pending ? now : idleDeadline(now: now) }
    public func reconciled(now: Date) { pending = true }
    public func stop() { models.analyzer.stopHelpers() }
    private var library: Library { models.analyzer.library }

    /// Whether a helper process runs now.
    public var helperRunning: Bool { models.analyzer.running }

    /// When the running helpers end if no work comes (nil: none runs).
    public func idleDeadline(now: Date) -> Date? {
        guard models.analyzer.running else { return nil }
        // A helper no slice started (none known) has had no work: it ends at once.
        return (lastWork ?? .distantPast).addingTimeInterval(idleRelease)
    }

    public func idle(now: Date) {
        guard let due = idleDeadline(now: now), due <= now else { return }
        models.analyzer.stopHelpers()
        logger.debug("the models' helper ended after \(Int(idleRelease)) s without work")
    }

    public func fire(now: Date, readable: [Int32]) {
        guard pending else { return idle(now: now) }
        let start = clock.now()
        defer { lastWork = clock.now() }
        let end = start.addingTimeInterval(slice)
        do {
            let s = try models.run(shouldStop: { [clock] in clock.now() > end }, limit: 256, regroup: false)
            pacing.worked(clock.now().timeIntervalSince(start))
            if !s.setMembersChanged.isSubset(of: unregrouped) {
                unregrouped.formUnion(s.setMembersChanged)
                try library.setAgentState(Self.unregroupedKey, unregrouped.sorted().map(String.init).joined(separator: " "), at: clock.now())
            }
            // Photos were looked at: maybe more wait. None: done until the next change.
            pending = s.available && s.analyzed + s.failed + s.skipped > 0
            if pacing.due(changes: !unregrouped.isEmpty, passOver: !pending) {
                let began = clock.now()
                try models.regroup(unregrouped)
                unregrouped = []
                try library.removeAgentState(Self.unregroupedKey)
                regroups += 1
                pacing.regrouped(cost: clock.now().timeIntervalSince(began))
            }
            problem = nil
        } catch {
            pending = false
            let message = "tier 2 failed: \(error)"
            if problem != message { logger.warning(message) }
            problem = message
        }
    }
}
