import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// `LastCopies` over a real library: two captures of one still scene 10 s apart are a Similar
/// Shots set with no copies (`GroupsGrouperTests`); whether a staged frame is a last copy
/// depends on what of its set stays.
@Suite struct LastCopiesTests {
    static func similarPair() throws -> (TestLibrary, keeper: Int64, other: Int64, set: String) {
        let t = try TestLibrary()
        let scene = Fixtures.scene(width: 640, height: 480, seed: 5)
        t.dir.write("Pictures/IMG_20241019_100000.jpg", Fixtures.jpeg(scene, dateTimeOriginal: "2024:10:19 10:00:00"))
        t.dir.write("Pictures/IMG_20241019_100010.jpg", Fixtures.jpeg(scene, dateTimeOriginal: "2024:10:19 10:00:10"))
        try t.scan()
        try Grouper(library: t.library).regroupAll()
        let sets = try t.library.similarGroups()
        try #require(sets.count == 1 && sets[0].members.count == 2 && sets[0].members.allSatisfy { $0.duplicateOf == nil })
        let keeper = sets[0].keeper.fileID
        let other = try #require(sets[0].members.first { !$0.isKeeper }?.fileID)
        return (t, keeper, other, sets[0].id)
    }

    @Test func aSimilarSetsKeeperStagedWithItsMembersIsALastCopy() throws {
        let (t, keeper, other, set) = try Self.similarPair()
        let clock = Clock.manual(Date(timeIntervalSince1970: 1_800_000_000)).0
        #expect(try t.library.setRole(of: keeper)?.text == "suggested keeper")
        #expect(try t.library.setRole(of: other)?.text == nil)
        // A keeper the user chose says so (as the terminal deck does); the suggestion again after.
        try t.library.setKeeper(fileID: other, at: Date())
        #expect(try t.library.setRole(of: other)?.text == "your keeper" && t.library.setRole(of: keeper)?.text == nil)
        try t.library.setKeeper(fileID: keeper, at: Date())
        try t.library.clearKeeper(fileID: keeper)
        #expect(try t.library.setRole(of: keeper)?.text == "suggested keeper")
        // The keeper stays: the other frame is no last copy, and nothing is named.
        try Review.decide(.trash, fileID: other, library: t.library, clock: clock)
        var staged = try Trash.staged(library: t.library)
        #expect(staged.map(\.lastCopy) == [false] && staged[0].lastCopySet == nil)
        #expect(LastCopies.warning(staged) == nil)
        // The keeper staged too: both are last copies of the set, which the question names.
        try Review.decide(.trash, fileID: keeper, library: t.library, clock: clock)
        staged = try Trash.staged(library: t.library)
        #expect(staged.count == 2 && staged.allSatisfy { $0.lastCopy && $0.lastCopySet == set && !$0.lastCopyOfDuplicates })
        let warning = try #require(LastCopies.warning(staged))
        // Named by its keeper's file name and date, never by its internal id (issue 43, item 5).
        let keeperName = try #require(try t.library.item(id: keeper)?.name)
        #expect(warning.hasPrefix("2 of them are the last copies of the Similar Shots set of \(keeperName) ("), "\(warning)")
        #expect(!warning.contains(set) && staged[0].lastCopySetName?.hasPrefix(keeperName + " (") == true, "\(warning)")
        // The keeper alone staged: the other frame stays, so the keeper is no last copy either.
        _ = try Trash.unstage(fileIDs: [other], library: t.library, clock: .live)
        #expect(try Trash.staged(library: t.library).map(\.lastCopy) == [false])
    }

    /// A photo in no set is the only copy of its pixels (`last_copy` true) but leaves no set:
    /// the question says nothing more of it.
    @Test func aLonePhotoIsItsOwnLastCopyAndNamesNoSet() throws {
        let t = try TestLibrary()
        t.dir.write("Pictures/lone.jpg", Fixtures.jpeg(seed: 3, width: 320, height: 240))
        try t.scan()
        try Grouper(library: t.library).regroupAll()
        let id = try #require(try t.library.item(path: t.root + "/lone.jpg")?.id)
        try Review.decide(.trash, fileID: id, library: t.library, clock: Clock.manual(Date(timeIntervalSince1970: 1_800_000_000)).0)
        let staged = try Trash.staged(library: t.library)
        #expect(staged.map(\.lastCopy) == [true] && staged[0].lastCopySet == nil)
        let role = try t.library.setRole(of: id)
        #expect(LastCopies.warning(staged) == nil && role == nil)
    }
}
