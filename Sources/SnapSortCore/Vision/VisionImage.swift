import SnapSortSystem

/// The picture the vision models see: decoded with SnapSort's own decoders (the helper only ever
/// receives pixels), turned upright by the EXIF orientation and scaled so its long side is
/// `VisionImage.longSide`.
enum VisionImage {
    /// The working size on the long side (smaller pictures are scaled up). dlib's HOG detector
    /// finds faces from 80 px, so at 1024 px it finds faces down to ~8 % of the long side: on the
    /// DEV corpus, 640 px found 2 of 6 people photos (a footballer, basketball players and a
    /// portrait, all in sub-640 px frames) and 1024 px all 6, at about twice the cost.
    static let longSide = 1024
    /// Formats tier 2 reads (HEIF, RAW and the rest keep a neutral tier-2 result for now).
    static let formats: Set<String> = ["jpeg", "png", "webp"]

    /// Decodes `path` (of `format`) to RGB, upright, long side ≤ `longSide`.
    static func load(path: String, format: String, orientation: Int, limits: AnalyzerLimits = AnalyzerLimits()) throws -> Bitmap {
        let bytes = try FileSystem.readFile(path, limit: limits.maxPhotoBytes)
        var bitmap: Bitmap
        switch format {
        case "jpeg":
            let header = try JPEG.readHeader(bytes)
            let long = max(header.width, header.height)
            var scale = 8
            for s in 1...8 where long * s / 8 >= longSide { scale = s; break }
            bitmap = try JPEG.decode(bytes, scaleNumerator: scale, maxHeaderPixels: limits.maxHeaderPixels,
                                     maxOutputPixels: limits.maxDecodePixels).bitmap
        case "png":
            bitmap = try PNG.decode(bytes, channels: 3, maxPixels: limits.maxDecodePixels)
        case "webp":
            bitmap = try WebP.decode(bytes, maxLongSide: longSide, maxHeaderPixels: limits.maxHeaderPixels, maxDecodePixels: limits.maxDecodePixels)
        default:
            throw SystemError(.unsupported, "tier 2 does not read \(format) yet", operation: "vision decode")
        }
        bitmap = rgb(bitmap)
        bitmap = max(bitmap.width, bitmap.height) > longSide ? shrink(bitmap, longSide: longSide) : enlarge(bitmap, longSide: longSide)
        return oriented(bitmap, orientation)
    }

    /// Gray becomes RGB; RGB stays.
    static func rgb(_ b: Bitmap) -> Bitmap {
        guard b.channels != 3 else { return b }
        var out = [UInt8](repeating: 0, count: b.width * b.height * 3)
        for i in 0..<(b.width * b.height) {
            let v = b.pixels[i * b.channels]
            out[i * 3] = v
            out[i * 3 + 1] = v
            out[i * 3 + 2] = v
        }
        return Bitmap(width: b.width, height: b.height, channels: 3, pixels: out)
    }

    /// Box-filter downscale so the long side is at most `longSide` (area average: no aliasing).
    static func shrink(_ b: Bitmap, longSide: Int) -> Bitmap {
        let long = max(b.width, b.height)
        guard long > longSide else { return b }
        let w = max(1, b.width * longSide / long), h = max(1, b.height * longSide / long)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        b.pixels.withUnsafeBufferPointer { src in
            for y in 0..<h {
                let y0 = y * b.height / h, y1 = max(y0 + 1, (y + 1) * b.height / h)
                for x in 0..<w {
                    let x0 = x * b.width / w, x1 = max(x0 + 1, (x + 1) * b.width / w)
                    var r = 0, g = 0, bl = 0
                    for sy in y0..<y1 {
                        var i = (sy * b.width + x0) * 3
                        for _ in x0..<x1 {
                            r += Int(src[i]); g += Int(src[i + 1]); bl += Int(src[i + 2])
                            i += 3
                        }
                    }
                    let n = (y1 - y0) * (x1 - x0)
                    let o = (y * w + x) * 3
                    out[o] = UInt8(r / n)
                    out[o + 1] = UInt8(g / n)
                    out[o + 2] = UInt8(bl / n)
                }
            }
        }
        return Bitmap(width: w, height: h, channels: 3, pixels: out)
    }

    /// Bilinear upscale so the long side is `longSide` (small pictures: faces reach the detector's size).
    static func enlarge(_ b: Bitmap, longSide: Int) -> Bitmap {
        let long = max(b.width, b.height)
        guard long < longSide, b.width >= 2, b.height >= 2 else { return b }
        let w = max(1, b.width * longSide / long), h = max(1, b.height * longSide / long)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        let sx = Double(b.width - 1) / Double(max(w - 1, 1)), sy = Double(b.height - 1) / Double(max(h - 1, 1))
        b.pixels.withUnsafeBufferPointer { src in
            for y in 0..<h {
                let fy = Double(y) * sy
                let y0 = min(Int(fy), b.height - 2)
                let ty = fy - Double(y0)
                for x in 0..<w {
                    let fx = Double(x) * sx
                    let x0 = min(Int(fx), b.width - 2)
                    let tx = fx - Double(x0)
                    let i00 = (y0 * b.width + x0) * 3, i10 = i00 + 3, i01 = i00 + b.width * 3, i11 = i01 + 3
                    let o = (y * w + x) * 3
                    for c in 0..<3 {
                        let top = Double(src[i00 + c]) * (1 - tx) + Double(src[i10 + c]) * tx
                        let bottom = Double(src[i01 + c]) * (1 - tx) + Double(src[i11 + c]) * tx
                        out[o + c] = UInt8(max(0, min(255, (top * (1 - ty) + bottom * ty).rounded())))
                    }
                }
            }
        }
        return Bitmap(width: w, height: h, channels: 3, pixels: out)
    }

    /// Applies an EXIF orientation (1…8) so the picture is upright (`Bitmap.oriented`).
    static func oriented(_ b: Bitmap, _ orientation: Int) -> Bitmap { b.oriented(orientation) }
}
