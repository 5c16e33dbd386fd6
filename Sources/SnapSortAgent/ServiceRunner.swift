import Foundation
import SnapSortCore

/// The agent's part that runs its services (the review page, the reminders, the tray, the
/// power state, the local models): started before READY, fired when their deadline passes or
/// their descriptors are readable, told of the library's and the configuration's changes,
/// stopped last. The analysis services wait while the analysis may not run.
final class ServiceRunner {
    private(set) var services: [AgentService] = []
    /// When each last fired: a deadline that stays in the past after firing must not spin the loop.
    private var firedAt: [Date?] = []
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// Makes and starts the services.
    func start(_ make: (AgentServiceContext) -> [AgentService], context: AgentServiceContext, now t: Date) {
        services = make(context)
        firedAt = Array(repeating: nil, count: services.count)
        for s in services {
            s.start(now: t)
            if let p = s.problem { logger.warning("\(s.name) not available", ["error": p]) }
        }
    }

    /// Why a service holds analysis now (on battery), nil when none does.
    var holdReason: String? { services.lazy.compactMap(\.holdReason).first }

    /// The descriptors the loop polls for the services.
    var descriptors: [Int32] { services.flatMap(\.descriptors) }

    /// The services' next deadlines (the analysis ones only when `analysisMayRun`, else when
    /// they give back what they hold idle).
    func deadlines(now t: Date, analysisMayRun: Bool) -> [Date] {
        var out: [Date] = []
        for (i, s) in services.enumerated() {
            if s.isAnalysis && !analysisMayRun {
                if let d = s.idleDeadline(now: t) { out.append(d) }
                continue
            }
            guard var d = s.nextDeadline(now: t) else { continue }
            if let fired = firedAt[i], d <= fired { d = fired.addingTimeInterval(1) }
            out.append(d)
        }
        return out
    }

    /// What firing the services changed.
    struct Fired {
        /// A service's deadline, problem or hold changed: the status shows it.
        var statusChanged = false
        /// A service began to hold the analysis (the work under way stops).
        var holdBegan = false
    }

    /// Fires each service whose deadline passed or whose descriptors are readable.
    func fire(ready: [Int32], now t: Date, analysisMayRun: Bool) -> Fired {
        var out = Fired()
        for (i, s) in services.enumerated() {
            let mine = ready.filter { s.descriptors.contains($0) }
            if s.isAnalysis && !analysisMayRun && mine.isEmpty {
                // Waiting, it still gives back what it holds idle.
                if let d = s.idleDeadline(now: t), d <= t { s.idle(now: t) }
                continue
            }
            let due = s.nextDeadline(now: t).map { d in d <= t && firedAt[i].map { d > $0 || t.timeIntervalSince($0) >= 1 } ?? true } ?? false
            guard due || !mine.isEmpty else { continue }
            firedAt[i] = t
            let before = (s.problem, s.holdReason, s.nextDeadline(now: t))
            s.fire(now: t, readable: mine)
            // A service whose deadline moved (a reminder shown or snoozed: the next reminder)
            // or whose problem changed shows so in the document.
            if s.problem != before.0 || s.holdReason != before.1 || s.nextDeadline(now: t) != before.2 { out.statusChanged = true }
            if s.holdReason != nil && before.1 == nil { out.holdBegan = true }
        }
        return out
    }

    func reconciled(now t: Date) { for s in services { s.reconciled(now: t) } }
    func databaseChanged(now t: Date) { for s in services { s.databaseChanged(now: t) } }
    func configurationChanged(_ c: Configuration, now t: Date) { for s in services { s.configurationChanged(c, now: t) } }
    func stop() { for s in services { s.stop() } }
}
