import Foundation
import SnapSortSystem

/// The database side of watch events: moves and removals that need no analysis.
extension Library {
    /// A file renamed within the watched tree: when the row at `from` is the file now at `to`
    /// (same device, inode, size, mtime), the row follows it. A live row already at `to` (a
    /// rename over an existing file) becomes a tombstone first. Returns false when the rows do
    /// not match (the caller reconciles both paths instead).
    public func followFileMove(from: String, to: String, now: Date) throws -> Bool {
        guard let row = try liveRow(path: from), let st = FileSystem.lstatusIfExists(to), st.isRegular, row.matches(st) else {
            return false
        }
        try db.transaction {
            if let old = try liveRow(path: to), old.id != row.id { try markGone(ids: [old.id], at: now) }
            try recordMove(id: row.id, to: to, status: st, restoreStatus: nil)
        }
        return true
    }

    /// A folder renamed within the watched tree: every live row under `from` now lives under
    /// `to` (the files are the same inodes; nothing is read or decoded). Returns the rows moved.
    @discardableResult
    public func followFolderMove(from: String, to: String, now: Date) throws -> Int {
        let (lo, hi) = Library.prefixBounds(from)
        return try db.transaction {
            // Live rows under the destination whose files are not there: stale. Rows whose
            // files are there are current: a reconcile of a folder created a moment before
            // (`mkdir new && mv old new/old`) may have found the moved files first, and their
            // rows then live under the new name already.
            var stale: [Int64] = []
            var taken: Set<String> = []
            for r in try liveRows(under: to) {
                if FileSystem.lstatusIfExists(r.path).map(r.matches) ?? false { taken.insert(r.path) } else { stale.append(r.id) }
            }
            if !stale.isEmpty { try markGone(ids: stale, at: now) }
            // A row under `from` whose new path a current row holds already is that file's old row.
            let old = try liveRows(under: from).filter { taken.contains(to + $0.path.dropFirst(from.count)) }.map(\.id)
            if !old.isEmpty { try markGone(ids: old, at: now) }
            try db.run(
                "UPDATE files SET path = ? || substr(path, ?) WHERE \(Library.live()) AND path >= ? AND path < ?",
                to, from.utf8.count + 1, lo, hi)
            let moved = db.changes
            // The stamps under either name no longer describe the rows there: a folder that came
            // back later under the old name matched its stale stamp and was never listed.
            try forgetFolderStamps(under: from)
            try forgetFolderStamps(under: to)
            return moved
        }
    }

    /// Rows at or under `path` whose file is no longer there (with the same identity) become
    /// tombstones. Returns how many.
    @discardableResult
    public func markMissingGone(at path: String, now: Date, deleted: Bool = false) throws -> Int {
        let rows = try liveRows(under: path)
        // A file that is still there but changed is not gone: the reconcile re-analyzes it.
        let gone = rows.filter { FileSystem.lstatusIfExists($0.path)?.isRegular != true }.map(\.id)
        guard !gone.isEmpty else { return 0 }
        try db.transaction {
            try markGone(ids: gone, at: now, deleted: deleted)
            // A folder that went: its stamps described files that are tombstones now. Kept, a
            // folder moved out and back under its name (same inode, same mtime) was taken for
            // unchanged and its files were never found again.
            try forgetFolderStamps(under: path)
        }
        return gone.count
    }

    /// The paths `forget` dropped since the last call (`forgottenPathsKey`), read and cleared in
    /// one transaction (a `forget` running meanwhile is kept for the next call).
    public func takeForgottenPaths() throws -> [String] {
        try db.transaction {
            guard let text = try agentState(Library.forgottenPathsKey) else { return [] }
            try removeAgentState(Library.forgottenPathsKey)
            return text.split(separator: "\n").map(String.init)
        }
    }
}
