import Foundation
import SnapSortCore
import SnapSortSystem
import Synchronization

/// The agent's part that brings the library up to date with what changed: moves and removals
/// go straight to the database; written files and new folders wait, and a reconcile runs the
/// use case `LibraryUpdate` over them (scan under the scan lock, the restores from the Trash,
/// the regroup). It says what happened as values (`WorkReport`, through the `report` the loop
/// passes in) and serves the loop from inside the work through the loop's `serve`, the
/// checkpoint `LibraryUpdate` takes; it holds neither the status nor the loop.
final class Reconciler {
    /// Where the work says what happened (the agent's loop turns it into the status).
    typealias Report = (WorkReport) -> Void

    private let library: Library
    private let update: LibraryUpdate
    private let options: AgentOptions
    private let monitor: RootMonitor
    private let ingest: EventIngest
    private var logger: Logger { options.logger }
    private var now: Date { options.clock.now() }
    private let counters: CounterBox

    // Work waiting for a reconcile.
    private(set) var dirtyFiles: Set<String> = []
    private(set) var dirtyFolders: Set<String> = []
    /// The periodic safety reconcile lists every folder (file systems whose folder mtimes lie,
    /// network mounts); the others (at start, after an overflow) skip unchanged folders.
    var fullListing = false
    /// A regroup was stopped before it finished: it runs again when nothing else is queued and
    /// analysis may run.
    private(set) var groupingPending = false
    /// While another process scans the library (`ScanLock`), when to try again.
    private(set) var retryAt: Date?
    /// Whether the last reconcile failed (its paths wait for `options.reconcileRetry`).
    private var failing = false
    /// Set to stop the work under way (a stop, a pause, a hold).
    private(set) var cancel = CancelFlag()
    /// Whether a reconcile or a regroup runs now.
    private(set) var isWorking = false

    init(
        library: Library, update: LibraryUpdate, options: AgentOptions, monitor: RootMonitor, ingest: EventIngest, counters: CounterBox
    ) {
        self.library = library
        self.update = update
        self.options = options
        self.monitor = monitor
        self.ingest = ingest
        self.counters = counters
    }

    var hasWork: Bool { !dirtyFiles.isEmpty || !dirtyFolders.isEmpty }
    var pending: Int { dirtyFiles.count + dirtyFolders.count }

    /// Whether the retry time of a scan lock held elsewhere or a failed reconcile has come.
    func mayRetry(at t: Date) -> Bool { (retryAt ?? .distantPast) <= t }

    /// Folders to list at the next reconcile.
    func markFolders<S: Sequence>(_ folders: S) where S.Element == String { dirtyFolders.formUnion(folders) }

    /// A file to look at at the next reconcile.
    func markFile(_ path: String) { dirtyFiles.insert(path) }

    /// Asks the work under way to stop (it keeps what it did; the rest is done later).
    func stopWork() { cancel.set() }

    /// Applies due changes: moves and removals go straight to the database; writes and new
    /// folders wait for the next reconcile. `mayAnalyze`: while it may not (paused, held),
    /// the status counts what waits (`pending`).
    func apply(_ changes: [Change], mayAnalyze: Bool, report: Report) {
        guard !changes.isEmpty else { return }
        let t = now
        // The roots looked at once for the batch, not once for each removal.
        let absent = monitor.absentRoots()
        for c in changes {
            do {
                switch c {
                case .file(let p):
                    if let st = FileSystem.lstatusIfExists(p), st.isRegular {
                        if dirtyFiles.insert(p).inserted && !mayAnalyze { report(.changed) }
                    } else {
                        try removed(p, absent: absent, report: report)
                    }
                case .folder(let p):
                    guard FileSystem.lstatusIfExists(p)?.isDirectory == true else { continue }
                    monitor.watcher.watchTree(p)
                    if dirtyFolders.insert(p).inserted && !mayAnalyze { report(.changed) }
                case .moved(let from, let to, let isDir):
                    counters.update { $0.moves += 1 }
                    if isDir {
                        try library.followFolderMove(from: from, to: to, now: t)
                        if !monitor.watcher.isWatched(to) { monitor.watcher.watchTree(to) }
                        // Listed again (a stat a file; nothing is decoded that moved along): a
                        // file written just before the rename was reported under the old name,
                        // which is not there any more (an importer filling a folder, then
                        // renaming it), and the moved rows' folder stamps were forgotten.
                        dirtyFolders.insert(to)
                    } else if try !library.followFileMove(from: from, to: to, now: t) {
                        dirtyFiles.insert(to)
                        try removed(from, absent: absent, report: report)
                    }
                    report(.changed)
                case .removed(let p, let isDir):
                    if isDir { monitor.watcher.unwatch(p) }
                    try removed(p, absent: absent, report: report)
                case .deleted(let p, let isDir):
                    if isDir { monitor.watcher.unwatch(p) }
                    try removed(p, absent: absent, deleted: true, report: report)
                }
            } catch {
                report(.failed("cannot apply a change", error))
            }
        }
    }

    /// `absent`: the roots not there (a path under one is kept). `deleted`: seen deleted, not
    /// moved away (see `Change.deleted`).
    private func removed(_ path: String, absent: RootMonitor.AbsentRoots, deleted: Bool = false, report: Report) throws {
        if absent.keepsMissing(path) { return }
        let n = try library.markMissingGone(at: path, now: now, deleted: deleted)
        if n > 0 {
            counters.update { $0.removals += n }
            report(.changed)
        }
    }

    /// Reconciles what is dirty (disk against database) and analyzes what is new or changed,
    /// calling `serve` from the scan's progress and the regroup's checkpoints (the loop's events,
    /// signals and watchdog) and saying what happens through `report`.
    func reconcile(serve: @escaping () -> Void, report: @escaping Report) {
        // A path under a dirty folder is covered by it; a missing path that is not a root is a
        // removal (the scanner would take it for an offline root).
        // Paths under a root whose disk is unmounted wait for it (the bare mount point is not
        // the library's folder); it is reconciled whole when it comes back.
        let (paths, missing) = Reconciler.pathsToReconcile(
            folders: dirtyFolders, files: dirtyFiles, roots: Set(monitor.roots), waiting: monitor.waiting,
            isFolder: RootMonitor.isFolder, isFile: { FileSystem.lstatusIfExists($0)?.isRegular == true })
        if !missing.isEmpty {
            let absent = monitor.absentRoots()
            for p in missing { try? removed(p, absent: absent, report: report) }
        }
        guard !paths.isEmpty else {
            dirtyFiles.removeAll()
            dirtyFolders.removeAll()
            return
        }
        // One scan of a library at a time: a `snapsort scan` running now is waited for (what is
        // dirty stays dirty), checked again each second.
        guard let scanLock = takeScanLock(report: report) else {
            counters.update { $0.deferredReconciles += 1 }
            return
        }
        defer { scanLock.unlock() }
        dirtyFiles.removeAll()
        dirtyFolders.removeAll()
        // After an overflow the agent does not know what changed: the whole reconcile says
        // `reconciling`, its backlog as `pending` (the files the walk finds to look at, then
        // those not analyzed yet), never "watching, pending 0" while 20 000 files wait.
        let catchingUp = ingest.reconcileStarted()
        cancel = CancelFlag()
        let cancel = cancel
        let scanner = update.makeScanner(rules: monitor.watcher.rules, workers: options.workers, roots: Set(monitor.roots))
        scanner.isCancelled = { cancel.isSet }
        scanner.skipUnchangedFolders = !fullListing
        isWorking = true
        defer { isWorking = false }
        report(.scanning(catchingUp: catchingUp))
        do {
            let summary = try scanner.scan(paths) { p in
                report(.progress(p.phase, done: p.done, total: p.total, catchingUp: catchingUp))
                serve()
            }
            report(.scanned)
            if failing {
                // The library answers again: what was kept dirty is in, and the bar's error goes.
                failing = false
                logger.notice("reconcile works again")
                report(.worksAgain("reconcile failed"))
            }
            counters.update {
                $0.reconciles += 1
                $0.decodes += summary.decodes
                $0.foldersListed += scanner.foldersListed
                $0.foldersSkipped += scanner.foldersSkipped
            }
            if !summary.cancelled { fullListing = false }
            monitor.scanFoundOffline(summary.offlineRoots, at: now)
            if summary.cancelled {
                // Nothing is lost: what was not analyzed is found again on the next reconcile.
                keepDirty(paths)
            }
            if summary.added + summary.changed + summary.moved + summary.gone + summary.reanalyzed + summary.touched > 0 {
                logger.info(
                    "reconciled",
                    [
                        "scan.added": "\(summary.added)", "scan.changed": "\(summary.changed)", "scan.moved": "\(summary.moved)",
                        "scan.gone": "\(summary.gone)", "scan.analyzed": "\(summary.analyzed)", "scan.touched": "\(summary.touched)",
                    ])
            }
            if !summary.cancelled {
                // A photo put back from the Trash by the file manager came back as a move of its
                // tombstone: its trash decision is cleared and the restore counted.
                // Not while a commit or restore runs (the page's, a terminal's): the loop never
                // waits on one; the next reconcile notices.
                // The new photos are in the library: said before the regroup (done/total from
                // the library); grouping (OCR, QR codes) follows and the state turns "watching"
                // after it.
                if summary.analyzed > 0 { report(.analyzed) }
                group(serve: serve, report: report)
                if summary.analyzed + summary.moved + summary.gone > 0 { report(.libraryChanged) }
            }
        } catch {
            // A library locked by a long writer (a backup, an sqlite3 shell) or a disk full for a
            // moment: nothing is dropped. What was dirty stays dirty and is tried again in 15 s
            // (the events of a phone's sync were lost until the hourly reconcile).
            if !failing { report(.failed("reconcile failed", error)) }
            failing = true
            keepDirty(paths)
            retryAt = now.addingTimeInterval(options.reconcileRetry)
        }
        // The walk, the rows and the analysis buffers are freed now, but the heap keeps up to
        // 256 MB of free memory for a scan's next photo (`Memory.keepLargeBlocksInTheHeap`): at
        // 100 000 photos an agent waited at 105 MB after a reconcile that changed nothing, 44 MB
        // once trimmed.
        Memory.releaseFreeMemory()
        report(.idle)
    }

    /// The paths of a reconcile that did not finish, dirty again.
    private func keepDirty(_ paths: [String]) {
        dirtyFolders.formUnion(paths.filter { FileSystem.lstatusIfExists($0)?.isDirectory == true })
        dirtyFiles.formUnion(paths.filter { FileSystem.lstatusIfExists($0)?.isRegular == true })
    }

    /// What a reconcile scans of the dirty `folders` and `files`: each that is there and not
    /// inside another one scanned (roots always: the scanner says when one is offline), the
    /// folders then the files, each in path order; and the paths no longer there (removals).
    /// Paths at or under a `waiting` root are neither.
    ///
    /// A path is looked up by its folders above (a set), not against every path taken: a backlog
    /// of 30 000 files written into one folder was compared pairwise — half a billion prefix
    /// tests, 22 s in which the status said "watching", pending 0.
    static func pathsToReconcile(
        folders: Set<String>, files: Set<String>, roots: Set<String>, waiting: Set<String>,
        isFolder: (String) -> Bool, isFile: (String) -> Bool
    ) -> (paths: [String], missing: [String]) {
        var taken: Set<String> = []
        var paths: [String] = []
        var missing: [String] = []
        func covered(_ p: String, by set: Set<String>) -> Bool {
            if set.contains(p) { return true }
            var i = p.endIndex
            while let slash = p[..<i].lastIndex(of: "/") {
                let above = slash == p.startIndex ? "/" : String(p[..<slash])
                if set.contains(above) { return true }
                if slash == p.startIndex { break }
                i = slash
            }
            return false
        }
        // Sorted, a folder comes before the folders inside it.
        for f in folders.sorted() where !covered(f, by: taken) && !covered(f, by: waiting) {
            if roots.contains(f) || isFolder(f) {
                taken.insert(f)
                paths.append(f)
            } else {
                missing.append(f)
            }
        }
        for f in files.sorted() where !covered(f, by: taken) && !covered(f, by: waiting) {
            if isFile(f) { paths.append(f) } else { missing.append(f) }
        }
        return (paths, missing)
    }

    /// The steps after a reconcile's scan, the CLI's own (`LibraryUpdate.afterScan`: the
    /// restores from the Trash, then the regroup), serving the loop a few times a second from
    /// the regroup's checkpoints: a SIGTERM is honoured within a fraction of a second (a full
    /// regroup of 100 000 photos takes ~30 s), events are queued, the watchdog is pinged and the
    /// status says "grouping". Stopped by a stop, a pause or a hold, it runs again later
    /// (`groupAgain`).
    private func group(serve: @escaping () -> Void, report: @escaping Report) {
        groupingPending = false
        let cancel = cancel
        var served = ContinuousClock.now
        // Said once the regroup has work (its first checkpoint): a reconcile that changed
        // nothing does not flash "grouping" in the bars.
        var announced = false
        defer { if announced { report(.groupingEnded) } }
        do {
            _ = try update.afterScan(waitForTrashLock: false) {
                if !announced {
                    announced = true
                    report(.grouping)
                }
                if ContinuousClock.now - served >= .milliseconds(200) {
                    served = ContinuousClock.now
                    serve()
                }
                if cancel.isSet { throw Grouper.Cancelled() }
            }
        } catch is Grouper.Cancelled {
            groupingPending = true
            logger.info("grouping stopped before the end; it runs again when the agent may work")
        } catch {
            report(.failed("grouping failed", error))
        }
    }

    /// A regroup stopped earlier (`groupingPending`), run on its own under the scan lock.
    func groupAgain(serve: @escaping () -> Void, report: @escaping Report) {
        guard let scanLock = takeScanLock(report: report) else { return }
        defer { scanLock.unlock() }
        cancel = CancelFlag()
        isWorking = true
        defer { isWorking = false }
        group(serve: serve, report: report)
        Memory.releaseFreeMemory()
        report(.idle)
    }

    /// The lock of one scan of the library at a time, or nil while another process holds it
    /// (tried again in a second) or it cannot be taken (in a minute).
    private func takeScanLock(report: Report) -> FileLock? {
        do {
            guard let held = try ScanLock.tryTake(library) else {
                if retryAt == nil { logger.info("another process is scanning the library; waiting for it") }
                retryAt = now.addingTimeInterval(1)
                return nil
            }
            retryAt = nil
            return held
        } catch {
            report(.failed("cannot take the scan lock", error))
            retryAt = now.addingTimeInterval(60)
            return nil
        }
    }

    /// Folders and files `snapsort forget` dropped from the library: those under a watched root
    /// are listed again, as a `snapsort scan` would (their folders are watched and unchanged,
    /// so nothing else would bring their files back until the hourly reconcile).
    func relistForgotten() {
        let forgotten: [String]
        do { forgotten = try library.takeForgottenPaths() } catch {
            logger.debug("cannot read the forgotten paths", ["error": "\(error)"])
            return
        }
        let watcher = monitor.watcher
        for f in forgotten {
            for r in monitor.roots where !monitor.offline.contains(r) {
                if r == f || r.hasPrefix(f == "/" ? "/" : f + "/") {
                    dirtyFolders.insert(r)
                } else if f.hasPrefix(r == "/" ? "/" : r + "/"), !watcher.isExcluded(f, roots: monitor.roots) {
                    guard let st = FileSystem.lstatusIfExists(f) else { continue }
                    if st.isDirectory {
                        let name = String(f[f.index(after: f.lastIndex(of: "/")!)...])
                        if !watcher.rules.skipsFolder(name: name, path: f) { dirtyFolders.insert(f) }
                    } else if st.isRegular {
                        dirtyFiles.insert(f)
                    }
                }
            }
        }
    }
}

/// What a reconcile or a regroup says as it goes, in order: the values the agent's loop alone
/// turns into the status (`StatusPublisher.record`).
enum WorkReport {
    /// A reconcile began (`catchingUp`: after a lost queue, the whole of it says `reconciling`).
    case scanning(catchingUp: Bool)
    /// Its walk or its analysis, counted for this reconcile.
    case progress(ScanProgress.Phase, done: Int, total: Int, catchingUp: Bool)
    /// The reconcile's scan is over.
    case scanned
    /// The reconcile analyzed photos, and they are in the library (said before the regroup).
    case analyzed
    /// The regroup has work (its first checkpoint).
    case grouping
    /// The regroup announced by `grouping` is over, done or stopped.
    case groupingEnded
    /// The reconcile changed the library (files analyzed, moved or gone).
    case libraryChanged
    /// The work is over; the agent is idle again (watching, or paused while held).
    case idle
    /// Something the status shows changed (a move, a removal, a file waiting while analysis may not run).
    case changed
    /// A step failed: `message` says which (logged, and the status's last error).
    case failed(_ message: String, any Error)
    /// The step whose failure began with this message works again (its error goes).
    case worksAgain(_ messagePrefix: String)
}
