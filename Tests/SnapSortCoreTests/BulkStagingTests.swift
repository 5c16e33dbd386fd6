import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// A bulk action never takes a keeper or a last copy silently (issue 43, item 5): on a real
/// library, "Screenshots older than 30 days" over a duplicate set of five copies of one
/// screenshot leaves the set's keeper, says so, and names the set by its keeper's file name and
/// date, never its id.
@Suite struct BulkStagingTests {
    static let utc = TimeZone(identifier: "UTC")!
    /// Five copies of one screenshot (a duplicate set) and a lone screenshot, all months old on
    /// the manual clock.
    static func library() throws -> (TestLibrary, Clock, set: SimilarSet, lone: Int64) {
        let t = try TestLibrary()
        let shot = Fixtures.png(seed: 5, width: 360, height: 640)
        for folder in ["Pictures", "Pictures/A", "Pictures/B", "Pictures/C", "Pictures/D"] {
            t.dir.write(folder + "/Screenshot_20230101_101010.png", shot)
        }
        t.dir.write("Pictures/Screenshot_20230305_080000.png", Fixtures.png(seed: 9, width: 360, height: 640))
        try t.scan()
        try Grouper(library: t.library).regroupAll()
        let sets = try t.library.similarGroups()
        try #require(sets.count == 1 && sets[0].members.count == 5, "\(sets)")
        let lone = try #require(try t.library.item(path: t.root + "/Screenshot_20230305_080000.png")?.id)
        // A year after the files were written: every one of them is older than 30 days.
        let clock = Clock.manual(Date().addingTimeInterval(365 * 86_400)).0
        return (t, clock, sets[0], lone)
    }

    @Test func oldScreenshotsLeaveEachSetsKeeperAndSaySo() throws {
        let (t, clock, set, lone) = try Self.library()
        let old = try BulkStaging.oldScreenshots(days: 30, library: t.library, clock: clock, timeZone: Self.utc)
        #expect(Set(old) == Set(set.members.map(\.fileID) + [lone]), "\(old)")
        let plan = try BulkStaging.plan(old, library: t.library)
        #expect(plan.staging.count == 5 && plan.keepersLeft == 1 && plan.lastCopiesLeft == 0, "\(plan)")
        #expect(plan.left.map(\.fileID) == [set.keeper.fileID])
        let done = try BulkStaging.stage(old, library: t.library, clock: clock, timeZone: Self.utc)
        #expect(done == plan)
        #expect(done.summary == "Staged 5 · left 1 keeper")
        // The set is named by its keeper's file name and date, not by `s17`.
        let name = try t.library.setName(set)
        #expect(name.hasPrefix("Screenshot_20230101_101010.png (") && !name.contains(set.id), "\(name)")
        #expect(done.leftSentence == "1 keeper stays: the set of \(name).", "\(done.leftSentence ?? "nil")")
        // The keeper stays in the library: nothing staged is a last copy, the commit names no set.
        let staged = try Trash.staged(library: t.library)
        #expect(Set(staged.map(\.fileID)) == Set(done.staging) && staged.allSatisfy { !$0.lastCopy || $0.fileID == lone })
        #expect(try CommitPlan.load(library: t.library).lastCopiesWarning == nil)
        #expect(try Review.decision(for: set.keeper.fileID, library: t.library) == nil)
        // One undo takes the whole action back.
        _ = try Review.undo(library: t.library, clock: clock)
        #expect(try Trash.staged(library: t.library).isEmpty)
    }

    /// Said otherwise (`includeKeepers`): the keeper goes too, and the commit's question then
    /// names the set whole, by its keeper.
    @Test func thePersonMayTakeTheKeepersToo() throws {
        let (t, clock, set, _) = try Self.library()
        let old = try BulkStaging.oldScreenshots(days: 30, library: t.library, clock: clock, timeZone: Self.utc)
        let done = try BulkStaging.stage(old, includeKeepers: true, library: t.library, clock: clock, timeZone: Self.utc)
        #expect(done.staging.count == 6 && done.left.isEmpty && done.summary == "Staged 6")
        let warning = try #require(try CommitPlan.load(library: t.library).lastCopiesWarning)
        #expect(warning.contains("the duplicate set of \(try t.library.setName(set))") && !warning.contains(set.id), "\(warning)")
    }

    /// The keeper staged already (by hand, in a deck): the copy the action would stage last
    /// is the set's last copy, and it stays.
    @Test func aLastCopyStaysWhenTheKeeperIsStagedAlready() throws {
        let (t, clock, set, _) = try Self.library()
        try Review.decide(.trash, fileID: set.keeper.fileID, library: t.library, clock: clock)
        let others = set.members.filter { !$0.isKeeper }.map(\.fileID)
        let done = try BulkStaging.stage(others, library: t.library, clock: clock, timeZone: Self.utc)
        #expect(done.staging == Array(others.dropLast()) && done.left.map(\.fileID) == [others.last!], "\(done)")
        #expect(done.summary == "Staged 3 · left 1 last copy")
        #expect(try CommitPlan.load(library: t.library).lastCopiesWarning == nil)
    }
}
