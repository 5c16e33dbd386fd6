import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// What the decisions count for on the first screen, kept by triggers (`decided_counted`,
/// `decided_counts`, migration 90), against the definitions that read every decision: the
/// overview's decided rows by key and case (`Decks.decidedByKeyScan`), the group decks' decided
/// cards (`decidedByGroupScan`), the waiting count (`awaitingReviewByScan`), the staged totals
/// (`stagedTotalsByScan`) and the decisions the SQL would read otherwise
/// (`Decided.specialByScan`) — at times when the deferrals are due and when they cool down,
/// after every kind of write that can move them: decisions made, undone, replaced and written
/// by hand, files changed, renamed, gone and back, deleted, paired, put in groups and sets, sets
/// down to one live file and back, written while a regroup's store holds the counts, a commit to
/// the Trash and a restore, a regroup.
@Suite("Decks: the kept counts of the decided")
struct DecidedCountsTests {
    static func sorted(_ c: [Decks.DecidedCount]) -> [Decks.DecidedCount] {
        c.sorted { ($0.name, $0.decided) < ($1.name, $1.decided) }
    }

    /// The kept counts and their definitions at each of `DecksOverviewTests.days`, and before the
    /// first deferral ends and after the last.
    static func expectKept(_ l: Library, _ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for day in DecksOverviewTests.days + ["2026-10-01 00:00:00", "2027-06-01 00:00:00"] {
            let clock = Clock.manual(ReviewFixture.date(day)).0
            let now = clock.now()
            let byKey = sorted(try Decks.decidedByKey(l, now: now).map(\.count)), byKeyScan = sorted(try Decks.decidedByKeyScan(l, now: now))
            #expect(byKey == byKeyScan, "\(step) \(day): by key", sourceLocation: sourceLocation)
            let byGroup = sorted(try Decks.decidedByGroup(l, now: now)), byGroupScan = sorted(try Decks.decidedByGroupScan(l, now: now))
            #expect(byGroup == byGroupScan, "\(step) \(day): by group", sourceLocation: sourceLocation)
            if byKey != byKeyScan || byGroup != byGroupScan {
                let (a, b) = byKey != byKeyScan ? (byKey, byKeyScan) : (byGroup, byGroupScan)
                Issue.record("\(step) \(day): kept \(Set(a).subtracting(b)), by scan \(Set(b).subtracting(a))", sourceLocation: sourceLocation)
                return
            }
            #expect(
                try Decks.awaitingReview(library: l, clock: clock) == (try Decks.awaitingReviewByScan(library: l, clock: clock)),
                "\(step) \(day): awaiting review", sourceLocation: sourceLocation)
        }
        let staged = try Trash.stagedTotals(library: l), stagedScan = try Trash.stagedTotalsByScan(library: l)
        #expect(staged.count == stagedScan.count && staged.bytes == stagedScan.bytes, "\(step): staged", sourceLocation: sourceLocation)
        let special = try l.db.rows(Decks.Decided.special).compactMap { $0.int(0) }.sorted()
        let specialScan = try l.db.rows(Decks.Decided.specialByScan).compactMap { $0.int(0) }.sorted()
        #expect(special == specialScan, "\(step): special", sourceLocation: sourceLocation)
        // No sum left at zero, none below.
        #expect(try l.db.scalar("SELECT count(*) FROM decided_counts WHERE n <= 0") == 0, "\(step)", sourceLocation: sourceLocation)
    }

    @Test("decisions, files, pairs, groups and sets written by hand, with every conflict clause")
    func theCountsFollowEveryWrite() throws {
        let (t, ids) = try DecksOverviewTests.library(count: 300, seed: 19)
        let l = t.library
        // A write that fails says which.
        func run(_ sql: String, _ args: SQLBindable...) throws {
            do { try l.db.run(sql, arguments: args) } catch {
                Issue.record("\(sql): \(error)")
                throw error
            }
        }
        try Self.expectKept(l, "made")
        try DecksOverviewTests.decide(t, ids, at: ReviewFixture.date(DecksOverviewTests.days[0]))
        let decided = try l.db.rows("SELECT file_id FROM decisions ORDER BY file_id").compactMap { $0.int(0) }
        #expect(decided.count > 60)
        try Self.expectKept(l, "decided")
        // Both halves of a deferral's kept case are in it: due and cooling down.
        let cases = Set(try Decks.decidedByKey(l, now: ReviewFixture.date(DecksOverviewTests.days[0])).map(\.count.decided))
        #expect(cases.isSuperset(of: [Int64(Decks.Decided.laterDue.rawValue), Int64(Decks.Decided.later.rawValue)]), "\(cases)")

        // Decisions the SQL would read otherwise, and back.
        try run("UPDATE decisions SET later_until = NULL WHERE decision = 'later' AND file_id % 2 = 0")
        try run("UPDATE decisions SET reviewed_device = NULL WHERE file_id % 5 = 1")
        try run("UPDATE decisions SET reviewed_hash = x'' WHERE file_id % 5 = 2")
        try run("UPDATE decisions SET reviewed_size = 'many' WHERE file_id % 5 = 3")
        try run("UPDATE decisions SET decision = 'maybe' WHERE file_id % 7 = 4")
        try run("UPDATE decisions SET later_until = 'soon' WHERE decision = 'later' AND file_id % 9 = 1")
        #expect(try l.db.rows(Decks.Decided.special).count > 10)
        try Self.expectKept(l, "odd decisions")
        try run("UPDATE decisions SET decision = 'skip' WHERE decision = 'maybe'")
        try run("UPDATE decisions SET reviewed_size = NULL WHERE reviewed_size = 'many'")
        try Self.expectKept(l, "odd decisions mended")

        // Replaced, moved to another file, deleted, made by hand.
        try run(
            """
            INSERT OR REPLACE INTO decisions(file_id, decision, decided_ts, later_until, reviewed_size)
            SELECT file_id, 'later', decided_ts, decided_ts + 86400 * (file_id % 40), reviewed_size FROM decisions WHERE file_id % 4 = 0
            """)
        let undecided = ids.filter { !decided.contains($0) && $0 != ids[4] }
        try run("UPDATE decisions SET file_id = ? WHERE file_id = ?", undecided[0], decided[1])
        try run("DELETE FROM decisions WHERE file_id % 6 = 5")
        try run(
            "INSERT OR IGNORE INTO decisions(file_id, decision, decided_ts, reviewed_size) SELECT id, 'trash', 0, size FROM files WHERE id % 10 = 3")
        try Self.expectKept(l, "decisions written by hand")

        // Files: new bytes (a trash verdict on other bytes), another inode, renamed into a
        // screenshot's name, dated again, another kind, gone and back, deleted.
        try run("UPDATE files SET size = size + 1 WHERE id % 4 = 1")
        try run("UPDATE files SET content_hash = x'0102' WHERE id % 5 = 0")
        try run("UPDATE files SET inode = inode + 1 WHERE id % 7 = 2")
        try run("UPDATE files SET path = path || '-Screenshot.png' WHERE id % 6 = 0")
        try run("UPDATE files SET taken_at = '2019:05:06 07:08:09' WHERE id % 11 = 0")
        try run("UPDATE files SET kind = 'other' WHERE id % 8 = 0")
        try run("UPDATE files SET status = ? WHERE id % 9 = 0", ItemStatus.gone.rawValue)
        try Self.expectKept(l, "files changed")
        try run("UPDATE files SET status = ?, kind = 'photo' WHERE id % 18 = 0", ItemStatus.ok.rawValue)
        try run("DELETE FROM files WHERE id IN (?, ?, ?)", decided[2], decided[3], ids[4])
        try Self.expectKept(l, "back and deleted")

        // Pairs on either side of a decided file, replaced, moved, taken apart.
        try run("INSERT OR REPLACE INTO sidecars(file_id, sidecar_id, kind) VALUES(?, ?, 'raw')", decided[10], decided[11])
        try run("INSERT OR REPLACE INTO sidecars(file_id, sidecar_id, kind) VALUES(?, ?, 'live')", undecided[5], decided[12])
        try run("INSERT OR REPLACE INTO sidecars(file_id, sidecar_id, kind) VALUES(?, ?, 'raw')", decided[13], decided[11])
        try Self.expectKept(l, "paired")
        try run("UPDATE OR REPLACE sidecars SET sidecar_id = ? WHERE sidecar_id = ?", decided[14], decided[12])
        try run("DELETE FROM sidecars WHERE sidecar_id = ?", decided[11])
        try Self.expectKept(l, "pairs changed")

        // Groups: the Screenshots group (no longer counted by key), others, every clause.
        try run("INSERT OR REPLACE INTO group_members(group_id, file_id, score) SELECT 'screenshot', file_id, 1 FROM decisions WHERE file_id % 3 = 1")
        try run("INSERT OR IGNORE INTO group_members(group_id, file_id, score) SELECT 'blurry', file_id, 1 FROM decisions WHERE file_id % 2 = 1")
        try run("UPDATE group_members SET group_id = 'oops' WHERE group_id = 'heavy'")
        try Self.expectKept(l, "grouped")
        try run("DELETE FROM group_members WHERE group_id = 'screenshot' AND file_id % 2 = 0")
        try Self.expectKept(l, "ungrouped")

        // Sets: one of two decided files (a live set), its mate gone (no set), back, moved.
        try run(
            "INSERT OR REPLACE INTO group_members(group_id, file_id) VALUES('similar', ?), ('similar', ?), ('duplicate', ?)", decided[20],
            decided[21], decided[21])
        try run(
            "INSERT OR REPLACE INTO similar_sets(file_id, set_key, keeper, duplicate_of) VALUES(?, 5000, 1, NULL), (?, 5000, 0, ?)", decided[20],
            decided[21], decided[20])
        try Self.expectKept(l, "a set of two")
        try run("UPDATE files SET status = ? WHERE id = ?", ItemStatus.gone.rawValue, decided[21])
        try Self.expectKept(l, "its mate gone")
        try run("UPDATE files SET status = ? WHERE id = ?", ItemStatus.ok.rawValue, decided[21])
        try Self.expectKept(l, "back")
        try run("UPDATE similar_sets SET set_key = 5001 WHERE file_id = ?", decided[21])
        try Self.expectKept(l, "moved to a set of its own")
        try run("UPDATE similar_sets SET set_key = 5000 WHERE file_id = ?", decided[21])
        try run("DELETE FROM similar_sets WHERE file_id = ?", decided[20])
        try run("DELETE FROM similar_sets WHERE file_id % 10 = 0")
        try Self.expectKept(l, "sets taken apart")

        // Held, as a regroup's store holds them (migrations 91 and 92): each file noted while
        // held, counted once at the end.
        try l.withGroupCountsHeld {
            try run(
                "INSERT OR REPLACE INTO similar_sets(file_id, set_key, keeper) SELECT file_id, 6000 + file_id % 4, 0 FROM decisions WHERE file_id % 3 = 0"
            )
            try run("INSERT OR REPLACE INTO group_members(group_id, file_id) SELECT 'similar', file_id FROM similar_sets WHERE set_key >= 6000")
            try run("DELETE FROM group_members WHERE group_id = 'blurry' AND file_id % 5 = 2")
            try run("UPDATE files SET size = size + 3 WHERE id % 7 = 3")
            #expect(try l.db.scalar("SELECT count(*) FROM decided_recount_pending") ?? 0 > 10)
        }
        #expect(try l.db.scalar("SELECT count(*) FROM decided_recount_pending") == 0)
        try Self.expectKept(l, "written while held")
    }

    @Test("a regroup, decisions and their undo, a bulk action, the Trash and back, a keeper, a removal")
    func theCountsFollowTheReview() throws {
        let t = try TestLibrary()
        GroupsGrouperTests.writeBurst(t)
        let copy = try FileSystem.readFile(t.dir.at("Pictures/DCIM/Camera/IMG_0.jpg"), limit: 1 << 24)
        t.dir.write("Pictures/Backup/DCIM/Camera/IMG_0.jpg", copy)
        try t.scan()
        let l = t.library
        try Grouper(library: l).regroupAll()
        let set = try #require(try l.similarGroups().first)
        let clock = Clock.manual(ReviewFixture.date("2026-11-01 10:00:00")).0
        let others = set.members.filter { !$0.isKeeper }
        for (i, m) in set.members.enumerated() {
            try Review.decide([.later, .trash, .keep, .skip][i % 4], fileID: m.fileID, library: l, clock: clock)
        }
        try Self.expectKept(l, "decided")
        _ = try Review.undo(library: l, clock: clock)
        try Self.expectKept(l, "undone")
        try Review.decide(.trash, fileID: others.last!.fileID, library: l, clock: clock)
        try BulkStaging.stage(others.map(\.fileID), library: l, clock: clock)
        try Self.expectKept(l, "staged in one action")
        let env = TrashEnvironment(environment: Environment(variables: ["HOME": t.dir.path, "XDG_DATA_HOME": t.dir.at("share")]), timeZone: .current)
        #expect(try !Trash.commit(library: l, clock: clock, env: env).succeeded.isEmpty)
        try Self.expectKept(l, "committed to the Trash")
        _ = try Trash.restore(paths: others.map(\.path), library: l, clock: clock)
        try Self.expectKept(l, "restored")
        try l.setKeeper(fileID: others[0].fileID, at: clock.now())
        try l.markNotSimilar(others[0].fileID, from: set.members.map(\.fileID), at: clock.now())
        try Self.expectKept(l, "a keeper chosen, a mark")
        try FileSystem.remove(set.keeper.path)
        try t.scan()
        _ = try Grouper(library: l).regroup()
        try Self.expectKept(l, "removed and regrouped")
        try Grouper(library: l).regroupAll()
        try Self.expectKept(l, "regrouped whole")
    }

    /// The triggers hold `Decided.plain` and `trashOnChangedBytes`' SQL as the literals they were
    /// (a migration's text is fixed): changed in Swift without a migration that makes the
    /// triggers again, the kept counts would read the decisions otherwise than the overview.
    @Test("the kept counts read the decisions by the rules the SQL has now")
    func theTriggersAreTheRulesTheCountsRead() throws {
        let t = try TestLibrary()
        func flat(_ s: String) -> String { s.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        let sql = flat(try t.library.db.rows("SELECT sql FROM sqlite_master WHERE name = 'decided_recount_file'").first?.string(0) ?? "")
        #expect(
            sql.contains("NOT (\(flat(Decks.Decided.plain)))"),
            "a change to Decks.Decided.plain needs a migration that makes decided_recount_file again")
        #expect(
            sql.contains(flat(DecisionRecord.trashChangedSQL("f"))),
            "a change to trashChangedSQL needs a migration that makes decided_recount_file again")
        #expect(sql.contains("WHEN 'keep' THEN 1 WHEN 'skip' THEN 4 WHEN 'later' THEN 5"))
    }

    @Test("the kept counts are read from their indexes, never from the decisions")
    func theCountsReadTheIndexes() throws {
        let t = try TestLibrary()
        func plan(_ sql: String, _ args: SQLBindable...) throws -> String {
            try t.library.db.rows("EXPLAIN QUERY PLAN " + sql, arguments: args).compactMap { $0.string(3) }.joined(separator: "; ")
        }
        #expect(try plan(Decks.Decided.coolingByKey, 0.0).contains("USING INDEX decided_later (later_until>?)"))
        #expect(try plan(Decks.Decided.coolingByGroup, 0.0).contains("USING INDEX decided_later (later_until>?)"))
        #expect(try plan(Decks.Decided.special).contains("USING COVERING INDEX decided_special"))
        #expect(try !plan(Decks.DeckKey.decidedKept).contains("decisions"))
    }
}
