import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

@Suite struct FormatsTests {
    @Test(
        arguments: [
            ("anim.gif", Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 40), "gif"),
            ("scan.tif", [0x49, 0x49, 42, 0, 8, 0, 0, 0] + [UInt8](repeating: 0, count: 40), "tiff"),
            ("photo.avif", [0, 0, 0, 0x1C] + Array("ftypavif".utf8) + [UInt8](repeating: 0, count: 40), "avif"),
            ("old.bmp", Array("BM".utf8) + [UInt8](repeating: 0, count: 60), "bmp"),
        ] as [(String, [UInt8], String)])
    func otherFormatsAreUnsupportedWithAClearReason(_ name: String, _ bytes: [UInt8], _ format: String) throws {
        let t = try TestLibrary()
        t.dir.write("Pictures/" + name, bytes)
        let s = try t.scan()
        #expect(s.added == 1 && s.problems == 1)
        let item = try #require(try t.library.items().first)
        #expect(item.format == format)
        #expect(item.status == .unsupported)
        #expect(item.reason?.code == .unsupportedFormat)
        #expect(item.reason?.text.contains(format.uppercased()) == true)
        #expect(item.contentHash?.count == 16)
    }

    /// A reason is one line whatever a library's message holds (libheif's ended in a newline:
    /// `info` printed a blank line, review 8).
    @Test func aReasonIsOneLine() {
        #expect(Reason(.decodeError, "not a readable HEIF: Invalid input: Unspecified\n").text == "not a readable HEIF: Invalid input: Unspecified")
        #expect(Reason(ReasonCode(rawValue: "x"), "first\r\n  second \n\nthird").text == "first second third")
    }

    @Test func aJPEGNamedLikeARawFileIsStillMeasured() throws {
        let t = try TestLibrary()
        t.dir.write("Pictures/IMG_9.CR2", Fixtures.jpeg(seed: 4))
        try t.scan()
        let item = try #require(try t.library.items().first)
        #expect(item.format == "jpeg" && item.status == .ok && item.metrics != nil)
        #expect(item.reason?.code == .wrongExtension)
    }

    @Test func aCutShortJPEGTakesItsSignatureFromTheEXIFThumbnail() throws {
        // A camera-like JPEG: EXIF with an IFD1 thumbnail, then the main image, cut short.
        let scene = Fixtures.scene(width: 1280, height: 960, seed: 21)
        // The thumbnail is the same picture at 1/8 (libjpeg's DCT scaling of the full image).
        let small = try JPEG.decode(try JPEG.encode(scene, quality: 95), scaleNumerator: 1, maxHeaderPixels: 1 << 30, maxOutputPixels: 1 << 30)
        let thumb = try JPEG.encode(small.bitmap, quality: 85)
        let exif = ExifWithThumbnail.block(thumbnail: thumb)
        let full = try JPEG.encode(scene, quality: 90, exif: exif)
        let intact = try #require(try Analyzer().analyzeBytes(full, name: "IMG_1.jpg"))
        let cut = try #require(try Analyzer().analyzeBytes(Array(full.prefix(full.count / 3)), name: "IMG_2.jpg"))
        #expect(intact.status == .ok && cut.status == .damaged)
        #expect(cut.exif?.thumbnail != nil)
        let a = try #require(intact.signature), b = try #require(cut.signature)
        // The thumbnail's hash is close to the intact photo's; a grey-padded decode is not.
        #expect(VisualSignature.hamming(a.dhash, b.dhash) <= 10)
        #expect(cut.decodes == 2)
    }
}

/// An EXIF block with an IFD1 JPEG thumbnail (what cameras write), little endian.
enum ExifWithThumbnail {
    static func block(thumbnail: [UInt8]) -> [UInt8] {
        TIFFBuilder.build(ifds: [[], []], blobs: [thumbnail], chain: true) { _, blob in
            [
                [(0x10F, .ascii("TestCam")), (0x110, .ascii("T1"))],
                [(0x103, .short(6)), (0x201, .long(blob[0])), (0x202, .long(UInt32(thumbnail.count)))],
            ]
        }
    }
}

extension Analyzer {
    /// Analyzes bytes written to a temp file.
    func analyzeBytes(_ bytes: [UInt8], name: String) throws -> AnalysisResult? {
        let d = TempDir()
        let p = d.write(name, bytes)
        return analyze(path: p, status: try FileSystem.lstatus(p))
    }
}
