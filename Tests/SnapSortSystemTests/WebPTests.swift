import SnapSortSystem
import SnapSortTestSupport
import Testing

@Suite struct WebPSystemTests {
    @Test func losslessRoundTripsAndLossyIsClose() throws {
        let scene = Fixtures.scene(width: 120, height: 90, seed: 6)
        let lossless = try WebP.encode(scene, quality: nil)
        let h = try WebP.readHeader(lossless)
        #expect(h.width == 120 && h.height == 90 && h.isLossless && !h.isAnimated)
        #expect(try WebP.decode(lossless, maxLongSide: 0, maxHeaderPixels: 1 << 30, maxDecodePixels: 1 << 30) == scene)
        let lossy = try WebP.encode(scene, quality: 90)
        let d = try WebP.decode(lossy, maxLongSide: 60, maxHeaderPixels: 1 << 30, maxDecodePixels: 1 << 30)
        #expect(d.width == 60 && d.height == 45)
    }

    /// fuzz/ (webp) found it: a 59-byte VP8L stream whose header claims a huge canvas kept libwebp
    /// busy for seconds (its scaler decodes every full-size row). Refused by the decode limit now.
    @Test func aTinyStreamClaimingAHugeCanvasIsRefusedQuickly() throws {
        var crash: [UInt8] = [0x2F, 0x00, 0x38, 0x4C, 0x05] + [UInt8](repeating: 0xC8, count: 47)
        crash += [0x00, 0x00, 0x2F, 0x1F, 0x2C, 0x00, 0x00]
        let start = ContinuousClock.now
        do {
            _ = try WebP.decode(crash, maxLongSide: 1024, maxHeaderPixels: 500_000_000, maxDecodePixels: 40_000_000)
        } catch let e as SystemError {
            #expect(e.code == .limit || e.code == .decode)
        } catch {}
        #expect(ContinuousClock.now - start < .seconds(1))
    }

    @Test func limitsAreCheckedBeforeDecoding() throws {
        let data = try WebP.encode(Fixtures.scene(width: 200, height: 200), quality: 80)
        do {
            _ = try WebP.decode(data, maxLongSide: 0, maxHeaderPixels: 10_000, maxDecodePixels: 1 << 30)
            Issue.record("over the header limit")
        } catch let e as SystemError { #expect(e.code == .limit) }
        #expect(throws: WebP.Truncated.self) {
            try WebP.decode(Array(data.prefix(data.count - 20)), maxLongSide: 0, maxHeaderPixels: 1 << 30, maxDecodePixels: 1 << 30)
        }
        #expect(throws: SystemError.self) { try WebP.readHeader(Array("RIFF0000WEBPVP8 ".utf8)) }
    }
}
