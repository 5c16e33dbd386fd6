import Foundation
import SnapSortSystem

/// One action that stages many files for the Trash ("Screenshots older than 30 days → Stage
/// them for the Trash"): it never takes a set's keeper or its last copy silently (issue 43,
/// item 5). Unless the person says so (`includeKeepers`), it leaves each Similar Shots set's
/// keeper, and any member whose staging would leave nothing of its set in the library (the
/// rule of `LastCopies`: a duplicate set's last copy among them), and says how many it left.
///
/// The page's bulk actions (`/api/bulk/old-screenshots`) and Similar Shots' "trash the rest"
/// (`SimilarReview`, which never stages a keeper) say what they did in these words (`summary`).
public struct BulkStaging: Sendable, Equatable {
    /// Why a candidate was left in place.
    public enum LeftReason: Sendable, Equatable {
        /// The suggested (or chosen) keeper of its set.
        case keeper
        /// Nothing of its set would stay in the library once it is staged.
        case lastCopy
    }

    /// A candidate the action left, with its set's name (its keeper's file name and date).
    public struct Left: Sendable, Equatable {
        public var fileID: Int64
        public var path: String
        public var bytes: Int64
        public var why: LeftReason
        /// "IMG_0001.jpg (4 May 2024)": the set, as a person knows it.
        public var setName: String
    }

    /// What the action stages (or staged), in the candidates' order.
    public var staging: [Int64]
    /// Their bytes.
    public var bytes: Int64
    /// The candidates it leaves, and why.
    public var left: [Left]

    /// How many keepers it left.
    public var keepersLeft: Int { left.filter { $0.why == .keeper }.count }
    /// How many last copies it left.
    public var lastCopiesLeft: Int { left.filter { $0.why == .lastCopy }.count }

    /// "Staged 4 · left 1 keeper", "Staged 3 · left 1 keeper and 1 last copy", "Staged 5".
    public var summary: String { Self.summary(staged: staging.count, keepers: keepersLeft, lastCopies: lastCopiesLeft) }

    /// What stays, in words, or nil when nothing does: "1 keeper stays: the set of
    /// IMG_0001.jpg (4 May 2024)." (the same words before and after the action).
    public var leftSentence: String? {
        guard let what = Self.counted(keepers: keepersLeft, lastCopies: lastCopiesLeft) else { return nil }
        var names: [String] = []
        for l in left where !names.contains(l.setName) { names.append(l.setName) }
        let shown = names.prefix(3).joined(separator: "; ") + (names.count > 3 ? "; and \(names.count - 3) more" : "")
        let verb = left.count == 1 ? "stays" : "stay"
        return "\(what) \(verb): \(names.count == 1 ? "the set of" : "the sets of") \(shown)."
    }

    /// "1 keeper", "2 keepers and 1 last copy", nil for none.
    static func counted(keepers: Int, lastCopies: Int) -> String? {
        var parts: [String] = []
        if keepers > 0 { parts.append("\(keepers) keeper\(keepers == 1 ? "" : "s")") }
        if lastCopies > 0 { parts.append("\(lastCopies) last cop\(lastCopies == 1 ? "y" : "ies")") }
        return parts.isEmpty ? nil : parts.joined(separator: " and ")
    }

    /// "Staged N" and what was left, the words every bulk action says.
    public static func summary(staged: Int, keepers: Int, lastCopies: Int = 0) -> String {
        ["Staged \(staged)", counted(keepers: keepers, lastCopies: lastCopies).map { "left " + $0 }].compactMap { $0 }.joined(separator: " · ")
    }

    /// What staging `candidates` would do: which are staged and which are left (a keeper, a
    /// last copy), counting those staged before it and those it stages ahead of each.
    /// `includeKeepers`: the person said to take them too (nothing is left).
    public static func plan(_ candidates: [Int64], includeKeepers: Bool = false, library: Library) throws -> BulkStaging {
        try plan(items: try library.items(ids: candidates), includeKeepers: includeKeepers, library: library)
    }

    /// `plan` of the items as the caller read them (`oldScreenshotItems`): not read again. A
    /// candidate is left when it is its set's keeper (not staged already) or when staging it
    /// would leave nothing of its set (`LastCopies.isLastCopy`, the one rule); each set's
    /// members and name are read once.
    public static func plan(items candidates: [Item], includeKeepers: Bool = false, library: Library) throws -> BulkStaging {
        var out = BulkStaging(staging: [], bytes: 0, left: [])
        let live = candidates.filter { $0.status != .gone }
        let sets = includeKeepers ? [:] : try LastCopies.members(of: live.map(\.id), library: library)
        // By set: the members staged before the action, and those it stages ahead.
        var staged: [Int64: Set<Int64>] = [:]
        var names = LastCopies.SetNames()
        for item in live {
            if let set = sets[item.id] {
                let before = staged[set.key] ?? set.staged
                let why: LeftReason? =
                    set.keeperID == item.id && !before.contains(item.id)
                    ? .keeper : LastCopies.isLastCopy(item.id, of: set, staged: before) ? .lastCopy : nil
                if let why {
                    let name = try names.name(set, library: library) ?? item.name
                    out.left.append(Left(fileID: item.id, path: item.path, bytes: item.bytes, why: why, setName: name))
                    continue
                }
                staged[set.key] = before.union([item.id])
            }
            out.staging.append(item.id)
            out.bytes += item.bytes
        }
        return out
    }

    /// Stages what `plan` says, as one undo step; returns the plan it carried out.
    @discardableResult
    public static func stage(
        _ candidates: [Int64], includeKeepers: Bool = false, library: Library, clock: Clock, timeZone: TimeZone = .current
    ) throws -> BulkStaging {
        try Review.asOneUndoStep(library: library) {
            try stage(items: try library.items(ids: candidates), includeKeepers: includeKeepers, library: library, clock: clock, timeZone: timeZone)
        }
    }

    /// `stage` of the items as the caller read them (in the transaction it read them in, so
    /// that what is staged is what was read).
    @discardableResult
    public static func stage(
        items candidates: [Item], includeKeepers: Bool = false, library: Library, clock: Clock, timeZone: TimeZone = .current
    ) throws -> BulkStaging {
        try Review.asOneUndoStep(library: library) {
            let p = try plan(items: candidates, includeKeepers: includeKeepers, library: library)
            for id in p.staging { try Review.decide(.trash, fileID: id, library: library, clock: clock, timeZone: timeZone) }
            return p
        }
    }

    /// Screenshots older than `days` (by capture time, else file time) without a verdict (no
    /// decision, or a trash verdict on bytes that changed since): the page's "Screenshots older
    /// than 30 days".
    public static func oldScreenshots(days: Int, library: Library, clock: Clock, timeZone: TimeZone = .current) throws -> [Int64] {
        try oldScreenshotItems(days: days, library: library, clock: clock, timeZone: timeZone).map(\.id)
    }

    /// `oldScreenshots`' items, for `plan(items:)` and `stage(items:)`.
    static func oldScreenshotItems(days: Int, library: Library, clock: Clock, timeZone: TimeZone = .current) throws -> [Item] {
        // The Screenshots deck's own cards older than `days`, read from its index (issue 40: the
        // deck built whole read every candidate of a million-row library).
        try Decks.oldScreenshots(days: days, library: library, clock: clock)
    }

    /// The page's "Screenshots older than `days`": how many there are and what staging them
    /// would do, or (`apply`) did as one undo step. Read and planned (or staged) in one
    /// transaction: what is staged is what was read, and the items read are not read again.
    public static func oldScreenshots(
        days: Int, apply: Bool, includeKeepers: Bool, library: Library, clock: Clock, timeZone: TimeZone = .current
    ) throws -> (candidates: Int, plan: BulkStaging) {
        let work = { () throws -> (candidates: Int, plan: BulkStaging) in
            let old = try oldScreenshotItems(days: days, library: library, clock: clock, timeZone: timeZone)
            let done =
                apply
                ? try stage(items: old, includeKeepers: includeKeepers, library: library, clock: clock, timeZone: timeZone)
                : try plan(items: old, includeKeepers: includeKeepers, library: library)
            return (old.count, done)
        }
        return apply ? try library.db.transaction(work) : try library.db.read(work)
    }
}
