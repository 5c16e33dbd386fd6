import CHeif

/// libheif behind a typed wrapper (the C shim owns every libheif handle).
public enum HEIF {
    /// What one read of a HEIF file learned; `bitmap` is nil when nothing was decoded.
    public struct Analysis: Sendable {
        /// The primary image's size after its transformations (irot/imir are applied by libheif,
        /// so EXIF orientation must not be applied again; see ISO/IEC 23008-12 §6.5).
        public var width: Int
        public var height: Int
        public var hasAlpha: Bool
        public var thumbnailCount: Int
        /// The largest thumbnail's size (0×0 when there is none).
        public var thumbnailWidth: Int
        public var thumbnailHeight: Int
        /// Whether `bitmap` is the thumbnail rather than the primary image.
        public var fromThumbnail: Bool
        public var bitmap: Bitmap?
        /// The EXIF item as a bare TIFF block (or "Exif\0\0" + TIFF), for `Exif.parse`.
        public var exif: [UInt8]?
    }

    /// Reads `data`; decodes the largest thumbnail whose long side is ≥ `minThumbnailLongSide`,
    /// else the primary image (when `decode`). Throws `.limit` over the pixel limits, before decoding.
    public static func analyze(
        _ data: [UInt8], decode: Bool = true, minThumbnailLongSide: Int,
        maxHeaderPixels: Int64, maxDecodePixels: Int64
    ) throws -> Analysis {
        var r = ss_heif_result()
        let rc = data.withUnsafeBufferPointer {
            ss_heif_analyze($0.baseAddress, $0.count, decode ? 1 : 0, Int32(minThumbnailLongSide), maxHeaderPixels, maxDecodePixels, &r)
        }
        defer { ss_heif_release(&r) }
        let message = withUnsafeBytes(of: &r.message) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
        if rc == -2 { throw SystemError(.limit, message, operation: "heif decode") }
        guard rc == 0 else { throw SystemError(.decode, message, operation: "heif decode") }
        var a = Analysis(
            width: Int(r.width), height: Int(r.height), hasAlpha: r.has_alpha != 0, thumbnailCount: Int(r.thumbnails),
            thumbnailWidth: Int(r.thumb_width), thumbnailHeight: Int(r.thumb_height), fromThumbnail: r.from_thumbnail != 0)
        if let p = r.pixels, r.out_width > 0, r.out_height > 0 {
            let w = Int(r.out_width), h = Int(r.out_height)
            a.bitmap = Bitmap(width: w, height: h, channels: 3, pixels: Array(UnsafeBufferPointer(start: p, count: w * h * 3)))
        }
        if let e = r.exif, r.exif_len > 0 { a.exif = Array(UnsafeBufferPointer(start: e, count: r.exif_len)) }
        return a
    }

    /// Whether this libheif has an HEVC encoder (tests that write HEIC skip without one).
    public static var canEncode: Bool { ss_heif_can_encode() != 0 }

    /// Encodes an RGB bitmap as HEIC with an optional thumbnail and EXIF (tests, the demo library).
    public static func encode(_ bitmap: Bitmap, quality: Int = 80, thumbnailLongSide: Int = 0, exif: [UInt8]? = nil) throws -> [UInt8] {
        precondition(bitmap.channels == 3, "HEIF.encode wants RGB")
        var out: UnsafeMutablePointer<UInt8>?
        var len = 0
        var msg = [CChar](repeating: 0, count: Int(SS_HEIF_MSG))
        let rc = bitmap.pixels.withUnsafeBufferPointer { px in
            (exif ?? []).withUnsafeBufferPointer { ex in
                ss_heif_encode(
                    px.baseAddress, Int32(bitmap.width), Int32(bitmap.height), Int32(quality), Int32(thumbnailLongSide),
                    ex.baseAddress, ex.count, &out, &len, &msg)
            }
        }
        defer { ss_heif_free(out) }
        guard rc == 0, let out else { throw SystemError(.decode, String(cBuffer: msg), operation: "heif encode") }
        return Array(UnsafeBufferPointer(start: out, count: len))
    }
}
