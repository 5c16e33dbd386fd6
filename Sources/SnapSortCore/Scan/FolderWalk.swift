import Dispatch
import Foundation
import SnapSortSystem
import Synchronization

/// What a walk of one root found on disk: its candidate files with their status, in walk
/// order, and the folders' stamps. The walk reads the file system only; `LibraryScanner`
/// compares the result with the stored rows.
struct FolderListing: Sendable {
    /// Regular candidate files (symlinks are never followed and never become items).
    var files: [(path: String, status: FileStatus)] = []
    /// The stamp of every folder listed completely, or skipped as unchanged.
    var stamps: [String: Library.FolderStamp] = [:]
    /// Folders that could not be listed: their rows are kept.
    var unreadable: [String] = []
    /// The XMP sidecars (`XMPSidecar.names`) in each folder listed; folders skipped as unchanged
    /// are not in it (their sidecars are not known, and are not checked).
    var sidecars: [String: Set<String>] = [:]
    var listed = 0
    var skipped = 0
}

/// The recorded state that lets a walk skip listing unchanged folders (the agent's reconciles).
struct KnownFolders: Sendable {
    /// Stamps recorded when each folder was last listed completely.
    var recorded: [String: Library.FolderStamp]
    /// The stored files and the recorded subfolders of each folder.
    var filesIn: [String: [String]]
    var foldersIn: [String: [String]]

    init(recorded: [String: Library.FolderStamp], knownFiles: some Sequence<String>, root: String) {
        self.recorded = recorded
        var files: [String: [String]] = [:]
        var folders: [String: [String]] = [:]
        // Each folder is linked to its parent, up to the root: every stamped folder, and every
        // folder that holds a known file, stamped or not (a stamp missing under a skipped
        // folder, changed while it was listed, hid the folder: its files were taken for gone).
        var linked: Set<String> = []
        func link(_ folder: String) {
            var dir = folder
            while dir.count > root.count, dir.hasPrefix(root + "/") || root == "/", linked.insert(dir).inserted {
                let up = LibraryScanner.parent(dir)
                folders[up, default: []].append(dir)
                dir = up
            }
        }
        for path in recorded.keys { link(path) }
        for path in knownFiles {
            let dir = LibraryScanner.parent(path)
            files[dir, default: []].append(path)
            link(dir)
        }
        filesIn = files
        foldersIn = folders
    }
}

enum FolderWalk {
    /// Walks the folder `root` (which exists and is a folder): lists each folder once, relative
    /// to its open descriptor, and stats its candidate files.
    ///
    /// A folder whose stamp matches `known`'s is not listed: its known files are stat'ed and its
    /// known subfolders walked. A folder changed in the same tick as its mtime cannot be trusted
    /// (like git's "racy" index entries), so it gets no stamp: only a folder changed more than
    /// two seconds before `now` is stamped. File times are wall-clock times, so `now` is the
    /// wall clock's in production (the scanner's `pace`), and a test's clock in tests.
    /// `listed` hears the count of files listed so far before each folder (the caller's progress).
    static func walk(
        _ root: String, rules: ExcludeRules, known: KnownFolders?, now: Date, logger: Logger, listed: (Int) -> Void = { _ in }
    ) -> FolderListing {
        var out = FolderListing()
        let trustedBefore = Int64((now.timeIntervalSince1970 - 2) * 1e9)
        var stack = [root]
        // The subfolders walked from each folder, and those a marker file leaves out.
        var children: [String: [String]] = [:]
        var leftOut: Set<String> = []
        while let dir = stack.popLast() {
            listed(out.files.count)
            let dirStatus = FileSystem.lstatusIfExists(dir)
            if let known, let st = dirStatus, st.isDirectory, let k = known.recorded[dir], k == Library.FolderStamp(st) {
                out.skipped += 1
                out.stamps[dir] = k
                let folder = try? OpenDirectory(dir)
                for path in known.filesIn[dir] ?? [] {
                    let status = folder.map { $0.lstatus(LibraryScanner.name(path)) } ?? FileSystem.lstatusIfExists(path)
                    guard let s = status, s.isRegular else { continue }
                    out.files.append((path, s))
                }
                for sub in known.foldersIn[dir] ?? [] where !rules.skipsFolder(name: LibraryScanner.name(sub), path: sub) {
                    stack.append(sub)
                    children[dir, default: []].append(sub)
                }
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
                continue
            }
            if rules.hasMarker(entries.lazy.map(\.name)) {
                leftOut.insert(dir)
                continue
            }
            if let st = dirStatus, st.isDirectory, st.mtimeNanoseconds < trustedBefore { out.stamps[dir] = Library.FolderStamp(st) }
            var denied = false
            var sidecarNames: Set<String> = []
            defer { out.sidecars[dir] = sidecarNames }
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
                    out.files.append((path, s))
                default:
                    continue  // symlinks are never followed and never become items
                }
            }
            if denied {
                // Its names can be read, not its files: unreadable, like a folder that cannot be
                // listed (its known files are kept, and it is listed again next time).
                out.unreadable.append(dir)
                logger.warning(
                    "cannot read the files of folder \(dir)", ["error": "permission denied: it can be listed but not entered (no x permission)"])
            }
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
}

/// Walks of the roots a scan is about to reconcile, started on another thread before the
/// library is opened: the file system's part of a rescan (a `stat` per file, a listing per
/// folder) then runs beside the database's (the integrity check at open, reading the rows).
/// Only full listings are walked ahead; a root that is no folder is left to the scan.
public final class PrewalkedRoots: Sendable {
    private let listings = Mutex<[String: FolderListing]>([:])
    private let done = DispatchGroup()

    /// `clock`: what folder times are compared with (`FolderWalk.walk`'s `now`), the scanner's `pace`.
    public init(_ paths: [String], rules: ExcludeRules, clock: Clock, logger: Logger = .silent) {
        let roots = paths.map(LibraryScanner.normalize)
        done.enter()
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            for root in roots where (try? FileSystem.status(root))?.isDirectory == true {
                let listing = FolderWalk.walk(root, rules: rules, known: nil, now: clock.now(), logger: logger)
                listings.withLock { $0[root] = listing }
            }
            done.leave()
        }
    }

    /// Waits for the walk to end (tests: a file removed after the walk, before the analysis).
    func waitUntilWalked() { done.wait() }

    /// The listing of `root`, once the walk is over; nil when it was not walked ahead.
    func listing(_ root: String) -> FolderListing? {
        done.wait()
        return listings.withLock { $0.removeValue(forKey: root) }
    }
}
