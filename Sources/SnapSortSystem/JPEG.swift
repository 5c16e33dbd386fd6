import CJPEG

/// libjpeg-turbo behind a typed wrapper. All setjmp/longjmp stays in the C shim.
public enum JPEG {
    /// What a header read learned.
    public struct Header: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var progressive: Bool
        public var components: Int
    }

    /// A decoded, DCT-scaled image and the warnings libjpeg raised (a truncated file decodes
    /// "successfully" with warnings).
    public struct Decoded: Sendable {
        public var bitmap: Bitmap
        public var header: Header
        public var warnings: Int
        public var warningMessage: String
        /// Decoded by the shim's own 1/4- and 1/8-scale decoder (`ss_jpeg_reduced_into`: a
        /// clean baseline stream, the pixels libjpeg gives), not by libjpeg.
        public var reducedDecoder = false
    }

    public static func readHeader(_ data: [UInt8]) throws -> Header {
        var info = ss_jpeg_info()
        let rc = data.withUnsafeBufferPointer { ss_jpeg_read_header($0.baseAddress, $0.count, &info) }
        guard rc == 0 else { throw SystemError(.decode, message(&info), operation: "jpeg header") }
        return Header(width: Int(info.width), height: Int(info.height), progressive: info.progressive != 0, components: Int(info.components))
    }

    /// Decodes at `scaleNumerator`/8 of full size: gray (1 channel), RGB (3) or, with `padded`,
    /// RGBX (4: each pixel one 32-bit word, the fourth byte unused) for code that reads four
    /// pixels at a time. `smoothChroma` upsamples chroma as viewers and exporters do (libjpeg's
    /// default, ~10 % slower); without it chroma is replicated, which the metrics do not mind.
    /// At 1/4 or 1/8 with replicated chroma a clean baseline stream is decoded by the shim's own
    /// decoder (`reducedDecoder`), ~20 % faster than libjpeg for the same pixels; `viaLibjpeg`
    /// asks libjpeg regardless (tests and benches comparing the two).
    public static func decode(
        _ data: [UInt8], scaleNumerator: Int, grayscale: Bool = false, padded: Bool = false,
        smoothChroma: Bool = false, viaLibjpeg: Bool = false, maxHeaderPixels: Int64, maxOutputPixels: Int64
    ) throws -> Decoded {
        var info = ss_jpeg_info()
        let mode =
            (grayscale ? SS_JPEG_GRAY : padded ? SS_JPEG_RGBX : SS_JPEG_RGB) | (smoothChroma ? SS_JPEG_FANCY : 0)
            | (viaLibjpeg ? SS_JPEG_LIBJPEG : 0)
        // The decoded size is known from the header (libjpeg's jdiv_round_up(side · n, 8)), so
        // the pixels go straight into the bitmap's array instead of a malloc'd copy of them.
        let n = min(8, max(1, scaleNumerator)), channels = grayscale ? 1 : padded ? 4 : 3
        if let h = try? readHeader(data), h.width > 0, h.height > 0, Int64(h.width) * Int64(h.height) <= maxHeaderPixels {
            let w = (h.width * n + 7) / 8, ht = (h.height * n + 7) / 8
            if Int64(w) * Int64(ht) <= maxOutputPixels {
                var rc: Int32 = 0
                let pixels = [UInt8](unsafeUninitializedCapacity: w * ht * channels) { buf, initialized in
                    rc = data.withUnsafeBufferPointer {
                        ss_jpeg_decode_into(
                            $0.baseAddress, $0.count, Int32(n), Int32(mode), maxHeaderPixels, maxOutputPixels, buf.baseAddress, buf.count, &info)
                    }
                    initialized = rc == 0 ? buf.count : 0
                }
                if rc == 0 {
                    return Decoded(
                        bitmap: Bitmap(width: w, height: ht, channels: channels, pixels: pixels),
                        header: Header(width: Int(info.width), height: Int(info.height), progressive: info.progressive != 0, components: channels),
                        warnings: Int(info.warnings), warningMessage: message(&info), reducedDecoder: info.reduced != 0)
                }
                if rc == -2 { throw SystemError(.limit, message(&info), operation: "jpeg decode") }
                // -3: libjpeg chose another size than the header promised; the copying path below.
                guard rc == -3 else { throw SystemError(.decode, message(&info), operation: "jpeg decode") }
                info = ss_jpeg_info()
            }
        }
        var out: UnsafeMutablePointer<UInt8>?
        let rc = data.withUnsafeBufferPointer {
            ss_jpeg_decode($0.baseAddress, $0.count, Int32(scaleNumerator), Int32(mode), maxHeaderPixels, maxOutputPixels, &out, &info)
        }
        defer { ss_jpeg_free(out) }
        if rc == -2 { throw SystemError(.limit, message(&info), operation: "jpeg decode") }
        guard rc == 0, let out else { throw SystemError(.decode, message(&info), operation: "jpeg decode") }
        let w = Int(info.out_width), h = Int(info.out_height), c = Int(info.components)
        let pixels = Array(UnsafeBufferPointer(start: out, count: w * h * c))
        return Decoded(
            bitmap: Bitmap(width: w, height: h, channels: c, pixels: pixels),
            header: Header(width: Int(info.width), height: Int(info.height), progressive: info.progressive != 0, components: c),
            warnings: Int(info.warnings), warningMessage: message(&info))
    }

    /// Reads the header of the JPEG file at `path` through a 64 KiB buffer (its metadata
    /// segments before the frame header may be any size).
    public static func readHeader(path: String) throws -> Header {
        let fd = try FileDescriptor.openForReading(path)
        defer { fd.close() }
        var info = ss_jpeg_info()
        guard ss_jpeg_read_header_fd(fd.raw, &info) == 0 else { throw SystemError(.decode, message(&info), operation: "jpeg header") }
        return Header(width: Int(info.width), height: Int(info.height), progressive: info.progressive != 0, components: Int(info.components))
    }

    /// Decodes the JPEG file at `path` at `scaleNumerator`/8 of full size, read from the file
    /// through a 64 KiB buffer (libjpeg's source manager): a picture too large to hold in
    /// memory (a 500 MB panorama) costs its decoded pixels, not its bytes. The layouts are
    /// `decode`'s; a file that ends early decodes with a warning.
    public static func decode(
        path: String, scaleNumerator: Int, grayscale: Bool = false, padded: Bool = false, maxHeaderPixels: Int64, maxOutputPixels: Int64
    ) throws -> Decoded {
        let fd = try FileDescriptor.openForReading(path)
        defer { fd.close() }
        var info = ss_jpeg_info()
        let mode = grayscale ? SS_JPEG_GRAY : padded ? SS_JPEG_RGBX : SS_JPEG_RGB
        var out: UnsafeMutablePointer<UInt8>?
        let rc = ss_jpeg_decode_fd(fd.raw, Int32(min(8, max(1, scaleNumerator))), Int32(mode), maxHeaderPixels, maxOutputPixels, &out, &info)
        defer { ss_jpeg_free(out) }
        if rc == -2 { throw SystemError(.limit, message(&info), operation: "jpeg decode") }
        guard rc == 0, let out else { throw SystemError(.decode, message(&info), operation: "jpeg decode") }
        let w = Int(info.out_width), h = Int(info.out_height), c = Int(info.components)
        return Decoded(
            bitmap: Bitmap(width: w, height: h, channels: c, pixels: Array(UnsafeBufferPointer(start: out, count: w * h * c))),
            header: Header(width: Int(info.width), height: Int(info.height), progressive: info.progressive != 0, components: c),
            warnings: Int(info.warnings), warningMessage: message(&info))
    }

    /// Encodes a bitmap; `exif` is a TIFF block written as APP1.
    public static func encode(_ bitmap: Bitmap, quality: Int = 90, progressive: Bool = false, exif: [UInt8]? = nil) throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var len: UInt = 0
        var msg = [CChar](repeating: 0, count: Int(SS_JPEG_MSG))
        let rc = bitmap.pixels.withUnsafeBufferPointer { px in
            (exif ?? []).withUnsafeBufferPointer { ex in
                ss_jpeg_encode(
                    px.baseAddress, Int32(bitmap.width), Int32(bitmap.height), Int32(bitmap.channels), Int32(quality),
                    progressive ? 1 : 0, ex.baseAddress, ex.count, &out, &len, &msg)
            }
        }
        defer { ss_jpeg_free(out) }
        guard rc == 0, let out else { throw SystemError(.decode, String(cBuffer: msg), operation: "jpeg encode") }
        return Array(UnsafeBufferPointer(start: out, count: Int(len)))
    }

    private static func message(_ info: inout ss_jpeg_info) -> String {
        withUnsafeBytes(of: &info.message) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
    }
}
