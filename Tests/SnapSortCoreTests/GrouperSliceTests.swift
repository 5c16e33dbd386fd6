import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// A regroup of a few changes reads the rows around them (`RegroupSlice`), not the library, and
/// gives what a full regroup gives.
@Suite struct GrouperSliceTests {
    /// Migrations 82 and 83 are fixed text; the queries build their expressions from Swift
    /// (`Schema.phashChunk`, `Schema.heavyPhotos`). Should one drift, old libraries would keep
    /// the old index and every pHash probe and Heavy count would scan the table: a change of
    /// either needs a migration that makes the index again.
    @Test func theIndexesAreTheExpressionsTheQueriesRead() throws {
        let t = try TestLibrary()
        func sql(_ name: String) throws -> String? { try t.library.db.rows("SELECT sql FROM sqlite_master WHERE name = ?", name).first?.string(0) }
        for c in 0..<4 { #expect(try sql("files_phash\(c)") == "CREATE INDEX files_phash\(c) ON files(\(Schema.phashChunk(c)))") }
        #expect(try sql("files_heavy") == "CREATE INDEX files_heavy ON files(size) WHERE \(Schema.heavyPhotos)")
    }

    /// 60 photos over 30 days (two a day, an hour apart, each its own scene) and a burst; the
    /// first regroup reads every row, then a byte copy of one photo added is regrouped reading
    /// its neighbourhood — itself, its original, what was shot within 5 minutes, the pHashes near
    /// its own — and its groups are a full regroup's.
    @Test func aPhotoAddedIsRegroupedFromItsNeighbourhood() throws {
        let t = try TestLibrary()
        for d in 0..<30 {
            for k in 0..<2 {
                t.dir.write(
                    "Pictures/Day\(d)/IMG_\(d)_\(k).jpg",
                    Fixtures.jpeg(
                        Fixtures.scene(width: 320, height: 240, seed: UInt64(1000 + 2 * d + k)), quality: 85,
                        dateTimeOriginal: String(format: "2024:10:%02d %02d:00:00", 1 + d, 10 + k)))
            }
        }
        let scene = Fixtures.scene(width: 720, height: 480, seed: 5)
        for (i, x) in [0, 14, 28].enumerated() {
            t.dir.write(
                "Pictures/Day9/IMG_B\(i).jpg",
                Fixtures.jpeg(GroupsGrouperTests.frame(scene, x: x), quality: 90, dateTimeOriginal: "2024:10:10 15:00:0\(i)"))
        }
        try t.scan()
        let first = try Grouper(library: t.library).regroup()
        #expect(first.rowsRead == 63 && first.sets == 1, "\(first)")

        t.dir.write("Pictures/Added/IMG_added.jpg", try FileSystem.readFile(t.dir.at("Pictures/Day20/IMG_20_1.jpg"), limit: 1 << 24))
        try t.scan()
        let added = try Grouper(library: t.library).regroup()
        #expect(added.changed == 1 && added.sets == 1, "\(added)")
        #expect(added.rowsRead >= 2 && added.rowsRead <= 12, "rows read for one photo added to 63: \(added)")
        let incremental = try GroupsGrouperTests.snapshot(t.library)
        #expect(incremental.contains { $0.contains("IMG_added.jpg set=") }, "\(incremental)")
        try expectFullRegroup(t, equals: incremental, "a byte copy added")

        // A frame of the burst: the burst's set is read and clustered again, nothing more.
        t.dir.write(
            "Pictures/Day9/IMG_B3.jpg", Fixtures.jpeg(GroupsGrouperTests.frame(scene, x: 42), quality: 90, dateTimeOriginal: "2024:10:10 15:00:03"))
        try t.scan()
        let burst = try Grouper(library: t.library).regroup()
        #expect(burst.changed == 1 && burst.region == 4 && burst.rowsRead <= 14, "\(burst)")
        try expectFullRegroup(t, equals: try GroupsGrouperTests.snapshot(t.library), "a burst frame added")
    }

    /// A file timed by its mtime whose mtime changes (`touch -d`, issue 39 item 4) is found by the
    /// next regroup through `regroup_dirty` (kept by the files table's triggers), which that
    /// regroup then clears; a rescan of unchanged files marks nothing.
    @Test func aTouchedFileIsRegroupedAndTheDirtyRowsCleared() throws {
        let t = try TestLibrary()
        for i in 0..<4 { t.dir.write("Pictures/p\(i).png", Fixtures.png(seed: UInt64(40 + i), width: 160, height: 120)) }
        try t.scan()
        try Grouper(library: t.library).regroup()
        #expect(try t.library.db.scalar("SELECT count(*) FROM regroup_dirty") == 0)
        try t.scan()
        #expect(try t.library.db.scalar("SELECT count(*) FROM regroup_dirty") == 0, "an unchanged rescan marks nothing")

        let path = t.dir.at("Pictures/p2.png")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_600_000_000)], ofItemAtPath: path)
        try t.scan()
        let id = try #require(try t.library.db.scalar("SELECT id FROM files WHERE path = ?", path))
        #expect(try t.library.db.scalar("SELECT file_id FROM regroup_dirty") == id)
        let touched = try Grouper(library: t.library).regroup()
        #expect(touched.changed == 1 && touched.rowsRead < 4, "\(touched)")
        #expect(try t.library.db.scalar("SELECT count(*) FROM regroup_dirty") == 0)
        try expectFullRegroup(t, equals: try GroupsGrouperTests.snapshot(t.library), "a file touched")
    }

    /// A full regroup of a copy of the library gives `incremental`.
    private func expectFullRegroup(_ t: TestLibrary, equals incremental: [String], _ what: String) throws {
        let copy = t.dir.at("full-\(UUID().uuidString).sqlite3")
        try t.library.db.execute("VACUUM INTO '\(copy)'")
        let full = try Library(path: copy)
        try Grouper(library: full).regroupAll()
        #expect(try GroupsGrouperTests.snapshot(full) == incremental, "\(what)")
    }
}

/// The stretches of the timeline a part has read (`Spans`): a new stretch asks only for what no
/// read one covers, so a crowd's photos do not each read the crowd again.
@Suite struct GroupsSpansTests {
    /// Every point of a stretch is in a read stretch or in one of its gaps, and no gap is
    /// inside a read stretch (checked on a grid against the stretches inserted).
    /// 300 stretches of 0–40 (points among them) inserted at random, each asked for first.
    @Test(arguments: 0..<20)
    func theGapsAreWhatNoStretchCovers(seed: Int) {
        var rng = SplitMix(seed: UInt64(seed))
        var spans = Spans()
        var inserted: [(Double, Double)] = []
        func covered(_ x: Double) -> Bool { inserted.contains { $0.0 <= x && x <= $0.1 } }
        for _ in 0..<300 {
            let lo = Double(Int.random(in: 0...400, using: &rng)), hi = lo + Double(Int.random(in: 0...40, using: &rng))
            let gaps = spans.gaps(lo, hi)
            for x in stride(from: lo, through: hi, by: 0.5) {
                let inGap = gaps.contains { $0.0 <= x && x <= $0.1 }
                #expect(inGap || covered(x), "\(x) of [\(lo), \(hi)] neither read nor asked for")
                // Strictly inside a gap: not read before (a gap's ends are shared with read stretches).
                if gaps.contains(where: { $0.0 < x && x < $0.1 }) { #expect(!covered(x)) }
            }
            for (a, b) in gaps { #expect(lo <= a && a <= b && b <= hi) }
            spans.insert(lo, hi)
            inserted.append((lo, hi))
        }
    }

    @Test func aStretchReadAgainAsksForNothing() {
        var spans = Spans()
        #expect(spans.gaps(10, 20).map { [$0.0, $0.1] } == [[10, 20]])
        spans.insert(10, 20)
        #expect(spans.gaps(12, 18).isEmpty)
        #expect(spans.gaps(10, 20).isEmpty)
        #expect(spans.gaps(15, 25).map { [$0.0, $0.1] } == [[20, 25]])
        spans.insert(30, 40)
        #expect(spans.gaps(5, 45).map { [$0.0, $0.1] } == [[5, 10], [20, 30], [40, 45]])
        spans.insert(19, 31)
        #expect(spans.gaps(0, 50).map { [$0.0, $0.1] } == [[0, 10], [40, 50]])
        // A point: asked for when no stretch holds it (it failed so once, at random).
        #expect(spans.gaps(45, 45).map { [$0.0, $0.1] } == [[45, 45]])
        #expect(spans.gaps(15, 15).isEmpty && spans.gaps(40, 40).isEmpty)
    }
}
