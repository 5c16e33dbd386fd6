import Foundation
import Glibc
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// Ratings from XMP: the packet's `xmp:Rating`, a JPEG's own XMP segment, and sidecars a rescan
/// and the agent follow; a favourite is its set's keeper.
@Suite struct XMPTests {
    static func packet(_ body: String, prefix: String = "xmp") -> [UInt8] {
        Array(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 4.4.0-Exiv2">
             <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
              <rdf:Description rdf:about=""
                xmlns:\(prefix)="http://ns.adobe.com/xap/1.0/"
                xmlns:darktable="http://darktable.sf.net/"
                \(body)
             </rdf:RDF>
            </x:xmpmeta>
            """.utf8)
    }

    /// darktable's sidecar (an attribute), Lightroom's element form, another prefix bound to the
    /// namespace, a rejected frame, a real number; nothing else passes for a rating.
    @Test func theRatingOfAPacket() {
        #expect(XMP.rating(Self.packet(#"xmp:Rating="5" darktable:xmp_version="5"/>"#)) == 5)
        #expect(XMP.rating(Self.packet(#"xmp:CreatorTool="x"> <xmp:Rating>3</xmp:Rating></rdf:Description>"#)) == 3)
        #expect(XMP.rating(Self.packet(#"xap:Rating='4'/>"#, prefix: "xap")) == 4)
        #expect(XMP.rating(Self.packet(#"xmp:Rating="-1"/>"#)) == -1)
        #expect(XMP.rating(Self.packet(#"xmp:Rating=" 2.0 "/>"#)) == 2)
        #expect(XMP.rating(Self.packet(#"xmp:Rating="7"/>"#)) == nil)
        #expect(XMP.rating(Self.packet(#"xmp:Rating="many"/>"#)) == nil)
        #expect(XMP.rating(Self.packet(#"MicrosoftPhoto:Rating="75"/>"#)) == nil)
        #expect(XMP.rating(Self.packet(#"xmp:CreateDate="2024-10-19"/>"#)) == nil)
        #expect(XMP.rating([]) == nil)
        #expect(XMP.rating(Array(#"xmp:Rating="#.utf8)) == nil)
    }

    /// The packet in a JPEG's APP1 XMP segment (digiKam writes ratings there), before EXIF's own.
    @Test func aJPEGsOwnXMPSegmentGivesItsRating() throws {
        let t = try TestLibrary()
        var jpeg = Fixtures.jpeg(Fixtures.scene(width: 320, height: 240, seed: 3), dateTimeOriginal: "2024:10:19 10:00:00")
        let payload = Array((XMP.namespace + "\0").utf8) + Self.packet(#"xmp:Rating="4"/>"#)
        let length = payload.count + 2
        jpeg.insert(contentsOf: [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload, at: 2)
        #expect(XMP.jpegPacket(jpeg).map(XMP.rating) == 4)
        t.dir.write("Pictures/IMG_1.jpg", jpeg)
        t.dir.write("Pictures/IMG_2.jpg", Fixtures.jpeg(Fixtures.scene(width: 320, height: 240, seed: 4)))
        try t.scan()
        #expect(try Self.ratings(t) == ["IMG_1.jpg": 4, "IMG_2.jpg": -9])
    }

    /// A rating given in darktable after the scan is read by the next one (the photo is analyzed
    /// again), and so is one changed or removed; a sidecar left alone costs nothing.
    @Test func aRescanFollowsTheSidecar() throws {
        let t = try TestLibrary()
        t.dir.write("Pictures/a.jpg", Fixtures.jpeg(Fixtures.scene(width: 320, height: 240, seed: 3)))
        t.dir.write("Pictures/b.jpg", Fixtures.jpeg(Fixtures.scene(width: 320, height: 240, seed: 4)))
        try t.scan()
        #expect(try Self.ratings(t) == ["a.jpg": -9, "b.jpg": -9])
        func rate(_ name: String, _ stars: Int, at seconds: Double) throws {
            let p = t.dir.write("Pictures/" + name, Self.packet("xmp:Rating=\"\(stars)\"/>"))
            try FileSystem.setTimes(p, secondsSince1970: seconds)
        }
        try rate("a.jpg.xmp", 5, at: 1_700_000_000)  // darktable's name
        try rate("b.xmp", 2, at: 1_700_000_000)  // Lightroom's
        var s = try t.scan()
        #expect(s.reanalyzed == 2 && s.unchanged == 0, "\(s)")
        #expect(try Self.ratings(t) == ["a.jpg": 5, "b.jpg": 2])
        s = try t.scan()
        #expect(s.reanalyzed == 0 && s.unchanged == 2, "\(s)")
        try rate("a.jpg.xmp", 1, at: 1_700_000_100)
        #expect(unlink(t.dir.at("Pictures/b.xmp")) == 0)
        s = try t.scan()
        #expect(s.reanalyzed == 2, "\(s)")
        #expect(try Self.ratings(t) == ["a.jpg": 1, "b.jpg": -9])
        // One file scanned alone (the agent's way) checks its sidecar too.
        try rate("a.jpg.xmp", 4, at: 1_700_000_200)
        s = try t.scan([t.dir.at("Pictures/a.jpg")])
        #expect(s.reanalyzed == 1, "\(s)")
        #expect(try Self.ratings(t)["a.jpg"] == 4)
    }

    /// The frame the user gave five stars is the keeper, although the set's score prefers
    /// another; a rejected frame is not, unless every frame is.
    @Test func aFavouriteIsItsSetsKeeperAndARejectedFrameIsNot() throws {
        let t = try TestLibrary()
        GroupsGrouperTests.writeBurst(t)
        try t.scan()
        var grouper = Grouper(library: t.library)
        try grouper.regroupAll()
        let set = try #require(try t.library.similarGroups().first { $0.members.count == 3 })
        let suggested = set.keeper
        let other = try #require(set.members.first { !$0.isKeeper })
        // The user prefers `other` (five stars) and rejected the suggested keeper.
        for (m, stars) in [(other, 5), (suggested, -1)] {
            let p = t.dir.write(String(m.path.dropFirst(t.dir.path.count + 1)) + ".xmp", Self.packet("xmp:Rating=\"\(stars)\"/>"))
            try FileSystem.setTimes(p, secondsSince1970: 1_700_000_000)
        }
        try t.scan()
        grouper = Grouper(library: t.library)
        try grouper.regroupAll()
        let after = try #require(try t.library.similarGroup(containing: other.fileID))
        #expect(after.keeper.fileID == other.fileID)
        // Only the rejection left: the keeper is any frame but the rejected one.
        #expect(unlink(other.path + ".xmp") == 0)
        try t.scan()
        grouper = Grouper(library: t.library)
        try grouper.regroupAll()
        let last = try #require(try t.library.similarGroup(containing: other.fileID))
        #expect(last.keeper.fileID != suggested.fileID)
    }

    /// "Trash the rest" never stages another favourite of the set: two frames rated five stars
    /// stay, the unrated one is staged.
    @Test func trashTheRestLeavesTheOtherFavourites() throws {
        let t = try TestLibrary()
        GroupsGrouperTests.writeBurst(t)
        try t.scan()
        try Grouper(library: t.library).regroupAll()
        let set = try #require(try t.library.similarGroups().first { $0.members.count == 3 })
        let rated = Array(set.members.prefix(2))
        for m in rated {
            let p = t.dir.write(String(m.path.dropFirst(t.dir.path.count + 1)) + ".xmp", Self.packet(#"xmp:Rating="5"/>"#))
            try FileSystem.setTimes(p, secondsSince1970: 1_700_000_000)
        }
        try t.scan()
        try Grouper(library: t.library).regroupAll()
        let after = try #require(try t.library.similarGroup(containing: rated[0].fileID))
        let clock = Clock.manual(Date(timeIntervalSince1970: 1_800_000_000)).0
        let staged = try SimilarReview.trashRest(setID: after.id, library: t.library, clock: clock).map(\.fileID)
        #expect(staged == set.members.dropFirst(2).map(\.fileID), "\(staged)")
    }

    /// A RAW+JPEG pair rated on its RAW (darktable's `IMG_0001.CR2.xmp`) is in the Favourites
    /// deck: the pair is one card, the JPEG's, rated as the keeper reads it.
    @Test func aPairRatedOnItsRawIsAFavourite() throws {
        let t = try TestLibrary()
        let preview = Fixtures.jpeg(seed: 5, width: 1200, height: 800, dateTimeOriginal: RawFixtures.exifDate, make: "Canon", model: "Canon EOS R6")
        let jpg = t.dir.write("Pictures/IMG_0001.JPG", preview)
        t.dir.write("Pictures/IMG_0001.CR2", RawFixtures.raw(large: preview))
        t.dir.write("Pictures/IMG_0002.JPG", Fixtures.jpeg(seed: 9, dateTimeOriginal: "2024:05:03 10:00:00", make: "Canon"))
        let clock = Clock.manual(Date(timeIntervalSince1970: 1_800_000_000)).0
        func favourites() throws -> [String] {
            try Decks.build(.filter(.favourites, year: nil), library: t.library, clock: clock, timeZone: TimeZone(identifier: "UTC")!)
                .items.map(\.item.path)
        }
        try t.scan()
        #expect(try favourites().isEmpty)
        let p = t.dir.write("Pictures/IMG_0001.CR2.xmp", Self.packet(#"xmp:Rating="5"/>"#))
        try FileSystem.setTimes(p, secondsSince1970: 1_700_000_000)
        try t.scan()
        #expect(try Self.ratings(t)["IMG_0001.CR2"] == 5 && Self.ratings(t)["IMG_0001.JPG"] == -9)
        #expect(try favourites() == [jpg])
    }

    /// Each file's rating by name; -9 for none.
    static func ratings(_ t: TestLibrary) throws -> [String: Int] {
        var out: [String: Int] = [:]
        for r in try t.library.db.rows("SELECT path, rating FROM files WHERE status != 'gone'") {
            out[String(r.string(0)!.split(separator: "/").last!)] = r.int(1).map(Int.init) ?? -9
        }
        return out
    }
}
