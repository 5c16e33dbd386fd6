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
        var out = BulkStaging(staging: [], bytes: 0, left: [])
        var setOf: [Int64: SimilarSet?] = [:]
        var staged = Set(try Trash.stagedRows(library).map(\.id))
        for id in candidates {
            guard let item = try library.item(id: id), item.status != .gone else { continue }
            if !includeKeepers {
                let set: SimilarSet?
                if let known = setOf[id] {
                    set = known
                } else {
                    set = try library.similarGroup(containing: id)
                    for m in set?.members ?? [] { setOf[m.fileID] = set }
                }
                if let set, let me = set.members.first(where: { $0.fileID == id }) {
                    let why: LeftReason? =
                        me.isKeeper && !staged.contains(id)
                        ? .keeper
                        : set.members.contains(where: { $0.fileID != id && !staged.contains($0.fileID) }) ? nil : .lastCopy
                    if let why {
                        out.left.append(Left(fileID: id, path: item.path, bytes: item.bytes, why: why, setName: try library.setName(set)))
                        continue
                    }
                }
            }
            staged.insert(id)
            out.staging.append(id)
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
            let p = try plan(candidates, includeKeepers: includeKeepers, library: library)
            for id in p.staging { try Review.decide(.trash, fileID: id, library: library, clock: clock, timeZone: timeZone) }
            return p
        }
    }

    /// Screenshots older than `days` (by capture time, else file time) without a verdict (no
    /// decision, or a trash verdict on bytes that changed since): the page's "Screenshots older
    /// than 30 days".
    public static func oldScreenshots(days: Int, library: Library, clock: Clock, timeZone: TimeZone = .current) throws -> [Int64] {
        // The Screenshots deck's own cards older than `days`, read from its index (issue 40: the
        // deck built whole read every candidate of a million-row library).
        try Decks.oldScreenshots(days: days, library: library, clock: clock).map(\.id)
    }
}
