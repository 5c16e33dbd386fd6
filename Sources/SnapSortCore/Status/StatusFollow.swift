import Foundation
import SnapSortSystem

/// Following the status file (`snapsort status --follow`, the bars' persistent mode): wakes when
/// the file is written or replaced, and every `recheckMs` without a change (an agent killed with
/// -9 never rewrites its file, and the line must say it stopped), until the reader hangs up.
///
/// An atomic rename replaces the file's inode, so the folder is watched, not the file. Without
/// an inotify instance (every one of the user's taken) it wakes at every recheck instead of
/// ending: a bar whose command ends stays frozen. See: man 7 inotify.
public struct StatusFollow {
    /// How often the document is read again without a change.
    public var recheckMs: Int32
    /// The reader's descriptor (standard output): its hangup ends the loop, now, not at the next
    /// change hours later (each orphan held an inotify instance). Nil: run until `wake` throws.
    public var reader: Int32?
    /// Told once when no inotify instance can be had.
    public var problem: (String) -> Void

    public init(recheckMs: Int32, reader: Int32?, problem: @escaping (String) -> Void) {
        self.recheckMs = recheckMs
        self.reader = reader
        self.problem = problem
    }

    /// Follows the file at `path()`, asked again at every wake (an agent restarted with another
    /// `status_file` writes elsewhere: a follower that kept the old path showed "stopped" for
    /// good), and calls `wake` with the path to read. Returns when the reader hangs up.
    public func run(path currentPath: () -> String, wake: (String) throws -> Void) throws {
        var path = currentPath()
        var (inotify, name) = try watch(path)
        while true {
            let (ready, hungUp) = try Poll.readable(inotify.map { [$0.fd] } ?? [], orHangUpOf: reader ?? -1, timeoutMs: recheckMs)
            if hungUp { return }
            if let inotify, !ready.isEmpty {
                let events = try inotify.read()
                guard events.contains(where: { $0.name == name || $0.has(Inotify.overflow) }) else { continue }
            }
            let now = currentPath()
            if now != path, let w = try? watch(now) {
                path = now
                (inotify, name) = w
            }
            try wake(path)
        }
    }

    /// An inotify instance on `path`'s folder (made if missing) and the file's name in it.
    private func watch(_ path: String) throws -> (Inotify?, String) {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        try FileSystem.makeDirectories(folder, mode: 0o700)
        let name = String(path.split(separator: "/").last ?? "")
        let inotify: Inotify
        do {
            inotify = try Inotify()
        } catch {
            problem("\(error); re-reading every \(recheckMs / 1000) s instead")
            return (nil, name)
        }
        _ = try inotify.addWatch(folder, mask: Inotify.movedTo | Inotify.closeWrite | Inotify.delete | Inotify.onlyDir)
        return (inotify, name)
    }
}
