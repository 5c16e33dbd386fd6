import SnapSortSystem
import SnapSortTestSupport
import Testing

@Suite(.enabled(if: HEIF.canEncode, "libheif has no HEVC encoder here"))
struct HEIFSystemTests {
    @Test func encodeAnalyzeRoundTripWithThumbnailAndEXIF() throws {
        let scene = Fixtures.scene(width: 320, height: 240, seed: 8)
        let exif = Exif.build(dateTimeOriginal: "2024:05:01 10:00:00", make: "Apple")
        let data = try HEIF.encode(scene, quality: 90, thumbnailLongSide: 160, exif: exif)
        let a = try HEIF.analyze(data, minThumbnailLongSide: 100, maxHeaderPixels: 1 << 30, maxDecodePixels: 1 << 30)
        #expect(a.width == 320 && a.height == 240)
        #expect(a.thumbnailCount == 1 && a.thumbnailWidth == 160 && a.fromThumbnail)
        #expect(a.bitmap?.width == 160)
        let block = try #require(a.exif)
        let f = try #require(Exif.parse(block[...]))
        #expect(f.make == "Apple" && f.dateTimeOriginal == "2024:05:01 10:00:00")
        let headerOnly = try HEIF.analyze(data, decode: false, minThumbnailLongSide: 100, maxHeaderPixels: 1 << 30, maxDecodePixels: 1 << 30)
        #expect(headerOnly.bitmap == nil && headerOnly.width == 320)
    }

    @Test(arguments: [[], Array("not heif".utf8), [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [UInt8](repeating: 0, count: 12)] as [[UInt8]])
    func garbageIsADecodeError(_ bytes: [UInt8]) {
        #expect(throws: SystemError.self) { try HEIF.analyze(bytes, minThumbnailLongSide: 100, maxHeaderPixels: 1 << 30, maxDecodePixels: 1 << 30) }
    }
}
