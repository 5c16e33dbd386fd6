import Foundation
import SnapSortCore
import SnapSortSystem

/// The agent's part that turns inotify events into changes (see man 7 inotify): writes
/// debounced, moves paired (`ChangeTracker`), folder watches renamed as their folders move,
/// sidecars sent to their photos, an overflowed queue turned into a reconcile of everything.
final class EventIngest {
    private let monitor: RootMonitor
    private var watcher: Watcher { monitor.watcher }
    private let logger: Logger
    /// Counts the events read and the overflows (the agent's counters).
    private let count: (_ events: Int, _ overflows: Int) -> Void
    private(set) var tracker: ChangeTracker
    /// Folders whose watch is being renamed: cookie → old path (applied as soon as the TO arrives).
    private var folderMoves: [UInt32: String] = [:]
    /// An overflow was handled and its reconcile has not started yet (the status says
    /// `reconciling` from then on).
    private(set) var overflowPending = false

    init(monitor: RootMonitor, options: AgentOptions, count: @escaping (_ events: Int, _ overflows: Int) -> Void) {
        self.monitor = monitor
        logger = options.logger
        self.count = count
        tracker = ChangeTracker(debounce: options.debounce, moveTimeout: options.moveTimeout)
    }

    /// A reconcile of everything began: the next overflow is said again. Whether an overflow
    /// asked for it (the reconcile is then a catch-up, `AgentState.reconciling`).
    @discardableResult
    func reconcileStarted() -> Bool {
        defer { overflowPending = false }
        return overflowPending
    }

    /// The changes due at `t`.
    func due(at t: Date) -> [Change] { tracker.due(at: t) }

    var nextDeadline: Date? { tracker.nextDeadline }
    var isEmpty: Bool { tracker.isEmpty }

    /// Reads the events waiting on the watches' descriptor and ingests them.
    func read(at t: Date) throws {
        let events = try watcher.inotify.read()
        count(events.count, 0)
        monitor.checkPaths(Set(events.compactMap { watcher.pathByWatch[$0.wd] }), at: t)
        for e in events { ingest(e, at: t) }
        if events.contains(where: { $0.has(Inotify.ignored) }) { monitor.checkDropped(at: t) }
    }

    /// Feeds one inotify event to the tracker (see man 7 inotify for the event kinds).
    func ingest(_ e: Inotify.Event, at t: Date) {
        if e.has(Inotify.overflow) {
            // The kernel queue overflowed: events were lost. A reconcile of everything replaces them.
            count(0, 1)
            tracker.reset()
            folderMoves.removeAll()
            // A flood overflows again and again before the reconcile runs: said, and the trees
            // walked for their watches, once until then (28 lines a second, each a walk).
            guard !overflowPending else { return }
            overflowPending = true
            logger.warning("inotify queue overflowed; reconciling every root")
            monitor.rewatchAll()
            return
        }
        if e.has(Inotify.ignored) {
            watcher.dropped(e.wd)
            return
        }
        guard let dir = watcher.pathByWatch[e.wd] else { return }
        if e.name.isEmpty {
            // The watched folder itself moved away or was deleted.
            if e.has(Inotify.moveSelf) || e.has(Inotify.deleteSelf) { monitor.folderLeft(dir, at: t) }
            return
        }
        let path = dir == "/" ? "/" + e.name : dir + "/" + e.name
        let isDir = e.isDirectory
        if !isDir, XMPSidecar.isSidecarName(e.name),
            e.has(Inotify.closeWrite) || e.has(Inotify.movedTo) || e.has(Inotify.movedFrom) || e.has(Inotify.delete) || e.has(Inotify.attrib)
        {
            // An XMP sidecar written, renamed or removed (a rating given in darktable or digiKam):
            // its photos are looked at again, and analyzed again if their sidecar changed.
            for photo in sidecarOwners(dir: dir, sidecar: e.name) { tracker.written(photo, at: t) }
            return
        }
        let excluded = isDir ? watcher.rules.skipsFolder(name: e.name, path: path) : !watcher.rules.isCandidateFile(name: e.name)
        if e.has(Inotify.movedFrom) {
            if isDir { folderMoves[e.cookie] = path }
            if !excluded { tracker.movedFrom(path, cookie: e.cookie, isDirectory: isDir, at: t) }
        } else if e.has(Inotify.movedTo) {
            if isDir, let from = folderMoves.removeValue(forKey: e.cookie) {
                // Re-path the watches now, so later events in this batch report the new path.
                if excluded { watcher.unwatch(from) } else { watcher.renamed(from: from, to: path) }
            }
            tracker.movedTo(excluded ? nil : path, cookie: e.cookie, isDirectory: isDir, at: t)
        } else if e.has(Inotify.closeWrite) {
            if !excluded { tracker.written(path, at: t) }
        } else if e.has(Inotify.attrib) {
            // Permissions, owner or times changed: a file is looked at again (unchanged ones
            // cost a stat; one that could not be read is read again), a folder listed again.
            if !excluded { if isDir { tracker.folderCreated(path) } else { tracker.written(path, at: t) } }
        } else if e.has(Inotify.create) {
            if isDir && !excluded { tracker.folderCreated(path) }
        } else if e.has(Inotify.delete) {
            if !excluded || isDir { tracker.deleted(path, isDirectory: isDir) }
        }
    }

    /// The candidate files of `dir` whose sidecar `sidecar` may be (`XMPSidecar.names`):
    /// `IMG_1.jpg` for `IMG_1.jpg.xmp` without listing the folder, and for `IMG_1.xmp` every
    /// `IMG_1.*` the folder holds.
    private func sidecarOwners(dir: String, sidecar: String) -> [String] {
        let base = String(sidecar.dropLast(4))
        func full(_ name: String) -> String { dir == "/" ? "/" + name : dir + "/" + name }
        if watcher.rules.isCandidateFile(name: base) { return [full(base)] }
        guard let entries = try? FileSystem.listDirectory(dir) else { return [] }
        return entries.compactMap { e in
            guard e.name != sidecar, watcher.rules.isCandidateFile(name: e.name),
                XMPSidecar.names(for: e.name).contains(sidecar)
            else { return nil }
            return full(e.name)
        }
    }
}
