import CPNG
import Glibc

extension PNG {
    /// Encodes a bitmap (gray, RGB or RGBA) with tEXt chunks in the given order, e.g. the
    /// freedesktop thumbnail spec's `Thumb::URI` and `Thumb::MTime`. Keys are 1–79 Latin-1
    /// bytes; values are written as given (Latin-1 per the PNG spec; URIs are ASCII).
    public static func encode(_ bitmap: Bitmap, text: [(key: String, value: String)]) throws -> [UInt8] {
        for (k, _) in text where k.utf8.isEmpty || k.utf8.count > 79 {
            throw SystemError(.decode, "invalid PNG text keyword", operation: "png encode")
        }
        var out: UnsafeMutablePointer<UInt8>?
        var len = 0
        var msg = [CChar](repeating: 0, count: Int(SS_PNG_TEXT_MSG))
        let keys = text.map { strdup($0.key) }
        let values = text.map { strdup($0.value) }
        defer {
            keys.forEach { free($0) }
            values.forEach { free($0) }
        }
        let rc = bitmap.pixels.withUnsafeBufferPointer { px in
            keys.map { UnsafePointer($0) }.withUnsafeBufferPointer { k in
                values.map { UnsafePointer($0) }.withUnsafeBufferPointer { v in
                    ss_png_encode_text(
                        px.baseAddress, Int32(bitmap.width), Int32(bitmap.height), Int32(bitmap.channels),
                        k.baseAddress, v.baseAddress, Int32(text.count), &out, &len, &msg)
                }
            }
        }
        defer { ss_png_free(out) }
        guard rc == 0, let out else { throw SystemError(.decode, String(cBuffer: msg), operation: "png encode") }
        return Array(UnsafeBufferPointer(start: out, count: len))
    }

    /// The tEXt chunks of a PNG, in file order (for checking thumbnails).
    public static func textChunks(_ data: [UInt8]) -> [(key: String, value: String)] {
        var out: [(String, String)] = []
        guard data.count > 8, Array(data[0..<8]) == [137, 80, 78, 71, 13, 10, 26, 10] else { return out }
        var i = 8
        while i + 8 <= data.count {
            let len = Int(data[i]) << 24 | Int(data[i + 1]) << 16 | Int(data[i + 2]) << 8 | Int(data[i + 3])
            let type = String(decoding: data[(i + 4)..<(i + 8)], as: UTF8.self)
            let start = i + 8
            guard len >= 0, start + len + 4 <= data.count else { break }
            if type == "tEXt", let nul = data[start..<(start + len)].firstIndex(of: 0) {
                let key = String(decoding: data[start..<nul], as: UTF8.self)
                let value = String(decoding: data[(nul + 1)..<(start + len)], as: UTF8.self)
                out.append((key, value))
            }
            if type == "IEND" { break }
            i = start + len + 4
        }
        return out
    }
}
