import Foundation
import SnapSortCore
import SnapSortSystem

/// The agent's part that says what it does: the status file (rewritten when its content
/// changes, at local midnight, and when it was removed), the services that show the same facts
/// (the tray), and systemd's `STATUS=` line. It keeps the state, the progress of the work, the
/// last error, and hides short bursts of work from idle (`quietWork`).
final class StatusPublisher {
    /// What the other parts know that the document shows, read at each refresh.
    struct Facts {
        var pausedUntil: Date?
        /// Why a service holds the analysis (on battery), nil when none does.
        var holdReason: String?
        var degraded: Bool
        var offlineRoots: [String]
        /// Changed files and folders waiting for a reconcile.
        var pending: Int
        var roots: Int
        var services: [AgentService]
        var configuration: Configuration
        /// The inotify queue overflowed and the reconcile of every root has not started yet:
        /// the agent knows it lost track, whatever it does now (`AgentState.reconciling`).
        var overflowed = false
        var isHeld: Bool { pausedUntil != nil || holdReason != nil }
    }

    let path: String
    private let library: Library
    private let options: AgentOptions
    private var logger: Logger { options.logger }
    private var now: Date { options.clock.now() }
    /// Called after each write with the state written (the agent's counters).
    private let wrote: (AgentState) -> Void

    /// What the agent does now (a short burst of work from idle is shown as the idle state).
    private(set) var state: AgentState = .starting
    /// The work's progress, while a reconcile analyzes.
    var progress: (done: Int, total: Int)?
    /// Files analyzed by the reconciles since the agent was last idle (`progress` adds to it).
    var burst: (done: Int, total: Int)?
    /// The files a catching-up reconcile (`AgentState.reconciling`) found to look at and has
    /// not analyzed yet: added to `pending`, the backlog the status says.
    var backlog = 0
    private(set) var lastError: String?
    /// Whether the document must be built again at the next refresh.
    var dirty = true
    /// The local midnight after the status file was last rebuilt.
    private(set) var dayEnds = Date.distantPast
    /// When the loop next checks that the status file is still there.
    private(set) var nextFileCheck = Date.distantPast
    static let fileCheckInterval: TimeInterval = 10
    /// The state in the file last written (nil: none yet).
    private(set) var writtenState: AgentState?
    /// Whether the last write of the status file succeeded (one that fails is not retried every check).
    private var fileWritten = false
    private var writeFailing = false
    private var lastContent = ""
    private var lastPublishedContent = ""
    private var lastLine = ""
    /// When the agent left idle for work, and the idle state it left (nil: it was starting).
    private var busySince: Date?
    private var idleBeforeWork: AgentState?
    /// The watch-limit note while it stands (`noteDegraded`).
    private var degradedNote: String?
    /// The library's counts, and the database's change mark they were counted under.
    private var counts: (mark: Library.ChangeMark, total: Int, analyzed: Int)?

    init(path: String, library: Library, options: AgentOptions, wrote: @escaping (AgentState) -> Void) {
        self.path = path
        self.library = library
        self.options = options
        self.wrote = wrote
    }

    /// The agent's state changes; leaving idle for work starts the `quietWork` clock.
    func publish(_ s: AgentState, facts: Facts) {
        if state != s { dirty = true }
        if s.isWork {
            if busySince == nil {
                busySince = now
                idleBeforeWork = state == .watching || state == .paused ? (facts.isHeld ? .paused : .watching) : nil
            }
        } else {
            busySince = nil
            idleBeforeWork = nil
        }
        state = s
    }

    /// The idle state after work: paused while held, else watching.
    func publishIdle(facts: Facts) { publish(facts.isHeld ? .paused : .watching, facts: facts) }

    /// The burst's count when the reconcile under way began, and what it analyzed so far.
    private var workBase: (done: Int, total: Int)?
    private var analyzedHere = 0
    /// The state a regroup interrupted, said again when it ends.
    private var beforeGrouping: AgentState = .starting

    /// What the reconciler's work said (`WorkReport`), as the status shows it. The agent's loop
    /// alone calls it.
    func record(_ report: WorkReport, facts: Facts) {
        switch report {
        case .scanning(let catchingUp):
            // Files arriving in batches (a copy of 500 files) are analyzed by several reconciles:
            // the count goes on from the earlier ones until the agent is idle, so a bar never
            // goes back (it went 173 of 214, then 9 of 265).
            let base = burst ?? (0, 0)
            workBase = base
            analyzedHere = 0
            progress = base
            publish(catchingUp ? .reconciling : .scanning, facts: facts)
            refresh(facts)
        case .progress(let phase, let done, let total, let catchingUp):
            let base = workBase ?? (0, 0)
            if phase == .analyzing {
                analyzedHere = done
                progress = (base.done + done, base.total + total)
                publish(catchingUp ? .reconciling : .analyzing, facts: facts)
            }
            if catchingUp {
                // Walking: the files found to look at so far; analyzing: those left.
                backlog = phase == .walking ? total : max(0, total - done)
                dirty = true
            }
        case .scanned:
            backlog = 0
        case .analyzed:
            let base = workBase ?? (0, 0)
            burst = (base.done + analyzedHere, base.total + analyzedHere)
            progress = nil
            dirty = true
            refresh(facts)
        case .grouping:
            // Done and total from the library (a reconcile that analyzed nothing left its
            // progress at 0 of 0).
            beforeGrouping = state
            progress = nil
            publish(.grouping, facts: facts)
            refresh(facts)
        case .groupingEnded:
            publish(beforeGrouping, facts: facts)
        case .libraryChanged:
            break
        case .idle:
            progress = nil
            publishIdle(facts: facts)
            dirty = true
            if let base = workBase {
                burst = (base.done + analyzedHere, base.total + analyzedHere)
                workBase = nil
            }
            backlog = 0
        case .changed:
            dirty = true
        case .failed(let message, let error):
            noteError(message, error)
        case .worksAgain(let prefix):
            clearError(startingWith: prefix)
        }
    }

    func noteError(_ message: String, _ error: Error) {
        logger.error(message, ["error": "\(error)"])
        lastError = "\(message): \(error)"
        dirty = true
    }

    /// Clears the last error when it starts with `prefix` (the failing step works again).
    func clearError(startingWith prefix: String) {
        if lastError?.hasPrefix(prefix) == true { lastError = nil }
        dirty = true
    }

    /// The watch-limit note: its count kept current, and gone once every folder is watched
    /// (after the limit was raised and a SIGHUP, or watches freed).
    func noteDegraded(unwatched: Int?, interval: TimeInterval) {
        let wasNoted = lastError == degradedNote
        guard let unwatched else {
            if wasNoted && degradedNote != nil {
                lastError = nil
                logger.notice("every folder is watched again")
            }
            degradedNote = nil
            dirty = true
            return
        }
        let msg =
            "inotify watch limit reached: \(unwatched) folder(s) are checked every \(Int(interval / 60)) min instead of watched; raise the limit with 'sudo sysctl fs.inotify.max_user_watches=524288' and send the agent SIGHUP (systemctl --user reload snapsort)"
        if msg != degradedNote { logger.warning(msg) }
        if lastError == nil || wasNoted { lastError = msg }
        degradedNote = msg
        dirty = true
    }

    /// Whether a watch-limit note stands.
    var isDegradedNoted: Bool { degradedNote != nil }

    /// The status file removed under the agent (its folder's `rm -rf`, a tmpfs cleaner): every
    /// bar said "stopped" until the document next changed. Looked at every `fileCheckInterval`.
    func checkFileIsThere(at t: Date) {
        guard t >= nextFileCheck else { return }
        nextFileCheck = t.addingTimeInterval(StatusPublisher.fileCheckInterval)
        if fileWritten && !FileSystem.exists(path) {
            logger.notice("the status file was gone; written again", ["status.file": path])
            dirty = true
            lastContent = ""
        }
    }

    /// The next midnight in the system's time zone (re-read: a laptop changes zones).
    static func nextLocalMidnight(after t: Date) -> Date {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone.current
        return cal.nextDate(after: t, matching: DateComponents(hour: 0, minute: 0, second: 0), matchingPolicy: .nextTime)
            ?? t.addingTimeInterval(86_400)
    }

    /// The document's agent part.
    func agentPart(_ facts: Facts) -> StatusDocument.Agent {
        var shown = (state == .watching || state == .starting) && facts.isHeld ? .paused : state
        // A short burst of work from idle (a photo or two from a phone's sync) is not shown:
        // the bars went watching → scanning → analyzing → grouping → watching for each photo.
        // Work that lasts shows once it has lasted `quietWork`. A lost queue is no burst.
        if state != .reconciling, let since = busySince, let idle = idleBeforeWork, now.timeIntervalSince(since) < options.quietWork {
            shown = idle
            dirty = true  // looked at again while the work goes on
        }
        // Said as soon as the overflow is read, before its reconcile begins (a reconcile or a
        // regroup under way finishes first): it said "watching", pending 0, while 20 000 files
        // waited (issue 40).
        if facts.overflowed && shown != .paused && shown != .stopping { shown = .reconciling }
        // While analyzing, the burst's count (see `Reconciler`): between two of its batches the
        // library's count showed ("Analyzing 19 of 19", "212 of 212", "20 of 425"), and a
        // bar's count went back and forth.
        let busy = shown == .analyzing || shown == .scanning || shown == .reconciling
        let (done, total) = progress.map { ($0.done, $0.total) } ?? (busy ? burst : nil) ?? itemCounts()
        let servicesProblem = facts.services.lazy.compactMap { s in s.problem.map { "\(s.name): \($0)" } }.first
        return StatusDocument.Agent(
            state: shown, pid: Int(ProcessInfo.processInfo.processIdentifier), done: done, total: total, degraded: facts.degraded,
            // Names for people (a byte that is no UTF-8 as U+FFFD): written raw, the document
            // was no UTF-8 and `snapsort status` and every bar read the agent as stopped.
            lastError: (lastError ?? servicesProblem).map(PathName.display),
            // The watch limit is the system's, and every folder is still looked at (some every
            // few minutes): a warning, as a missing notification server is, not a red error.
            lastErrorSeverity: lastError != nil && lastError != degradedNote ? "error" : "warning",
            offlineRoots: facts.offlineRoots.map(PathName.display), pending: facts.pending + backlog,
            // A timed pause's end (an open-ended one, until resumed, has none).
            pausedUntil: facts.pausedUntil.flatMap { $0 < Date.distantFuture ? $0 : nil })
    }

    /// Rebuilds the document and rewrites the status file when its content changed; at local
    /// midnight too, when today's numbers (goal, cleared today) turn over.
    func refresh(force: Bool = false, _ facts: Facts) {
        guard dirty || force || progress != nil || now >= dayEnds else { return }
        dirty = false
        dayEnds = StatusPublisher.nextLocalMidnight(after: now)
        let doc = options.providers.document(
            agent: agentPart(facts), inputs: StatusInputs(library: library, configuration: facts.configuration, now: now)
        ) { name, error in logger.warning("status provider failed", ["status.field": name, "error": "\(error)"]) }
        if doc.content != lastContent || force {
            write(doc)
        }
        // The services that show the facts (the tray) hear of a change once, whether or not
        // the file could be written.
        if doc.content != lastPublishedContent {
            lastPublishedContent = doc.content
            for s in facts.services { s.statusChanged(doc, now: now) }
        }
        let line = AgentState.serviceLine(doc.agent, roots: facts.roots, holdReason: facts.holdReason)
        if line != lastLine {
            lastLine = line
            options.notifier.send("STATUS=\(line)")
        }
    }

    /// The `STATUS=` line now.
    func serviceLine(_ facts: Facts) -> String {
        AgentState.serviceLine(agentPart(facts), roots: facts.roots, holdReason: facts.holdReason)
    }

    /// The last document, said as stopped with the library's counts.
    func writeStopped(_ facts: Facts) {
        state = .stopped
        var a = agentPart(facts)
        a.state = .stopped
        a.pid = nil
        (a.done, a.total) = itemCounts()
        write(options.providers.document(agent: a, inputs: StatusInputs(library: library, configuration: facts.configuration, now: now)))
    }

    /// The library's analyzed and total items, counted again only when the database changed
    /// (the document is rebuilt every few hundred milliseconds while the agent works).
    private func itemCounts() -> (analyzed: Int, total: Int) {
        guard let mark = try? library.changeMark() else { return (0, 0) }
        if let counts, counts.mark == mark { return (counts.analyzed, counts.total) }
        guard let c = try? library.itemCounts() else { return (0, 0) }
        counts = (mark, c.total, c.analyzed)
        return (c.analyzed, c.total)
    }

    private func write(_ doc: StatusDocument) {
        do {
            try FileSystem.makeDirectories(Agent.folder(of: path), mode: 0o700)
            try FileSystem.writeAtomically(path, Array((doc.json.serialized(pretty: true) + "\n").utf8))
            writtenState = doc.agent.state
            wrote(writtenState ?? .stopped)
            // Only a document on disk counts as written: one that failed (a full tmpfs, an
            // immutable file) is written again at the agent's next wake, where the bars kept
            // the old counts for good (review 8).
            lastContent = doc.content
            if !fileWritten && writeFailing { logger.notice("the status file is written again") }
            writeFailing = false
            fileWritten = true
        } catch {
            fileWritten = false
            dirty = true
            if !writeFailing { logger.error("cannot write the status file; trying again", ["error": "\(error)"]) }
            writeFailing = true
        }
    }
}
