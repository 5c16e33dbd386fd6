import SnapSortSystem

/// JPEG: libjpeg-turbo with DCT scaling; EXIF from the APP1 segment through libexif.
///
/// What each metric gets, baseline and progressive alike: one decode at the smallest DCT scale
/// that still gives ≥ `targetLongSide` px serves every metric (sharpness needs that size; the
/// hashes and exposure would be content with less). Progressive JPEGs barely speed up with DCT
/// scaling (every scan is entropy-decoded whatever the scale), but they still get the same decode
/// so that a progressive copy of a photo gets the same hashes and sharpness as its baseline
/// original — duplicate detection across re-encodes depends on it. The EXIF thumbnail is used
/// where the decode cannot serve the hashes: a damaged (cut short) JPEG decodes with its missing
/// part grey, so its visual signature comes from the thumbnail (the whole picture, as the camera
/// saw it) when there is one, while sharpness and exposure stay those of the decode.
enum JPEGHandler {
    /// The working size the metrics want on the long side; DCT scaling stops just above it.
    static let targetLongSide = 960
    /// An EXIF thumbnail this large (long side) is enough for the hashes (dHash is 9×8, pHash
    /// 32×32, the signature thumbnail 16×16); cameras write 160×120.
    static let minThumbnailLongSide = 120

    static func analyze(_ ctx: inout AnalysisContext) {
        // A JPEG too large to hold (`AnalyzerLimits.maxInMemoryBytes`: a stitched panorama)
        // came as its first bytes, its metadata; its pixels are decoded from the file.
        let fromFile = Int64(ctx.bytes.count) < ctx.status.size ? ctx.path : nil
        analyze(&ctx, jpeg: ctx.bytes, readExif: true, fromFile: fromFile)
    }

    /// Analyzes `jpeg` (the file itself, or a RAW file's embedded preview). `fromFile`: the
    /// path to read the header and the pixels from, through libjpeg's source manager, when
    /// `jpeg` holds only the file's first bytes.
    static func analyze(_ ctx: inout AnalysisContext, jpeg bytes: [UInt8], readExif: Bool, fromFile: String? = nil) {
        if readExif, let packet = XMP.jpegPacket(bytes), let v = XMP.rating(packet) { ctx.result.rating = v }
        if readExif, let app1 = exifSegment(bytes) {
            if let exif = Exif.parse(app1) {
                ctx.apply(exif: exif)
            } else {
                ctx.warn(Reason(.badExif, "the EXIF block could not be read; the photo itself is fine"))
            }
        }
        let header: JPEG.Header
        do {
            header = try fromFile.map { try JPEG.readHeader(path: $0) } ?? JPEG.readHeader(bytes)
        } catch {
            ctx.fail(Reason(.decodeError, "not a readable JPEG: \(error.message)"))
            return
        }
        guard header.width > 0, header.height > 0 else {
            ctx.fail(Reason(.decodeError, "the JPEG header has no size"))
            return
        }
        // Within the header limit DCT scaling keeps any decode small (a cut-off file is then
        // "damaged", not a bomb); over it, a real picture or a bomb by what its bytes can hold.
        if Int64(header.width) * Int64(header.height) > ctx.limits.maxHeaderPixels {
            ctx.tooLargeToAnalyze(width: header.width, height: header.height, limit: ctx.limits.maxHeaderPixels, format: "JPEG")
            return
        }
        let long = max(header.width, header.height)
        var scale = 8
        for s in 1...8 where long * s / 8 >= targetLongSide { scale = s; break }
        if long < targetLongSide { scale = 8 }
        do {
            // RGBX: the metrics read a pixel as one 32-bit word, four pixels at a time.
            var d =
                try fromFile.map {
                    try JPEG.decode(
                        path: $0, scaleNumerator: scale, padded: true, maxHeaderPixels: ctx.limits.maxHeaderPixels,
                        maxOutputPixels: ctx.limits.maxDecodePixels)
                }
                ?? JPEG.decode(
                    bytes, scaleNumerator: scale, padded: true, maxHeaderPixels: ctx.limits.maxHeaderPixels,
                    maxOutputPixels: ctx.limits.maxDecodePixels)
            // A file that lost only its last bytes, the end marker, holds the whole picture,
            // but libjpeg warns as its reader runs out: read once more with the marker put
            // back, and a clean reading is the picture (not "damaged", offered for cleanup).
            if d.warnings > 0 && fromFile == nil && bytes.suffix(2) != [0xFF, 0xD9],
                let again = try? JPEG.decode(
                    bytes + [0xFF, 0xD9], scaleNumerator: scale, padded: true, maxHeaderPixels: ctx.limits.maxHeaderPixels,
                    maxOutputPixels: ctx.limits.maxDecodePixels),
                again.warnings == 0
            {
                d = again
            }
            ctx.measure(d.bitmap, fullWidth: header.width, fullHeight: header.height, decodeScale: scale)
            if d.warnings > 0 {
                ctx.fail(Reason(.truncated, "the JPEG data is damaged or cut short (\(d.warningMessage))"))
                signatureFromThumbnail(&ctx)
            }
        } catch let e as SystemError {
            ctx.fail(Reason(e.code == .limit ? .tooLarge : .decodeError, e.message))
        } catch {
            ctx.fail(Reason(.decodeError, "\(error)"))
        }
    }

    /// Replaces the visual signature with the EXIF thumbnail's, when there is a usable one.
    static func signatureFromThumbnail(_ ctx: inout AnalysisContext) {
        guard let thumb = ctx.result.exif?.thumbnail, let h = try? JPEG.readHeader(thumb),
            max(h.width, h.height) >= minThumbnailLongSide, Int64(h.width) * Int64(h.height) <= 1_000_000,
            let d = try? JPEG.decode(thumb, scaleNumerator: 8, maxHeaderPixels: 1_000_000, maxOutputPixels: 1_000_000),
            d.warnings == 0
        else { return }
        let (_, sig) = MetricsComputer.measure(d.bitmap, orientation: ctx.result.exif?.orientation ?? 1, decodeScale: 8)
        ctx.result.signature = sig
        ctx.result.decodes += 1
    }

    /// The payload of the first APP1 "Exif" segment, by walking the JPEG markers (bounded).
    static func exifSegment(_ b: [UInt8]) -> ArraySlice<UInt8>? {
        app1Segment(b, startingWith: Array("Exif".utf8)).flatMap { $0.count >= 6 ? $0 : nil }
    }

    /// The payload (from its signature on) of the first APP1 segment that starts with
    /// `signature` ("Exif", XMP's namespace), by walking the markers before the image data
    /// (at most 64 of them, each length checked against the bytes there are).
    static func app1Segment(_ b: [UInt8], startingWith signature: [UInt8]) -> ArraySlice<UInt8>? {
        var i = 2
        var steps = 0
        while i + 4 <= b.count && steps < 64 {
            steps += 1
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xD8 || (marker >= 0xD0 && marker <= 0xD7) || marker == 0x01 { i += 2; continue }
            if marker == 0xDA || marker == 0xD9 { return nil }  // start of scan: no more metadata
            let len = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard len >= 2, i + 2 + len <= b.count else { return nil }
            if marker == 0xE1, len - 2 >= signature.count, b[(i + 4)..<(i + 4 + signature.count)].elementsEqual(signature) {
                return b[(i + 4)..<(i + 2 + len)]
            }
            i += 2 + len
        }
        return nil
    }
}

/// PNG through libpng: decoded whole within the pixel budget (the simplified API; no DCT
/// scaling), and above it reduced to the working size while reading, row by row (a stitched
/// panorama, a long scrolling screenshot), within the header limit.
enum PNGHandler {
    static func analyze(_ ctx: inout AnalysisContext) {
        let header: PNG.Header
        do {
            header = try PNG.readHeader(ctx.bytes)
        } catch {
            ctx.fail(Reason(.decodeError, "not a readable PNG: \(error.message)"))
            return
        }
        // Over the whole-decode budget the header must be one its bytes can hold (a cut-off file
        // within the budget is decoded and found damaged, as before).
        let pixels = Int64(header.width) * Int64(header.height)
        if pixels > ctx.limits.maxDecodePixels
            && (pixels > ctx.limits.maxHeaderPixels || !ctx.limits.believes(width: header.width, height: header.height, bytes: ctx.bytes.count))
        {
            ctx.tooLargeToAnalyze(width: header.width, height: header.height, limit: ctx.limits.maxHeaderPixels, format: "PNG")
            return
        }
        // The decode's cost is what its samples inflate to (16-bit samples are twice 8-bit's).
        if let (inflated, bits) = PNGHandler.inflatedBytes(ctx.bytes, width: header.width, height: header.height),
            inflated > ctx.limits.maxInflatedBytes
        {
            ctx.tooLargeToAnalyze(
                width: header.width, height: header.height, limit: ctx.limits.maxInflatedBytes * 8 / bits, format: "PNG of \(bits)-bit pixels")
            return
        }
        do {
            let bmp =
                pixels <= ctx.limits.maxDecodePixels
                ? try PNG.decode(ctx.bytes, channels: 3, maxPixels: ctx.limits.maxDecodePixels)
                : try PNG.decodeReduced(ctx.bytes, maxLongSide: MetricsComputer.workingLongSide, maxPixels: ctx.limits.maxHeaderPixels)
            ctx.measure(bmp, fullWidth: header.width, fullHeight: header.height, decodeScale: 8)
        } catch let e as SystemError where e.code == .limit {
            // An interlaced PNG over the budget: reducing it would need it whole in memory.
            ctx.tooLargeToAnalyze(width: header.width, height: header.height, limit: ctx.limits.maxDecodePixels, format: "interlaced PNG")
        } catch {
            ctx.fail(Reason(.decodeError, "PNG: \(error.message)"))
        }
    }

    /// The bytes a PNG's image data inflates to (rows of samples, each with its filter byte) and
    /// its bits per pixel,
    /// from the bit depth and colour type of its IHDR chunk (always the first, at offset 16);
    /// nil when they make no sense (libpng refuses the file then).
    /// See: PNG specification, 11.2.2 IHDR.
    static func inflatedBytes(_ bytes: [UInt8], width: Int, height: Int) -> (bytes: Int64, bitsPerPixel: Int64)? {
        guard bytes.count >= 26 else { return nil }
        let depth = Int64(bytes[24])
        let channels: Int64
        switch bytes[25] {
        case 0, 3: channels = 1  // grey, palette
        case 2: channels = 3  // RGB
        case 4: channels = 2  // grey and alpha
        case 6: channels = 4  // RGBA
        default: return nil
        }
        guard [1, 2, 4, 8, 16].contains(depth) else { return nil }
        let row = (Int64(width) * channels * depth + 7) / 8 + 1
        return (row * Int64(height), channels * depth)
    }
}

extension Error {
    var message: String { (self as? SystemError)?.message ?? "\(self)" }
}
