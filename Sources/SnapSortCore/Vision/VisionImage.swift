import SnapSortSystem

/// The picture the vision models see: decoded with SnapSort's own decoders (the helper only ever
/// receives pixels), turned upright and scaled so its long side is `VisionImage.longSide`.
///
/// Every photo format tier 1 measures is read the way tier 1 reads it: JPEG (DCT-scaled), PNG,
/// WebP (libwebp's scaler), HEIC/HEIF through libheif (its thumbnail when that is at least
/// `longSide`, else the primary image; libheif applies the container's irot/imir, so the EXIF
/// orientation is not applied again, as in `HEIFHandler`), and RAW files through their largest
/// embedded JPEG preview (`RawHandler.preview`, found by the bounded TIFF walk and read with
/// `pread`s; the RAW's own EXIF orientation turns it upright, as tier 1 measures it).
enum VisionImage {
    /// The working size on the long side (smaller pictures are scaled up). The face detector sees
    /// the picture at 384 px but takes its second look at a face, and the landmarks their eyes,
    /// from this size. (dlib's HOG detector, used before, found faces from 80 px: on the DEV
    /// corpus, 640 px found 2 of 6 people photos and 1024 px all 6.)
    static let longSide = 1024
    /// RAW formats (TIFF-based; their embedded JPEG preview is what tier 2 sees).
    static let rawFormats: Set<String> = ["dng", "cr2", "nef", "arw", "orf", "rw2"]
    /// Formats tier 2 reads: every photo format tier 1 measures (GIF, TIFF, AVIF and BMP are
    /// `unsupported` there and never reach tier 2).
    static let formats: Set<String> = Set(["jpeg", "png", "webp", "heic"]).union(rawFormats)

    /// The long side the models accept as it comes, without scaling: every model resizes what it
    /// gets (faces to 512 px, the classifier to 224, the page finder to its own size), so a 12 MP
    /// JPEG's 1/4 DCT scale (1000 px: the fast reduced decoder, no resampling after) serves as
    /// well as 1024 px made from its 3/8 scale (a slower IDCT and a box filter over 1.7 MP).
    static let leastLongSide = 920

    /// The square of `side` pixels at (`x`, `y`) of `picture`, clipped to the picture (a face
    /// near an edge keeps what of its square the picture holds).
    static func crop(_ picture: Bitmap, x: Double, y: Double, side: Double) -> Bitmap {
        let x0 = max(0, Int(x.rounded())), y0 = max(0, Int(y.rounded()))
        let x1 = min(picture.width, Int((x + side).rounded())), y1 = min(picture.height, Int((y + side).rounded()))
        let w = max(0, x1 - x0), h = max(0, y1 - y0), c = picture.channels
        var pixels = [UInt8](repeating: 0, count: w * h * c)
        for row in 0..<h {
            let from = ((y0 + row) * picture.width + x0) * c
            pixels.replaceSubrange((row * w * c)..<((row + 1) * w * c), with: picture.pixels[from..<(from + w * c)])
        }
        return Bitmap(width: w, height: h, channels: c, pixels: pixels)
    }

    /// Decodes `path` (of `format`) to RGB, upright, long side `side` (`longSide` for the models;
    /// a JPEG is DCT-scaled as far as `side` allows). `least`: a long side from `least` up to
    /// `side` is kept as decoded (the models pass `leastLongSide`); below, the picture is scaled up.
    static func load(
        path: String, format: String, orientation: Int, side: Int = longSide, least: Int? = nil,
        limits: AnalyzerLimits = AnalyzerLimits()
    ) throws -> Bitmap {
        let least = min(side, least ?? side)
        var bitmap: Bitmap
        var orientation = orientation
        switch format {
        case "jpeg":
            bitmap = try jpeg(path: path, side: least, limits: limits)
        case "png":
            bitmap = try PNG.decode(try FileSystem.readFile(path, limit: limits.maxPhotoBytes), channels: 3, maxPixels: limits.maxDecodePixels)
        case "webp":
            bitmap = try WebP.decode(
                try FileSystem.readFile(path, limit: limits.maxPhotoBytes), maxLongSide: longSide,
                maxHeaderPixels: limits.maxHeaderPixels, maxDecodePixels: limits.maxDecodePixels)
        case "heic":
            let a = try HEIF.analyze(
                try FileSystem.readFile(path, limit: limits.maxPhotoBytes), minThumbnailLongSide: longSide,
                maxHeaderPixels: limits.maxHeaderPixels, maxDecodePixels: limits.maxDecodePixels)
            guard let b = a.bitmap else { throw SystemError(.decode, "the HEIF image decoded to nothing", operation: "vision decode") }
            bitmap = b
            // See ISO/IEC 23008-12 §6.5: irot/imir, already applied by libheif, are the orientation.
            orientation = 1
        case _ where rawFormats.contains(format):
            bitmap = try jpeg(try rawPreview(path: path), side: least, limits: limits)
        default:
            throw SystemError(.unsupported, "tier 2 does not read \(format)", operation: "vision decode")
        }
        bitmap = rgb(bitmap)
        let long = max(bitmap.width, bitmap.height)
        if long > side {
            bitmap = shrink(bitmap, longSide: side)
        } else if long < least {
            bitmap = enlarge(bitmap, longSide: side)
        }
        return oriented(bitmap, orientation)
    }

    /// A JPEG decoded at the smallest DCT scale whose long side still reaches `side`.
    static func jpeg(_ bytes: [UInt8], side: Int = longSide, limits: AnalyzerLimits) throws -> Bitmap {
        let header = try JPEG.readHeader(bytes)
        return try JPEG.decode(
            bytes, scaleNumerator: dctScale(header, side: side), maxHeaderPixels: limits.maxHeaderPixels,
            maxOutputPixels: limits.maxDecodePixels
        ).bitmap
    }

    /// The JPEG file at `path` decoded as `jpeg(_:)` decodes its bytes, read through libjpeg's
    /// buffer instead of whole: a 300 MB panorama costs its scaled pixels, not its bytes.
    static func jpeg(path: String, side: Int = longSide, limits: AnalyzerLimits) throws -> Bitmap {
        let header = try JPEG.readHeader(path: path)
        return try JPEG.decode(
            path: path, scaleNumerator: dctScale(header, side: side), maxHeaderPixels: limits.maxHeaderPixels,
            maxOutputPixels: limits.maxDecodePixels
        ).bitmap
    }

    /// The smallest DCT scale (n/8) whose long side still reaches `side`.
    static func dctScale(_ header: JPEG.Header, side: Int) -> Int {
        let long = max(header.width, header.height)
        for s in 1...8 where long * s / 8 >= side { return s }
        return 8
    }

    /// The largest readable JPEG preview of a RAW file (the file itself is never read whole).
    static func rawPreview(path: String) throws -> [UInt8] {
        let fd = try FileDescriptor.openForReading(path)
        defer { fd.close() }
        let src = FileSource(fd: fd, size: try fd.status().size)
        guard let walk = TIFFWalker.walk(src), let jpeg = RawHandler.preview(src, walk) else {
            throw SystemError(.unsupported, "the RAW file has no embedded JPEG preview", operation: "vision decode")
        }
        return jpeg
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

    /// BT.601 luma of an RGB picture, one channel.
    static func grey(_ b: Bitmap) -> Bitmap {
        guard b.channels == 3 else { return b }
        var out = [UInt8](repeating: 0, count: b.width * b.height)
        b.pixels.withUnsafeBufferPointer { p in
            for i in 0..<(b.width * b.height) {
                let red: Int = 299 * Int(p[3 * i]), green: Int = 587 * Int(p[3 * i + 1]), blue: Int = 114 * Int(p[3 * i + 2])
                out[i] = UInt8((red + green + blue + 500) / 1000)
            }
        }
        return Bitmap(width: b.width, height: b.height, channels: 1, pixels: out)
    }

    /// Box-filter downscale so the long side is at most `longSide` (area average: no aliasing),
    /// of any number of channels (the buffer is read unchecked: its layout comes from `b`).
    static func shrink(_ b: Bitmap, longSide: Int) -> Bitmap {
        let long = max(b.width, b.height)
        guard long > longSide else { return b }
        let w = max(1, b.width * longSide / long), h = max(1, b.height * longSide / long)
        let c = b.channels
        var out = [UInt8](repeating: 0, count: w * h * c)
        var sums = [Int](repeating: 0, count: c)
        b.pixels.withUnsafeBufferPointer { src in
            for y in 0..<h {
                let y0 = y * b.height / h, y1 = max(y0 + 1, (y + 1) * b.height / h)
                for x in 0..<w {
                    let x0 = x * b.width / w, x1 = max(x0 + 1, (x + 1) * b.width / w)
                    for k in 0..<c { sums[k] = 0 }
                    for sy in y0..<y1 {
                        var i = (sy * b.width + x0) * c
                        for _ in x0..<x1 {
                            for k in 0..<c { sums[k] += Int(src[i + k]) }
                            i += c
                        }
                    }
                    let n = (y1 - y0) * (x1 - x0)
                    let o = (y * w + x) * c
                    for k in 0..<c { out[o + k] = UInt8(sums[k] / n) }
                }
            }
        }
        return Bitmap(width: w, height: h, channels: c, pixels: out)
    }

    /// Bilinear upscale so the long side is `longSide` (small pictures: faces reach the detector's size),
    /// of any number of channels.
    static func enlarge(_ b: Bitmap, longSide: Int) -> Bitmap {
        let long = max(b.width, b.height)
        guard long < longSide, b.width >= 2, b.height >= 2 else { return b }
        let w = max(1, b.width * longSide / long), h = max(1, b.height * longSide / long)
        let n = b.channels
        var out = [UInt8](repeating: 0, count: w * h * n)
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
                    let i00 = (y0 * b.width + x0) * n, i10 = i00 + n, i01 = i00 + b.width * n, i11 = i01 + n
                    let o = (y * w + x) * n
                    for c in 0..<n {
                        let top = Double(src[i00 + c]) * (1 - tx) + Double(src[i10 + c]) * tx
                        let bottom = Double(src[i01 + c]) * (1 - tx) + Double(src[i11 + c]) * tx
                        out[o + c] = UInt8(max(0, min(255, (top * (1 - ty) + bottom * ty).rounded())))
                    }
                }
            }
        }
        return Bitmap(width: w, height: h, channels: n, pixels: out)
    }

    /// Applies an EXIF orientation (1…8) so the picture is upright (`Bitmap.oriented`).
    static func oriented(_ b: Bitmap, _ orientation: Int) -> Bitmap { b.oriented(orientation) }
}
