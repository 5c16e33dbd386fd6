import Foundation
import SnapSortCore
import SnapSortSystem

/// The agent's part that keeps the roots watched: each root online (watched) or offline (moved
/// away, deleted, its disk unmounted: watches dropped, rows kept) and back again, from the
/// mount table, the roots' identities and a periodic look. It says which folders need a
/// reconcile (`takeReconcile`) and when the status changed (`takeChanged`).
final class RootMonitor {
    let watcher: Watcher
    private let logger: Logger
    private let checkInterval: TimeInterval
    /// The roots watched (or offline), in the configuration's order.
    private(set) var roots: [String]
    /// Roots that are not there now: moved away, deleted, a drive not mounted. Looked for every
    /// `checkInterval`; watched and reconciled again once back.
    private(set) var offline: Set<String> = []
    private(set) var nextOfflineCheck = Date.distantFuture
    /// The mount table, polled for changes: a root's file system unmounted or mounted again
    /// makes no inotify event on the folder it is mounted on (nil when it cannot be opened; a
    /// root's return is then noticed by the periodic look alone).
    let mounts: MountTable?
    /// Folders to reconcile, and whether the status changed, since the agent last took them.
    private var reconcile: Set<String> = []
    private var changed = false

    /// Each watched root's folder (device, inode) when its watch was set: the root's path must
    /// still lead there. A folder above a root renamed (`~/Photos` → `~/Old photos` for the
    /// root `~/Photos/Family`) sends the root no event of its own, and its watches went on
    /// reporting the new files under the old path, where no file is.
    /// `mount` is the mount holding it (`MountInfo.id` and `parentID`; nil without a mount
    /// table): a root that is itself a mount point (an SD card, a USB disk, a NAS share)
    /// unmounted leads to the bare folder it was mounted on, in the mount below, which is not
    /// the library's.
    private var identity: [String: (device: UInt64, inode: UInt64, mount: (id: Int, parentID: Int)?)] = [:]

    /// Roots offline because the file system holding them went (unmounted) while their path
    /// still leads to a folder (the bare mount point): where the path led then. Such a root is
    /// back when its path leads to another file system or mount (`isBack`).
    private var awayMounts: [String: (device: UInt64, mountID: Int?)] = [:]

    init(roots: [String], watcher: Watcher, logger: Logger, checkInterval: TimeInterval) {
        self.roots = roots
        self.watcher = watcher
        self.logger = logger
        self.checkInterval = checkInterval
        do { mounts = try MountTable() } catch {
            logger.warning("cannot watch the mount table; a root's disk mounted again is noticed within a few seconds", ["error": "\(error)"])
            mounts = nil
        }
    }

    /// The folders to reconcile since the last call.
    func takeReconcile() -> Set<String> {
        defer { reconcile.removeAll() }
        return reconcile
    }

    /// Whether the status changed (a root went or came back) since the last call.
    func takeChanged() -> Bool {
        defer { changed = false }
        return changed
    }

    /// Roots whose disk is unmounted: paths under them wait for it (the bare mount point is
    /// not the library's folder); it is reconciled whole when it comes back.
    var waiting: Set<String> { Set(awayMounts.keys) }

    static func isFolder(_ path: String) -> Bool { FileSystem.lstatusIfExists(path)?.isDirectory == true }

    /// Watches every root; those not there are offline.
    func start(at t: Date) {
        for r in roots { watch(r) }
        for r in roots where !RootMonitor.isFolder(r) { wentOffline(r, at: t) }
    }

    /// Sets the watches on every root again and reconciles them all (the periodic reconcile,
    /// an overflowed event queue).
    func rewatchAll() {
        for r in roots { watch(r) }
        reconcile.formUnion(roots)
    }

    /// The roots not there now (offline, or their path leading to no folder), looked at once
    /// for a batch of removals (`AbsentRoots.keepsMissing`).
    func absentRoots() -> AbsentRoots { AbsentRoots(roots: roots.filter { offline.contains($0) || !RootMonitor.isFolder($0) }) }

    /// The roots not there at one moment (`absentRoots`).
    struct AbsentRoots {
        let roots: [String]

        /// Whether a missing `path` is offline like its root rather than deleted: under a root
        /// that is not there (moved away, unmounted), an event queued before the root went is
        /// no removal. With nested roots, any of them missing keeps it. A root whose disk was
        /// unmounted is a folder still (the bare mount point): offline too.
        func keepsMissing(_ path: String) -> Bool { roots.contains { path.hasPrefix($0 + "/") } }
    }

    /// The watched folder `dir` itself moved away or was deleted: a root goes offline.
    func folderLeft(_ dir: String, at t: Date) {
        guard roots.contains(dir) else { return }
        logger.notice("a root moved or was deleted; it is offline until it comes back", ["root": dir])
        watcher.unwatch(dir)
        reconcile.insert(dir)
        wentOffline(dir, at: t)
    }

    /// The roots of a new configuration: those gone unwatched, the new ones watched and
    /// reconciled (or offline). `rewatch`: the exclusions changed, every root kept is walked
    /// again for its watches and reconciled.
    func setRoots(_ newRoots: [String], rewatch: Bool, at t: Date) {
        if rewatch {
            for r in roots where newRoots.contains(r) { watch(r) }
            reconcile.formUnion(newRoots.filter { roots.contains($0) })
        }
        for r in roots where !newRoots.contains(r) { watcher.unwatch(r) }
        for r in newRoots where !roots.contains(r) {
            watch(r)
            reconcile.insert(r)
            if !RootMonitor.isFolder(r) { wentOffline(r, at: t) }
        }
        roots = newRoots
        offline.formIntersection(roots)
    }

    /// A reloaded configuration's roots and exclusions, taken as a restart would: a newly
    /// excluded folder is no longer watched and its photos leave the library at the reconcile
    /// that follows; a folder no longer excluded is watched and its photos come in (a reload
    /// only changed the rules, and the excluded folder kept being watched, its new photos added).
    func configurationChanged(from old: Configuration, to new: Configuration, roots newRoots: [String], at t: Date) {
        watcher.rules = ExcludeRules(excludedPaths: new.excludes)
        for e in new.excludes where !old.excludes.contains(e) { watcher.unwatch(e) }
        setRoots(newRoots, rewatch: new.excludes != old.excludes, at: t)
    }

    private func wentOffline(_ root: String, at t: Date) {
        offline.insert(root)
        nextOfflineCheck = min(nextOfflineCheck, t.addingTimeInterval(checkInterval))
        changed = true
    }

    private func watch(_ r: String) {
        watcher.watchTree(r)
        if let st = FileSystem.lstatusIfExists(r), st.isDirectory, watcher.isWatched(r) {
            identity[r] = (st.device, st.inode, mountHolding(r).map { ($0.id, $0.parentID) })
        } else {
            identity.removeValue(forKey: r)
        }
    }

    /// The mount holding the root `r` in the table as last read (its path resolved: the table
    /// names mount points by their real paths).
    private func mountHolding(_ r: String) -> MountInfo? {
        guard let mounts else { return nil }
        return mounts.mount(containing: (try? FileSystem.realPath(r)) ?? r)
    }

    /// Reads the mount table again (after `poll` said it changed, or before judging a root by
    /// it); one that cannot be read keeps the last table.
    private func reloadMounts() {
        do { try mounts?.reload() } catch { logger.debug("cannot read the mount table", ["error": "\(error)"]) }
    }

    /// The mount table changed (see proc(5): `/proc/self/mountinfo` is pollable), or a root's
    /// path leads to another device: each watched root whose file system went is offline (its
    /// watches dropped, its rows kept), one with another file system mounted on it or above it
    /// is watched and reconciled as it is now, and offline roots whose mount is back are
    /// watched and reconciled again.
    func checkMounts(at t: Date) {
        reloadMounts()
        for r in roots where !offline.contains(r) {
            guard let id = identity[r] else { continue }
            guard let st = FileSystem.lstatusIfExists(r), st.isDirectory else {
                logger.notice("a root is not there any more (its disk unmounted?); it is offline until it comes back", ["root": r])
                takeOffline(r, at: t)
                continue
            }
            let current = mountHolding(r)
            if st.device == id.device && current?.id == id.mount?.id { continue }
            // Away: its mount left the table and the path leads to the mount below it (the bare
            // mount point). Otherwise something was mounted on the root or a folder above it, or
            // the disk was put back in before the agent looked (another mount of its own): the
            // path leads to that now. Without a mount table, another device is taken for away.
            let away: Bool
            if let m = id.mount, let mounts {
                away = !mounts.entries.contains { $0.id == m.id } && current?.id == m.parentID
            } else {
                away = st.device != id.device
            }
            if away {
                logger.notice("a root's disk was unmounted; it is offline until it is mounted again", ["root": r])
                takeOffline(r, at: t, away: (st.device, current?.id))
            } else {
                logger.notice("a root's path leads to another file system now (mounted on it or above it); watching that one", ["root": r])
                watcher.unwatch(r)
                watch(r)
                reconcile.insert(r)
            }
        }
        if !offline.isEmpty { checkOffline(at: t) }
    }

    /// Roots whose watch the kernel dropped (`IN_IGNORED` after `IN_UNMOUNT`) while they are
    /// online. A disk unmounted and mounted again before the agent looked, on the same device
    /// number and mount id (both are reused), seems unchanged to `checkMounts`, yet every
    /// watch on it is gone: it is watched and reconciled again, or offline when away.
    func checkDropped(at t: Date) {
        let dropped = roots.filter { !offline.contains($0) && identity[$0] != nil && !watcher.isWatched($0) }
        guard !dropped.isEmpty else { return }
        checkMounts(at: t)
        for r in dropped where !offline.contains(r) && !watcher.isWatched(r) {
            logger.notice("a root's watches were dropped (its disk unmounted and mounted again?); watching it again", ["root": r])
            watcher.unwatch(r)
            watch(r)
            reconcile.insert(r)
        }
    }

    /// A root goes offline: its watches dropped, its rows kept (an event queued before is no
    /// removal, see `AbsentRoots.keepsMissing`), until `checkOffline` finds it back. `away`: where its path
    /// leads now, when that is a folder (the bare mount point).
    private func takeOffline(_ r: String, at t: Date, away: (device: UInt64, mountID: Int?)? = nil) {
        watcher.unwatch(r)
        identity.removeValue(forKey: r)
        if let away { awayMounts[r] = away } else { awayMounts.removeValue(forKey: r) }
        wentOffline(r, at: t)
    }

    /// Roots a scan found offline (an empty folder on another device than its rows were on:
    /// the agent started while the disk was out): offline until the disk is mounted again, not
    /// watched as the bare mount point.
    func scanFoundOffline(_ found: [String], at t: Date) {
        for r in found where roots.contains(r) && !offline.contains(r) {
            if let st = FileSystem.lstatusIfExists(r), st.isDirectory {
                logger.notice("a root looks unmounted; it is offline until its disk is mounted again", ["root": r])
                takeOffline(r, at: t, away: (st.device, mountHolding(r)?.id))
            } else {
                takeOffline(r, at: t)
            }
        }
    }

    /// Whether the offline root `r` leads to a folder of its own again: a folder at all, and,
    /// when its disk was unmounted, another device or mount than the bare mount point's.
    private func isBack(_ r: String) -> Bool {
        guard let st = FileSystem.lstatusIfExists(r), st.isDirectory else { return false }
        guard let away = awayMounts[r] else { return true }
        return st.device != away.device || mountHolding(r)?.id != away.mountID
    }

    /// The roots among `dirs` (folders that sent events) whose path no longer leads to the
    /// folder watched. Their events are not taken (they name paths where those files are not):
    /// a root whose path leads nowhere is offline, as if it had moved itself, until it leads to
    /// a folder again (`checkOffline`); one whose path leads to another folder (made anew
    /// there, or a file system whose inode numbers are not stable) is watched and reconciled
    /// as it is now.
    func checkPaths(_ dirs: Set<String>, at t: Date) {
        for r in roots where !offline.contains(r) {
            guard let id = identity[r], dirs.contains(where: { $0 == r || $0.hasPrefix(r == "/" ? "/" : r + "/") }) else { continue }
            let st = FileSystem.lstatusIfExists(r)
            if let st, st.isDirectory, st.device == id.device, st.inode == id.inode { continue }
            if let st, st.isDirectory, st.device != id.device {
                // Another device: its disk unmounted (`IN_UNMOUNT`), or one mounted above it.
                checkMounts(at: t)
                continue
            }
            watcher.unwatch(r)
            identity.removeValue(forKey: r)
            if st?.isDirectory == true {
                logger.notice("a root's path leads to another folder now (a folder above it renamed or replaced); watching that one", ["root": r])
                watch(r)
                reconcile.insert(r)
            } else {
                logger.notice(
                    "a root's path no longer leads to the folder watched (a folder above it renamed?); it is offline until it leads to a folder again",
                    ["root": r])
                wentOffline(r, at: t)
            }
        }
    }

    /// Watches and reconciles the offline roots that are back.
    func checkOffline(at t: Date) {
        offline.formIntersection(roots)
        awayMounts = awayMounts.filter { offline.contains($0.key) }
        if !awayMounts.isEmpty { reloadMounts() }
        for r in offline.sorted() where isBack(r) {
            offline.remove(r)
            awayMounts.removeValue(forKey: r)
            logger.notice("a root is back; watching it again", ["root": r])
            watch(r)
            reconcile.insert(r)
            changed = true
        }
        nextOfflineCheck = offline.isEmpty ? .distantFuture : t.addingTimeInterval(checkInterval)
    }
}
