/// A bounded walk over the IFDs of a TIFF-based RAW file (DNG, CR2, NEF, ARW, ORF, RW2) that
/// lists the embedded JPEG previews. See TIFF 6.0 §2 (IFD structure), DNG 1.6 §"SubIFDs" and
/// the RW2 `JpgFromRaw` tag (0x2E); Olympus ORF previews sit in the EXIF IFD's maker note.
///
/// Nothing read is trusted: IFD offsets must lie inside the file and are visited once (loops end),
/// at most `maxIFDs` IFDs of at most `maxEntries` entries each are read, SubIFD nesting is capped,
/// and a preview must lie wholly inside the file and be under `maxPreviewBytes`.
public enum TIFFWalker {
    static let maxIFDs = 64
    static let maxEntries = 1024
    static let maxDepth = 4
    public static let maxPreviewBytes: Int64 = 64 * 1024 * 1024

    /// An embedded JPEG: where it is, and the size its IFD claims (0 when the IFD says nothing).
    public struct Preview: Sendable, Equatable {
        public var offset: Int64
        public var length: Int64
        public var width: Int
        public var height: Int
        /// Which tag pointed at it ("JPEGInterchangeFormat", "StripOffsets", "JpgFromRaw").
        public var tag: String
    }

    /// What the walk found.
    public struct Result: Sendable, Equatable {
        public var littleEndian: Bool
        /// The TIFF magic: 42, or a maker's (0x4F52 "RO" ORF, 0x55 RW2).
        public var magic: UInt16
        public var previews: [Preview] = []
        public var ifdCount = 0
        /// The largest image an IFD describes (the raw data's size, usually).
        public var rawWidth = 0
        public var rawHeight = 0
        public var warnings: [String] = []
        /// A preview or an IFD starts or ends past the file's end: the file was cut short (a
        /// failed copy), not a format SnapSort cannot read.
        public var pastTheEnd = false
    }

    /// Walks `src`. nil when it does not start with a TIFF header.
    public static func walk(_ src: ByteSource) -> Result? {
        let head = src.read(at: 0, count: 8)
        guard head.count == 8 else { return nil }
        let little: Bool
        switch (head[0], head[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        let h = Bytes(head, bigEndian: !little)
        guard let magic = h.u16(2), [42, 0x4F52, 0x5352, 0x55].contains(magic), let first = h.u32(4) else { return nil }
        var r = Result(littleEndian: little, magic: magic)
        var visited = Set<Int64>()
        var queue: [(Int64, Int)] = [(Int64(first), 0)]
        while let (offset, depth) = queue.first, r.ifdCount < maxIFDs {
            queue.removeFirst()
            guard offset >= 8, offset < src.size, visited.insert(offset).inserted else {
                if offset != 0 && !visited.contains(offset) {
                    r.warnings.append("an IFD offset points outside the file")
                    if offset >= src.size { r.pastTheEnd = true }
                }
                continue
            }
            r.ifdCount += 1
            guard let next = readIFD(src, at: offset, little: little, depth: depth, queue: &queue, result: &r) else { continue }
            if next != 0 { queue.append((Int64(next), depth)) }
        }
        return r
    }

    struct Entry {
        var tag: UInt16
        var type: UInt16
        var count: UInt32
        var valueField: Int64  // where the value (≤ 4 bytes) or its offset sits
    }

    static func typeSize(_ t: UInt16) -> Int64 {
        switch t {
        case 1, 2, 6, 7: return 1
        case 3, 8: return 2
        case 4, 9, 11, 13: return 4
        case 5, 10, 12: return 8
        default: return 0
        }
    }

    /// Reads one IFD; returns the next IFD's offset (0 = none), or nil when unreadable.
    static func readIFD(
        _ src: ByteSource, at offset: Int64, little: Bool, depth: Int,
        queue: inout [(Int64, Int)], result r: inout Result
    ) -> UInt32? {
        let countBytes = Bytes(src.read(at: offset, count: 2), bigEndian: !little)
        guard let n = countBytes.u16(0), n > 0 else { return nil }
        guard Int(n) <= maxEntries else { r.warnings.append("an IFD claims \(n) entries"); return nil }
        let body = Bytes(src.read(at: offset + 2, count: Int(n) * 12 + 4), bigEndian: !little)
        let entries = (0..<Int(n)).compactMap { i -> Entry? in
            guard let tag = body.u16(i * 12), let type = body.u16(i * 12 + 2), let count = body.u32(i * 12 + 4) else { return nil }
            return Entry(tag: tag, type: type, count: count, valueField: offset + 2 + Int64(i * 12 + 8))
        }
        /// The values of an entry (integers), at most `limit` of them, reading out of line when > 4 bytes.
        func values(_ e: Entry, limit: Int = 64) -> [UInt64] {
            let size = typeSize(e.type)
            guard size > 0, e.type == 3 || e.type == 4 || e.type == 1 || e.type == 13 else { return [] }
            let count = min(Int(e.count), limit)
            let total = size * Int64(e.count)
            var at = e.valueField
            if total > 4 {
                guard let off = Bytes(src.read(at: e.valueField, count: 4), bigEndian: !little).u32(0) else { return [] }
                at = Int64(off)
            }
            let b = Bytes(src.read(at: at, count: count * Int(size)), bigEndian: !little)
            return (0..<count).compactMap { i in
                switch size {
                case 1: return b.u8(i).map(UInt64.init)
                case 2: return b.u16(i * 2).map(UInt64.init)
                default: return b.u32(i * 4).map(UInt64.init)
                }
            }
        }
        var width = 0, height = 0, compression = 0, photometric = 0
        var jpegOffset: UInt64?, jpegLength: UInt64?
        var strips: [UInt64] = [], stripCounts: [UInt64] = []
        for e in entries {
            switch e.tag {
            case 0x100: width = Int(values(e).first ?? 0)
            case 0x101: height = Int(values(e).first ?? 0)
            case 0x103: compression = Int(values(e).first ?? 0)
            case 0x106: photometric = Int(values(e).first ?? 0)
            case 0x111: strips = values(e, limit: 2)
            case 0x117: stripCounts = values(e, limit: 2)
            case 0x201: jpegOffset = values(e).first
            case 0x202: jpegLength = values(e).first
            case 0x8769:  // the EXIF IFD: walked for its maker note
                if depth + 1 < maxDepth, let v = values(e).first { queue.append((Int64(v), depth + 1)) }
            case 0x927C where e.type == 7 && e.count >= 16:  // MakerNote
                if let off = Bytes(src.read(at: e.valueField, count: 4), bigEndian: !little).u32(0) {
                    makerNotePreview(src, at: Int64(off), length: Int64(e.count), &r)
                }
            case 0x14A:  // SubIFDs
                if depth + 1 < maxDepth { for v in values(e, limit: 16) { queue.append((Int64(v), depth + 1)) } }
            case 0x2E where e.type == 7 && e.count > 4:  // RW2 JpgFromRaw: the JPEG is the value itself
                if let off = Bytes(src.read(at: e.valueField, count: 4), bigEndian: !little).u32(0) {
                    add(Preview(offset: Int64(off), length: Int64(e.count), width: 0, height: 0, tag: "JpgFromRaw"), src, &r)
                }
            default: break
            }
        }
        if width > 0, height > 0, width < 1 << 17, height < 1 << 17, width * height > r.rawWidth * r.rawHeight {
            r.rawWidth = width
            r.rawHeight = height
        }
        if let o = jpegOffset, let l = jpegLength {
            add(Preview(offset: Int64(o), length: Int64(l), width: 0, height: 0, tag: "JPEGInterchangeFormat"), src, &r)
        }
        // A one-strip JPEG-compressed image (CR2's IFD0, DNG previews) — unless it is the raw
        // data itself: CFA (32803) or LinearRaw (34892) photometric is lossless JPEG of the sensor.
        if compression == 6 || compression == 7, strips.count == 1, stripCounts.count == 1,
            photometric != 32803, photometric != 34892
        {
            add(Preview(offset: Int64(strips[0]), length: Int64(stripCounts[0]), width: width, height: height, tag: "StripOffsets"), src, &r)
        }
        return body.u32(Int(n) * 12)
    }

    /// Olympus and OM System keep an ORF's large preview in the maker note, not in an IFD the
    /// TIFF structure points at: the maker note ("OLYMPUS\0" + byte order + 3, or
    /// "OM SYSTEM\0\0\0" + byte order + 4) is an IFD whose CameraSettings entry (0x2020) points at a
    /// sub-IFD with PreviewImageStart (0x101) and PreviewImageLength (0x102); every offset counts
    /// from the maker note's first byte (exiftool's Olympus tags). Bounded like the rest: both IFDs
    /// must lie inside the maker note, entries are capped, the preview must lie inside the file.
    static func makerNotePreview(_ src: ByteSource, at base: Int64, length: Int64, _ r: inout Result) {
        let head = src.read(at: base, count: 16)
        guard head.count == 16 else { return }
        let ifdStart: Int64, order: Int
        if head.starts(with: Array("OLYMPUS\0".utf8)) {
            (ifdStart, order) = (12, 8)
        } else if head.starts(with: Array("OM SYSTEM\0\0\0".utf8)) {
            (ifdStart, order) = (16, 12)
        } else {
            return
        }
        let little: Bool
        switch (head[order], head[order + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return
        }
        /// The entries of the IFD `rel` bytes into the maker note: tag, type and the value
        /// (SHORT or LONG held in the entry).
        func entries(at rel: Int64) -> [(tag: UInt16, type: UInt16, value: UInt32)]? {
            guard rel >= 0, rel + 2 <= length else { return nil }
            guard let n = Bytes(src.read(at: base + rel, count: 2), bigEndian: !little).u16(0), n > 0, Int(n) <= maxEntries,
                rel + 2 + Int64(n) * 12 <= length
            else { return nil }
            let body = Bytes(src.read(at: base + rel + 2, count: Int(n) * 12), bigEndian: !little)
            return (0..<Int(n)).compactMap { i in
                guard let tag = body.u16(i * 12), let type = body.u16(i * 12 + 2) else { return nil }
                let value = type == 3 ? body.u16(i * 12 + 8).map(UInt32.init) : body.u32(i * 12 + 8)
                return value.map { (tag, type, $0) }
            }
        }
        guard let top = entries(at: ifdStart),
            let settings = top.first(where: { $0.tag == 0x2020 && ($0.type == 13 || $0.type == 4) }),
            let sub = entries(at: Int64(settings.value)),
            let start = sub.first(where: { $0.tag == 0x101 })?.value,
            let count = sub.first(where: { $0.tag == 0x102 })?.value, count > 0
        else { return }
        add(Preview(offset: base + Int64(start), length: Int64(count), width: 0, height: 0, tag: "OlympusPreview"), src, &r)
    }

    static func add(_ p: Preview, _ src: ByteSource, _ r: inout Result) {
        guard p.offset > 0, p.length > 2, p.length <= maxPreviewBytes, p.offset <= src.size - p.length else {
            r.warnings.append("a preview lies outside the file")
            if p.offset > 0, p.length > 2, p.length <= maxPreviewBytes { r.pastTheEnd = true }
            return
        }
        if !r.previews.contains(where: { $0.offset == p.offset }) { r.previews.append(p) }
    }
}
