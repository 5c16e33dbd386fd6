import CPNG

/// libpng's simplified API behind a typed wrapper.
public enum PNG {
    public struct Header: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var hasAlpha: Bool
    }

    public static func readHeader(_ data: [UInt8]) throws -> Header {
        var w: Int32 = 0, h: Int32 = 0, a: Int32 = 0
        var msg = [CChar](repeating: 0, count: Int(SS_PNG_MSG))
        let rc = data.withUnsafeBufferPointer { ss_png_read_header($0.baseAddress, $0.count, &w, &h, &a, &msg) }
        guard rc == 0 else { throw SystemError(.decode, String(cBuffer: msg), operation: "png header") }
        return Header(width: Int(w), height: Int(h), hasAlpha: a != 0)
    }

    /// Decodes to gray (1) or RGB (3); alpha is composited on white.
    public static func decode(_ data: [UInt8], channels: Int = 3, maxPixels: Int64) throws -> Bitmap {
        var out: UnsafeMutablePointer<UInt8>?
        var w: Int32 = 0, h: Int32 = 0
        var msg = [CChar](repeating: 0, count: Int(SS_PNG_MSG))
        let rc = data.withUnsafeBufferPointer { ss_png_decode($0.baseAddress, $0.count, Int32(channels), maxPixels, &out, &w, &h, &msg) }
        defer { ss_png_free(out) }
        if rc == -2 { throw SystemError(.limit, String(cBuffer: msg), operation: "png decode") }
        guard rc == 0, let out else { throw SystemError(.decode, String(cBuffer: msg), operation: "png decode") }
        let count = Int(w) * Int(h) * channels
        return Bitmap(width: Int(w), height: Int(h), channels: channels, pixels: Array(UnsafeBufferPointer(start: out, count: count)))
    }

    /// Decodes to RGB (alpha composited on white), area-averaged while reading to a long side
    /// of at most `maxLongSide`: for a picture over the whole-decode budget, in a few rows of
    /// memory. A header over `maxPixels` and an interlaced PNG are `.limit` errors.
    public static func decodeReduced(_ data: [UInt8], maxLongSide: Int, maxPixels: Int64) throws -> Bitmap {
        var out: UnsafeMutablePointer<UInt8>?
        var w: Int32 = 0, h: Int32 = 0
        var msg = [CChar](repeating: 0, count: Int(SS_PNG_REDUCED_MSG))
        let rc = data.withUnsafeBufferPointer { ss_png_decode_reduced($0.baseAddress, $0.count, Int32(maxLongSide), maxPixels, &out, &w, &h, &msg) }
        defer { ss_png_free(out) }
        if rc == -2 { throw SystemError(.limit, String(cBuffer: msg), operation: "png decode") }
        guard rc == 0, let out else { throw SystemError(.decode, String(cBuffer: msg), operation: "png decode") }
        return Bitmap(width: Int(w), height: Int(h), channels: 3, pixels: Array(UnsafeBufferPointer(start: out, count: Int(w) * Int(h) * 3)))
    }

    public static func encode(_ bitmap: Bitmap) throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var len = 0
        var msg = [CChar](repeating: 0, count: Int(SS_PNG_MSG))
        let rc = bitmap.pixels.withUnsafeBufferPointer {
            ss_png_encode($0.baseAddress, Int32(bitmap.width), Int32(bitmap.height), Int32(bitmap.channels), &out, &len, &msg)
        }
        defer { ss_png_free(out) }
        guard rc == 0, let out else { throw SystemError(.decode, String(cBuffer: msg), operation: "png encode") }
        return Array(UnsafeBufferPointer(start: out, count: len))
    }
}
