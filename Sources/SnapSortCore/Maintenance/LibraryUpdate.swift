import Foundation
import SnapSortSystem

/// The one use case "bring the library up to date", as `snapsort scan`, the agent and every
/// other front end run it: scan (under the scan lock, `ScanLock`) → notice the photos put back
/// from the Trash → regroup what changed → the local models (tier 2). Progress and stops are
/// values the caller passes in (`progress`, `checkpoint`); the front ends only show them.
public final class LibraryUpdate: @unchecked Sendable {
    /// Which steps run after the scan's fast metrics.
    public struct Steps: Sendable, Equatable {
        /// The scanner's workers read documents (OCR) and QR codes right after each file's
        /// analysis, and a scan that changed something is followed by a regroup
        /// (`snapsort scan --no-groups`: neither, the next update does both).
        public var groups: Bool
        /// The local models: the vision helper verifies the Similar Shots pairs the thumbnails
        /// reject (`FrameMatcher`), and `runModels` looks at faces and classes
        /// (`--no-models`: neither).
        public var models: Bool

        public init(groups: Bool = true, models: Bool = true) {
            self.groups = groups
            self.models = models
        }

        /// Every step.
        public static let all = Steps()
    }

    /// The regroup step: given the library, whether the models may verify pairs, and the
    /// checkpoint to call between its parts (it throws `Grouper.Cancelled` to stop). The
    /// standard one is `Grouper`'s; a test puts in a slow or endless one to see the agent serve
    /// its loop around it.
    public typealias Regroup = @Sendable (Library, _ models: Bool, _ checkpoint: @escaping () throws -> Void) throws -> Void

    public let library: Library
    public var steps: Steps
    public var clock: Clock
    public var logger: Logger
    public var regroup: Regroup

    public init(
        library: Library, steps: Steps = .all, clock: Clock = .live, logger: Logger = .silent,
        regroup: @escaping Regroup = LibraryUpdate.standardRegroup
    ) {
        self.library = library
        self.steps = steps
        self.clock = clock
        self.logger = logger
        self.regroup = regroup
    }

    /// A scanner for this update: the front end's rules, workers and roots; the content checks
    /// (OCR, QR) on its workers when the groups step runs.
    public func makeScanner(rules: ExcludeRules, workers: Int, roots: Set<String>? = nil) -> LibraryScanner {
        let scanner = LibraryScanner(library: library, rules: rules, clock: clock, logger: logger, workers: workers)
        scanner.roots = roots
        if steps.groups { scanner.inspector = .live }
        return scanner
    }

    /// What the steps after a scan did.
    public struct Followup: Sendable, Equatable {
        /// Photos put back from the Trash by a file manager, noticed (their trash decisions cleared).
        public var restoresNoticed = 0
        /// Whether the library was regrouped.
        public var regrouped = false
    }

    /// The steps after a scan that was not cancelled: the restores from the Trash are noticed
    /// (not while a commit or a restore holds the trash lock when `waitForTrashLock` is false:
    /// the agent's loop never waits on one, the next update notices), then the library is
    /// regrouped if the scan changed something (`regroupIfPending`).
    public func afterScan(waitForTrashLock: Bool = true, checkpoint: @escaping () throws -> Void = {}) throws -> Followup {
        var out = Followup()
        out.restoresNoticed = try noticeRestores(waitForTrashLock: waitForTrashLock)
        out.regrouped = try regroupIfPending(checkpoint: checkpoint)
        return out
    }

    /// The photos put back from the Trash by a file manager, noticed (their trash decisions
    /// cleared): the first step of `afterScan`. Returns how many.
    @discardableResult
    public func noticeRestores(waitForTrashLock: Bool = true) throws -> Int {
        let n = try Trash.noticeRestores(library: library, clock: clock, waitForLock: waitForTrashLock)
        if n > 0 { logger.info("restores from the Trash noticed", ["trash.restored": "\(n)"]) }
        return n
    }

    /// Whether the last scans changed something the groups have not seen yet, or the groups
    /// were made under rules this version changed (an upgrade regroups once).
    public func regroupPending() throws -> Bool {
        try library.agentState(LibraryScanner.regroupPendingKey) != nil || Grouper(library: library).rulesChanged()
    }

    /// Regroups when `regroupPending` (and the groups step runs), and clears the scanner's
    /// "regroup pending" mark once done. An unchanged library (nothing added, changed, moved or
    /// gone since the last regroup) is not regrouped: a rescan of 100 000 unchanged files stays
    /// a walk of `stat`s. Throws `Grouper.Cancelled` from the checkpoint; the mark then stays.
    @discardableResult
    public func regroupIfPending(checkpoint: @escaping () throws -> Void = {}) throws -> Bool {
        guard steps.groups, try regroupPending() else { return false }
        // The scan's freed buffers (kept in the heap for the next photo, `Memory`) and the OCR
        // engines its workers started (~18 MB each; the workers read every page they found)
        // go back before the regroup builds its rows, so the peaks do not add up. A page the
        // regroup must still read starts an engine again (~0.15 s).
        OCR.releaseIdleEngines()
        Memory.releaseFreeMemory()
        // A decision made while a run in parts is under way (a "not similar" mark on the page)
        // leaves its photos in `regroup_dirty` for after it (`Library.regroupMarked`): what was
        // marked while the regroup ran is regrouped next, around it (twice at most: the same may
        // happen while that one runs).
        var seen = try library.db.scalar("SELECT max(seq) FROM regroup_dirty") ?? 0
        try regroup(library, steps.models, checkpoint)
        for _ in 0..<2 where try library.db.scalar("SELECT count(*) FROM regroup_dirty WHERE seq > ?", seen) ?? 0 > 0 {
            seen = try library.db.scalar("SELECT max(seq) FROM regroup_dirty") ?? seen
            try regroup(library, steps.models, checkpoint)
        }
        try library.removeAgentState(LibraryScanner.regroupPendingKey)
        // The regroup's working set (every file's row, the indexes) is garbage now; the agent
        // keeps running, so give it back rather than keep it for the next change.
        OCR.releaseIdleEngines()
        Memory.releaseFreeMemory()
        return true
    }

    /// The standard regroup (what changed only). `SNAPSORT_GROUPS_TRACE=1` prints each compared
    /// pair on stderr (a tuning aid; `=phases` only the steps' costs). With `models`, the vision helper verifies the pairs of one
    /// moment the thumbnails reject (`FrameMatcher`; started only when a pair needs it).
    public static let standardRegroup: Regroup = { library, models, checkpoint in
        var grouper = Grouper(library: library)
        grouper.checkpoint = checkpoint
        let helper = models ? VisionHelper(executable: VisionHelper.locate()) : nil
        defer { helper?.stop() }
        grouper.frameMatcher = helper.map(FrameMatcher.init)
        let toStderr = { (line: String) in FileHandle.standardError.write(Data((line + "\n").utf8)) }
        switch ProcessInfo.processInfo.environment["SNAPSORT_GROUPS_TRACE"] {
        case "1": grouper.trace = toStderr
        case "phases": grouper.phaseTrace = toStderr
        default: break
        }
        // A tuning aid for bench/: a smaller library regrouped in parts as a million rows are.
        if let above = ProcessInfo.processInfo.environment["SNAPSORT_REGROUP_PARTS_ABOVE"].flatMap(Int.init) { grouper.partsAbove = above }
        try grouper.regroup()
    }

    /// Tier 2 over what needs it, at once (the agent runs it in slices instead,
    /// `ModelsStep`): the local models through the `snapsort-vision` helper, then the sets
    /// whose faces changed are regrouped (their keeper may change). A missing helper or model:
    /// one notice in the summary, nothing else. `progress(done, total)`.
    /// `parallel`: helpers side by side (one core each; `snapsort scan` gives its workers).
    public func runModels(
        helper: VisionHelper = VisionHelper(executable: VisionHelper.locate()), parallel: Int = 1, progress: ((Int, Int) -> Void)? = nil
    ) throws -> VisionSummary {
        let step = ModelsStep(library: library, helper: helper, logger: logger, clock: clock)
        step.analyzer.parallel = max(1, parallel)
        defer { step.analyzer.stopHelpers() }
        return try step.run(progress: progress)
    }
}

/// Tier 2 in steps the caller bounds: the models over the photos that need them, and the
/// Similar Shots sets whose members' faces changed regrouped with the same helper (as the
/// scan's regroup scored them, or verified pairs would fall apart here).
public struct ModelsStep {
    public let analyzer: VisionAnalyzer

    /// `clock`: what dates and times the passes (the caller's: the agent's, the command's).
    public init(library: Library, helper: VisionHelper, logger: Logger, clock: Clock) {
        analyzer = VisionAnalyzer(library: library, helper: helper, logger: logger, clock: clock)
    }

    /// Looks at what needs the models (the first `limit` photos at most) until `shouldStop`
    /// (checked between photos); with
    /// `regroup`, then regroups the sets whose members changed (else the caller does, `regroup(_:)`).
    public func run(
        progress: ((Int, Int) -> Void)? = nil, shouldStop: () -> Bool = { false }, limit: Int? = nil, regroup: Bool = true
    ) throws -> VisionSummary {
        let summary = try analyzer.run(progress: progress, shouldStop: shouldStop, limit: limit)
        if regroup { try self.regroup(summary.setMembersChanged) }
        return summary
    }

    /// Regroups the sets of `changed` (set members whose faces, eyes or page the models changed).
    /// A regroup reads every file's row: its memory goes back to the system after.
    public func regroup(_ changed: Set<Int64>) throws {
        guard !changed.isEmpty else { return }
        // While a regroup in parts is unfinished, that run regroups them: this pass has no
        // checkpoint to stop the rest of the run by (`Library.regroupMarked`).
        if try analyzer.library.leaveToRunInParts(changed, at: analyzer.clock.now()) { return }
        var grouper = Grouper(library: analyzer.library)
        grouper.frameMatcher = FrameMatcher(helper: analyzer.helper)
        grouper.clock = analyzer.clock
        try grouper.regroup(changed: changed)
        Memory.releaseFreeMemory()
    }
}

/// When the agent's models pass regroups the sets it changed: a regroup reads every file's row
/// (~2 s and ~100 MB at 100 000 files), and one after each half-second slice made the pass spend
/// nine tenths of its time regrouping (36 photos in 90 s of a core on a 100 000-file library
/// whose photos are all in sets, 155 MB resident). Now: when the pass ends, and meanwhile after
/// at least `minimumWork` of model work and ten times what the last regroup cost, so regroups
/// take at most a tenth of the pass. Durations are given, never read here.
public struct RegroupPacing: Sendable, Equatable {
    public var minimumWork: TimeInterval
    public private(set) var workSince: TimeInterval = 0
    public private(set) var lastCost: TimeInterval = 0

    public init(minimumWork: TimeInterval = 30) { self.minimumWork = minimumWork }

    /// Model work done since the last regroup.
    public mutating func worked(_ seconds: TimeInterval) { workSince += seconds }

    /// Whether to regroup now: something changed, and the pass is over or enough work was done.
    public func due(changes: Bool, passOver: Bool) -> Bool {
        changes && (passOver || workSince >= max(minimumWork, 10 * lastCost))
    }

    public mutating func regrouped(cost: TimeInterval) {
        lastCost = cost
        workSince = 0
    }
}

/// One scan of a library at a time (`snapsort scan`, the agent): an advisory lock on the file
/// beside the database (`Library.scanLockPath`).
public enum ScanLock {
    /// The lock if no other process holds it now.
    public static func tryTake(_ library: Library) throws -> FileLock? { try FileLock.tryLock(library.scanLockPath) }

    /// The lock, waiting for another process's scan to end; `waiting` is called once first
    /// when one runs (to say so).
    public static func take(_ library: Library, waiting: () -> Void = {}) throws -> FileLock {
        if let held = try tryTake(library) { return held }
        waiting()
        return try FileLock.lock(library.scanLockPath)
    }
}
