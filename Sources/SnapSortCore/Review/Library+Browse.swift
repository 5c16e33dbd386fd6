import Foundation

/// What the page's Later and Kept grids list, and a session's verdicts as they stand: the
/// `decisions` table's reads for browsing (the Web layer holds no SQL).
extension Library {
    /// A deferred item and when it comes back.
    public struct Deferred: Sendable {
        public var item: Item
        /// When it returns to the Later deck (seconds since 1970), nil when it already may.
        public var backAt: Double?
        /// How many times it was deferred.
        public var deferrals: Int
    }

    /// A kept item and when it was kept.
    public struct Kept: Sendable {
        public var item: Item
        public var keptAt: Double?
    }

    /// The live items deferred with `later`, soonest back first (at most `limit`).
    public func deferredItems(limit: Int = 1000) throws -> [Deferred] {
        try db.rows(
            """
            SELECT d.file_id, d.later_until, d.later_count FROM decisions d JOIN files f ON f.id = d.file_id
            WHERE d.decision = \(Decision.later.sql) AND \(Library.live("f")) ORDER BY d.later_until, d.file_id LIMIT ?
            """, limit
        ).compactMap { r in
            guard let id = r.int(0), let item = try item(id: id) else { return nil }
            return Deferred(item: item, backAt: r.double(1), deferrals: Int(r.int(2) ?? 0))
        }
    }

    /// How many live items are kept.
    public func keptCount() throws -> Int {
        Int(
            try db.scalar(
                "SELECT count(*) FROM decisions d JOIN files f ON f.id = d.file_id WHERE d.decision = \(Decision.keep.sql) AND \(Library.live("f"))")
                ?? 0)
    }

    /// The live kept items, most recently kept first, `limit` from `offset`.
    public func keptItems(offset: Int, limit: Int) throws -> [Kept] {
        try db.rows(
            """
            SELECT d.file_id, d.decided_ts FROM decisions d JOIN files f ON f.id = d.file_id
            WHERE d.decision = \(Decision.keep.sql) AND \(Library.live("f")) ORDER BY d.decided_ts DESC, d.file_id DESC LIMIT ? OFFSET ?
            """, limit, offset
        ).compactMap { r in
            guard let id = r.int(0), let item = try item(id: id) else { return nil }
            return Kept(item: item, keptAt: r.double(1))
        }
    }

    /// How many of a session's items have each decision now (a card decided again elsewhere
    /// counts as it is now).
    public func verdicts(ofSession sessionID: Int64) throws -> [Decision: Int] {
        var by: [Decision: Int] = [:]
        for r in try db.rows("SELECT decision, count(*) FROM decisions WHERE session_id = ? GROUP BY decision", sessionID) {
            if let d = r.string(0).flatMap(Decision.init) { by[d] = Int(r.int(1) ?? 0) }
        }
        return by
    }
}
