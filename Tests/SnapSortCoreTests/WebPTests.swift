import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

@Suite struct WebPTests {
    @Test(arguments: [Float(80), nil])
    func webPIsMeasuredAtTheWorkingSize(_ quality: Float?) throws {
        let t = try TestLibrary()
        t.dir.write("Pictures/IMG_1.webp", try WebP.encode(Fixtures.scene(width: 1600, height: 1200, seed: 3), quality: quality))
        try t.scan()
        let item = try #require(try t.library.items().first)
        #expect(item.format == "webp" && item.status == .ok)
        #expect(item.width == 1600 && item.height == 1200)
        #expect(item.metrics?.workingWidth == MetricsComputer.workingLongSide)
    }

    @Test func aWebPAndAJPEGOfOnePhotoHashAlike() throws {
        let scene = Fixtures.scene(width: 1280, height: 960, seed: 9)
        let w = try #require(try Analyzer().analyzeBytes(try WebP.encode(scene, quality: 85), name: "a.webp"))
        let j = try #require(try Analyzer().analyzeBytes(Fixtures.jpeg(scene, quality: 85), name: "a.jpg"))
        #expect(VisualSignature.hamming(w.signature!.dhash, j.signature!.dhash) <= 6)
    }

    @Test func exifComesFromTheRIFFChunk() throws {
        let webp = try WebP.encode(Fixtures.scene(width: 64, height: 48), quality: 80)
        let exif = Exif.build(dateTimeOriginal: "2024:05:01 10:00:00", make: "Pixel")
        // Extended layout: RIFF, VP8X (EXIF flag), the VP8 chunk, EXIF.
        var vp8x: [UInt8] = Array("VP8X".utf8) + [10, 0, 0, 0, 0x08, 0, 0, 0]
        vp8x += [63, 0, 0, 47, 0, 0]  // canvas 64×48, minus one, 24-bit
        let body = Array(webp[12...])
        var exifChunk = Array("EXIF".utf8) + TIFFBuilder.le32(UInt32(exif.count)) + exif
        if exif.count % 2 == 1 { exifChunk.append(0) }
        let payload = Array("WEBP".utf8) + vp8x + body + exifChunk
        let file = Array("RIFF".utf8) + TIFFBuilder.le32(UInt32(payload.count)) + payload
        let r = try #require(try Analyzer().analyzeBytes(file, name: "x.webp"))
        #expect(r.status == .ok, "\(String(describing: r.reason))")
        #expect(r.exif?.make == "Pixel" && r.capture?.source == .exif)
    }

    @Test func cutShortWebPIsDamagedAndGarbageUnreadable() throws {
        let webp = try WebP.encode(Fixtures.scene(width: 320, height: 240), quality: 80)
        let cut = try #require(try Analyzer().analyzeBytes(Array(webp.prefix(webp.count / 2)), name: "c.webp"))
        #expect(cut.status == .damaged && cut.reason?.code == .truncated)
        var bad = webp
        for i in 40..<min(bad.count, 200) { bad[i] ^= 0x5A }
        let r = try #require(try Analyzer().analyzeBytes(bad, name: "b.webp"))
        #expect(r.status != .ok || r.metrics != nil)
    }
}
