import Dispatch
import Foundation
import SnapSortSystem
import Synchronization

/// One folder as the walk found it, handed to the caller before the walk goes on: the scan
/// compares it with that folder's stored rows and drops it, so what a walk holds follows the
/// largest folder, not the library.
struct FolderVisit: Sendable {
    var dir: String
    /// Its regular candidate files (symlinks are never followed and never become items).
    var files: [(path: String, status: FileStatus)] = []
    /// The subfolders the walk goes on to, each visited later: a stored row under any other
    /// subfolder is gone (excluded, left out by a marker, no longer there).
    var subfolders: [String] = []
    /// The XMP sidecars (`XMPSidecar.names`) in the folder; nil when it was skipped as unchanged
    /// or could not be listed (its sidecars are not known, and are not checked).
    var sidecars: Set<String>?
    /// Could not be listed, or listed but its files not read: its rows, and all under it, are kept.
    var unreadable = false
}

/// What a walk knows once it is over: the stamps (they depend on the whole tree), the folders it
/// could not read, and how many it listed or skipped.
struct WalkEnd: Sendable {
    /// The stamp of every folder listed completely, or skipped as unchanged.
    var stamps: [String: Library.FolderStamp] = [:]
    /// Folders that could not be listed: their rows are kept.
    var unreadable: [String] = []
    var listed = 0
    var skipped = 0
}

/// A whole walk collected (tests, and a walk ahead compared with the scan's own).
struct FolderListing: Sendable {
    var files: [(path: String, status: FileStatus)] = []
    var stamps: [String: Library.FolderStamp] = [:]
    var unreadable: [String] = []
    var listed = 0
    var skipped = 0
}

/// The recorded state that lets a walk skip listing unchanged folders (the agent's reconciles).
/// It holds the folders' stamps only; the files known in a folder, and the subfolders that hold
/// known files, are asked of the library folder by folder as the walk comes to them.
struct KnownFolders: Sendable {
    /// Stamps recorded when each folder was last listed completely.
    var recorded: [String: Library.FolderStamp]
    /// The recorded subfolders of each folder, each linked to its parent up to the root.
    var foldersIn: [String: [String]]

    init(recorded: [String: Library.FolderStamp], root: String) {
        self.recorded = recorded
        var folders: [String: [String]] = [:]
        var linked: Set<String> = []
        for path in recorded.keys {
            var dir = path
            while dir.count > root.count, dir.hasPrefix(root + "/") || root == "/", linked.insert(dir).inserted {
                let up = LibraryScanner.parent(dir)
                folders[up, default: []].append(dir)
                dir = up
            }
        }
        foldersIn = folders
    }
}

enum FolderWalk {
    /// Walks the folder `root` (which exists and is a folder): lists each folder once, relative
    /// to its open descriptor, stats its candidate files, and hands each folder to `visit`
    /// before the next (depth first); `visit` returning false ends the walk.
    ///
    /// A folder whose stamp matches `known`'s is not listed: its known files and the subfolders
    /// that hold known files (`storedIn`, the library's rows of that folder) are stat'ed and
    /// walked, with its recorded subfolders. A folder changed in the same tick as its mtime
    /// cannot be trusted (like git's "racy" index entries), so it gets no stamp: only a folder
    /// changed more than two seconds before `now` is stamped. File times are wall-clock times,
    /// so `now` is the wall clock's in production (the scanner's `pace`), and a test's clock in
    /// tests. `listed` hears the count of files listed so far before each folder (the caller's
    /// progress).
    static func walk(
        _ root: String, rules: ExcludeRules, known: KnownFolders?, now: Date, logger: Logger, listed: (Int) -> Void = { _ in },
        storedIn: (String) throws -> (files: [String], folders: [String]),
        visit: (FolderVisit) throws -> Bool
    ) rethrows -> WalkEnd {
        var out = WalkEnd()
        var filesSoFar = 0
        let trustedBefore = Int64((now.timeIntervalSince1970 - 2) * 1e9)
        var stack = [root]
        // The subfolders walked from each folder, and those a marker file leaves out.
        var children: [String: [String]] = [:]
        var leftOut: Set<String> = []
        while let dir = stack.popLast() {
            listed(filesSoFar)
            var v = FolderVisit(dir: dir)
            defer { filesSoFar += v.files.count }
            let dirStatus = FileSystem.lstatusIfExists(dir)
            if let known, let st = dirStatus, st.isDirectory, let k = known.recorded[dir], k == Library.FolderStamp(st) {
                out.skipped += 1
                out.stamps[dir] = k
                let stored = try storedIn(dir)
                let folder = try? OpenDirectory(dir)
                for path in stored.files {
                    let status = folder.map { $0.lstatus(LibraryScanner.name(path)) } ?? FileSystem.lstatusIfExists(path)
                    guard let s = status, s.isRegular else { continue }
                    v.files.append((path, s))
                }
                var subs = known.foldersIn[dir] ?? []
                subs += stored.folders.filter { !subs.contains($0) }
                for sub in subs where !rules.skipsFolder(name: LibraryScanner.name(sub), path: sub) {
                    stack.append(sub)
                    v.subfolders.append(sub)
                    children[dir, default: []].append(sub)
                }
                if try !visit(v) { return out }
                continue
            }
            out.listed += 1
            let folder: OpenDirectory
            let entries: [DirectoryEntry]
            do {
                folder = try OpenDirectory(dir)
                entries = try folder.entries()
            } catch {
                out.unreadable.append(dir)
                logger.warning("cannot list folder \(dir)", ["error": "\(error)"])
                v.unreadable = true
                if try !visit(v) { return out }
                continue
            }
            if rules.hasMarker(entries.lazy.map(\.name)) {
                leftOut.insert(dir)
                if try !visit(v) { return out }
                continue
            }
            if let st = dirStatus, st.isDirectory, st.mtimeNanoseconds < trustedBefore { out.stamps[dir] = Library.FolderStamp(st) }
            var denied = false
            var sidecarNames: Set<String> = []
            for e in entries {
                let path = dir == "/" ? "/" + e.name : dir + "/" + e.name
                var kind = e.kind
                var st: FileStatus?
                if kind == .unknown {
                    let r = folder.lstatusOrDenied(e.name)
                    st = r.status
                    denied = denied || r.denied
                    kind = st.map { $0.isDirectory ? .directory : $0.isRegular ? .regular : $0.isSymlink ? .symlink : .other } ?? .other
                }
                switch kind {
                case .directory:
                    if !rules.skipsFolder(name: e.name, path: path) {
                        stack.append(path)
                        v.subfolders.append(path)
                        children[dir, default: []].append(path)
                    }
                case .regular:
                    if XMPSidecar.isSidecarName(e.name) { sidecarNames.insert(e.name) }
                    guard rules.isCandidateFile(name: e.name) else { continue }
                    if st == nil {
                        let r = folder.lstatusOrDenied(e.name)
                        st = r.status
                        denied = denied || r.denied
                    }
                    guard let s = st, s.isRegular else { continue }
                    v.files.append((path, s))
                default:
                    continue  // symlinks are never followed and never become items
                }
            }
            v.sidecars = sidecarNames
            if denied {
                // Its names can be read, not its files: unreadable, like a folder that cannot be
                // listed (its known files are kept, and it is listed again next time).
                out.unreadable.append(dir)
                v.unreadable = true
                logger.warning(
                    "cannot read the files of folder \(dir)", ["error": "permission denied: it can be listed but not entered (no x permission)"])
            }
            if try !visit(v) { return out }
        }
        // Unreadable folders keep no stamp (they are listed again next time).
        for u in out.unreadable { out.stamps = out.stamps.filter { $0.key != u && !$0.key.hasPrefix(u + "/") } }
        // A stamp vouches for the folder's whole tree: a folder skipped next time walks only
        // its stamped subfolders, so one with a subfolder left unstamped (changed while it was
        // listed, unreadable) keeps no stamp either, up to the root. Else that subfolder was
        // never walked again: the files it gained were never found.
        var changed = true
        while changed {
            changed = false
            for (dir, subs) in children where out.stamps[dir] != nil {
                if subs.contains(where: { out.stamps[$0] == nil && !leftOut.contains($0) }) {
                    out.stamps[dir] = nil
                    changed = true
                }
            }
        }
        return out
    }

    /// The whole walk of `root` collected in one listing (tests: what a walk finds).
    static func listing(_ root: String, rules: ExcludeRules, known: KnownFolders? = nil, now: Date, logger: Logger = .silent) -> FolderListing {
        var out = FolderListing()
        let end = walk(root, rules: rules, known: known, now: now, logger: logger, storedIn: { _ in ([], []) }) { v in
            out.files += v.files
            return true
        }
        out.stamps = end.stamps
        out.unreadable = end.unreadable
        out.listed = end.listed
        out.skipped = end.skipped
        return out
    }
}

/// Walks of the roots a scan is about to reconcile, started on another thread before the
/// library is opened: the file system's part of a rescan (a `stat` per file, a listing per
/// folder) then runs beside the database's (the integrity check at open, reading the rows).
/// Only full listings are walked ahead; a root that is no folder is left to the scan.
///
/// The walk runs ahead of the scan by a bounded number of files (`ahead`), folder by folder:
/// it waits while the scan has that many to take, so what it holds follows the largest folder,
/// not the library (a whole listing of a million files was ~150 MB).
public final class PrewalkedRoots: Sendable {
    /// The folders of one root, from the walking thread to the scan's, in walk order.
    final class Stream: Sendable {
        enum Item: Sendable {
            case folder(FolderVisit)
            /// The walk is over; nil when the root was not walked (no folder, or the walk stopped).
            case end(WalkEnd?)
        }
        private struct State {
            var queue: [FolderVisit] = []
            var queuedFiles = 0
            var end: WalkEnd??
            var cancelled = false
            var walkerWaits = false
            var scanWaits = false
        }
        let root: String
        private let state = Mutex(State())
        private let room = DispatchSemaphore(value: 0)
        private let item = DispatchSemaphore(value: 0)
        private let ahead: Int

        init(root: String, ahead: Int) {
            self.root = root
            self.ahead = ahead
        }

        /// The walking thread: queues `v`, waiting while `ahead` files (or folders) are queued.
        /// False when the scan will take no more (the walk stops).
        func put(_ v: FolderVisit) -> Bool {
            while true {
                enum Put {
                    case queued(wake: Bool)
                    case full, cancelled
                }
                let r = state.withLock { s -> Put in
                    if s.cancelled { return .cancelled }
                    if !s.queue.isEmpty && (s.queuedFiles + v.files.count > ahead || s.queue.count >= ahead) {
                        s.walkerWaits = true
                        return .full
                    }
                    s.queue.append(v)
                    s.queuedFiles += v.files.count
                    defer { s.scanWaits = false }
                    return .queued(wake: s.scanWaits)
                }
                switch r {
                case .queued(let wake):
                    if wake { item.signal() }
                    return true
                case .cancelled: return false
                case .full: room.wait()
                }
            }
        }

        /// The walking thread: the walk is over (nil: not walked).
        func finish(_ end: WalkEnd?) {
            let wake = state.withLock { s -> Bool in
                s.end = .some(end)
                defer { s.scanWaits = false }
                return s.scanWaits
            }
            if wake { item.signal() }
        }

        /// The scan: the next folder, or the end of the walk.
        func next() -> Item {
            while true {
                enum Next {
                    case item(Item, wake: Bool)
                    case wait
                }
                let r = state.withLock { s -> Next in
                    if !s.queue.isEmpty {
                        let v = s.queue.removeFirst()
                        s.queuedFiles -= v.files.count
                        defer { s.walkerWaits = false }
                        return .item(.folder(v), wake: s.walkerWaits)
                    }
                    if let end = s.end { return .item(.end(end), wake: false) }
                    s.scanWaits = true
                    return .wait
                }
                switch r {
                case .item(let i, let wake):
                    if wake { room.signal() }
                    return i
                case .wait: item.wait()
                }
            }
        }

        /// The scan takes no more: the walk stops and what it queued is dropped.
        func cancel() {
            let wake = state.withLock { s -> Bool in
                s.cancelled = true
                s.queue.removeAll()
                s.queuedFiles = 0
                defer { s.walkerWaits = false }
                return s.walkerWaits
            }
            if wake { room.signal() }
        }

        /// Whether the walking thread waits for the scan to take what it queued.
        var walkerWaits: Bool { state.withLock { $0.walkerWaits } }
    }

    /// The roots in walk order, each taken by the scan at most once.
    private let streams: [Stream]
    private let taken = Mutex<Int>(0)
    private let done = DispatchGroup()

    /// How many files the walk may run ahead of the scan (and folders, for folders without any).
    static let ahead = 8192

    /// `clock`: what folder times are compared with (`FolderWalk.walk`'s `now`), the scanner's `pace`.
    public init(_ paths: [String], rules: ExcludeRules, clock: Clock, logger: Logger = .silent) {
        var roots: [String] = []
        for p in paths.map(LibraryScanner.normalize) where !roots.contains(p) { roots.append(p) }
        let streams = roots.map { Stream(root: $0, ahead: PrewalkedRoots.ahead) }
        self.streams = streams
        done.enter()
        DispatchQueue.global(qos: .userInitiated).async { [done] in
            for stream in streams {
                guard (try? FileSystem.status(stream.root))?.isDirectory == true else {
                    stream.finish(nil)
                    continue
                }
                var stopped = false
                let end = FolderWalk.walk(stream.root, rules: rules, known: nil, now: clock.now(), logger: logger, storedIn: { _ in ([], []) }) { v in
                    stopped = !stream.put(v)
                    return !stopped
                }
                stream.finish(stopped ? nil : end)
            }
            done.leave()
        }
    }

    deinit {
        // A scan that never took a root (it failed first) leaves no walk waiting for it.
        for s in streams { s.cancel() }
    }

    /// Waits until the walk is over, or waits for the scan to take what it found (tests: a file
    /// removed after the walk, before the analysis).
    func waitUntilWalked() {
        while done.wait(timeout: .now() + .milliseconds(5)) == .timedOut {
            if streams.contains(where: \.walkerWaits) { return }
        }
    }

    /// The folders of `root` as they are walked; nil when it is not walked ahead (or was taken
    /// already). The roots before it that the scan did not take are dropped: the walk goes on.
    func take(_ root: String) -> Stream? {
        taken.withLock { next -> Stream? in
            guard let i = streams[next...].firstIndex(where: { $0.root == root }) else { return nil }
            for s in streams[next..<i] { s.cancel() }
            next = i + 1
            return streams[i]
        }
    }

    /// The whole listing of `root` (tests: what the walk ahead found); nil when not walked ahead.
    func listing(_ root: String) -> FolderListing? {
        guard let stream = take(root) else { return nil }
        var out = FolderListing()
        while true {
            switch stream.next() {
            case .folder(let v): out.files += v.files
            case .end(let end):
                guard let end else { return nil }
                out.stamps = end.stamps
                out.unreadable = end.unreadable
                out.listed = end.listed
                out.skipped = end.skipped
                return out
            }
        }
    }
}
