import CQR

/// zbar QR code decoding behind a typed wrapper.
public enum QR {
    /// The first QR payload zbar finds in `bitmap` (gray or RGB), nil when there is none.
    public static func decode(_ bitmap: Bitmap, maxPayloadBytes: Int = 4096) throws -> String? {
        let gray = bitmap.channels == 1 ? bitmap.pixels : luma(bitmap)
        var out = [CChar](repeating: 0, count: maxPayloadBytes)
        let n = gray.withUnsafeBufferPointer { g in ss_qr_scan(g.baseAddress, Int32(bitmap.width), Int32(bitmap.height), &out, out.count) }
        guard n != -2 else { throw SystemError(.unsupported, "zbar is not installed (libzbar.so.0)", operation: "qr scan") }
        guard n >= 0 else { throw SystemError(.decode, "zbar could not scan the image", operation: "qr scan") }
        return n > 0 ? String(cBuffer: out) : nil
    }

    /// BT.601 luma of an interleaved RGB(A) bitmap.
    static func luma(_ b: Bitmap) -> [UInt8] { b.gray().pixels }
}
