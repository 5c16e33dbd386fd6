import SnapSortSystem

/// HEIC/HEIF through libheif.
///
/// What each metric gets: when the file carries a thumbnail whose long side is at least
/// `JPEGHandler.targetLongSide` (the size a JPEG is DCT-scaled to), every metric and the visual
/// signature come from that thumbnail (~6 ms instead of ~0.8 s for a 12 MP HEVC decode): it is the
/// same working size a JPEG gets, so sharpness and blur stay comparable. Smaller thumbnails (phones
/// write 320 px ones) would flatter blurry photos, so then the primary image is decoded. libheif
/// applies the container's rotation and mirroring (irot/imir), so EXIF orientation is recorded but
/// not applied again. EXIF comes from the HEIF `Exif` item through libexif.
enum HEIFHandler {
    static func analyze(_ ctx: inout AnalysisContext) {
        let a: HEIF.Analysis
        do {
            a = try HEIF.analyze(
                ctx.bytes, minThumbnailLongSide: JPEGHandler.targetLongSide,
                maxHeaderPixels: ctx.limits.maxHeaderPixels, maxDecodePixels: ctx.limits.maxDecodePixels)
        } catch let e as SystemError where e.code == .limit {
            // Its size, without decoding: a 48 MP "HEIF Max" photo without a large thumbnail is
            // a real picture too large to analyze, not a broken file.
            if let dims = try? HEIF.analyze(ctx.bytes, decode: false, minThumbnailLongSide: 0, maxHeaderPixels: .max, maxDecodePixels: .max) {
                ctx.tooLargeToAnalyze(width: dims.width, height: dims.height, limit: ctx.limits.maxDecodePixels, format: "HEIF")
            } else {
                ctx.fail(Reason(.tooLarge, e.message))
            }
            return
        } catch let e as SystemError {
            ctx.fail(Reason(.decodeError, e.message))
            return
        } catch {
            ctx.fail(Reason(.decodeError, "\(error)"))
            return
        }
        if let block = a.exif {
            if let exif = Exif.parse(block[...]) {
                ctx.apply(exif: exif)
            } else {
                ctx.warn(Reason(.badExif, "the EXIF block could not be read; the photo itself is fine"))
            }
        }
        guard let bmp = a.bitmap else {
            ctx.fail(Reason(.decodeError, "the HEIF image decoded to nothing"))
            return
        }
        let (m, sig) = MetricsComputer.measure(bmp, orientation: 1, decodeScale: 8)
        ctx.result.metrics = m
        ctx.result.signature = sig
        ctx.result.decodes += 1
        ctx.result.width = a.width
        ctx.result.height = a.height
    }
}
