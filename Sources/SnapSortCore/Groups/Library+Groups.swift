import Foundation
import SnapSortSystem

/// The smart groups. The raw values are the ids used everywhere (report, CLI, status file, web API).
public enum GroupID: String, CaseIterable, Sendable {
    case similar, duplicate, blurry, oops, screenshot, document, qr
    case longVideo = "long_video"
    case downloadedVideo = "downloaded_video"
    case heavy, unreadable
    /// Browse groups from the local models (tier 2; Sources/SnapSortCore/Vision).
    case people, pets, food, scenery

    /// A short human title.
    public var title: String {
        switch self {
        case .similar: return "Similar Shots"
        case .duplicate: return "Duplicates"
        case .blurry: return "Blurry"
        case .oops: return "Oops Shots"
        case .screenshot: return "Screenshots"
        case .document: return "Docs & Receipts"
        case .qr: return "QR Codes"
        case .longVideo: return "Long Videos"
        case .downloadedVideo: return "Downloaded Videos"
        case .heavy: return "Heavy Photos"
        case .unreadable: return "Unreadable"
        case .people: return "People"
        case .pets: return "Pets"
        case .food: return "Food"
        case .scenery: return "Scenery"
        }
    }
}

/// One member of a Similar Shots set.
public struct SimilarMember: Sendable, Equatable {
    /// The file's identity (`files.id`).
    public var fileID: Int64
    public var path: String
    public var bytes: Int64
    /// The suggested (or user-chosen) keeper; exactly one per set.
    public var isKeeper: Bool
    /// True when the keeper is the user's remembered choice.
    public var chosenByUser: Bool
    /// The original this file is a copy of (exact duplicate or near-copy), if any.
    public var duplicateOf: Int64?
    /// The keeper score (higher is better); see `KeeperScore`.
    public var score: Double
}

/// A Similar Shots set: photos of one moment (bursts, retakes) and copies of one picture.
public struct SimilarSet: Sendable, Equatable {
    /// A stable-looking id (`s` + the smallest member file id), as the report's `similar_group`.
    public var id: String
    /// Members, best first: the keeper, then by descending score.
    public var members: [SimilarMember]
    /// The keeper.
    public var keeper: SimilarMember { members.first(where: \.isKeeper) ?? members[0] }
    /// Bytes freed by removing every member but the keeper.
    public var reclaimableBytes: Int64 { members.filter { !$0.isKeeper }.reduce(0) { $0 + $1.bytes } }
}

/// Counts and sizes of one smart group (`snapsort groups`).
public struct GroupSummary: Sendable, Equatable {
    public var id: GroupID
    /// Files in the group.
    public var items: Int
    /// Sets in the group (similar / duplicate); equals `items` for the others.
    public var sets: Int
    public var bytes: Int64
    /// What clearing the group frees (for similar and duplicate: everything but the keepers).
    public var reclaimableBytes: Int64
}

/// One member of a smart group, in the group's order (best / largest first).
public struct GroupMember: Sendable {
    public var item: Item
    public var score: Double
    /// The similar set the item belongs to, if any (`s<id>`).
    public var setID: String?
    public var isKeeper: Bool
    public var duplicateOf: Int64?
    /// The decoded QR payload, when the item is in `qr`.
    public var qrPayload: String?
}

extension Library {
    // MARK: - Verdicts (the review commands build on these)

    /// Remembers that the user keeps `fileID` in its Similar Shots set: it becomes the set's
    /// keeper now and after every regrouping, until another member is chosen. Choosing a file
    /// clears earlier choices of the other members of its set.
    public func setKeeper(fileID: Int64, at now: Date) throws {
        let ts = StatusTimestamp.string(now)
        try db.transaction {
            guard try db.scalar("SELECT count(*) FROM files WHERE id=? AND \(Library.live())", fileID) == 1 else {
                throw LibraryError(.notFound, "no live file with id \(fileID)")
            }
            if let key = try db.scalar("SELECT set_key FROM similar_sets WHERE file_id=?", fileID) {
                try db.run("DELETE FROM keeper_choices WHERE file_id IN (SELECT file_id FROM similar_sets WHERE set_key=?)", key)
                try db.run("UPDATE similar_sets SET keeper = (file_id = ?) WHERE set_key=?", fileID, key)
            }
            try db.run("INSERT OR REPLACE INTO keeper_choices(file_id, chosen_at) VALUES(?, ?)", fileID, ts)
        }
    }

    /// Forgets the user's keeper choice for `fileID` (the suggestion applies again at the next regroup).
    public func clearKeeper(fileID: Int64) throws {
        try db.run("DELETE FROM keeper_choices WHERE file_id=?", fileID)
    }

    /// The file ids the user chose as keepers.
    public func keeperChoices() throws -> Set<Int64> {
        Set(try db.rows("SELECT file_id FROM keeper_choices").compactMap { $0.int(0) })
    }

    /// Remembers that the given files are *not* similar to each other (every pair of them), by
    /// identity and forever, then regroups them: no two of them share a set again.
    /// Pass a whole set to dissolve it, or `[one] + others` via `markNotSimilar(_:from:)`.
    public func markNotSimilar(groupMembers ids: [Int64], at now: Date) throws {
        let unique = Array(Set(ids)).sorted()
        guard unique.count >= 2 else { return }
        var pairs: [(Int64, Int64)] = []
        for i in 0..<unique.count { for j in (i + 1)..<unique.count { pairs.append((unique[i], unique[j])) } }
        try recordNotSimilar(pairs, at: now)
        if try !regroupMarked(Set(unique), at: now) { try leaveSetsNow(unique) }
    }

    /// Remembers that `fileID` is not similar to any of `others` (splits one photo out of a set).
    public func markNotSimilar(_ fileID: Int64, from others: [Int64], at now: Date) throws {
        let pairs = others.filter { $0 != fileID }.map { (min(fileID, $0), max(fileID, $0)) }
        guard !pairs.isEmpty else { return }
        try recordNotSimilar(pairs, at: now)
        if try !regroupMarked(Set(others + [fileID]), at: now) { try leaveSetsNow([fileID]) }
    }

    /// Regroups the photos a "not similar" mark (or taking one back) touched, around them, at
    /// once — unless a regroup in parts is unfinished (a large library's first grouping or an
    /// upgrade's, under way in the agent or stopped before its end): the photos are then left
    /// to that run, marked in `regroup_dirty` (which it reads, and `LibraryUpdate.regroupIfPending`
    /// reads again after it), instead of this call running the rest of the run — up to half an
    /// hour at a million rows, inside a page's request, beside the agent's own. Returns whether
    /// it regrouped now.
    @discardableResult
    func regroupMarked(_ ids: Set<Int64>, at now: Date) throws -> Bool {
        guard try leaveToRunInParts(ids, at: now) else {
            try Grouper(library: self).regroup(changed: ids)
            return true
        }
        return false
    }

    /// When a regroup in parts is unfinished, marks `ids` for it (`regroup_dirty`, and the
    /// regroup pending) and returns true; else false, and the caller regroups them.
    func leaveToRunInParts(_ ids: Set<Int64>, at now: Date) throws -> Bool {
        guard try agentState(RegroupSlice.stateKey) == "0" else { return false }
        try db.transaction {
            for id in ids.sorted() {
                try db.run("DELETE FROM regroup_dirty WHERE file_id = ?", id)
                try db.run("INSERT INTO regroup_dirty(file_id) VALUES(?)", id)
            }
            try setAgentState(LibraryScanner.regroupPendingKey, "1", at: now)
        }
        return true
    }

    /// Takes `ids` out of their Similar Shots sets now (a set left with one photo is no set),
    /// for a mark whose regroup waits for a run in parts (`regroupMarked`): the page and the
    /// decks stop showing them together at once. The run's regroup of them decides the rest.
    private func leaveSetsNow(_ ids: [Int64]) throws {
        try db.transaction {
            var keys = Set<Int64>()
            for id in ids {
                if let key = try db.scalar("SELECT set_key FROM similar_sets WHERE file_id = ?", id) { keys.insert(key) }
                try db.run("DELETE FROM similar_sets WHERE file_id = ?", id)
                try db.run("DELETE FROM group_members WHERE file_id = ? AND group_id IN \(GroupID.sql([.similar, .duplicate]))", id)
            }
            for key in keys.sorted() {
                let left = try db.rows("SELECT file_id FROM similar_sets WHERE set_key = ?", key).compactMap { $0.int(0) }
                guard left.count < 2 else {
                    // The keeper left: the best scored of the others keeps the set until the run decides.
                    if try db.scalar("SELECT count(*) FROM similar_sets WHERE set_key = ? AND keeper = 1", key) == 0 {
                        try db.run(
                            "UPDATE similar_sets SET keeper = 1 WHERE file_id = (SELECT file_id FROM similar_sets WHERE set_key = ? ORDER BY score DESC, file_id LIMIT 1)",
                            key)
                    }
                    continue
                }
                for id in left {
                    try db.run("DELETE FROM similar_sets WHERE file_id = ?", id)
                    try db.run("DELETE FROM group_members WHERE file_id = ? AND group_id IN \(GroupID.sql([.similar, .duplicate]))", id)
                }
            }
        }
    }

    /// Records the pairs, and the ones that are new as one undo step (`Review.undo` forgets
    /// them again and regroups).
    private func recordNotSimilar(_ pairs: [(Int64, Int64)], at now: Date) throws {
        let ts = StatusTimestamp.string(now)
        try db.transaction {
            var added: [[Int64]] = []
            for (a, b) in pairs {
                try db.run("INSERT OR IGNORE INTO not_similar(a, b, decided_at) VALUES(?, ?, ?)", a, b, ts)
                if db.changes > 0 { added.append([a, b]) }
            }
            if !added.isEmpty { try Review.recordNotSimilarStep(added, at: now, library: self) }
        }
    }

    /// Forgets "not similar" pairs and regroups their photos: they may form a set again.
    func forgetNotSimilar(_ pairs: [[Int64]], at now: Date) throws {
        try db.transaction {
            for p in pairs where p.count == 2 { try db.run("DELETE FROM not_similar WHERE a = ? AND b = ?", p[0], p[1]) }
        }
        try regroupMarked(Set(pairs.flatMap { $0 }), at: now)
    }

    /// The "not similar" marks, one a user's action (the pairs recorded at one moment), newest
    /// first: an id (`m` and the moment's digits), when, and the photos it keeps apart.
    public func notSimilarMarks() throws -> [(id: String, decidedAt: String, fileIDs: [Int64])] {
        var marks: [(id: String, decidedAt: String, fileIDs: [Int64])] = []
        var index: [String: Int] = [:]
        for r in try db.rows("SELECT a, b, decided_at FROM not_similar ORDER BY decided_at DESC, a, b") {
            let when = r.string(2) ?? ""
            let i =
                index[when]
                ?? {
                    marks.append((Library.markID(when), when, []))
                    index[when] = marks.count - 1
                    return marks.count - 1
                }()
            for id in [r.int(0)!, r.int(1)!] where !marks[i].fileIDs.contains(id) { marks[i].fileIDs.append(id) }
        }
        return marks
    }

    static func markID(_ decidedAt: String) -> String { "m" + decidedAt.filter(\.isNumber) }

    /// Takes a "not similar" mark back (`notSimilarMarks`): its photos are regrouped and may
    /// form a set again. Returns how many photos it kept apart; nil when there is no such mark.
    /// One undo step: `Review.undo` puts the mark back as it was.
    public func removeNotSimilarMark(_ id: String, at now: Date) throws -> Int? {
        guard let when = try notSimilarMarks().first(where: { $0.id == id })?.decidedAt else { return nil }
        let pairs = try db.rows("SELECT a, b FROM not_similar WHERE decided_at = ?", when).map { [$0.int(0)!, $0.int(1)!] }
        try db.transaction {
            for p in pairs { try db.run("DELETE FROM not_similar WHERE a = ? AND b = ?", p[0], p[1]) }
            try Review.recordUnmarkStep(pairs, decidedAt: when, at: now, library: self)
        }
        try regroupMarked(Set(pairs.flatMap { $0 }), at: now)
        return Set(pairs.flatMap { $0 }).count
    }

    /// Remembers `pairs` as not similar again, as marked at `decidedAt` (an unmark undone), and
    /// regroups their photos.
    func rememberNotSimilar(_ pairs: [[Int64]], decidedAt: String, at now: Date) throws {
        try db.transaction {
            for p in pairs where p.count == 2 {
                try db.run("INSERT OR IGNORE INTO not_similar(a, b, decided_at) VALUES(?, ?, ?)", p[0], p[1], decidedAt)
            }
        }
        if try !regroupMarked(Set(pairs.flatMap { $0 }), at: now) { try leaveSetsNow(Array(Set(pairs.flatMap { $0 })).sorted()) }
    }

    /// Every remembered "not similar" pair (a < b).
    public func notSimilarPairs() throws -> Set<FilePair> {
        Set(try db.rows("SELECT a, b FROM not_similar").map { FilePair($0.int(0)!, $0.int(1)!) })
    }

    // MARK: - Reading groups

    /// The sets that still hold two live files. A set whose other photos were trashed (or went
    /// away) is no set: its last photo is listed, counted and reported in no Similar Shots or
    /// duplicate set, also before the next regroup. Set keys are the regroup's, so this reads
    /// the grouping as it stands and changes nothing.
    static let liveSetKeys = """
        SELECT ls.set_key FROM similar_sets ls JOIN files lf ON lf.id = ls.file_id
        WHERE \(Library.live("lf")) GROUP BY ls.set_key HAVING count(*) >= 2
        """

    /// Every Similar Shots set, members best first (keeper first), sets ordered by reclaimable bytes.
    public func similarGroups() throws -> [SimilarSet] {
        try similarSets(where: "", arguments: [])
    }

    /// The Similar Shots set holding `fileID`, if any.
    public func similarGroup(containing fileID: Int64) throws -> SimilarSet? {
        guard let key = try db.scalar("SELECT set_key FROM similar_sets WHERE file_id=?", fileID) else { return nil }
        return try similarSets(where: "AND s.set_key = ?", arguments: [key]).first
    }

    private func similarSets(where clause: String, arguments: [SQLBindable]) throws -> [SimilarSet] {
        let rows = try db.rows(
            """
            SELECT s.set_key, s.file_id, f.path, f.size, s.keeper, s.duplicate_of, s.score,
                   (SELECT count(*) FROM keeper_choices k WHERE k.file_id = s.file_id)
            FROM similar_sets s JOIN files f ON f.id = s.file_id
            WHERE \(Library.live("f")) \(clause)
            """, arguments: arguments)
        var byKey: [Int64: [SimilarMember]] = [:]
        for r in rows {
            let m = SimilarMember(
                fileID: r.int(1)!, path: r.string(2) ?? "", bytes: r.int(3) ?? 0, isKeeper: r.int(4) == 1,
                chosenByUser: (r.int(7) ?? 0) > 0 && r.int(4) == 1, duplicateOf: r.int(5), score: r.double(6) ?? 0)
            byKey[r.int(0)!, default: []].append(m)
        }
        var out: [SimilarSet] = []
        for (key, members) in byKey where members.count >= 2 {
            let sorted = members.sorted { a, b in
                if a.isKeeper != b.isKeeper { return a.isKeeper }
                if a.score != b.score { return a.score > b.score }
                return a.fileID < b.fileID
            }
            out.append(SimilarSet(id: "s\(key)", members: sorted))
        }
        return out.sorted { ($0.reclaimableBytes, $1.id) > ($1.reclaimableBytes, $0.id) }
    }

    /// Counts and bytes per smart group, in `GroupID` order (empty groups included). Similar
    /// Shots and duplicates count their sets and what trashing all but each keeper would free,
    /// over the sets that still hold two live files (`liveSetKeys`). Read from `group_totals`,
    /// which triggers keep as the groups, sets, sidecars and files are written (migration 88):
    /// a row per group, where the join of every member to its file took ~4 s of CPU at a
    /// million rows. `groupSummariesByJoin` is the definition (`GroupTotalsTests`).
    public func groupSummaries() throws -> [GroupSummary] {
        var totals: [String: Row] = [:]
        try db.forEach("SELECT group_id, items, bytes, sets, freed FROM group_totals") { totals[$0.string(0) ?? ""] = $0 }
        return GroupID.allCases.map { g in
            let r = totals[g.rawValue]
            let items = Int(r?.int(1) ?? 0), bytes = r?.int(2) ?? 0
            if g == .similar || g == .duplicate {
                return GroupSummary(id: g, items: items, sets: Int(r?.int(3) ?? 0), bytes: bytes, reclaimableBytes: r?.int(4) ?? 0)
            }
            return GroupSummary(id: g, items: items, sets: items, bytes: bytes, reclaimableBytes: bytes)
        }
    }

    /// Runs `body` in a transaction (a savepoint of one already open) with the group counts'
    /// recount held (migration 92), and the decided counts' (91): each file its writes touch is
    /// counted once, at the end, instead of once per row written — a regroup's store writes a
    /// set member's set row and its two groups. The totals after are those the writes one by
    /// one would leave. The groups are counted first: a set they take across two live files
    /// notes its decided members, still held, and each decided file is counted once, last.
    func withGroupCountsHeld<T>(_ body: () throws -> T) throws -> T {
        try db.transaction {
            try db.run("INSERT OR IGNORE INTO group_recount_held(held) VALUES(1)")
            try db.run("INSERT OR IGNORE INTO decided_recount_held(held) VALUES(1)")
            let out = try body()
            try db.run("DELETE FROM group_recount_held")
            try db.run("INSERT INTO group_recount(file_id) SELECT file_id FROM group_recount_pending")
            try db.run("DELETE FROM group_recount_pending")
            try db.run("DELETE FROM decided_recount_held")
            try db.run("INSERT INTO decided_recount(file_id) SELECT file_id FROM decided_recount_pending")
            try db.run("DELETE FROM decided_recount_pending")
            return out
        }
    }

    /// `groupSummaries` by joining every member to its file: what the kept totals must say.
    func groupSummariesByJoin() throws -> [GroupSummary] {
        var out: [GroupSummary] = []
        for g in GroupID.allCases {
            if g == .similar || g == .duplicate {
                // Duplicates free their copies (the original of each picture stays, whether or not
                // it is its Similar Shots set's keeper: two copies of a burst's other frame
                // counted both); Similar Shots all but the keeper.
                let freed = g == .duplicate ? "s.duplicate_of IS NOT NULL" : "s.keeper = 0"
                let s = try db.row(
                    """
                    SELECT count(*), COALESCE(sum(f.size), 0), count(DISTINCT s.set_key),
                           COALESCE(sum(CASE WHEN \(freed) THEN f.size ELSE 0 END), 0)
                    FROM group_members m JOIN similar_sets s ON s.file_id = m.file_id
                    JOIN files f INDEXED BY files_group_sizes ON f.id = m.file_id
                    WHERE m.group_id = ? AND \(Library.live("f")) AND s.set_key IN (\(Library.liveSetKeys))
                    """, g.rawValue)
                out.append(
                    GroupSummary(
                        id: g, items: Int(s?.int(0) ?? 0), sets: Int(s?.int(2) ?? 0), bytes: s?.int(1) ?? 0, reclaimableBytes: s?.int(3) ?? 0))
            } else {
                let r = try db.row(
                    """
                    SELECT count(*), COALESCE(sum(f.size), 0) FROM group_members m JOIN files f INDEXED BY files_group_sizes ON f.id = m.file_id
                    WHERE m.group_id = ? AND \(Library.live("f"))
                    """, g.rawValue)
                let items = Int(r?.int(0) ?? 0), bytes = r?.int(1) ?? 0
                out.append(GroupSummary(id: g, items: items, sets: items, bytes: bytes, reclaimableBytes: bytes))
            }
        }
        return out
    }

    /// What OCR and QR decoding found in a file's current analysis: nil when neither ran on it
    /// (only candidates of the cheap gates are read, `GroupRules`).
    public func findings(of id: Int64) throws -> FileFindings? {
        try db.row(
            """
            SELECT ff.ocr_words, ff.ocr_text, ff.qr_payload FROM file_findings ff JOIN files f ON f.id = ff.file_id
            WHERE ff.file_id = ? AND ff.analyzed_at IS f.analyzed_at
            """, id
        ).map { FileFindings(words: $0.int(0).map(Int.init), text: $0.string(1), qrPayload: $0.string(2)) }
    }

    /// The members of one group, best (similar, duplicate, blurry…) or largest (heavy, videos) first.
    public func groupMembers(_ group: GroupID) throws -> [GroupMember] {
        let rows = try db.rows(
            """
            SELECT \(Item.columns.split(separator: ",").map { "f." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ", ")),
                   m.score, s.set_key, s.keeper, s.duplicate_of, ff.qr_payload
            FROM group_members m JOIN files f ON f.id = m.file_id
            LEFT JOIN similar_sets s ON s.file_id = m.file_id
            LEFT JOIN file_findings ff ON ff.file_id = m.file_id
            WHERE m.group_id = ? AND \(Library.live("f"))
              AND (m.group_id NOT IN ('similar', 'duplicate') OR s.set_key IN (\(Library.liveSetKeys)))
            ORDER BY s.set_key, \(group == .duplicate ? "s.duplicate_of IS NULL" : "COALESCE(s.keeper, 0)") DESC, m.score DESC, f.path
            """, group.rawValue)
        let n = Item.columnCount
        return rows.map { r in
            // In Duplicates the copy kept is each picture's original (not a copy, `duplicate_of`).
            GroupMember(
                item: Item(r), score: r.double(n) ?? 0,
                setID: r.int(n + 1).map { "s\($0)" }, isKeeper: group == .duplicate ? r.int(n + 3) == nil : r.int(n + 2) == 1,
                duplicateOf: r.int(n + 3), qrPayload: r.string(n + 4))
        }
    }

    /// `reportGroups` as the report's lookup (an item in no group: no groups).
    public func reportGroupLookup() throws -> Report.GroupLookup {
        let groups = try reportGroups()
        return { groups[$0.id] ?? ReportGroups() }
    }

    /// What the report shows for every live item: its groups, set, keeper flag and original.
    public func reportGroups() throws -> [Int64: ReportGroups] {
        var out: [Int64: ReportGroups] = [:]
        try db.forEach(
            """
            SELECT m.file_id, m.group_id FROM group_members m JOIN files f ON f.id = m.file_id
            LEFT JOIN similar_sets s ON s.file_id = m.file_id
            WHERE \(Library.live("f")) AND (m.group_id NOT IN ('similar', 'duplicate') OR s.set_key IN (\(Library.liveSetKeys)))
            ORDER BY m.file_id, m.group_id
            """
        ) { r in
            let g = r.string(1) ?? ""
            // `unreadable` lives in the UI and CLI, not in the report's categories.
            guard g != GroupID.unreadable.rawValue else { return }
            out[r.int(0)!, default: ReportGroups()].groups.append(g)
        }
        let sets = try db.rows(
            """
            SELECT s.file_id, s.set_key, s.keeper, s.duplicate_of, o.path FROM similar_sets s JOIN files f ON f.id = s.file_id
            LEFT JOIN files o ON o.id = s.duplicate_of WHERE \(Library.live("f")) AND s.set_key IN (\(Library.liveSetKeys))
            """)
        for r in sets {
            let id = r.int(0)!
            var g = out[id] ?? ReportGroups()
            g.similarGroup = "s\(r.int(1)!)"
            g.keeper = r.int(2) == 1
            g.duplicateOf = r.string(4)
            out[id] = g
        }
        return out
    }
}

/// An unordered pair of file ids, stored with `a < b`.
public struct FilePair: Hashable, Sendable {
    public let a: Int64
    public let b: Int64
    public init(_ x: Int64, _ y: Int64) {
        a = min(x, y)
        b = max(x, y)
    }
}

/// What OCR and QR decoding found in a file (`Library.findings(of:)`).
public struct FileFindings: Sendable, Equatable {
    /// Confidently recognized words; nil when the file was not read.
    public var words: Int?
    /// The text of the reading that decided (empty when nothing was read).
    public var text: String?
    /// The decoded QR payload; "" when decoding ran and found none; nil when it never ran.
    public var qrPayload: String?
}
