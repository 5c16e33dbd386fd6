import SnapSortSystem

/// WebP through libwebp: decoded with libwebp's scaler straight to the metrics' working size
/// (long side ≤ `MetricsComputer.workingLongSide`), so every metric is computed at the same
/// working size a JPEG gets. EXIF from the RIFF `EXIF` chunk. Animated WebP is `unsupported`.
enum WebPHandler {
    static func analyze(_ ctx: inout AnalysisContext) {
        if let exif = exifChunk(ctx.bytes) {
            if let fields = Exif.parse(exif) {
                ctx.apply(exif: fields)
            } else {
                ctx.warn(Reason(.badExif, "the EXIF block could not be read; the photo itself is fine"))
            }
        }
        let header: WebP.Header
        do {
            header = try WebP.readHeader(ctx.bytes)
        } catch {
            ctx.fail(Reason(.decodeError, error.message))
            return
        }
        if header.isAnimated {
            ctx.result.width = header.width
            ctx.result.height = header.height
            ctx.fail(Reason(.unsupportedFormat, "animated WebP files are not analyzed"))
            return
        }
        // libwebp's scaler keeps memory to the working size, but its work follows the canvas: a
        // canvas its bytes cannot hold (a 60-byte stream claiming 16383×16383) is a bomb.
        let pixels = Int64(header.width) * Int64(header.height)
        if pixels > ctx.limits.maxDecodePixels
            && (pixels > ctx.limits.maxHeaderPixels || !ctx.limits.believes(width: header.width, height: header.height, bytes: ctx.bytes.count))
        {
            ctx.tooLargeToAnalyze(width: header.width, height: header.height, limit: ctx.limits.maxHeaderPixels, format: "WebP")
            return
        }
        do {
            let bmp = try WebP.decode(
                ctx.bytes, maxLongSide: MetricsComputer.workingLongSide,
                maxHeaderPixels: ctx.limits.maxHeaderPixels, maxDecodePixels: ctx.limits.maxHeaderPixels)
            ctx.measure(bmp, fullWidth: header.width, fullHeight: header.height, decodeScale: 8)
        } catch let e as SystemError {
            ctx.fail(Reason(e.code == .limit ? .tooLarge : .decodeError, e.message))
        } catch let e as WebP.Truncated {
            ctx.result.width = header.width
            ctx.result.height = header.height
            ctx.fail(Reason(.truncated, "the WebP data is cut short (\(e.message)); nothing could be decoded"))
        } catch {
            ctx.fail(Reason(.decodeError, "\(error)"))
        }
    }

    /// The payload of the RIFF `EXIF` chunk (extended WebP), by a bounded chunk walk.
    static func exifChunk(_ b: [UInt8]) -> ArraySlice<UInt8>? {
        let r = Bytes(b, bigEndian: false)
        var i = 12
        var steps = 0
        while i + 8 <= b.count, steps < 64 {
            steps += 1
            guard let id = r.fourCC(i), let size = r.u32(i + 4) else { return nil }
            let n = Int(size)
            guard n <= b.count - i - 8 else { return nil }
            if id == "EXIF" { return b[(i + 8)..<(i + 8 + n)] }
            i += 8 + n + (n & 1)
        }
        return nil
    }
}
