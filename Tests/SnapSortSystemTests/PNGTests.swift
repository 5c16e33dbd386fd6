import SnapSortSystem
import SnapSortTestSupport
import Testing

@Suite struct PNGTests {
    @Test func encodeDecodeRoundTripsExactly() throws {
        let scene = Fixtures.scene(width: 97, height: 61, seed: 4)
        let data = try PNG.encode(scene)
        let h = try PNG.readHeader(data)
        #expect(h.width == 97 && h.height == 61 && !h.hasAlpha)
        #expect(try PNG.decode(data, channels: 3, maxPixels: 1 << 30) == scene)
        #expect(try PNG.decode(data, channels: 1, maxPixels: 1 << 30).channels == 1)
    }

    @Test func bombHeadersAreRefusedBeforeAllocation() throws {
        let bomb = Fixtures.pngBombHeader(width: 100_000, height: 100_000)
        #expect(try PNG.readHeader(bomb).width == 100_000)
        do {
            _ = try PNG.decode(bomb, channels: 3, maxPixels: 40_000_000)
            Issue.record("a 100000×100000 header decoded")
        } catch let e as SystemError {
            #expect(e.code == .limit)
        }
    }

    @Test func truncatedAndBadCRCAreErrorsNotCrashes() throws {
        let data = try PNG.encode(Fixtures.scene(width: 64, height: 64))
        #expect(throws: SystemError.self) { try PNG.decode(Array(data.prefix(data.count / 2)), channels: 3, maxPixels: 1 << 30) }
        var bad = data
        bad[40] ^= 0xFF
        _ = try? PNG.decode(bad, channels: 3, maxPixels: 1 << 30)
        #expect(throws: SystemError.self) { try PNG.readHeader(Array("not a png at all".utf8)) }
    }
}
