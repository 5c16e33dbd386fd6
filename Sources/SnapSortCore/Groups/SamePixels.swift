import Foundation
import SnapSortSystem

/// Whether two files hold the same picture pixel for pixel, up to what two JPEG decoders
/// disagree on: the check behind a lossless file being an export of a lossy one
/// (`GroupRules.mayBeCopy`). Both are decoded upright at full size, the JPEG as viewers and
/// exporters decode it (smooth chroma). An export through libjpeg(-turbo) — GIMP, ImageMagick,
/// Pillow — has exactly the JPEG's pixels; another decoder's IDCT differs by a level here and
/// there. A JPEG encoded from the lossless file instead (its source) differs everywhere: at
/// quality 85, ~0.9–2.5 levels on average and more than 2 levels in 4–40 % of the samples.
enum SamePixels {
    /// Largest mean absolute difference (levels of 255, over every sample)…
    static let maximumMeanDifference = 0.25
    /// …and largest share of samples differing by more than 2 levels.
    static let maximumShareOver2 = 0.005
    /// Pictures over this many pixels are not decoded for the check (it then fails).
    static let maximumPixels: Int64 = 60_000_000

    /// Reads and compares the two files; false when either cannot be decoded.
    static func files(_ a: GroupItem, _ b: GroupItem) -> Bool {
        guard let x = decode(a), let y = decode(b) else { return false }
        return same(x, y)
    }

    /// Compares two upright RGB bitmaps of one size.
    static func same(_ x: Bitmap, _ y: Bitmap) -> Bool {
        guard x.width == y.width, x.height == y.height, x.channels == 3, y.channels == 3, !x.pixels.isEmpty else { return false }
        var total = 0, over = 0
        x.pixels.withUnsafeBufferPointer { p in
            y.pixels.withUnsafeBufferPointer { q in
                for i in 0..<p.count {
                    let d = abs(Int(p[i]) - Int(q[i]))
                    total += d
                    if d > 2 { over += 1 }
                }
            }
        }
        let n = Double(x.pixels.count)
        return Double(total) / n <= maximumMeanDifference && Double(over) / n <= maximumShareOver2
    }

    /// The file decoded upright at full size, RGB (the JPEG with smooth chroma).
    static func decode(_ item: GroupItem) -> Bitmap? {
        item.decodedUpright(readLimit: 512 * 1024 * 1024, pngPixels: maximumPixels) { bytes in
            try JPEG.decode(bytes, scaleNumerator: 8, smoothChroma: true, maxHeaderPixels: maximumPixels, maxOutputPixels: maximumPixels).bitmap
        }
    }
}
