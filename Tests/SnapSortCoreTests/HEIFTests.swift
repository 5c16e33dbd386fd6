import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

@Suite(.enabled(if: HEIF.canEncode, "libheif has no HEVC encoder here"))
struct HEIFTests {
    static func heic(width: Int, height: Int, thumbnail: Int, exif: [UInt8]? = nil, seed: UInt64 = 4) throws -> [UInt8] {
        try HEIF.encode(Fixtures.scene(width: width, height: height, seed: seed), quality: 70, thumbnailLongSide: thumbnail, exif: exif)
    }

    @Test func aHEICWithASmallThumbnailIsDecodedWholeWithItsEXIF() throws {
        let exif = Exif.build(dateTimeOriginal: "2024:05:01 10:00:00", offsetTimeOriginal: "+02:00", make: "Apple", model: "iPhone 12")
        let t = try TestLibrary()
        t.dir.write("Pictures/IMG_0001.HEIC", try Self.heic(width: 640, height: 480, thumbnail: 160, exif: exif))
        let s = try t.scan()
        #expect(s.decodes == 1)
        let item = try #require(try t.library.items().first)
        #expect(item.format == "heic" && item.status == .ok, "\(String(describing: item.reason))")
        #expect(item.width == 640 && item.height == 480)
        #expect(item.make == "Apple" && item.takenAt == "2024-05-01T10:00:00+02:00")
        #expect(item.metrics?.workingWidth == 640)
    }

    @Test func aLargeEnoughThumbnailServesTheMetrics() throws {
        let data = try Self.heic(width: 1600, height: 1200, thumbnail: 1024)
        let a = try HEIF.analyze(data, minThumbnailLongSide: JPEGHandler.targetLongSide, maxHeaderPixels: 500_000_000, maxDecodePixels: 40_000_000)
        #expect(a.fromThumbnail && a.bitmap?.width == 1024)
        #expect(a.width == 1600 && a.height == 1200)
        let small = try HEIF.analyze(data, minThumbnailLongSide: 2000, maxHeaderPixels: 500_000_000, maxDecodePixels: 40_000_000)
        #expect(!small.fromThumbnail && small.bitmap?.width == 1600)
        // Thumbnail and full decode measure nearly the same picture.
        let (_, s1) = MetricsComputer.measure(a.bitmap!, orientation: 1, decodeScale: 8)
        let (_, s2) = MetricsComputer.measure(small.bitmap!, orientation: 1, decodeScale: 8)
        #expect(VisualSignature.hamming(s1.dhash, s2.dhash) <= 4)
    }

    @Test func overTheLimitIsRefusedBeforeDecoding() throws {
        let data = try Self.heic(width: 256, height: 256, thumbnail: 0)
        #expect(throws: SystemError.self) {
            try HEIF.analyze(data, minThumbnailLongSide: 960, maxHeaderPixels: 10_000, maxDecodePixels: 40_000_000)
        }
    }

    @Test func cutShortOrCorruptHEICIsUnreadableNotACrash() throws {
        let data = try Self.heic(width: 128, height: 96, thumbnail: 0)
        let t = try TestLibrary()
        t.dir.write("Pictures/cut.heic", Array(data.prefix(data.count / 2)))
        var rng = SplitMix(seed: 5)
        for k in 0..<20 {
            var b = data
            for _ in 0..<8 { b[Int(rng.next() % UInt64(min(b.count, 600)))] = UInt8(truncatingIfNeeded: rng.next()) }
            t.dir.write("Pictures/bad\(k).heic", b)
        }
        let s = try t.scan()
        #expect(s.added == 21)
        let cut = try #require(try t.library.items().first { $0.name == "cut.heic" })
        #expect(cut.status == .unreadable || cut.status == .damaged)
        #expect(cut.reason != nil)
    }
}
