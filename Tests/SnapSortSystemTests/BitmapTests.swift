import Testing

@testable import SnapSortSystem

@Suite struct BitmapTests {
    /// Each pixel of the half is the rounded mean of its 2×2 block, per channel; an odd last
    /// row or column is dropped.
    @Test func halvedAveragesEachTwoByTwoBlock() {
        // 5×3, two channels: channel 0 = x + 10·y, channel 1 = 200 - x.
        var pixels: [UInt8] = []
        for y in 0..<3 { for x in 0..<5 { pixels += [UInt8(x + 10 * y), UInt8(200 - x)] } }
        let half = Bitmap(width: 5, height: 3, channels: 2, pixels: pixels).halved()
        #expect(half.width == 2 && half.height == 1 && half.channels == 2)
        // Block (0,0): 0,1,10,11 → 5.5 → 6; 200,199,200,199 → 199.5 → 200. Block (1,0): 2,3,12,13 → 7.5 → 8; 198,197 → 197.5 → 198.
        #expect(half.pixels == [6, 200, 8, 198])
    }
}
