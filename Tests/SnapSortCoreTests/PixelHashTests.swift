import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// The pixel hash (`PixelHash`, `files.pixel_hash`) and the grouper's pixel classes: copies
/// whose metadata a tool rewrote are one picture by their hash, not by comparing every two of
/// them (issue 30, item 6: a backup of such copies grew the copy links with the square of their
/// number).
@Suite struct PixelHashTests {
    /// A real photograph (Tests/Fixtures/vision).
    static func photo(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fixtures/vision/\(name)")
        return try [UInt8](Data(contentsOf: url.standardized))
    }

    /// `jpeg` with a comment segment of its own after SOI, as a tagger writes one.
    static func commented(_ jpeg: [UInt8], _ text: String) -> [UInt8] {
        let note = Array(text.utf8)
        let length = note.count + 2
        return Array(jpeg[0..<2]) + [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + note + Array(jpeg[2...])
    }

    static func pixels(_ jpeg: [UInt8]) throws -> [UInt8] {
        try JPEG.decode(jpeg, scaleNumerator: 8, maxHeaderPixels: 1 << 26, maxOutputPixels: 1 << 26).bitmap.pixels
    }

    @Test func metadataAndBytesAfterTheImageLeaveThePixelHash() throws {
        let coffee = try Self.photo("coffee.jpg")
        let plain = Fixtures.jpeg(seed: 7, width: 320, height: 240)
        let withExif = Fixtures.jpeg(seed: 7, width: 320, height: 240, dateTimeOriginal: "2019:01:01 08:00:00", make: "Cam", model: "X1")
        let copies: [([UInt8], [UInt8], String)] = [
            (coffee, Self.commented(coffee, "backup 01"), "a comment"),
            (coffee, coffee + Array("SNAPSORT-BENCH-00000001".utf8), "bytes after EOI"),
            (plain, withExif, "an EXIF block"),
        ]
        for (a, b, what) in copies {
            #expect(ContentHash.content(a) != ContentHash.content(b), "\(what)")
            let ha = try #require(PixelHash.of(a, format: .jpeg), "\(what)")
            #expect(ha.count == 16)
            #expect(PixelHash.of(b, format: .jpeg) == ha, "\(what)")
            // What the hash promises: the two decode to the same pixels.
            #expect(try Self.pixels(a) == Self.pixels(b), "\(what)")
        }
    }

    @Test func otherPixelsACutOffFileAndOtherFormatsHaveNone() throws {
        let coffee = try Self.photo("coffee.jpg")
        let h = try #require(PixelHash.of(coffee, format: .jpeg))
        // Re-encoded (another quality) or another picture: other coded data.
        let bitmap = try JPEG.decode(coffee, scaleNumerator: 8, maxHeaderPixels: 1 << 26, maxOutputPixels: 1 << 26).bitmap
        #expect(PixelHash.of(try JPEG.encode(bitmap, quality: 80), format: .jpeg) != h)
        #expect(PixelHash.of(try Self.photo("chelsea.jpg"), format: .jpeg) != h)
        // One bit of the entropy-coded data changed.
        var flipped = coffee
        flipped[coffee.count - 100] ^= 0x10
        #expect(PixelHash.of(flipped, format: .jpeg) != h)
        // Cut off before its end marker: no hash (compared pair by pair, as before).
        #expect(PixelHash.of(Array(coffee.prefix(coffee.count / 2)), format: .jpeg) == nil)
        #expect(PixelHash.of(Array(coffee.prefix(coffee.count - 2)), format: .jpeg) == nil)
        #expect(PixelHash.of(Array("not a jpeg at all".utf8), format: .jpeg) == nil)
        #expect(PixelHash.of(coffee, format: .webp) == nil)
    }

    @Test func aPNGsTextChunksLeaveItsPixelHash() throws {
        let png = Fixtures.png(seed: 9, width: 64, height: 48)
        let h = try #require(PixelHash.of(png, format: .png))
        // A tEXt chunk after IHDR (8 + 25 bytes), as an editor adds one (CRC not checked here).
        let text = Array("Comment\u{0}backup".utf8)
        let chunk = [0, 0, 0, UInt8(text.count)] + Array("tEXt".utf8) + text + [0, 0, 0, 0]
        let tagged = Array(png[0..<33]) + chunk + Array(png[33...])
        #expect(ContentHash.content(tagged) != ContentHash.content(png))
        #expect(PixelHash.of(tagged, format: .png) == h)
        #expect(PixelHash.of(Fixtures.png(seed: 10, width: 64, height: 48), format: .png) != h)
        #expect(PixelHash.of(Array(png.prefix(png.count - 12)), format: .png) == nil)
    }

    /// The analysis records it for the JPEGs and PNGs it reads whole.
    @Test func aScanRecordsThePixelHash() throws {
        let t = try TestLibrary()
        let coffee = try Self.photo("coffee.jpg")
        t.dir.write("Pictures/a.jpg", coffee)
        t.dir.write("Pictures/b.jpg", Self.commented(coffee, "b"))
        t.dir.write("Pictures/c.png", Fixtures.png(seed: 3, width: 64, height: 48))
        try t.scan()
        let rows = try t.library.db.rows("SELECT path, content_hash, pixel_hash FROM files ORDER BY path")
        #expect(rows.count == 3)
        #expect(rows.allSatisfy { $0.blob(2)?.count == 16 })
        #expect(rows[0].blob(1) != rows[1].blob(1) && rows[0].blob(2) == rows[1].blob(2))
        #expect(rows[2].blob(2) != rows[0].blob(2))
    }
}

extension PixelHashTests {
    final class Box: @unchecked Sendable { var ids: [Int64] = [] }

    static func sets(_ lib: Library) throws -> [[String]] {
        try lib.similarGroups().map { $0.members.map { $0.path.split(separator: "/").suffix(2).joined(separator: "/") }.sorted() }
    }

    /// What a regroup decided: each set's members, its keeper and each copy's original, by path.
    static func outcome(_ lib: Library) throws -> [String] {
        let paths = Dictionary(uniqueKeysWithValues: try lib.db.rows("SELECT id, path FROM files").map { ($0.int(0)!, $0.string(1)!) })
        return try lib.similarGroups().flatMap { set in
            set.members.map { m in "\(m.path) keeper=\(m.isKeeper) copy-of=\(m.duplicateOf.flatMap { paths[$0] } ?? "-")" }
        }.sorted()
    }

    /// 30 copies of one photo in 30 backups, each with a comment of its own (other bytes, the
    /// same pixels): one set with one original, recorded by one link from each copy to the
    /// first (29 rows), where the copies compared two by two made 435 copy links — the same set,
    /// original and keeper either way. A copy turned by its EXIF orientation and an edit of the
    /// same pixels ("-edited") are no members of the pixel class.
    @Test func copiesWithOtherMetadataAreJoinedByTheirPixelsNotByPairs() throws {
        let t = try TestLibrary()
        let photo = Fixtures.jpeg(seed: 21, width: 320, height: 240, dateTimeOriginal: "2019:01:01 08:00:00", make: "Cam", model: "X1")
        for i in 0..<30 {
            t.dir.write("Pictures/backup-\(i)/IMG_0001.jpg", i == 0 ? photo : Self.commented(photo, "backup \(i)"))
        }
        let turned = Fixtures.jpeg(
            seed: 21, width: 320, height: 240, dateTimeOriginal: "2019:01:01 08:00:00", orientation: 6, make: "Cam", model: "X1")
        t.dir.write("Pictures/turned/IMG_0001.jpg", turned)
        t.dir.write("Pictures/edits/IMG_0001-edited.jpg", Self.commented(photo, "edited"))
        try t.scan()
        try Grouper(library: t.library).regroupAll()
        let sets = try t.library.similarGroups()
        #expect(sets.count == 1)
        let members = try #require(sets.first).members
        #expect(members.count == 30 && members.allSatisfy { $0.path.contains("/backup-") }, "\(members.map(\.path))")
        #expect(members.filter { $0.duplicateOf == nil }.count == 1)
        #expect(try t.library.db.scalar("SELECT count(*) FROM similar_pairs WHERE copy = 2") == 29)
        #expect(try t.library.db.scalar("SELECT count(*) FROM similar_pairs WHERE copy < 2") == 0)
        let joined = try Self.outcome(t.library)

        // Clustering the region reads the thumbnails of its pictures, not of each copy.
        let rules = GroupRules()
        let rows = ItemRows(try GroupItem.loadAll(t.library.db, metrics: true), metricsLoaded: true)
        let loaded = Box()
        let clustering = SimilarClustering(
            photos: ItemTable(rows) { rules.isSimilarCandidate($0) }, rules: rules, verdicts: [], keeperChoices: [], trace: nil
        ) { ids in
            loaded.ids += ids
            return try GroupItem.thumbnails(t.library.db, ids: ids)
        }
        let region = try #require(clustering.components(around: nil).first { $0.count == 30 })
        #expect(try clustering.cluster(region).map(\.members.count) == [30])
        #expect(loaded.ids.count == 1, "\(loaded.ids.count) thumbnails read for one picture")

        // The same library compared two by two, as before and as files analyzed before the
        // pixel hash are until they are analyzed again.
        try t.library.db.run("UPDATE files SET pixel_hash = NULL")
        try Grouper(library: t.library).regroupAll()
        #expect(try t.library.db.scalar("SELECT count(*) FROM similar_pairs WHERE copy = 2") == 0)
        #expect(try t.library.db.scalar("SELECT count(*) FROM similar_pairs WHERE copy < 2") == 435)
        #expect(try Self.outcome(t.library) == joined)
    }

    /// An upgrade: a library analyzed before the pixel hash (schema 67) analyzes again only the
    /// files that may have such a copy — a JPEG or PNG that shares its pHash and size with a
    /// file of other bytes — and its next scan and regroup join them by their pixels.
    @Test func anUpgradeAnalyzesAgainOnlyTheFilesThatMayHaveACopy() throws {
        let t = try TestLibrary()
        let photo = Fixtures.jpeg(seed: 31, width: 320, height: 240, dateTimeOriginal: "2019:01:01 08:00:00", make: "Cam", model: "X1")
        for i in 0..<4 { t.dir.write("Pictures/backup-\(i)/IMG_0002.jpg", i == 0 ? photo : Self.commented(photo, "backup \(i)")) }
        t.dir.write("Pictures/same/IMG_0002.jpg", photo)
        for i in 0..<3 {
            t.dir.write(
                "Pictures/other/IMG_\(i).jpg",
                Fixtures.jpeg(seed: UInt64(40 + i), width: 320, height: 240, dateTimeOriginal: "2019:02:0\(i + 1) 08:00:00"))
        }
        try t.scan()
        try Grouper(library: t.library).regroupAll()
        // As schema 67 left it: no pixel_hash column, migration 68 not applied — nor 81, whose
        // index and trigger read the column.
        try t.library.db.execute(
            """
            DROP TRIGGER regroup_dirty_insert; DROP TRIGGER regroup_dirty_delete; DROP TRIGGER regroup_dirty_update;
            DROP TRIGGER regroup_dirty_sidecar_insert; DROP TRIGGER regroup_dirty_sidecar_replace;
            DROP TRIGGER regroup_dirty_sidecar_delete; DROP TABLE regroup_dirty;
            DROP INDEX files_own_time; DROP INDEX files_mtime; DROP INDEX files_pixel; ALTER TABLE files DROP COLUMN own_time;
            ALTER TABLE files DROP COLUMN pixel_hash;
            DELETE FROM schema_migrations WHERE version IN (68, 81);
            PRAGMA user_version = 67;
            """)
        let again = try Library(path: t.dbPath)
        let marked = try again.db.rows("SELECT path FROM files WHERE analyzer_version = 0").map {
            String($0.string(0)!.split(separator: "/").suffix(2).joined(separator: "/"))
        }
        #expect(Set(marked) == Set((0..<4).map { "backup-\($0)/IMG_0002.jpg" } + ["same/IMG_0002.jpg"]), "\(marked)")
        let summary = try LibraryScanner(library: again, workers: 2).scan([t.root])
        #expect(summary.analyzed == 5, "\(summary)")
        #expect(try again.db.scalar("SELECT count(*) FROM files WHERE pixel_hash IS NOT NULL AND path LIKE '%IMG_0002%'") == 5)
        try Grouper(library: again).regroupAll()
        #expect(try again.db.scalar("SELECT count(*) FROM similar_pairs WHERE copy = 2") == 4)
        #expect(
            try Self.sets(again) == [
                ["backup-0/IMG_0002.jpg", "backup-1/IMG_0002.jpg", "backup-2/IMG_0002.jpg", "backup-3/IMG_0002.jpg", "same/IMG_0002.jpg"]
            ])
    }
}

extension PixelHashTests {
    /// A library of `a.count` copies of the demo's Camera photo `a.name` (in folders a0, a1, …)
    /// and `b.count` of `b.name` (b0, …), scanned and grouped. `reencoded`: each copy has bytes
    /// of its own after the image and no pixel hash, so copies are compared two by two, as
    /// copies a tool re-encoded are; else they are byte copies.
    static func copiesOfDemoPhotos(_ a: (name: String, count: Int), _ b: (name: String, count: Int), reencoded: Bool) throws -> TestLibrary {
        let t = try TestLibrary()
        let demo = try t.writeDemo()
        for (folder, photo) in [("a", a), ("b", b)] {
            let bytes = try FileSystem.readFile(demo + "/Camera/" + photo.name, limit: 1 << 24)
            for i in 0..<photo.count {
                t.dir.write("Pictures/\(folder)\(i)/\(photo.name)", bytes + (reencoded ? Array("copy \(i)".utf8) : []))
            }
        }
        try t.scan()
        if reencoded { try t.library.db.run("UPDATE files SET pixel_hash = NULL") }
        try Grouper(library: t.library).regroupAll()
        return t
    }

    /// A photo's near copies are found among the photos of its second by the nearest pHashes
    /// first: 140 copies of a burst's first frame a second earlier (their pHash two bits away)
    /// filled every candidate list of the second frame's copies, which were never linked — five
    /// "originals" where there is one picture. Compared two by two (no pixel hash), as copies
    /// re-encoded by a tool are.
    @Test func aCrowdOfOnePicturesCopiesLeavesRoomForTheNextFramesCopies() throws {
        let t = try Self.copiesOfDemoPhotos(("PXL_20240615_120000001.jpg", 140), ("PXL_20240615_120001002.jpg", 5), reencoded: true)
        let members = try t.library.similarGroups().flatMap(\.members)
        let seconds = members.filter { $0.path.contains("/b") && $0.path.hasSuffix("120001002.jpg") }
        #expect(seconds.count == 5)
        #expect(seconds.filter { $0.duplicateOf == nil }.count == 1, "\(seconds.map { ($0.path, $0.duplicateOf) })")
        let firsts = members.filter { $0.path.hasSuffix("120000001.jpg") }
        #expect(firsts.count == 140 && firsts.filter { $0.duplicateOf == nil }.count == 1)
    }

    /// The same with the pHash equal: a burst's blurred frame two seconds after its sharp one
    /// (one pHash, the demo's 10:15 pair). Among equal pHashes the nearest in time come first, a
    /// copy's own picture before the other frame: 140 copies of the sharp frame filled the
    /// blurred frame's copies' lists and those were never linked (agent_bench's 20 000 copies of
    /// the demo, compared two by two, made 94 sets of 33 "originals").
    @Test func aCrowdOfOneFramesCopiesLeavesRoomForACopyOfTheFrameWithItsPHash() throws {
        let t = try Self.copiesOfDemoPhotos(("PXL_20240615_101500123.jpg", 140), ("PXL_20240615_101502999.jpg", 5), reencoded: true)
        let hashes = try t.library.db.rows("SELECT DISTINCT phash FROM files WHERE kind='photo'")
        #expect(hashes.count == 1, "the two frames share their pHash: the case under test")
        let members = try t.library.similarGroups().flatMap(\.members)
        let blurredOnes = members.filter { $0.path.hasSuffix("101502999.jpg") }
        #expect(blurredOnes.count == 5)
        #expect(blurredOnes.filter { $0.duplicateOf == nil }.count == 1, "\(blurredOnes.map { ($0.path, $0.duplicateOf) })")
        let sharpOnes = members.filter { $0.path.hasSuffix("101500123.jpg") }
        #expect(sharpOnes.count == 140 && sharpOnes.filter { $0.duplicateOf == nil }.count == 1)
    }

    /// A picture with more than 64 copies of the same bytes still meets its re-encoded copy's
    /// copies: each file's lists were filled with its own bytes' copies (joined by their hash
    /// anyway), so neither crowd ever named the other, and a photo and its re-encode were two
    /// sets (agent_bench's 20 000 files). The demo's `IMG_copy_building.jpg` is a re-encode of
    /// `PXL_20240615_113000456.jpg` without its capture time.
    @Test func aPictureWithManyByteCopiesMeetsItsReencodedCopies() throws {
        let t = try Self.copiesOfDemoPhotos(("PXL_20240615_113000456.jpg", 70), ("IMG_copy_building.jpg", 70), reencoded: false)
        #expect(try t.library.db.scalar("SELECT count(DISTINCT content_hash) FROM files") == 2)
        let sets = try t.library.similarGroups()
        #expect(sets.count == 1, "\(sets.map { $0.members.count })")
        let members = sets.flatMap(\.members)
        #expect(members.count == 140)
        let originals = members.filter { $0.duplicateOf == nil }
        #expect(originals.count == 1 && originals.first?.path.hasSuffix("PXL_20240615_113000456.jpg") == true, "\(originals.map(\.path))")
    }
}
