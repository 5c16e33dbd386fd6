import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// The optimized `MetricsComputer.measure` against the plain definition (`MetricsReference`):
/// same metrics (to rounding), same hashes, thumbnails within one level, for every EXIF
/// orientation, gray and colour, at the working size and above it (resampled), and on real photos.
@Suite struct MetricsEquivalenceTests {
    static func compare(_ b: Bitmap, orientation: Int, _ label: String) {
        let (fast, fs) = MetricsComputer.measure(b, orientation: orientation, decodeScale: 2)
        let (slow, ss) = MetricsReference.measure(b, orientation: orientation, decodeScale: 2)
        let pairs: [(String, Double, Double)] = [
            ("lapVar", fast.lapVar, slow.lapVar), ("lapTileMax", fast.lapTileMax, slow.lapTileMax),
            ("lapTileMedian", fast.lapTileMedian, slow.lapTileMedian), ("reblur", fast.reblur, slow.reblur),
            ("reblurTile", fast.reblurTile, slow.reblurTile), ("edgeDensity", fast.edgeDensity, slow.edgeDensity),
            ("meanLuma", fast.meanLuma, slow.meanLuma), ("stdLuma", fast.stdLuma, slow.stdLuma),
            ("p01", fast.p01, slow.p01), ("p05", fast.p05, slow.p05), ("p50", fast.p50, slow.p50),
            ("p95", fast.p95, slow.p95), ("p99", fast.p99, slow.p99),
            ("darkFraction", fast.darkFraction, slow.darkFraction), ("blackFraction", fast.blackFraction, slow.blackFraction),
            ("brightFraction", fast.brightFraction, slow.brightFraction), ("clippedFraction", fast.clippedFraction, slow.clippedFraction),
            ("entropy", fast.entropy, slow.entropy), ("colorfulness", fast.colorfulness, slow.colorfulness),
            ("saturation", fast.saturation, slow.saturation), ("flatFraction", fast.flatFraction, slow.flatFraction),
            ("noise", fast.noise, slow.noise), ("lapFineMax", fast.lapFineMax, slow.lapFineMax),
            ("dir0", fast.dir0, slow.dir0), ("dir45", fast.dir45, slow.dir45), ("dir90", fast.dir90, slow.dir90),
            ("dir135", fast.dir135, slow.dir135), ("channelBrightFraction", fast.channelBrightFraction, slow.channelBrightFraction),
            ("channelClippedFraction", fast.channelClippedFraction, slow.channelClippedFraction),
        ]
        for (name, a, b) in pairs {
            #expect(abs(a - b) <= 1e-6 * max(1, abs(b)), "\(label) o\(orientation) \(name): \(a) vs \(b)")
        }
        #expect(fast.finderPatterns == slow.finderPatterns, "\(label) o\(orientation)")
        #expect(fast.workingWidth == slow.workingWidth && fast.workingHeight == slow.workingHeight, "\(label) o\(orientation)")
        #expect(fs.dhash == ss.dhash && fs.phash == ss.phash, "\(label) o\(orientation) hashes")
        #expect(fs.thumbnail.count == ss.thumbnail.count)
        let off = zip(fs.thumbnail, ss.thumbnail).map { abs(Int($0) - Int($1)) }
        #expect(
            (off.max() ?? 0) <= 1 && off.filter { $0 > 0 }.count <= 4,
            "\(label) o\(orientation) thumbnail: \(off.filter { $0 > 0 }.count) bytes differ")
    }

    @Test(arguments: 1...8)
    func aColourSceneInEveryOrientation(_ orientation: Int) {
        Self.compare(Fixtures.scene(width: 640, height: 480, seed: 5), orientation: orientation, "scene")
    }

    @Test(arguments: [1, 6])
    func grayAndOddSizes(_ orientation: Int) {
        var gray = Bitmap(width: 333, height: 201, channels: 1)
        let scene = Fixtures.scene(width: 333, height: 201, seed: 9)
        for i in 0..<(333 * 201) { gray.pixels[i] = scene.pixels[i * 3 + 1] }
        Self.compare(gray, orientation: orientation, "gray")
        Self.compare(Fixtures.scene(width: 1203, height: 77, seed: 3), orientation: orientation, "resampled strip")
        Self.compare(Fixtures.scene(width: 40, height: 20, seed: 4), orientation: orientation, "tiny")
        Self.compare(Fixtures.scene(width: 1030, height: 1030, seed: 6), orientation: orientation, "resampled")
    }

    @Test(arguments: ["astronaut.jpg", "chelsea.jpg", "coffee.jpg", "forest-path.jpg"])
    func realPhotos(_ name: String) throws {
        let b = try MetricsFinderPatternTests.photo(name)
        Self.compare(b, orientation: 1, name)
        Self.compare(b, orientation: 8, name)
        Self.compare(Self.padded(b), orientation: 1, "\(name) RGBX")
        Self.compare(Self.padded(b), orientation: 6, "\(name) RGBX")
    }

    /// The scan decodes JPEGs as RGBX (`JPEG.decode(padded:)`): the same RGB, a pad byte after each pixel.
    static func padded(_ b: Bitmap) -> Bitmap {
        var out = Bitmap(width: b.width, height: b.height, channels: 4, fill: 255)
        for i in 0..<(b.width * b.height) { for c in 0..<3 { out.pixels[i * 4 + c] = b.pixels[i * 3 + c] } }
        return out
    }

    /// RGBX pixels take the four-at-a-time path; an odd width leaves a tail in every cell's run.
    @Test(arguments: 1...8)
    func paddedPixelsInEveryOrientation(_ orientation: Int) {
        Self.compare(Self.padded(Fixtures.scene(width: 643, height: 481, seed: 7)), orientation: orientation, "RGBX scene")
    }
}
