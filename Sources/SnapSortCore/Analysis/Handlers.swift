import SnapSortSystem

/// JPEG: libjpeg-turbo with DCT scaling; EXIF from the APP1 segment through libexif.
enum JPEGHandler {
    /// The working size the metrics want on the long side; DCT scaling stops just above it.
    static let targetLongSide = 960

    static func analyze(_ ctx: inout AnalysisContext) {
        if let app1 = exifSegment(ctx.bytes) {
            if let exif = Exif.parse(app1) {
                ctx.apply(exif: exif)
            } else {
                ctx.warn(Reason("bad_exif", "the EXIF block could not be read; the photo itself is fine"))
            }
        }
        let header: JPEG.Header
        do {
            header = try JPEG.readHeader(ctx.bytes)
        } catch {
            ctx.fail(.unreadable, Reason("decode_error", "not a readable JPEG: \(error.message)"))
            return
        }
        guard header.width > 0, header.height > 0 else {
            ctx.fail(.unreadable, Reason("decode_error", "the JPEG header has no size"))
            return
        }
        if Int64(header.width) * Int64(header.height) > ctx.limits.maxHeaderPixels {
            ctx.fail(.unreadable, Reason("too_large", "the header claims \(header.width)×\(header.height) pixels, over the \(ctx.limits.maxHeaderPixels / 1_000_000) megapixel limit"))
            return
        }
        let long = max(header.width, header.height)
        var scale = 8
        for s in 1...8 where long * s / 8 >= targetLongSide { scale = s; break }
        if long < targetLongSide { scale = 8 }
        do {
            let d = try JPEG.decode(ctx.bytes, scaleNumerator: scale, maxHeaderPixels: ctx.limits.maxHeaderPixels, maxOutputPixels: ctx.limits.maxDecodePixels)
            ctx.measure(d.bitmap, fullWidth: header.width, fullHeight: header.height, decodeScale: scale)
            if d.warnings > 0 {
                ctx.result.status = .damaged
                ctx.result.reason = Reason("truncated", "the JPEG data is damaged or cut short (\(d.warningMessage))")
            }
        } catch let e as SystemError {
            ctx.fail(.unreadable, Reason(e.code == .limit ? "too_large" : "decode_error", e.message))
        } catch {
            ctx.fail(.unreadable, Reason("decode_error", "\(error)"))
        }
    }

    /// The payload of the first APP1 "Exif" segment, by walking the JPEG markers (bounded).
    static func exifSegment(_ b: [UInt8]) -> ArraySlice<UInt8>? {
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
            if marker == 0xE1, len >= 8, b[i + 4] == 0x45, b[i + 5] == 0x78, b[i + 6] == 0x69, b[i + 7] == 0x66 {
                return b[(i + 4)..<(i + 2 + len)]
            }
            i += 2 + len
        }
        return nil
    }
}

/// PNG through libpng's simplified API (no DCT scaling: decoded whole, within the pixel limit).
enum PNGHandler {
    static func analyze(_ ctx: inout AnalysisContext) {
        let header: PNG.Header
        do {
            header = try PNG.readHeader(ctx.bytes)
        } catch {
            ctx.fail(.unreadable, Reason("decode_error", "not a readable PNG: \(error.message)"))
            return
        }
        if Int64(header.width) * Int64(header.height) > ctx.limits.maxDecodePixels {
            ctx.fail(.unreadable, Reason("too_large", "the header claims \(header.width)×\(header.height) pixels, over the \(ctx.limits.maxDecodePixels / 1_000_000) megapixel decode limit"))
            return
        }
        do {
            let bmp = try PNG.decode(ctx.bytes, channels: 3, maxPixels: ctx.limits.maxDecodePixels)
            ctx.measure(bmp, fullWidth: header.width, fullHeight: header.height, decodeScale: 8)
        } catch let e as SystemError {
            ctx.fail(.unreadable, Reason(e.code == .limit ? "too_large" : "decode_error", "PNG: \(e.message)"))
        } catch {
            ctx.fail(.unreadable, Reason("decode_error", "\(error)"))
        }
    }
}

extension Error {
    var message: String { (self as? SystemError)?.message ?? "\(self)" }
}
