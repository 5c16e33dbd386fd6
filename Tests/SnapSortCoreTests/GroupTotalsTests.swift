import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// The smart groups' counts kept by triggers (`group_totals`, migration 88) against the join of
/// every member to its file (`Library.groupSummariesByJoin`), after each write that can move
/// them: a regroup, a decision and its undo, a commit to the Trash and a restore, a keeper
/// chosen, a "not similar" mark, a removal, a pairing, a file changed, rows written by hand.
@Suite("Groups: the kept totals")
struct GroupTotalsTests {
    /// The totals as kept and as joined, with the cards among the members (the group decks').
    static func expectKept(_ l: Library, _ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let kept = try l.groupSummaries(), joined = try l.groupSummariesByJoin()
        #expect(kept == joined, "\(step)", sourceLocation: sourceLocation)
        for (a, b) in zip(kept, joined) where a != b { Issue.record("\(step): \(a) != \(b)", sourceLocation: sourceLocation) }
        let cards = try l.db.rows("SELECT group_id, candidates FROM group_totals").reduce(into: [String: Int64]()) { $0[$1.string(0)!] = $1.int(1) }
        for g in GroupID.allCases {
            let set = g == .similar || g == .duplicate
            let n =
                try l.db.scalar(
                    """
                    SELECT count(*) FROM group_members m JOIN files f ON f.id = m.file_id LEFT JOIN similar_sets s ON s.file_id = m.file_id
                    WHERE m.group_id = ? AND \(Library.live("f")) AND f.kind IN ('photo', 'video') AND f.id NOT IN (SELECT sidecar_id FROM sidecars)
                      AND (\(set ? 0 : 1) OR s.set_key IN (\(Library.liveSetKeys)))
                    """, g.rawValue) ?? 0
            #expect((cards[g.rawValue] ?? 0) == n, "\(step): \(g.rawValue)'s cards", sourceLocation: sourceLocation)
        }
    }

    @Test("a regroup, decisions, undo, the Trash and back, a keeper, a mark, a removal")
    func theTotalsFollowTheGrouper() throws {
        let t = try TestLibrary()
        GroupsGrouperTests.writeBurst(t)
        let copy = try FileSystem.readFile(t.dir.at("Pictures/DCIM/Camera/IMG_0.jpg"), limit: 1 << 24)
        t.dir.write("Pictures/Backup/DCIM/Camera/IMG_0.jpg", copy)
        t.dir.write("Pictures/Backup/DCIM/Camera/IMG_1.jpg", try FileSystem.readFile(t.dir.at("Pictures/DCIM/Camera/IMG_1.jpg"), limit: 1 << 24))
        try t.scan()
        let l = t.library
        try Self.expectKept(l, "scanned")
        try Grouper(library: l).regroupAll()
        try Self.expectKept(l, "regrouped")
        let set = try #require(try l.similarGroups().first)
        #expect(try l.groupSummaries().first { $0.id == .similar }?.items ?? 0 >= 4)
        #expect(try l.groupSummaries().first { $0.id == .duplicate }?.sets ?? 0 >= 1)

        let clock = Clock.manual(Date(timeIntervalSince1970: 1_800_000_000)).0
        let others = set.members.filter { !$0.isKeeper }
        for m in others { try Review.decide(.trash, fileID: m.fileID, library: l, clock: clock) }
        try Self.expectKept(l, "decided")
        _ = try Review.undo(library: l, clock: clock)
        try Self.expectKept(l, "undone")
        try Review.decide(.trash, fileID: others.last!.fileID, library: l, clock: clock)
        let env = TrashEnvironment(environment: Environment(variables: ["HOME": t.dir.path, "XDG_DATA_HOME": t.dir.at("share")]), timeZone: .current)
        #expect(try Trash.commit(library: l, clock: clock, env: env).succeeded.count == others.count)
        try Self.expectKept(l, "committed to the Trash")
        #expect(try l.groupSummaries().first { $0.id == .similar }?.sets == 0)
        _ = try Trash.restore(paths: others.map(\.path), library: l, clock: clock)
        try Self.expectKept(l, "restored")

        try l.setKeeper(fileID: others[0].fileID, at: clock.now())
        try Self.expectKept(l, "a keeper chosen")
        try l.markNotSimilar(others[0].fileID, from: set.members.map(\.fileID), at: clock.now())
        try Self.expectKept(l, "marked not similar")

        // A removal: the file gone from the disk, seen by a scan; a row deleted outright.
        try FileSystem.remove(set.keeper.path)
        try t.scan()
        _ = try Grouper(library: l).regroup()
        try Self.expectKept(l, "removed and regrouped")
        try l.db.run("DELETE FROM files WHERE id = ?", others.last!.fileID)
        try Self.expectKept(l, "a row deleted")
    }

    /// Each step's writes one by one, and again with the recount held (migration 92: a regroup's
    /// store counts each file it wrote once, at the end).
    @Test("rows written by hand, with every conflict clause, sidecars and changed files", arguments: [false, true])
    func theTotalsFollowEveryWrite(held: Bool) throws {
        let (t, ids) = try DecksOverviewTests.library(count: 300, seed: 9)
        let l = t.library
        func step(_ name: String, _ writes: () throws -> Void) throws {
            if held { try l.withGroupCountsHeld(writes) } else { try writes() }
            try Self.expectKept(l, held ? "\(name), held" : name)
            #expect(try l.db.scalar("SELECT count(*) FROM group_recount_held") == 0)
            #expect(try l.db.scalar("SELECT count(*) FROM group_recount_pending") == 0)
        }
        try Self.expectKept(l, "made")
        try step("replaced and ignored") {
            try l.db.run("INSERT OR REPLACE INTO group_members(group_id, file_id, score) SELECT 'blurry', id, 2 FROM files WHERE id % 4 = 0")
            try l.db.run("INSERT OR IGNORE INTO group_members(group_id, file_id, score) SELECT 'blurry', id, 3 FROM files WHERE id % 6 = 0")
            // An upsert naming one file twice: the held recount notes it once (its conflict
            // clause would overrule a note's `OR IGNORE`).
            try l.db.run(
                """
                INSERT INTO group_members(group_id, file_id, score) VALUES('blurry', ?1, 4), ('oops', ?1, 4)
                ON CONFLICT(group_id, file_id) DO UPDATE SET score = excluded.score
                """, ids[3])
        }
        try step("a set replaced") {
            try l.db.run(
                "INSERT OR REPLACE INTO similar_sets(file_id, set_key, keeper, duplicate_of) SELECT id, 1000, 0, ? FROM files WHERE id % 7 = 0",
                ids[0])
            try l.db.run("INSERT OR REPLACE INTO group_members(group_id, file_id) SELECT 'duplicate', file_id FROM similar_sets WHERE set_key = 1000")
        }
        try step("sets changed") {
            try l.db.run("UPDATE similar_sets SET keeper = 1 - keeper WHERE file_id % 3 = 0")
            try l.db.run("UPDATE similar_sets SET set_key = set_key + 1 WHERE file_id % 5 = 1")
        }
        try step("paired") {
            try l.db.run("INSERT OR REPLACE INTO sidecars(file_id, sidecar_id, kind) VALUES(?, ?, 'raw')", ids[10], ids[5])
            try l.db.run("INSERT OR REPLACE INTO sidecars(file_id, sidecar_id, kind) VALUES(?, ?, 'raw')", ids[11], ids[5])
        }
        try step("files changed") {
            try l.db.run("DELETE FROM sidecars WHERE sidecar_id = ?", ids[5])
            try l.db.run("UPDATE files SET kind = 'other' WHERE id % 8 = 0")
            try l.db.run("UPDATE files SET size = size * 2 WHERE id % 3 = 0")
            try l.db.run("UPDATE files SET status = ? WHERE id % 9 = 0", ItemStatus.gone.rawValue)
            try l.db.run("UPDATE files SET status = ? WHERE id % 18 = 0", ItemStatus.ok.rawValue)
        }
        // A held block that fails takes its writes and the hold with it.
        let before = try l.groupSummaries()
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try l.withGroupCountsHeld {
                try l.db.run("DELETE FROM group_members WHERE group_id = 'blurry'")
                throw Stop()
            }
        }
        #expect(try l.groupSummaries() == before)
        try step("after a failed hold") {}
        try step("removed") {
            try l.db.run("DELETE FROM group_members WHERE group_id = 'similar' AND file_id % 2 = 0")
            try l.db.run("DELETE FROM similar_sets WHERE file_id % 10 = 0")
            try l.db.run("DELETE FROM files WHERE id % 11 = 0")
        }
    }
}
