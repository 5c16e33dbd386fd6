import Testing

@testable import SnapSortCore

@Suite struct MediaFormatTests {
    @Test(
        arguments: [
            ([0xFF, 0xD8, 0xFF, 0xE0], "x.png", MediaFormat.jpeg),
            ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "x.jpg", .png),
            (Array("GIF89a".utf8), "x.gif", .gif),
            ([0, 0, 0, 0x18] + Array("ftypheic".utf8), "x.HEIC", .heic),
            ([0, 0, 0, 0x18] + Array("ftypqt  ".utf8), "x.mov", .mov),
            ([0, 0, 0, 0x18] + Array("ftypisom".utf8), "x.mp4", .mp4),
            ([0, 0, 0, 0x18] + Array("ftypavif".utf8), "x.avif", .avif),
            (Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8), "x.webp", .webp),
            (Array("II*\0".utf8), "x.dng", .dng),
            (Array("II*\0".utf8), "x.tif", .tiff),
            (Array("  <!DOCTYPE html>".utf8), "x.jpg", .html),
            ([], "x.jpg", .empty),
            ([1, 2, 3, 4], "x.jpg", .unknown),
        ] as [([UInt8], String, MediaFormat)])
    func sniffsContentNotNames(bytes: [UInt8], name: String, expected: MediaFormat) {
        #expect(MediaFormat.sniff(bytes[...], nameHint: MediaFormat.fromName(name)) == expected)
    }

    @Test func contentHashIsStableAndSensitive() {
        let a = ContentHash.content(Array(repeating: 1, count: 1000))
        var bytes = [UInt8](repeating: 1, count: 1000)
        #expect(ContentHash.content(bytes) == a)
        bytes[999] = 2
        #expect(ContentHash.content(bytes) != a)
        // XXH64 reference values (xxhsum): empty input and "abc" with seed 0.
        #expect(ContentHash.xxh64([]) == 0xEF46_DB37_51D8_E999)
        #expect(ContentHash.xxh64(Array("abc".utf8)) == 0x44BC_2CF5_AD77_0999)
    }
}
