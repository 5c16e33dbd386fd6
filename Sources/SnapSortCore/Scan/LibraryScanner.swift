import Foundation
import SnapSortSystem
import Synchronization

/// Progress of a scan, for the progress bar, `--jsonl` and the agent's `STATUS=`.
public struct ScanProgress: Sendable {
    public enum Phase: String, Sendable { case walking, analyzing, done }
    public var phase: Phase
    public var done: Int
    public var total: Int
    public var filesPerSecond: Double
    public var etaSeconds: Double?

    public init(phase: Phase, done: Int, total: Int, filesPerSecond: Double, etaSeconds: Double?) {
        self.phase = phase
        self.done = done
        self.total = total
        self.filesPerSecond = filesPerSecond
        self.etaSeconds = etaSeconds
    }
}

/// What a scan did.
public struct ScanSummary: Sendable, Equatable {
    public var seen = 0
    public var unchanged = 0
    public var added = 0
    public var changed = 0
    public var reanalyzed = 0
    public var moved = 0
    /// Changed only in their times (`touch`, a copy tool without `-t`): the same bytes, so the
    /// row takes the new identity without a decode.
    public var touched = 0
    public var gone = 0
    public var analyzed = 0
    public var decodes = 0
    /// Items that ended unreadable, damaged or unsupported in this scan.
    public var problems = 0
    public var offlineRoots: [String] = []
    public var unreadableFolders: [String] = []
    /// Files named on their own (`scan FILE`, a `root` that is a file) that are no photo or
    /// video by their name: not added (a folder's walk leaves them out the same way).
    public var notMedia: [String] = []
    public var cancelled = false
    public init() {}
}

/// Reconciles the disk against the database and analyzes what is new or changed.
///
/// Disk is the source of truth: each file found is unchanged (same identity and analyzer
/// version: a `stat`, nothing more), changed (re-analyzed in its row), re-analyzed (analyzer
/// version bumped), moved (a vanished or tombstoned row with the same size and content: the
/// row follows the file, no decode), or new. Rows under a scanned folder whose file is gone
/// become tombstones. Folders that cannot be listed and offline roots keep their rows.
public final class LibraryScanner: @unchecked Sendable {
    public let library: Library
    public var analyzer: Analyzer
    public var rules: ExcludeRules
    public var clock: Clock
    /// What paces the work (progress a few times a second, a commit each second, memory given
    /// back) and what folder times are compared with (a folder changed in the last seconds gets
    /// no stamp, `FolderWalk`): the live clock, as file times are the wall clock's; a test may
    /// inject another (`clock` dates what is recorded).
    public var pace: Clock = .live
    public var logger: Logger
    public var workers: Int
    /// Checked between items; a cancelled scan commits what it has and stops.
    public var isCancelled: @Sendable () -> Bool = { false }
    /// Rows per write transaction.
    public var batchSize = 128
    /// How often the committing thread gives the analysis workers' free memory back to the
    /// kernel (`Memory.releaseFreeMemory`). The workers keep freed buffers for the next photo
    /// (`Memory.keepLargeBlocksInTheHeap`), and photos of other sizes fragment what each
    /// worker's arena keeps: unreturned, the resident set grows with the library while the heap
    /// in use does not (bench/RESULTS.md, issue 30). Once in a while costs one photo's page
    /// faults per worker; nil never trims.
    public var releaseFreeMemoryEvery: TimeInterval? = 5
    /// The user's roots, when the scanned paths may be folders inside them (the agent
    /// reconciles single folders). Only a root is recorded in `roots`, and only a root can be
    /// offline; a missing folder inside one is simply gone. Nil: every scanned path is a root.
    public var roots: Set<String>?
    /// Skip listing folders whose stamp (mtime, device, inode) matches the one recorded when
    /// they were last listed completely; their known files are still stat'ed and their known
    /// subfolders walked. For the agent's reconciles after an inotify overflow and at start.
    /// A full listing (false) is the safety net for file systems whose folder mtimes lie.
    public var skipUnchangedFolders = false
    /// Runs the gated QR and OCR checks on the analysis workers, right after each file's
    /// analysis (nil: the grouper runs them on its one thread).
    public var inspector: FileInspector?
    /// The gates in front of `inspector`.
    public var groupRules = GroupRules()
    /// Folders listed and skipped by the last scan (for tests and benchmarks).
    public private(set) var foldersListed = 0
    public private(set) var foldersSkipped = 0
    /// The most stored rows and found files the last scan's walk held at once: one folder's
    /// (tests: the walk's memory follows the largest folder, not the library).
    private(set) var mostHeldAtOnce = 0
    /// Unchanged rows without a recorded birth time (libraries from before it was kept).
    private var birthsToRecord: [(id: Int64, path: String, status: FileStatus)] = []
    /// The device of each folder walked, when its walk began (a disk unmounted during the
    /// walk is told from a folder emptied).
    private var walkedRootDevices: [String: UInt64] = [:]
    /// Whether the analysis workers confine themselves (`Sandbox.confineAnalysisThread`) before
    /// their first file. Only a test that must do more on a worker turns it off.
    public var confineWorkers = true
    /// Called on each analysis worker once it is confined (tests: what a worker may do).
    var workerStarted: @Sendable (Bool) -> Void = { _ in }
    /// Called after each folder's walk (tests: an unmount in the middle of a scan).
    var afterWalk: (String) -> Void = { _ in }

    public init(
        library: Library, analyzer: Analyzer = Analyzer(), rules: ExcludeRules = ExcludeRules(), clock: Clock = .live,
        logger: Logger = .silent, workers: Int = ProcessInfo.processInfo.activeProcessorCount
    ) {
        self.library = library
        self.analyzer = analyzer
        self.rules = rules
        self.clock = clock
        self.logger = logger
        self.workers = max(1, workers)
    }

    struct Job: Sendable {
        var id: Int64?
        var path: String
        var status: FileStatus
        var kind: Kind
        /// For `retry`: the reason the last read failed.
        var failedWith: ReasonCode? = nil
        /// For `changed` at its recorded size: the recorded content hash (the same bytes are a
        /// touch, not a change).
        var storedContent: [UInt8]? = nil
        /// For `changed`: still at its recorded size, analyzed by this version (a `touch` may
        /// have changed nothing but its times).
        var mayBeTouched = false
        /// `retry`: a file whose last read failed for a reason that passes (permissions fixed,
        /// a disk that answered again) is read again by every scan, though it did not change;
        /// its row is written only when the outcome differs.
        enum Kind: Sendable { case new, changed, reanalyze, retry }
    }

    /// A file that could not be read because it is no longer there (deleted or renamed after
    /// the walk listed it): nothing to record; the next scan or the agent's event sees it go.
    static func vanished(_ job: Job, _ r: AnalysisResult) -> Bool {
        r.status == .unreadable && r.reason?.code == .ioError && FileSystem.lstatusIfExists(job.path) == nil
    }

    /// The reasons of an `unreadable` row that a later read may not meet again.
    static let passingReasons: Set<ReasonCode> = [.permission, .ioError]

    /// Scans each of `paths` (folders, or single files), reconciling only under them.
    /// `prewalked`: the same paths walked ahead under the same rules (used only for full
    /// listings, `skipUnchangedFolders` false).
    public func scan(_ paths: [String], prewalked: PrewalkedRoots? = nil, progress: (ScanProgress) -> Void = { _ in }) throws -> ScanSummary {
        var summary = ScanSummary()
        var jobs: [Job] = []
        var newFiles: [(String, FileStatus)] = []
        var vanished: [Int64: StoredIdentity] = [:]
        var stamps: [String: [String: Library.FolderStamp]] = [:]
        foldersListed = 0
        foldersSkipped = 0
        mostHeldAtOnce = 0
        birthsToRecord = []
        walkedRootDevices = [:]
        progress(ScanProgress(phase: .walking, done: 0, total: 0, filesPerSecond: 0, etaSeconds: nil))
        // While walking, a few times a second: `done` the files listed, `total` those found to
        // look at (new, changed, to analyze again) so far. The agent serves its loop from here:
        // a walk of a large tree after an overflow is seconds it said nothing.
        var lastWalkProgress = pace.now()
        var listedBefore = 0
        for raw in paths {
            let root = LibraryScanner.normalize(raw)
            let found = jobs.count + newFiles.count
            try reconcileWalk(root, prewalked: prewalked, jobs: &jobs, newFiles: &newFiles, vanished: &vanished, summary: &summary, stamps: &stamps) {
                listed in
                guard pace.now().timeIntervalSince(lastWalkProgress) > 0.2 else { return }
                lastWalkProgress = pace.now()
                progress(ScanProgress(phase: .walking, done: listedBefore + listed, total: found, filesPerSecond: 0, etaSeconds: nil))
            }
            listedBefore = summary.seen
            progress(ScanProgress(phase: .walking, done: listedBefore, total: jobs.count + newFiles.count, filesPerSecond: 0, etaSeconds: nil))
        }
        // Something will change: say so before the first commit, so the work that follows a
        // scan (regrouping) is not skipped after a crash in between (see `regroupPendingKey`).
        if !newFiles.isEmpty || jobs.contains(where: { $0.kind != .retry }) || !vanished.isEmpty {
            try library.setAgentState(LibraryScanner.regroupPendingKey, "1", at: clock.now())
        }
        // A root whose disk went away while it was walked (unmounted: its path leads to the
        // folder underneath, on another device) is offline, not emptied: its rows stay.
        for (root, device) in walkedRootDevices where (try? FileSystem.status(root))?.device != device {
            let prefix = root == "/" ? "/" : root + "/"
            for (id, row) in vanished where row.path.hasPrefix(prefix) { vanished.removeValue(forKey: id) }
            newFiles.removeAll { $0.0.hasPrefix(prefix) }
            jobs.removeAll { $0.path.hasPrefix(prefix) }
            stamps.removeValue(forKey: root)
            summary.offlineRoots.append(root)
            if roots.map({ $0.contains(root) }) ?? true { try library.recordRoot(root, device: nil, online: false, at: clock.now()) }
            logger.notice("root went away during the scan; keeping its rows", ["scan.root": root])
        }
        // Moves: a new path whose content matches a row whose file is gone.
        try library.db.transaction {
            for (path, st) in newFiles {
                if let moved = try matchMove(path: path, status: st, vanished: &vanished) {
                    summary.moved += 1
                    logger.debug("moved", ["file.id": "\(moved)"])
                } else {
                    jobs.append(Job(id: nil, path: path, status: st, kind: .new))
                }
            }
            if !vanished.isEmpty {
                try library.markGone(ids: Array(vanished.keys), at: clock.now())
                summary.gone += vanished.count
            }
        }
        try library.recordBirthTimes(birthsToRecord)
        birthsToRecord = []
        // In path order: folder by folder, and camera names (which carry the time) in the order
        // they were taken — the same order every run, whatever order the directories list in.
        jobs.sort { $0.path < $1.path }
        try readStoredContent(&jobs)
        summary.added = jobs.filter { $0.kind == .new }.count
        summary.changed = jobs.filter { $0.kind == .changed }.count
        summary.reanalyzed = jobs.filter { $0.kind == .reanalyze }.count
        try analyze(jobs, summary: &summary, progress: progress)
        // Folder stamps only once every new file has its row: a folder skipped next time must
        // not hide a file this scan found but did not get to (cancelled, killed).
        if !summary.cancelled {
            for (root, s) in stamps { try library.replaceFolderStamps(under: root, with: s) }
        }
        // RAW+JPEG pairs: re-paired only when something under the roots changed (a rescan of an
        // unchanged library stays stat-only), and only in the folders of new and changed files
        // when nothing moved or went (a pair never spans two folders).
        if summary.moved == 0 && summary.gone == 0 && !jobs.isEmpty {
            for dir in Set(jobs.map { job in String(job.path[..<(job.path.lastIndex(of: "/") ?? job.path.endIndex)]) }).sorted() {
                try library.pairSidecars(under: dir.isEmpty ? "/" : dir)
            }
        } else if !jobs.isEmpty || summary.moved > 0 || summary.gone > 0 {
            for raw in paths {
                let root = LibraryScanner.normalize(raw)
                let isFile = FileSystem.lstatusIfExists(root)?.isRegular == true
                let dir = isFile ? String(root[..<(root.lastIndex(of: "/") ?? root.endIndex)]) : root
                try library.pairSidecars(under: dir.isEmpty ? "/" : dir)
            }
        }
        progress(ScanProgress(phase: .done, done: jobs.count, total: jobs.count, filesPerSecond: 0, etaSeconds: 0))
        return summary
    }

    /// Set in the agent state when a scan is about to change rows; cleared by whoever regroups
    /// after it. A rescan that changed nothing leaves it unset, and then costs only its `stat`s.
    public static let regroupPendingKey = "regroup_pending"

    static func normalize(_ p: String) -> String {
        var s = p
        while s.count > 1 && s.hasSuffix("/") { s.removeLast() }
        return s
    }

    private func reconcileWalk(
        _ root: String, prewalked: PrewalkedRoots?, jobs: inout [Job], newFiles: inout [(String, FileStatus)],
        vanished: inout [Int64: StoredIdentity], summary: inout ScanSummary,
        stamps walked: inout [String: [String: Library.FolderStamp]], listing listedSoFar: (Int) -> Void = { _ in }
    ) throws {
        // A single file.
        if let st = FileSystem.lstatusIfExists(root), st.isRegular {
            let row = try library.liveRow(path: root)
            guard row != nil || rules.isCandidateFile(name: LibraryScanner.name(root)) else {
                summary.notMedia.append(root)
                return
            }
            let storedSidecar = try library.sidecarTimes(under: root)[root]
            let sidecarChanged = row != nil && XMPSidecar.find(for: root)?.modified != storedSidecar
            classify(path: root, st: st, row: row, sidecarChanged: sidecarChanged, jobs: &jobs, newFiles: &newFiles, summary: &summary)
            return
        }
        // The walk ahead of this root (full listings only); what the scan does not take of it
        // is dropped, and the walk stops.
        let ahead = skipUnchangedFolders ? nil : prewalked?.take(root)
        defer { ahead?.cancel() }
        let isRoot = roots.map { $0.contains(root) } ?? true
        guard let rootStatus = try? FileSystem.status(root), rootStatus.isDirectory else {
            if !isRoot {
                // A folder inside a root that vanished: its files are gone (or moved, which the
                // vanished rows let the identity match find).
                for r in try library.liveRows(under: root) { vanished[r.id] = r }
                return
            }
            // Missing or not a folder: offline (an unplugged disk, an unmounted share). Its rows
            // and decisions are kept; a deletion is noticed by a scan of the folder above it.
            summary.offlineRoots.append(root)
            try library.recordRoot(root, device: nil, online: false, at: clock.now())
            logger.notice("root offline; keeping its rows", ["scan.root": root])
            return
        }
        // An unmounted mount point: the folder exists but is empty and on another device than
        // when its rows were recorded.
        let known = isRoot ? try library.rootDevice(root) : nil
        if let known, known != rootStatus.device, try library.hasLiveRows(under: root), (try? FileSystem.listDirectory(root))?.isEmpty == true {
            summary.offlineRoots.append(root)
            try library.recordRoot(root, device: nil, online: false, at: clock.now())
            logger.notice("root looks unmounted; keeping its rows", ["scan.root": root])
            return
        }
        // A row at the root's own path (a file there before the folder) is gone.
        if let r = try library.liveRow(path: root) { vanished[r.id] = r }
        // Folder by folder: each folder's stored rows are read as the walk comes to it (through
        // the path index, `Library.liveRows(in:)`), compared with what it found, and dropped.
        // What the walk holds follows the largest folder, not the library (a million rows held
        // at once, with their paths and a listing of every file, were ~640 MB).
        var unreadable: [String] = []
        // The rows of the folder the walk skipped as unchanged, read to stat its known files.
        var readAhead: (dir: String, folder: Library.StoredFolder)?
        func reconcile(_ v: FolderVisit) throws {
            let stored: Library.StoredFolder?
            if let r = readAhead, r.dir == v.dir { stored = r.folder } else { stored = nil }
            readAhead = nil
            // Under a folder that could not be read, rows are kept: only what was found is compared.
            let covered = v.unreadable || unreadable.contains { v.dir.hasPrefix($0 + "/") }
            if v.unreadable { unreadable.append(v.dir) }
            if covered && v.files.isEmpty { return }
            let folder = try stored ?? library.liveRows(in: v.dir)
            mostHeldAtOnce = max(mostHeldAtOnce, folder.rows.count + v.files.count)
            var byPath: [String: StoredIdentity] = [:]
            byPath.reserveCapacity(folder.rows.count)
            for r in folder.rows { byPath[r.path] = r }
            let storedSidecars = v.sidecars == nil || folder.rows.isEmpty ? [:] : try library.sidecarTimes(in: v.dir)
            for (path, st) in v.files {
                let row = byPath.removeValue(forKey: path)
                let sidecarChanged = row != nil && Self.sidecarChanged(path, sidecars: v.sidecars, stored: storedSidecars[path])
                classify(path: path, st: st, row: row, sidecarChanged: sidecarChanged, jobs: &jobs, newFiles: &newFiles, summary: &summary)
            }
            if birthsToRecord.count >= 4096 {
                try library.recordBirthTimes(birthsToRecord)
                birthsToRecord.removeAll(keepingCapacity: true)
            }
            guard !covered else { return }
            // What remains was not found: gone. So is everything under a subfolder that holds
            // rows and that the walk does not go on to (no longer there, excluded, left out by
            // a marker, now a symlink).
            for r in byPath.values { vanished[r.id] = r }
            guard !folder.subfolders.isEmpty else { return }
            let walkedOn = Set(v.subfolders)
            for sub in folder.subfolders where !walkedOn.contains(sub) {
                for r in try library.liveRows(below: sub) { vanished[r.id] = r }
            }
        }
        var end: WalkEnd?
        if let ahead {
            var filesSoFar = 0
            var took = false
            walking: while true {
                switch ahead.next() {
                case .folder(let v):
                    listedSoFar(filesSoFar)
                    took = true
                    try reconcile(v)
                    filesSoFar += v.files.count
                case .end(let e):
                    end = e ?? (took ? WalkEnd() : nil)
                    break walking
                }
            }
        }
        if end == nil {
            let recorded = skipUnchangedFolders ? try library.folderStamps(under: root) : [:]
            let known = recorded.isEmpty ? nil : KnownFolders(recorded: recorded, root: root)
            end = try FolderWalk.walk(
                root, rules: rules, known: known, now: pace.now(), logger: logger, listed: listedSoFar,
                storedIn: { dir in
                    let folder = try library.liveRows(in: dir)
                    readAhead = (dir, folder)
                    return (folder.rows.map(\.path), folder.subfolders)
                },
                visit: { v in
                    try reconcile(v)
                    return true
                })
        }
        let walk = end ?? WalkEnd()
        foldersListed += walk.listed
        foldersSkipped += walk.skipped
        summary.unreadableFolders += walk.unreadable
        if isRoot { try library.recordRoot(root, device: rootStatus.device, online: true, at: clock.now()) }
        walked[root] = walk.stamps
        walkedRootDevices[root] = rootStatus.device
        afterWalk(root)
    }

    /// What the gated QR and OCR checks find in `r`, the analysis of `path` (`snapsort info`
    /// on a file outside the library); nil when no gate passes or there is no inspector.
    public func findings(path: String, of r: AnalysisResult) -> FileFindings? {
        guard let f = inspector?.inspection(path: path, of: r, rules: groupRules) else { return nil }
        return FileFindings(words: f.ocrWords, text: f.ocrText, qrPayload: f.qrPayload)
    }

    /// The last component of an absolute path.
    static func name(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Whether the XMP sidecar of `path` (in a folder the walk listed) changed, came or went
    /// since the file's analysis recorded `stored`. Files of folders skipped as unchanged are not
    /// checked (a sidecar made or renamed there would have changed the folder).
    static func sidecarChanged(_ path: String, sidecars names: Set<String>?, stored: Int64?) -> Bool {
        let dir = parent(path)
        guard let names else { return false }
        guard let found = XMPSidecar.names(for: name(path)).first(where: names.contains) else { return stored != nil }
        return FileSystem.lstatusIfExists(dir == "/" ? "/" + found : dir + "/" + found)?.mtimeNanoseconds != stored
    }

    private func classify(
        path: String, st: FileStatus, row: StoredIdentity?, sidecarChanged: Bool = false, jobs: inout [Job],
        newFiles: inout [(String, FileStatus)], summary: inout ScanSummary
    ) {
        summary.seen += 1
        guard let row else {
            newFiles.append((path, st))
            return
        }
        if !row.matches(st) {
            var job = Job(id: row.id, path: path, status: st, kind: .changed)
            // Its recorded content hash is read after the walk (`readStoredContent`).
            job.mayBeTouched = row.size == st.size && row.status != .pending && row.analyzerVersion >= Analyzer.version
            jobs.append(job)
        } else if row.analyzerVersion < Analyzer.version || row.status == .pending || sidecarChanged {
            // An XMP sidecar that changed (a rating given in darktable or digiKam) is read by
            // analyzing the file again.
            jobs.append(Job(id: row.id, path: path, status: st, kind: .reanalyze))
        } else if row.status == .unreadable, let code = try? library.reasonCode(id: row.id), LibraryScanner.passingReasons.contains(code) {
            jobs.append(Job(id: row.id, path: path, status: st, kind: .retry, failedWith: code))
        } else {
            summary.unchanged += 1
            if row.birthNanoseconds == nil { birthsToRecord.append((row.id, path, st)) }
        }
    }

    /// Fills in the recorded content hash of the changed files that may only have been touched,
    /// 500 rows a query (a `touch` of a whole library would otherwise be a query per file).
    private func readStoredContent(_ jobs: inout [Job]) throws {
        var index: [Int64: Int] = [:]
        for (i, job) in jobs.enumerated() where job.mayBeTouched { if let id = job.id { index[id] = i } }
        guard !index.isEmpty else { return }
        try Grouper.forEach(library.db, "SELECT id, content_hash FROM files WHERE id", in: Array(index.keys)) { r in
            if let id = r.int(0), let i = index[id] { jobs[i].storedContent = r.blob(1) }
        }
    }

    /// Finds the row a new file was moved from, and moves it. Returns the row id.
    ///
    /// The same bytes are not enough, nor is the same inode number: a copy of a photo must not
    /// take over the row (and the decisions) of a photo that is gone. A photo put back from a
    /// backup after the Trash was emptied came back staged for the Trash again; a copy made
    /// right after the photo was deleted lands on its inode number (ext4, xfs and tmpfs hand
    /// them out again at once) and was trashed by the next commit, never seen by anyone.
    /// A move is one of:
    /// - a rename (also out of the library and back, or from the Trash back to its place): the
    ///   same device and inode *and* the same birth time (`FileIdentity`; where the file system
    ///   keeps none, the same modification time), from any tombstone not seen deleted;
    /// - `mv` across file systems (a copy and a delete, keeping the modification time): another
    ///   device, the same modification time, and the source gone in this same reconcile.
    /// A file that SnapSort moved to the Trash comes back only by a rename (the Trash is on its
    /// file system), and never once the Trash was emptied of it. A tombstone whose file was
    /// seen deleted (`IN_DELETE`) is never revived: its decisions ended with it.
    private func matchMove(path: String, status st: FileStatus, vanished: inout [Int64: StoredIdentity]) throws -> Int64? {
        let candidates = try library.moveCandidates(size: st.size)
        guard !candidates.isEmpty else { return nil }
        var quick: [UInt8]?
        var content: [UInt8]?
        var identity: FileIdentity??
        for (row, rowQuick, rowContent) in candidates where !row.deleted {
            let sameInode = row.device == st.device && row.inode == st.inode
            // The source must be gone: a tombstone, vanished in this scan, or a live row whose
            // file no longer exists with its identity (a move from outside the scanned folder).
            let goneNow: Bool
            if vanished[row.id] != nil {
                goneNow = true
            } else if row.status == .gone || row.path == path {
                goneNow = false
            } else if let s = FileSystem.lstatusIfExists(row.path), row.matches(s) {
                continue  // both exist: two files, two rows
            } else {
                goneNow = FileSystem.lstatusIfExists(row.path) == nil
            }
            guard row.status == .gone || goneNow else { continue }
            let sameFile: Bool
            if sameInode {
                if identity == nil { identity = .some(FileIdentity.of(path)) }
                guard let now = identity ?? nil, now.device == st.device, now.inode == st.inode else { continue }
                if let recorded = row.birthNanoseconds, recorded >= 0, let birth = now.birthNanoseconds {
                    guard recorded == birth else { continue }  // an inode number handed out again
                } else {
                    guard row.mtimeNanoseconds == st.mtimeNanoseconds else { continue }
                }
                sameFile = true
            } else {
                // Within one file system a move is a rename and keeps the inode: another inode
                // there is a copy.
                guard row.device != st.device, goneNow, row.mtimeNanoseconds == st.mtimeNanoseconds else { continue }
                sameFile = false
            }
            if row.status == .gone, let trash = try library.trashState(of: row.id) {
                if trash == .purged || (trash == .trashed && !sameFile) { continue }
            }
            guard let rowQuick, let rowContent else { continue }
            if quick == nil { quick = try? Analyzer.quickHash(path: path, size: st.size) }
            guard quick == rowQuick else { continue }
            if content == nil { content = try? Analyzer.contentHash(path: path) }
            guard content == rowContent else { continue }
            let revive: ItemStatus? = row.status == .gone ? try library.revivedStatus(id: row.id) : nil
            try library.recordMove(id: row.id, to: path, status: st, restoreStatus: revive)
            vanished.removeValue(forKey: row.id)
            return row.id
        }
        return nil
    }

    /// What the analysis workers hand the committing thread: analyzed files, touched ones
    /// (only their times changed), a signal for each, and the group they leave when done.
    private final class WorkerOutput: Sendable {
        let results = Mutex<[(Job, AnalysisResult)]>([])
        let touched = Mutex<[Job]>([])
        let signal = DispatchSemaphore(value: 0)
        let group = DispatchGroup()

        func takeResults() -> [(Job, AnalysisResult)] {
            results.withLock { r in
                defer { r.removeAll() }
                return r
            }
        }
        func takeTouched() -> [Job] {
            touched.withLock { t in
                defer { t.removeAll() }
                return t
            }
        }
        var isEmpty: Bool { results.withLock { $0.isEmpty } && touched.withLock { $0.isEmpty } }
    }

    /// Starts the analysis workers over `jobs` (low priority, confined, 4 MiB stacks); each
    /// takes the next job until none is left or the scan is cancelled.
    private func startWorkers(_ jobs: [Job], output out: WorkerOutput) {
        let total = jobs.count
        let next = Atomic<Int>(0)
        let signal = out.signal
        let analyzer = self.analyzer
        let inspector = self.inspector, groupRules = self.groupRules
        let cancelled = self.isCancelled
        let confine = self.confineWorkers, workerStarted = self.workerStarted, logger = self.logger
        let unconfinedNoted = Atomic<Bool>(false)
        let group = out.group
        let workerCount = min(workers, total)
        for _ in 0..<workerCount {
            group.enter()
            let t = Thread {
                Priority.lowerCurrentThread()
                // The workers decode untrusted files: from here on they may read, nothing else
                // (no files made or changed, no sockets, no programs); see `Sandbox`.
                if confine {
                    do {
                        try Sandbox.confineAnalysisThread()
                    } catch {
                        if unconfinedNoted.exchange(true, ordering: .relaxed) == false {
                            logger.warning("the analysis threads run unconfined (no seccomp filter)", ["error": "\(error)"])
                        }
                    }
                }
                workerStarted(confine)
                while !cancelled() {
                    let i = next.add(1, ordering: .relaxed).oldValue
                    if i >= total { break }
                    let job = jobs[i]
                    // Only its times changed: reading it whole costs a fraction of a decode.
                    if let stored = job.storedContent, let now = try? Analyzer.contentHash(path: job.path), now == stored {
                        out.touched.withLock { $0.append(job) }
                        signal.signal()
                        continue
                    }
                    var r = analyzer.analyze(path: job.path, status: job.status)
                    r.inspection = inspector?.inspection(path: job.path, of: r, rules: groupRules)
                    r.preview = nil
                    out.results.withLock { $0.append((job, r)) }
                    signal.signal()
                }
                group.leave()
                signal.signal()
            }
            t.stackSize = 4 << 20
            t.start()
        }
    }

    /// Writes a batch of analyzed files and touched ones in one transaction.
    private func commit(_ batch: [(Job, AnalysisResult)], touched touchedBatch: [Job], summary: inout ScanSummary) throws {
        let now = clock.now()
        try library.db.transaction {
            for job in touchedBatch {
                guard let id = job.id else { continue }
                try library.recordMove(id: id, to: job.path, status: job.status, restoreStatus: nil)
                // A file dated by its mtime alone moves with it (`touch -d`, a date-fixing
                // tool): its month, its deck and its place on Similar Shots' timeline.
                try library.retimeFromModification(id: id, status: job.status)
            }
            for (job, r) in batch {
                if job.kind == .retry {
                    if r.status == .unreadable && r.reason?.code == job.failedWith {
                        summary.unchanged += 1  // still failing, as recorded
                        continue
                    }
                    summary.reanalyzed += 1
                    try library.setAgentState(LibraryScanner.regroupPendingKey, "1", at: now)
                }
                let id = try library.store(r, id: job.id, path: job.path, status: job.status, at: now)
                if let f = r.inspection {
                    // Keyed by the analysis they belong to, as the grouper writes them.
                    try library.db.run(
                        """
                        INSERT OR REPLACE INTO file_findings(file_id, analyzed_at, ocr_words, ocr_text, qr_payload)
                        SELECT id, analyzed_at, ?, ?, ? FROM files WHERE id = ?
                        """, f.ocrWords, f.ocrText, f.qrPayload, id)
                }
            }
        }
    }

    private func analyze(_ jobs: [Job], summary: inout ScanSummary, progress: (ScanProgress) -> Void) throws {
        guard !jobs.isEmpty else { return }
        let total = jobs.count
        let out = WorkerOutput()
        startWorkers(jobs, output: out)
        let start = pace.now()
        var done = 0
        var pending: [(Job, AnalysisResult)] = []
        var pendingTouched: [Job] = []
        var lastCommit = pace.now()
        var lastProgress = Date.distantPast
        var lastRelease = pace.now()
        func commit() throws {
            guard !pending.isEmpty || !pendingTouched.isEmpty else { return }
            let batch = pending
            pending.removeAll(keepingCapacity: true)
            let touchedBatch = pendingTouched
            pendingTouched.removeAll()
            try self.commit(batch, touched: touchedBatch, summary: &summary)
            lastCommit = pace.now()
        }
        var finished = false
        while !finished {
            _ = out.signal.wait(timeout: .now() + .milliseconds(250))
            let got = out.takeResults()
            let gotTouched = out.takeTouched()
            summary.touched += gotTouched.count
            summary.changed -= gotTouched.count
            done += gotTouched.count
            pendingTouched += gotTouched
            for (job, r) in got {
                if LibraryScanner.vanished(job, r) {
                    // Deleted between the walk and the analysis: no row, no problem, not added
                    // or changed (a known row stays for the next scan to see gone).
                    switch job.kind {
                    case .new: summary.added -= 1
                    case .changed: summary.changed -= 1
                    case .reanalyze: summary.reanalyzed -= 1
                    case .retry: break
                    }
                    continue
                }
                summary.analyzed += 1
                summary.decodes += r.decodes
                if r.status != .ok { summary.problems += 1 }
                pending.append((job, r))
            }
            done += got.count
            finished = out.group.wait(timeout: .now()) == .success && out.isEmpty
            if pending.count >= batchSize || pace.now().timeIntervalSince(lastCommit) > 1 || finished { try commit() }
            if let every = releaseFreeMemoryEvery, pace.now().timeIntervalSince(lastRelease) > every {
                Memory.releaseFreeMemory()
                lastRelease = pace.now()
            }
            if pace.now().timeIntervalSince(lastProgress) > 0.2 || finished {
                lastProgress = pace.now()
                let elapsed = max(0.001, pace.now().timeIntervalSince(start))
                let rate = Double(done) / elapsed
                progress(
                    ScanProgress(
                        phase: .analyzing, done: done, total: total, filesPerSecond: rate,
                        etaSeconds: rate > 0 ? Double(total - done) / rate : nil))
            }
        }
        if done < total { summary.cancelled = true }
    }
}
