import Foundation
import SnapSortCore
import SnapSortSystem

/// The inotify watches on every folder under the roots (see man 7 inotify).
///
/// A new folder is watched *then* listed, so nothing created in between is missed. Watches stay
/// within a budget below `/proc/sys/fs/inotify/max_user_watches` (leaving headroom for other
/// programs, as tracker-miners does); folders beyond it are *unwatched* and reconciled
/// periodically instead (the agent is then degraded).
public final class Watcher {
    public let inotify: Inotify
    public var rules: ExcludeRules
    /// The most watches this agent takes.
    public private(set) var budget: Int
    /// Whether the budget follows the system's limit (not one given by a test).
    private let budgetFromSystem: Bool
    public private(set) var pathByWatch: [Int32: String] = [:]
    private var watchByPath: [String: Int32] = [:]
    /// Folders (with their subtrees) left unwatched because of the watch limit.
    public private(set) var unwatched: Set<String> = []
    private var logger: Logger

    /// Events for every folder: files closed after writing, moves, creations (for folders),
    /// deletions, changed permissions (a file or folder that could not be read may be readable
    /// now), and the folder's own move or deletion.
    public static let mask: UInt32 =
        Inotify.closeWrite | Inotify.attrib | Inotify.movedFrom | Inotify.movedTo | Inotify.create | Inotify.delete | Inotify.deleteSelf
        | Inotify.moveSelf | Inotify.onlyDir | Inotify.dontFollow | Inotify.exclUnlink

    /// Watches kept free for other programs.
    public static let headroom = 500

    /// `limit`: where the system's watch limit is read (`fs.inotify.max_user_watches`; tests
    /// inject one they can raise).
    public init(
        rules: ExcludeRules, budget: Int? = nil, limit: @escaping @Sendable () -> Int? = { Inotify.maxUserWatches() }, logger: Logger
    ) throws {
        inotify = try Inotify()
        self.rules = rules
        self.logger = logger
        self.limit = limit
        self.budget = budget ?? max(16, (limit() ?? 8192) - Watcher.headroom)
        budgetFromSystem = budget == nil
    }

    private let limit: @Sendable () -> Int?

    /// Reads the system's limit again (raised with sysctl, as the agent's message advises).
    public func refreshBudget() {
        guard budgetFromSystem, let limit = limit() else { return }
        budget = max(16, limit - Watcher.headroom)
    }

    public var count: Int { watchByPath.count }
    public var isDegraded: Bool { !unwatched.isEmpty }
    public func isWatched(_ path: String) -> Bool { watchByPath[path] != nil }

    /// Watches `dir` and every folder under it that the scanner would visit. Returns the
    /// number of folders watched.
    @discardableResult
    public func watchTree(_ dir: String) -> Int {
        var added = 0
        var stack = [dir]
        while let d = stack.popLast() {
            if watchByPath[d] == nil {
                guard watchByPath.count < budget else {
                    markUnwatched(d)
                    continue
                }
                do {
                    let wd = try inotify.addWatch(d, mask: Watcher.mask)
                    if let old = pathByWatch[wd], old != d { watchByPath.removeValue(forKey: old) }
                    pathByWatch[wd] = d
                    watchByPath[d] = wd
                    added += 1
                } catch let e as SystemError where e.code == .errno(ENOSPC) {
                    markUnwatched(d)
                    continue
                } catch {
                    // Gone or unreadable meanwhile: the reconcile records it.
                    logger.debug("cannot watch folder", ["error": "\(error)", "path": d])
                    continue
                }
            }
            // Listed after the watch is in place.
            guard let entries = try? FileSystem.listDirectory(d) else { continue }
            if rules.hasMarker(entries.lazy.map(\.name)) {
                unwatch(d)
                continue
            }
            for e in entries {
                let path = d == "/" ? "/" + e.name : d + "/" + e.name
                var isDir = e.kind == .directory
                if e.kind == .unknown { isDir = FileSystem.lstatusIfExists(path)?.isDirectory ?? false }
                if isDir && !rules.skipsFolder(name: e.name, path: path) { stack.append(path) }
            }
        }
        return added
    }

    private func markUnwatched(_ d: String) {
        if unwatched.contains(where: { d == $0 || d.hasPrefix($0 + "/") }) { return }
        if unwatched.isEmpty {
            logger.warning(
                "inotify watch limit reached; unwatched folders are checked periodically. Raise the limit with: sudo sysctl fs.inotify.max_user_watches=524288",
                ["watch.count": "\(watchByPath.count)", "watch.budget": "\(budget)", "watch.first_unwatched": d])
        }
        unwatched.insert(d)
    }

    /// Removes the watches on `dir` and everything under it.
    public func unwatch(_ dir: String) {
        for path in watchByPath.keys where path == dir || path.hasPrefix(dir + "/") {
            if let wd = watchByPath.removeValue(forKey: path) {
                inotify.removeWatch(wd)
                pathByWatch.removeValue(forKey: wd)
            }
        }
        unwatched = unwatched.filter { !($0 == dir || $0.hasPrefix(dir + "/")) }
    }

    /// A watched folder was renamed within the tree: its watches (and those under it) now
    /// report under the new path.
    public func renamed(from: String, to: String) {
        for (path, wd) in watchByPath where path == from || path.hasPrefix(from + "/") {
            let new = to + path.dropFirst(from.count)
            watchByPath.removeValue(forKey: path)
            watchByPath[new] = wd
            pathByWatch[wd] = new
        }
        unwatched = Set(unwatched.map { $0 == from || $0.hasPrefix(from + "/") ? to + $0.dropFirst(from.count) : $0 })
    }

    /// The kernel dropped a watch (`IN_IGNORED`: its folder was deleted or unmounted).
    public func dropped(_ wd: Int32) {
        if let p = pathByWatch.removeValue(forKey: wd), watchByPath[p] == wd { watchByPath.removeValue(forKey: p) }
    }

    /// Unwatched folders that now fit in the budget are watched again (after watches were freed).
    public func retryUnwatched() {
        guard !unwatched.isEmpty, watchByPath.count < budget else { return }
        let pending = unwatched
        unwatched.removeAll()
        for d in pending.sorted() { watchTree(d) }
    }

    /// Whether `path` lies in an excluded folder below one of `roots` (hidden, Trash, thumbnail
    /// caches, configured excludes), judged by its path alone.
    public func isExcluded(_ path: String, roots: [String]) -> Bool {
        guard let root = roots.filter({ path == $0 || path.hasPrefix($0 + "/") }).max(by: { $0.count < $1.count }) else { return true }
        var current = root
        for part in path.dropFirst(root.count).split(separator: "/").dropLast() {
            current += "/" + part
            if rules.skipsFolder(name: String(part), path: current) { return true }
        }
        return false
    }
}
