import CWebP

/// libwebp behind a typed wrapper.
public enum WebP {
    /// What the header says.
    public struct Header: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var hasAlpha: Bool
        public var isAnimated: Bool
        public var isLossless: Bool
    }

    public static func readHeader(_ data: [UInt8]) throws -> Header {
        var info = ss_webp_info()
        var msg = [CChar](repeating: 0, count: Int(SS_WEBP_MSG))
        let rc = data.withUnsafeBufferPointer { ss_webp_info_read($0.baseAddress, $0.count, &info, &msg) }
        guard rc == 0 else { throw SystemError(.decode, String(cBuffer: msg), operation: "webp header") }
        return Header(
            width: Int(info.width), height: Int(info.height), hasAlpha: info.has_alpha != 0,
            isAnimated: info.has_animation != 0, isLossless: info.format == 2)
    }

    /// The data ends before the image does (libwebp decodes nothing then).
    public struct Truncated: Error, Sendable {
        public var message: String
    }

    /// Decodes to RGB, scaled down by libwebp so the long side is at most `maxLongSide` (0 = full).
    /// Throws `.limit` over the pixel limits before allocating, `Truncated` when the data is cut
    /// short, `.decode` otherwise.
    public static func decode(_ data: [UInt8], maxLongSide: Int, maxHeaderPixels: Int64, maxDecodePixels: Int64) throws -> Bitmap {
        var out: UnsafeMutablePointer<UInt8>?
        var w: Int32 = 0, h: Int32 = 0
        var msg = [CChar](repeating: 0, count: Int(SS_WEBP_MSG))
        let rc = data.withUnsafeBufferPointer {
            ss_webp_decode($0.baseAddress, $0.count, Int32(maxLongSide), maxHeaderPixels, maxDecodePixels, &out, &w, &h, &msg)
        }
        defer { ss_webp_free(out) }
        if rc == -2 { throw SystemError(.limit, String(cBuffer: msg), operation: "webp decode") }
        if rc == -3 { throw Truncated(message: String(cBuffer: msg)) }
        guard rc == 0, let out else { throw SystemError(.decode, String(cBuffer: msg), operation: "webp decode") }
        let n = Int(w) * Int(h) * 3
        return Bitmap(width: Int(w), height: Int(h), channels: 3, pixels: Array(UnsafeBufferPointer(start: out, count: n)))
    }

    /// Encodes RGB (quality 0–100; nil = lossless).
    public static func encode(_ bitmap: Bitmap, quality: Float? = 80) throws -> [UInt8] {
        precondition(bitmap.channels == 3, "WebP.encode wants RGB")
        var out: UnsafeMutablePointer<UInt8>?
        var len = 0
        let rc = bitmap.pixels.withUnsafeBufferPointer {
            ss_webp_encode($0.baseAddress, Int32(bitmap.width), Int32(bitmap.height), quality ?? -1, &out, &len)
        }
        defer { ss_webp_free(out) }
        guard rc == 0, let out else { throw SystemError(.decode, "WebP encoding failed", operation: "webp encode") }
        return Array(UnsafeBufferPointer(start: out, count: len))
    }
}
