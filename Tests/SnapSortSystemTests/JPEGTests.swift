import SnapSortSystem
import SnapSortTestSupport
import Testing

@Suite struct JPEGTests {
    @Test(arguments: [false, true])
    func encodeDecodeRoundTripsAndScales(_ progressive: Bool) throws {
        let scene = Fixtures.scene(width: 640, height: 480, seed: 2)
        let data = try JPEG.encode(scene, quality: 92, progressive: progressive)
        let h = try JPEG.readHeader(data)
        #expect(h.width == 640 && h.height == 480 && h.progressive == progressive && h.components == 3)
        for (scale, w) in [(8, 640), (4, 320), (2, 160), (1, 80)] {
            let d = try JPEG.decode(data, scaleNumerator: scale, maxHeaderPixels: 1 << 30, maxOutputPixels: 1 << 30)
            #expect(d.bitmap.width == w && d.bitmap.height == w * 3 / 4 && d.warnings == 0)
        }
        let full = try JPEG.decode(data, scaleNumerator: 8, maxHeaderPixels: 1 << 30, maxOutputPixels: 1 << 30)
        var err = 0
        for i in stride(from: 0, to: scene.pixels.count, by: 7) { err += abs(Int(scene.pixels[i]) - Int(full.bitmap.pixels[i])) }
        #expect(Double(err) / Double(scene.pixels.count / 7) < 12)
        let gray = try JPEG.decode(data, scaleNumerator: 8, grayscale: true, maxHeaderPixels: 1 << 30, maxOutputPixels: 1 << 30)
        #expect(gray.bitmap.channels == 1)
        // RGBX: the same pixels as RGB at every scale, each followed by a pad byte.
        for scale in [8, 2] {
            let rgb = try JPEG.decode(data, scaleNumerator: scale, maxHeaderPixels: 1 << 30, maxOutputPixels: 1 << 30).bitmap
            let rgbx = try JPEG.decode(data, scaleNumerator: scale, padded: true, maxHeaderPixels: 1 << 30, maxOutputPixels: 1 << 30).bitmap
            #expect(rgbx.channels == 4 && rgbx.width == rgb.width && rgbx.height == rgb.height)
            var same = true
            for i in 0..<(rgb.width * rgb.height) { for c in 0..<3 where rgbx.pixels[i * 4 + c] != rgb.pixels[i * 3 + c] { same = false } }
            #expect(same, "scale \(scale)")
        }
    }

    @Test(arguments: [false, true])
    func aTruncatedJPEGDecodesWithWarnings(_ progressive: Bool) throws {
        let data = try JPEG.encode(Fixtures.scene(width: 320, height: 240), quality: 90, progressive: progressive)
        let d = try JPEG.decode(Array(data.prefix(data.count / 2)), scaleNumerator: 8, maxHeaderPixels: 1 << 30, maxOutputPixels: 1 << 30)
        #expect(d.warnings > 0)
        #expect(!d.warningMessage.isEmpty)
        #expect(d.bitmap.width == 320)
    }

    @Test func bombHeadersAreRefusedBeforeAllocation() throws {
        let bomb = Fixtures.jpegBombHeader(width: 65000, height: 65000)
        #expect(try JPEG.readHeader(bomb).width == 65000)
        do {
            _ = try JPEG.decode(bomb, scaleNumerator: 1, maxHeaderPixels: 500_000_000, maxOutputPixels: 40_000_000)
            Issue.record("a 65000×65000 header decoded")
        } catch let e as SystemError {
            #expect(e.code == .limit)
        }
        // Under the header limit but the scaled output too large: also refused, as a limit.
        do {
            _ = try JPEG.decode(
                Fixtures.jpegBombHeader(width: 20000, height: 20000), scaleNumerator: 8, maxHeaderPixels: 500_000_000, maxOutputPixels: 40_000_000)
            Issue.record("a 400 MP output was allocated")
        } catch let e as SystemError {
            #expect(e.code == .limit)
        }
    }

    @Test(arguments: [[], [0xFF, 0xD8], Array("<html></html>".utf8), [0xFF, 0xD8, 0xFF, 0xE0, 0, 2, 0xFF, 0xD9]] as [[UInt8]])
    func garbageIsADecodeError(_ bytes: [UInt8]) {
        #expect(throws: SystemError.self) { try JPEG.readHeader(bytes) }
        #expect(throws: SystemError.self) { try JPEG.decode(bytes, scaleNumerator: 8, maxHeaderPixels: 1 << 30, maxOutputPixels: 1 << 30) }
    }

    @Test func exifIsWrittenAsAPP1AndReadBack() throws {
        let exif = Exif.build(dateTimeOriginal: "2024:05:01 10:00:00", make: "Canon", orientation: 6)
        let data = try JPEG.encode(Fixtures.scene(width: 64, height: 48), exif: exif)
        let marker: [UInt8] = Array("Exif".utf8)
        var found: Int?
        for i in 0..<(data.count - 6) where Array(data[i..<i + 4]) == marker {
            found = i
            break
        }
        let at = try #require(found)
        let f = try #require(Exif.parse(data[at...]))
        #expect(f.make == "Canon" && f.orientation == 6 && f.dateTimeOriginal == "2024:05:01 10:00:00")
    }
}
