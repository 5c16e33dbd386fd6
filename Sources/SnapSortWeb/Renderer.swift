import Foundation
import SnapSortCore
import SnapSortSystem

/// Decodes a library photo to an upright RGB bitmap no larger than a requested long side:
/// JPEG (DCT-scaled), PNG, WebP and HEIC/HEIF (libheif applies irot/imir itself); EXIF
/// orientation applied to the others.
enum Renderer {
    static let maxFileBytes = 512 * 1024 * 1024
    static let maxPixels: Int64 = 200_000_000

    struct Unsupported: Error {}

    static func render(path: String, format: String?, orientation: Int?, longSide: Int) throws -> Bitmap {
        let data = try FileSystem.readFile(path, limit: maxFileBytes)
        var bitmap: Bitmap
        var orient = orientation ?? 1
        switch format ?? "" {
        case "jpeg":
            let h = try JPEG.readHeader(data)
            let long = max(h.width, h.height)
            var scale = 8
            // The smallest DCT scale that still covers the target.
            while scale > 1 && long * (scale - 1) / 8 >= longSide { scale -= 1 }
            bitmap = try JPEG.decode(data, scaleNumerator: scale, maxHeaderPixels: maxPixels, maxOutputPixels: maxPixels).bitmap
        case "png":
            // A panorama or a long screenshot: reduced while reading, in a few rows of memory.
            let h = try PNG.readHeader(data)
            bitmap =
                Int64(h.width) * Int64(h.height) > 40_000_000
                ? try PNG.decodeReduced(data, maxLongSide: longSide, maxPixels: maxPixels)
                : try PNG.decode(data, channels: 3, maxPixels: maxPixels)
        case "webp":
            bitmap = try WebP.decode(data, maxLongSide: longSide, maxHeaderPixels: maxPixels, maxDecodePixels: maxPixels)
        case "heic", "avif":
            let a = try HEIF.analyze(
                data, decode: true, minThumbnailLongSide: longSide, maxHeaderPixels: maxPixels,
                maxDecodePixels: maxPixels)
            guard let b = a.bitmap else { throw Unsupported() }
            bitmap = b
            orient = 1
        default:
            throw Unsupported()
        }
        if bitmap.channels == 1 { bitmap = rgb(bitmap) }
        let long = max(bitmap.width, bitmap.height)
        if long > longSide {
            let f = Double(longSide) / Double(long)
            bitmap = resize(bitmap, max(1, Int((Double(bitmap.width) * f).rounded())), max(1, Int((Double(bitmap.height) * f).rounded())))
        }
        return bitmap.oriented(orient)
    }

    static func rgb(_ b: Bitmap) -> Bitmap {
        var px = [UInt8](repeating: 0, count: b.width * b.height * 3)
        for i in 0..<(b.width * b.height) { px[i * 3] = b.pixels[i]; px[i * 3 + 1] = b.pixels[i]; px[i * 3 + 2] = b.pixels[i] }
        return Bitmap(width: b.width, height: b.height, channels: 3, pixels: px)
    }

    /// Area-average downscale (each target pixel averages its source box).
    static func resize(_ b: Bitmap, _ tw: Int, _ th: Int) -> Bitmap {
        let c = b.channels
        var out = [UInt8](repeating: 0, count: tw * th * c)
        b.pixels.withUnsafeBufferPointer { src in
            for y in 0..<th {
                let y0 = y * b.height / th, y1 = max(y0 + 1, (y + 1) * b.height / th)
                for x in 0..<tw {
                    let x0 = x * b.width / tw, x1 = max(x0 + 1, (x + 1) * b.width / tw)
                    var sum = [Int](repeating: 0, count: c)
                    for sy in y0..<y1 {
                        var i = (sy * b.width + x0) * c
                        for _ in x0..<x1 {
                            for k in 0..<c { sum[k] += Int(src[i + k]) }
                            i += c
                        }
                    }
                    let n = (y1 - y0) * (x1 - x0)
                    let o = (y * tw + x) * c
                    for k in 0..<c { out[o + k] = UInt8((sum[k] + n / 2) / n) }
                }
            }
        }
        return Bitmap(width: tw, height: th, channels: c, pixels: out)
    }
}
