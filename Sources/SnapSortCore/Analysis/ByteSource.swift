/// Random access to a file's bytes for the container parsers (ISO BMFF boxes, EBML, TIFF IFDs).
///
/// The parsers never trust a size or an offset they read: every read goes through `read`, which
/// returns at most what exists, and every caller checks what it got. Pure Swift on purpose: the
/// fuzz harnesses in `fuzz/` compile these files on their own.
public protocol ByteSource {
    /// The total size in bytes.
    var size: Int64 { get }
    /// Up to `count` bytes at `offset` (fewer at the end, none past it).
    func read(at offset: Int64, count: Int) -> [UInt8]
}

/// Bytes already in memory.
public struct MemorySource: ByteSource {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public var size: Int64 { Int64(bytes.count) }
    public func read(at offset: Int64, count: Int) -> [UInt8] {
        guard offset >= 0, offset < Int64(bytes.count), count > 0 else { return [] }
        let start = Int(offset)
        return Array(bytes[start..<min(bytes.count, start + count)])
    }
}

/// Big- and little-endian integer reads on a byte array, answering nil out of bounds.
struct Bytes {
    let b: [UInt8]
    var bigEndian = true
    init(_ b: [UInt8], bigEndian: Bool = true) {
        self.b = b
        self.bigEndian = bigEndian
    }
    var count: Int { b.count }
    func u8(_ at: Int) -> UInt8? { at >= 0 && at < b.count ? b[at] : nil }
    func u16(_ at: Int) -> UInt16? {
        guard at >= 0, at + 2 <= b.count else { return nil }
        return bigEndian ? UInt16(b[at]) << 8 | UInt16(b[at + 1]) : UInt16(b[at + 1]) << 8 | UInt16(b[at])
    }
    func u32(_ at: Int) -> UInt32? {
        guard at >= 0, at + 4 <= b.count else { return nil }
        var v: UInt32 = 0
        for k in 0..<4 { v |= UInt32(b[at + (bigEndian ? k : 3 - k)]) << (8 * UInt32(3 - k)) }
        return v
    }
    func u64(_ at: Int) -> UInt64? {
        guard let hi = u32(bigEndian ? at : at + 4), let lo = u32(bigEndian ? at + 4 : at) else { return nil }
        return UInt64(hi) << 32 | UInt64(lo)
    }
    func fourCC(_ at: Int) -> String? {
        guard at >= 0, at + 4 <= b.count else { return nil }
        return String(decoding: b[at..<at + 4].map { $0 >= 0x20 && $0 < 0x7F ? $0 : 0x3F }, as: UTF8.self)
    }
    func slice(_ at: Int, _ n: Int) -> ArraySlice<UInt8>? {
        guard at >= 0, n >= 0, at <= b.count, n <= b.count - at else { return nil }
        return b[at..<at + n]
    }
}

/// Text from a metadata field: UTF-8 up to the first NUL, trimmed, control characters dropped,
/// at most 200 bytes (it ends up in a database column and a report line).
func cleanText<S: Sequence>(_ bytes: S) -> String? where S.Element == UInt8 {
    var out: [UInt8] = []
    for c in bytes {
        if c == 0 { break }
        if c < 0x20 { continue }
        out.append(c)
        if out.count >= 200 { break }
    }
    let s = String(decoding: out, as: UTF8.self)
    var t = Substring(s)
    while t.first == " " { t = t.dropFirst() }
    while t.last == " " { t = t.dropLast() }
    return t.isEmpty ? nil : String(t)
}
