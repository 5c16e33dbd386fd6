import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// A tiny little-endian TIFF writer for RAW-like test files: IFDs of (tag, type, values or bytes),
/// out-of-line values placed after each IFD, blobs (previews) appended at the end.
struct TIFFBuilder {
    enum Value {
        case short(UInt16)
        case long(UInt32)
        case longs([UInt32])
        case ascii(String)
        case undefined([UInt8])
    }
    var magic: UInt16 = 42
    var bytes: [UInt8] = []

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 255), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }

    /// Lays out IFDs in order (each IFD's next pointer is the following one when `chain`).
    /// Values refer to other IFDs or blobs through `Ref`s resolved by the closure.
    static func build(
        magic: UInt16 = 42, ifds: [[(UInt16, Value)]], blobs: [[UInt8]], chain: Bool = false,
        link: (_ ifdOffsets: [UInt32], _ blobOffsets: [UInt32]) -> [[(UInt16, Value)]]
    ) -> [UInt8] {
        // First pass with placeholder values to learn sizes, second with the real offsets.
        func layout(_ ifds: [[(UInt16, Value)]]) -> ([UInt8], [UInt32], [UInt32]) {
            var out: [UInt8] = [0x49, 0x49] + le16(magic) + le32(8)
            var ifdOffsets: [UInt32] = []
            for (k, ifd) in ifds.enumerated() {
                let start = out.count
                ifdOffsets.append(UInt32(start))
                let sorted = ifd.sorted { $0.0 < $1.0 }
                var extra: [UInt8] = []
                let extraStart = start + 2 + sorted.count * 12 + 4
                var entries: [UInt8] = le16(UInt16(sorted.count))
                for (tag, v) in sorted {
                    let (type, count, data): (UInt16, UInt32, [UInt8])
                    switch v {
                    case .short(let s): (type, count, data) = (3, 1, le16(s))
                    case .long(let l): (type, count, data) = (4, 1, le32(l))
                    case .longs(let ls): (type, count, data) = (4, UInt32(ls.count), ls.flatMap(le32))
                    case .ascii(let s): (type, count, data) = (2, UInt32(s.utf8.count + 1), Array(s.utf8) + [0])
                    case .undefined(let b): (type, count, data) = (7, UInt32(b.count), b)
                    }
                    entries += le16(tag) + le16(type) + le32(count)
                    if data.count <= 4 {
                        entries += data + [UInt8](repeating: 0, count: 4 - data.count)
                    } else {
                        entries += le32(UInt32(extraStart + extra.count))
                        extra += data
                        if extra.count % 2 == 1 { extra.append(0) }
                    }
                }
                let next: UInt32 = chain && k + 1 < ifds.count ? 1 : 0  // patched below
                out += entries + le32(next) + extra
            }
            if chain {
                for k in 0..<(ifds.count - 1) {
                    let n = Int(ifdOffsets[k])
                    let count = Int(out[n]) | Int(out[n + 1]) << 8
                    let at = n + 2 + count * 12
                    out.replaceSubrange(at..<at + 4, with: le32(ifdOffsets[k + 1]))
                }
            }
            var blobOffsets: [UInt32] = []
            for b in blobs {
                blobOffsets.append(UInt32(out.count))
                out += b
            }
            return (out, ifdOffsets, blobOffsets)
        }
        let zeros = [UInt32](repeating: 0, count: ifds.count), blobZeros = [UInt32](repeating: 0, count: blobs.count)
        let (_, io, bo) = layout(link(zeros, blobZeros))
        let (out, io2, bo2) = layout(link(io, bo))
        precondition(io == io2 && bo == bo2, "layout changed between passes")
        return out
    }
}

enum RawFixtures {
    static let exifDate = "2024:05:01 10:00:00"

    /// A CR2/DNG-like file: IFD0 with camera tags and a small JPEG strip, a SubIFD with a larger
    /// JPEG preview (0x201/0x202), an EXIF IFD with DateTimeOriginal, and fake raw data.
    static func raw(
        small: [UInt8] = Fixtures.jpeg(seed: 5, width: 160, height: 120),
        large: [UInt8] = Fixtures.jpeg(seed: 5, width: 1200, height: 800),
        date: String = exifDate, magic: UInt16 = 42
    ) -> [UInt8] {
        let rawData = [UInt8](repeating: 0x55, count: 4096)
        return TIFFBuilder.build(magic: magic, ifds: [[], [], []], blobs: [small, large, rawData]) { ifd, blob in
            [
                [
                    (0x100, .long(160)), (0x101, .long(120)), (0x103, .short(6)), (0x10F, .ascii("Canon")),
                    (0x110, .ascii("Canon EOS R6")), (0x112, .short(1)), (0x111, .long(blob[0])),
                    (0x117, .long(UInt32(small.count))), (0x14A, .long(ifd[1])), (0x8769, .long(ifd[2])),
                ],
                [
                    (0xFE, .long(1)), (0x100, .long(1200)), (0x101, .long(800)), (0x103, .short(7)), (0x106, .short(6)),
                    (0x201, .long(blob[1])), (0x202, .long(UInt32(large.count))),
                ],
                [(0x9003, .ascii(date))],
            ]
        }
    }
}

@Suite struct RawTests {
    @Test func theWalkListsEveryPreviewAndTheLargestIsMeasured() throws {
        let file = RawFixtures.raw()
        let walk = try #require(TIFFWalker.walk(MemorySource(file)))
        #expect(walk.previews.count == 2)
        #expect(Set(walk.previews.map(\.tag)) == ["StripOffsets", "JPEGInterchangeFormat"])
        let t = try TestLibrary()
        t.dir.write("Pictures/IMG_0001.CR2", file)
        try t.scan()
        let item = try #require(try t.library.items().first)
        #expect(item.format == "cr2" && item.kind == .photo)
        #expect(item.status == .ok, "\(String(describing: item.reason))")
        #expect(item.width == 1200 && item.height == 800)
        #expect(item.make == "Canon" && item.model == "Canon EOS R6")
        #expect(item.takenSource == "exif" && item.takenAt?.hasPrefix("2024-05-01T10:00:00") == true)
        #expect(item.metrics != nil && item.contentHash?.count == 16)
    }

    @Test(arguments: ["dng", "nef", "arw", "orf", "rw2"])
    func everyTIFFBasedExtensionIsRead(_ ext: String) throws {
        let t = try TestLibrary()
        t.dir.write("Pictures/DSC_0001.\(ext.uppercased())", RawFixtures.raw())
        try t.scan()
        let item = try #require(try t.library.items().first)
        #expect(item.format == ext && item.status == .ok && item.width == 1200)
    }

    @Test func rw2JpgFromRawAndORFMagicAreUnderstood() throws {
        let jpeg = Fixtures.jpeg(seed: 8, width: 800, height: 600)
        let rw2 = TIFFBuilder.build(magic: 0x55, ifds: [[]], blobs: []) { _, _ in
            [[(0x100, .long(4000)), (0x101, .long(3000)), (0x2E, .undefined(jpeg))]]
        }
        let walk = try #require(TIFFWalker.walk(MemorySource(rw2)))
        #expect(walk.magic == 0x55 && walk.previews.first?.tag == "JpgFromRaw" && walk.previews.first?.length == Int64(jpeg.count))
        let orf = RawFixtures.raw(magic: 0x4F52)
        #expect(TIFFWalker.walk(MemorySource(orf))?.previews.count == 2)
        let t = try TestLibrary()
        t.dir.write("Pictures/P1000001.RW2", rw2)
        t.dir.write("Pictures/P1000002.ORF", orf)
        try t.scan()
        for item in try t.library.items() { #expect(item.status == .ok, "\(item.name) \(String(describing: item.reason))") }
    }

    /// An Olympus maker note: header, an IFD with CameraSettings (0x2020) pointing at a sub-IFD
    /// with PreviewImageStart/Length, then the preview; every offset from the note's first byte.
    static func olympusMakerNote(
        _ preview: [UInt8], header: [UInt8] = Array("OLYMPUS\0II".utf8) + [3, 0],
        settingsAt: UInt32? = nil, previewAt: UInt32? = nil
    ) -> [UInt8] {
        let le16 = TIFFBuilder.le16, le32 = TIFFBuilder.le32
        let top = UInt32(header.count), sub = top + 2 + 12 + 4, data = sub + 2 + 24 + 4
        var note = header
        note += le16(1) + le16(0x2020) + le16(13) + le32(1) + le32(settingsAt ?? sub) + le32(0)
        note += le16(2) + le16(0x101) + le16(4) + le32(1) + le32(previewAt ?? data)
        note += le16(0x102) + le16(4) + le32(1) + le32(UInt32(preview.count)) + le32(0)
        return note + preview
    }

    /// An ORF with only a thumbnail in IFD0 and its large preview in the maker note.
    static func orf(makerNote: [UInt8]) -> [UInt8] {
        let small = Fixtures.jpeg(seed: 6, width: 160, height: 120)
        return TIFFBuilder.build(magic: 0x4F52, ifds: [[], []], blobs: [small]) { ifd, blob in
            [
                [
                    (0x100, .long(5184)), (0x101, .long(3888)), (0x10F, .ascii("OLYMPUS CORPORATION")), (0x110, .ascii("E-M10MarkIII")),
                    (0x201, .long(blob[0])), (0x202, .long(UInt32(small.count))), (0x8769, .long(ifd[1])),
                ],
                [(0x9003, .ascii(RawFixtures.exifDate)), (0x927C, .undefined(makerNote))],
            ]
        }
    }

    @Test(arguments: [Array("OLYMPUS\0II".utf8) + [3, 0], Array("OM SYSTEM\0\0\0II".utf8) + [4, 0]])
    func anOlympusPreviewInTheMakerNoteIsMeasured(_ header: [UInt8]) throws {
        let preview = Fixtures.jpeg(seed: 12, width: 1600, height: 1200)
        let file = Self.orf(makerNote: Self.olympusMakerNote(preview, header: header))
        let walk = try #require(TIFFWalker.walk(MemorySource(file)))
        #expect(walk.previews.map(\.tag).sorted() == ["JPEGInterchangeFormat", "OlympusPreview"])
        let t = try TestLibrary()
        t.dir.write("Pictures/P5010001.ORF", file)
        try t.scan()
        let item = try #require(try t.library.items().first)
        #expect(item.status == .ok && item.width == 1600 && item.height == 1200, "\(String(describing: item.reason))")
    }

    @Test func hostileMakerNotesEndQuietly() throws {
        let preview = Fixtures.jpeg(seed: 12, width: 640, height: 480)
        // Sub-IFD and preview offsets outside the note and the file, a foreign maker's note.
        for note in [
            Self.olympusMakerNote(preview, settingsAt: 0xFFFF_FF00), Self.olympusMakerNote(preview, previewAt: 0x7FFF_FFF0),
            Self.olympusMakerNote(preview, header: Array("Nikon\0\u{2}\u{10}\0\0II".utf8) + [42, 0]),
        ] {
            let walk = try #require(TIFFWalker.walk(MemorySource(Self.orf(makerNote: note))))
            #expect(walk.previews.map(\.tag) == ["JPEGInterchangeFormat"])
        }
        let file = Self.orf(makerNote: Self.olympusMakerNote(preview))
        var rng = SplitMix(seed: 5)
        for _ in 0..<500 {
            var b = file
            for _ in 0..<4 { b[Int(rng.next() % UInt64(min(b.count, 900)))] = UInt8(truncatingIfNeeded: rng.next()) }
            _ = TIFFWalker.walk(MemorySource(b))
        }
    }

    @Test func aRawWithoutAPreviewIsUnsupportedWithAReason() throws {
        let noPreview = TIFFBuilder.build(ifds: [[]], blobs: []) { _, _ in [[(0x100, .long(4000)), (0x101, .long(3000)), (0x103, .short(1))]] }
        let t = try TestLibrary()
        t.dir.write("Pictures/IMG_0002.DNG", noPreview)
        let s = try t.scan()
        #expect(s.problems == 1)
        let item = try #require(try t.library.items().first)
        #expect(item.status == .unsupported && item.reason?.code == .noPreview)
    }

    /// The status a tombstone is given back is the one its reason implies (`ReasonCode.status`),
    /// as the analysis gave it: a RAW without a preview came back `ok` (a hand-written mapping
    /// that forgot `no_preview`), and then sat in no group and in every deck as a good photo.
    @Test func aRawWithoutAPreviewThatLeavesAndComesBackIsUnsupportedAgain() throws {
        let noPreview = TIFFBuilder.build(ifds: [[]], blobs: []) { _, _ in [[(0x100, .long(4000)), (0x101, .long(3000)), (0x103, .short(1))]] }
        let t = try TestLibrary()
        t.dir.write("Pictures/raw/IMG_0002.DNG", noPreview)
        _ = try t.scan()
        let before = try #require(try t.library.items().first)
        #expect(before.status == .unsupported && before.reason?.code == .noPreview)
        try FileSystem.rename(t.root + "/raw", t.dir.at("away"))
        #expect(try t.scan().gone == 1)
        #expect(try t.library.items().isEmpty)
        try FileSystem.rename(t.dir.at("away"), t.root + "/raw")
        #expect(try t.scan().moved == 1)
        let back = try #require(try t.library.item(path: before.path))
        #expect(back.id == before.id)
        #expect(back.status == .unsupported, "\(back.status)")
        #expect(back.reason?.code.status == back.status)
    }

    @Test func hostileOffsetsAndLoopsEndTheWalk() throws {
        // An IFD whose next pointer is itself, a SubIFD pointing far outside, previews past the end.
        let loop = TIFFBuilder.build(ifds: [[]], blobs: []) { ifd, _ in
            [[(0x14A, .longs([0xFFFF_FFF0, 8, 12])), (0x201, .long(0x7FFF_FFFF)), (0x202, .long(0x7FFF_FFFF))]]
        }
        var selfLoop = loop
        let n = 8 + 2 + 3 * 12
        selfLoop.replaceSubrange(n..<n + 4, with: TIFFBuilder.le32(8))
        let walk = try #require(TIFFWalker.walk(MemorySource(selfLoop)))
        #expect(walk.previews.isEmpty && walk.ifdCount <= TIFFWalker.maxIFDs)
        // Random corruption of a valid file never crashes.
        let file = RawFixtures.raw()
        var rng = SplitMix(seed: 11)
        for _ in 0..<500 {
            var b = file
            for _ in 0..<4 { b[Int(rng.next() % 400)] = UInt8(truncatingIfNeeded: rng.next()) }
            _ = TIFFWalker.walk(MemorySource(b))
        }
        for cut in stride(from: 0, to: 600, by: 7) { _ = TIFFWalker.walk(MemorySource(Array(file.prefix(cut)))) }
    }

    /// The pair is one item: the RAW is no card, in no group (its preview is its JPEG's picture:
    /// it was the JPEG's "duplicate"), and it goes to the Trash with its JPEG and comes back with it.
    @Test func aRawAndItsJPEGAreOneItemFromDeckToTrash() throws {
        let t = try TestLibrary()
        let preview = Fixtures.jpeg(seed: 5, width: 1200, height: 800, dateTimeOriginal: RawFixtures.exifDate, make: "Canon", model: "Canon EOS R6")
        let jpg = t.dir.write("Pictures/IMG_0001.JPG", preview)
        let cr2 = t.dir.write("Pictures/IMG_0001.CR2", RawFixtures.raw(large: preview))
        t.dir.write("Pictures/IMG_0002.JPG", Fixtures.jpeg(seed: 9, dateTimeOriginal: "2024:05:03 10:00:00", make: "Canon"))
        try t.scan()
        try Grouper(library: t.library).regroupAll()
        let item = try #require(try t.library.item(path: jpg)), raw = try #require(try t.library.item(path: cr2))
        #expect(try raw.status == .ok && t.library.sidecars(of: item.id).map(\.id) == [raw.id])
        #expect(try t.library.db.scalar("SELECT count(*) FROM group_members WHERE file_id = ?", raw.id) == 0)
        #expect(try t.library.similarGroups().isEmpty)
        let clock = Clock.manual(Date(timeIntervalSince1970: 1_800_000_000)).0
        let deck = try Decks.build(.filter(.photos, year: nil), library: t.library, clock: clock, timeZone: TimeZone(identifier: "UTC")!)
        #expect(deck.items.map(\.item.path).sorted() == [jpg, t.dir.at("Pictures/IMG_0002.JPG")])
        #expect(try Decks.awaitingReview(library: t.library, clock: clock) == 2)
        // Trashed together, named before the commit, restored together.
        try Review.decide(.trash, fileID: item.id, library: t.library, clock: clock)
        let staged = try #require(try Trash.staged(library: t.library).first)
        #expect(try Trash.travellingSidecars(of: staged, library: t.library).map(\.path) == [cr2])
        let env = TrashEnvironment(environment: Environment(variables: ["HOME": t.dir.path, "XDG_DATA_HOME": t.dir.at("share")]), timeZone: .current)
        let report = try Trash.commit(library: t.library, clock: clock, env: env)
        #expect(report.succeeded.map(\.path) == [jpg, cr2] && report.succeeded.map(\.isSidecar) == [false, true])
        #expect(!FileSystem.exists(jpg) && !FileSystem.exists(cr2))
        let back = try Trash.restore(paths: [jpg], library: t.library, clock: clock)
        #expect(back.filter(\.succeeded).map(\.path).sorted() == [cr2, jpg])
        #expect(FileSystem.exists(jpg) && FileSystem.exists(cr2))
    }

    /// A JPEG cut short (a failed copy) beside its intact RAW, and an empty HEIC beside its Live
    /// Photo clip: the broken file is no item carrying the good one (trashing it from
    /// Unreadable took the RAW along, review 8). Each stands alone; the RAW has its own card.
    @Test func aBrokenJPEGDoesNotCarryItsIntactRAW() throws {
        let t = try TestLibrary()
        let preview = Fixtures.jpeg(seed: 5, width: 1200, height: 800, dateTimeOriginal: RawFixtures.exifDate, make: "Canon", model: "Canon EOS R6")
        let jpg = t.dir.write("Pictures/IMG_0001.JPG", Array(preview.prefix(preview.count / 2)))
        let cr2 = t.dir.write("Pictures/IMG_0001.CR2", RawFixtures.raw(large: preview))
        // The still cut short keeps its EXIF time (a second before the clip's, as a Live Photo's).
        let stillBytes = Fixtures.jpeg(seed: 6, width: 640, height: 480, dateTimeOriginal: "2024:05:01 12:20:29", offset: "+02:00")
        let heic = t.dir.write("Pictures/IMG_0002.JPG", Array(stillBytes.prefix(stillBytes.count / 2)))
        let mov = t.dir.write("Pictures/IMG_0002.MOV", try VideoFixtures.bytes("tiny.mov"))  // 2 s, taken 12:20:30+02:00
        try t.scan()
        try Grouper(library: t.library).regroupAll()
        let item = try #require(try t.library.item(path: jpg)), raw = try #require(try t.library.item(path: cr2))
        #expect(item.status == .damaged && raw.status == .ok)
        #expect(try t.library.sidecars(of: item.id).isEmpty && t.library.sidecarOwner(of: raw.id) == nil)
        let still = try #require(try t.library.item(path: heic)), clip = try #require(try t.library.item(path: mov))
        let clipOwner = try t.library.sidecarOwner(of: clip.id)
        #expect(still.status != .ok && clipOwner == nil)
        let clock = Clock.manual(Date(timeIntervalSince1970: 1_800_000_000)).0
        let deck = try Decks.build(.filter(.photos, year: nil), library: t.library, clock: clock, timeZone: TimeZone(identifier: "UTC")!)
        #expect(deck.items.map(\.item.path).contains(cr2))
        // Trashing the broken JPEG moves it alone.
        try Review.decide(.trash, fileID: item.id, library: t.library, clock: clock)
        let staged = try #require(try Trash.staged(library: t.library).first)
        #expect(try Trash.travellingSidecars(of: staged, library: t.library).isEmpty)
    }

    /// A RAW cut short (a failed copy) is damaged and listed as Unreadable, as a JPEG cut short
    /// is; it was "unsupported, no preview", as if the format were the problem (review 8, F5).
    @Test func aRAWCutShortIsDamagedNotUnsupported() throws {
        let t = try TestLibrary()
        let preview = Fixtures.jpeg(seed: 5, width: 1200, height: 800, dateTimeOriginal: RawFixtures.exifDate, make: "Nikon")
        let whole = RawFixtures.raw(large: preview)
        let cut = t.dir.write("Pictures/DSC_3000.NEF", Array(whole.prefix(whole.count / 2)))
        let fine = t.dir.write("Pictures/DSC_3001.NEF", whole)
        try t.scan()
        try Grouper(library: t.library).regroupAll()
        let item = try #require(try t.library.item(path: cut))
        #expect(item.status == .damaged && item.reason?.code == .truncated, "\(item.status) \(String(describing: item.reason))")
        #expect(item.reason?.text.contains("cut short") == true)
        #expect(try t.library.item(path: fine)?.status == .ok)
        let unreadable = try t.library.db.rows("SELECT file_id FROM group_members WHERE group_id = 'unreadable'").compactMap { $0.int(0) }
        #expect(unreadable == [item.id])
        // Beside its good JPEG it is no sidecar (trashed with it, never known broken): an item
        // of its own in Unreadable.
        let jpg = t.dir.write("Pictures/DSC_3000.JPG", preview)
        try t.scan()
        try Grouper(library: t.library).regroupAll()
        let photo = try #require(try t.library.item(path: jpg))
        #expect(try t.library.sidecars(of: photo.id).isEmpty)
        #expect(try t.library.db.scalar("SELECT count(*) FROM group_members WHERE group_id = 'unreadable' AND file_id = ?", item.id) == 1)
    }

    /// Sony's ARW (and Pentax's PEF) point at their preview from IFD0 (0x201/0x202, sorted
    /// before the EXIF IFD pointer); with a preview larger than the head libexif is given,
    /// libexif stopped reading IFD0 there and the capture time was lost (the mtime stood in).
    @Test func aPreviewPointerInIFD0PastTheHeadKeepsTheCaptureTime() throws {
        let t = try TestLibrary()
        let big = Fixtures.jpeg(seed: 5, width: 1600, height: 1200, quality: 100)
        #expect(big.count > RawHandler.exifHeadBytes)
        let arw = TIFFBuilder.build(ifds: [[], []], blobs: [big]) { ifd, blob in
            [
                [
                    (0x10F, .ascii("SONY")), (0x110, .ascii("ILCE-7M3")), (0x112, .short(1)),
                    (0x201, .long(blob[0])), (0x202, .long(UInt32(big.count))), (0x8769, .long(ifd[1])),
                ],
                [(0x9003, .ascii(RawFixtures.exifDate))],
            ]
        }
        let path = t.dir.write("Pictures/DSC00001.ARW", arw)
        try t.scan()
        let item = try #require(try t.library.item(path: path))
        #expect(item.status == .ok && item.takenSource == "exif", "\(item.takenSource ?? "-") \(item.takenAt ?? "-")")
        #expect(item.takenAt?.hasPrefix("2024-05-01T10:00:00") == true)
    }

    /// Pixel's RAW+JPEG are `PXL_….RAW-01.MP.COVER.jpg` and `PXL_….RAW-02.ORIGINAL.dng`: one item.
    /// A RAW its name does not tie to its JPEG is never offered as that JPEG's copy or retake,
    /// and a RAW's own sidecar (darktable's `X.NEF.xmp`) travels with the pair.
    @Test func pixelsRawPairsAndARawIsNeverTheCopyOfAJPEG() throws {
        let t = try TestLibrary()
        let preview = Fixtures.jpeg(seed: 5, width: 1200, height: 800, dateTimeOriginal: RawFixtures.exifDate, make: "Google", model: "Pixel 7")
        let cover = t.dir.write("Pictures/PXL_20240501_100000000.RAW-01.MP.COVER.jpg", preview)
        let dng = t.dir.write("Pictures/PXL_20240501_100000000.RAW-02.ORIGINAL.dng", RawFixtures.raw(large: preview))
        // The same shot's RAW under a name that does not match (renamed on import).
        let loose = t.dir.write("Pictures/import/shot.dng", RawFixtures.raw(large: preview))
        let xmp = t.dir.write("Pictures/PXL_20240501_100000000.RAW-02.ORIGINAL.dng.xmp", Array("<x/>".utf8))
        try t.scan()
        try Grouper(library: t.library).regroupAll()
        let item = try #require(try t.library.item(path: cover)), raw = try #require(try t.library.item(path: dng))
        #expect(try t.library.sidecars(of: item.id).map(\.id) == [raw.id])
        let l = try #require(try t.library.item(path: loose))
        let lg = try t.library.db.rows("SELECT group_id FROM group_members WHERE file_id = ?", l.id).map { $0.string(0) ?? "?" }
        #expect(!lg.contains("duplicate") && !lg.contains("similar"), "\(lg)")
        #expect(try t.library.similarGroups().isEmpty)
        #expect(try Sidecars.all(of: item.id, path: cover, library: t.library) == [dng, xmp].sorted())
    }

    @Test func aRawAndAJPEGOfTheSameShotArePaired() throws {
        let t = try TestLibrary()
        let jpg = t.dir.write("Pictures/IMG_0001.JPG", Fixtures.jpeg(seed: 5, dateTimeOriginal: RawFixtures.exifDate))
        let cr2 = t.dir.write("Pictures/IMG_0001.CR2", RawFixtures.raw())
        // Same stem, another time: a different shot that reused the number.
        t.dir.write("Pictures/IMG_0002.JPG", Fixtures.jpeg(seed: 6, dateTimeOriginal: "2024:05:02 11:00:00"))
        t.dir.write("Pictures/IMG_0002.CR2", RawFixtures.raw())
        // Same time, another folder: not a pair.
        t.dir.write("Pictures/other/IMG_0001.CR2", RawFixtures.raw(date: RawFixtures.exifDate))
        try t.scan()
        let item = try #require(try t.library.item(path: jpg))
        let raw = try #require(try t.library.item(path: cr2))
        #expect(try t.library.sidecars(of: item.id).map(\.id) == [raw.id])
        #expect(try t.library.sidecarOwner(of: raw.id) == item.id)
        let other = try #require(try t.library.item(path: t.dir.at("Pictures/IMG_0002.JPG")))
        #expect(try t.library.sidecars(of: other.id).isEmpty)
        #expect(try t.library.db.scalar("SELECT count(*) FROM sidecars") == 1)
        // A JPEG arriving later for the RAW in the other folder pairs there (a scan re-pairs the
        // folders of new files), and the first pair stays.
        let late = t.dir.write("Pictures/other/IMG_0001.JPG", Fixtures.jpeg(seed: 7, dateTimeOriginal: RawFixtures.exifDate))
        try t.scan()
        let lateItem = try #require(try t.library.item(path: late))
        let otherRaw = try #require(try t.library.item(path: t.dir.at("Pictures/other/IMG_0001.CR2")))
        #expect(try t.library.sidecars(of: lateItem.id).map(\.id) == [otherRaw.id])
        #expect(try t.library.sidecars(of: item.id).map(\.id) == [raw.id])
        #expect(try t.library.db.scalar("SELECT count(*) FROM sidecars") == 2)
        // The JPEG goes: the pair goes with it.
        unlink(jpg)
        try t.scan()
        #expect(try t.library.db.scalar("SELECT count(*) FROM sidecars") == 1)
    }
}
