import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// Mirrored copies of a photo (issue 44, item 2): a left–right flip, as a front camera or an
/// editor gives it, of real photos.
@Suite struct GroupsMirrorTests {
    static func flipped(_ b: Bitmap) -> Bitmap {
        var out = b
        let c = b.channels
        for y in 0..<b.height {
            for x in 0..<b.width {
                for k in 0..<c { out.pixels[(y * b.width + x) * c + k] = b.pixels[(y * b.width + (b.width - 1 - x)) * c + k] }
            }
        }
        return out
    }

    /// The mirrored thumbnail's pHash is the pHash of the mirrored picture (as the analysis
    /// computes it), up to the thumbnail's rounding.
    @Test func theMirroredHashIsTheHashOfTheMirror() throws {
        let t = try TestLibrary()
        let scene = try GroupsFrameMatchTests.scene("building.jpg")
        t.dir.write("Pictures/a.jpg", Fixtures.jpeg(scene, quality: 92))
        t.dir.write("Pictures/b.jpg", Fixtures.jpeg(Self.flipped(scene), quality: 92))
        try t.scan()
        let rows = try t.library.db.rows("SELECT path, phash, signature FROM files ORDER BY path")
        let (hashA, sigA, hashB) = (UInt64(bitPattern: rows[0].int(1)!), rows[0].blob(2)!, UInt64(bitPattern: rows[1].int(1)!))
        let mirrored = try #require(Thumbnail.mirroredHash(signature: sigA))
        #expect((mirrored ^ hashB).nonzeroBitCount <= 2, "\((mirrored ^ hashB).nonzeroBitCount) bits")
        #expect((hashA ^ hashB).nonzeroBitCount > GroupRules().similarRadius, "the plain hashes are far apart")
        let a = try #require(Thumbnail(signature: sigA)), b = try #require(Thumbnail(signature: rows[1].blob(2)!))
        #expect(a.direct(with: b) < 0.8)
        #expect(a.mirrored.direct(with: b) >= GroupRules().mirrorCorrelation)
    }

    /// A camera photo and its mirror saved by a messenger (no EXIF, re-encoded) are one Similar
    /// Shots set whose keeper is the camera's; a mirror of another photo, and that photo, are
    /// their own set; a pan's two frames and an unrelated photo stay apart. Incremental agrees.
    @Test func aMirroredCopyJoinsItsOriginalAndIsNeverItsKeeper() throws {
        let t = try TestLibrary()
        let building = try GroupsFrameMatchTests.scene("building.jpg"), cat = try GroupsFrameMatchTests.scene("chelsea.jpg")
        let dune = try GroupsFrameMatchTests.scene("dune.jpg")
        t.dir.write("Pictures/DCIM/IMG_1001.JPG", Fixtures.jpeg(building, quality: 95, dateTimeOriginal: "2024:06:15 10:00:00"))
        t.dir.write("Pictures/WhatsApp/IMG-20240616-WA0001.jpg", Fixtures.jpeg(Self.flipped(building), quality: 80))
        t.dir.write("Pictures/DCIM/IMG_1002.JPG", Fixtures.jpeg(cat, quality: 95, dateTimeOriginal: "2024:06:15 12:00:00"))
        t.dir.write("Pictures/Edits/cat-flipped.jpg", Fixtures.jpeg(Self.flipped(cat), quality: 90))
        t.dir.write(
            "Pictures/DCIM/IMG_1003.JPG", Fixtures.jpeg(GroupsFrameMatchTests.frame(dune, x: 20, width: 480), dateTimeOriginal: "2024:06:15 14:00:00")
        )
        t.dir.write(
            "Pictures/DCIM/IMG_1004.JPG",
            Fixtures.jpeg(GroupsFrameMatchTests.frame(dune, x: 260, width: 480), dateTimeOriginal: "2024:06:15 14:00:03"))
        t.dir.write(
            "Pictures/DCIM/IMG_1005.JPG", Fixtures.jpeg(try GroupsFrameMatchTests.scene("coffee.jpg"), dateTimeOriginal: "2024:06:15 16:00:00"))
        try t.scan()
        try Grouper(library: t.library).regroupAll()
        #expect(try GroupsGrouperTests.sets(t.library) == [["IMG-20240616-WA0001.jpg", "IMG_1001.JPG"], ["IMG_1002.JPG", "cat-flipped.jpg"]])
        for set in try t.library.similarGroups() {
            #expect(set.keeper.path.contains("/DCIM/"), "\(set.members.map(\.path)) keeper \(set.keeper.path)")
            // A similar shot, not a copy: the person decides whether the flip was wanted.
            #expect(set.members.allSatisfy { $0.duplicateOf == nil })
        }
        let full = try GroupsGrouperTests.snapshot(t.library)
        // The mirror found from either side: the messenger's copy comes again, the original stays.
        let copy = t.dir.at("Pictures/WhatsApp/IMG-20240616-WA0001.jpg")
        let bytes = try FileSystem.readFile(copy, limit: 1 << 24)
        try FileSystem.remove(copy)
        try t.scan()
        try Grouper(library: t.library).regroup()
        #expect(try GroupsGrouperTests.sets(t.library) == [["IMG_1002.JPG", "cat-flipped.jpg"]])
        t.dir.write("Pictures/WhatsApp/IMG-20240616-WA0001.jpg", bytes)
        try t.scan()
        try Grouper(library: t.library).regroup()
        #expect(try GroupsGrouperTests.sets(t.library) == [["IMG-20240616-WA0001.jpg", "IMG_1001.JPG"], ["IMG_1002.JPG", "cat-flipped.jpg"]])
        #expect(try GroupsGrouperTests.snapshot(t.library).count == full.count)
    }
}
