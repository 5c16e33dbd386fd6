/// A bounded Matroska / WebM (EBML, RFC 8794; Matroska, RFC 9559) header reader: duration,
/// video size, creation date, muxing and writing applications, from `Info` and `Tracks`.
///
/// Never trusts a size: an element must fit in its parent; an unknown size (all ones) is only
/// accepted for the Segment, and `Info`/`Tracks` are read into memory only up to `maxMasterBytes`.
/// The walk stops at the first `Cluster` (the media data).
public enum EBML {
    static let maxMasterBytes = 4 * 1024 * 1024
    static let maxElements = 10_000
    /// Seconds from 1970-01-01 to 2001-01-01 (Matroska's DateUTC epoch).
    static let epoch2001 = 978_307_200.0

    enum ID {
        static let ebml: UInt64 = 0x1A45_DFA3, docType: UInt64 = 0x4282
        static let segment: UInt64 = 0x1853_8067, cluster: UInt64 = 0x1F43_B675
        static let info: UInt64 = 0x1549_A966, timecodeScale: UInt64 = 0x2A_D7B1, duration: UInt64 = 0x4489
        static let dateUTC: UInt64 = 0x4461, muxingApp: UInt64 = 0x4D80, writingApp: UInt64 = 0x5741
        static let tracks: UInt64 = 0x1654_AE6B, trackEntry: UInt64 = 0xAE, trackType: UInt64 = 0x83
        static let codecID: UInt64 = 0x86, name: UInt64 = 0x536E, video: UInt64 = 0xE0
        static let pixelWidth: UInt64 = 0xB0, pixelHeight: UInt64 = 0xBA
    }

    struct Element {
        var id: UInt64
        var headerSize: Int
        /// nil when the size is "unknown" (all ones).
        var size: Int64?
    }

    /// A variable-length integer at `at` (RFC 8794 §4): its value (marker removed unless `keepMarker`) and length.
    static func vint(_ b: [UInt8], _ at: Int, keepMarker: Bool, maxLength: Int) -> (value: UInt64, length: Int, allOnes: Bool)? {
        guard at >= 0, at < b.count else { return nil }
        let first = b[at]
        guard first != 0 else { return nil }
        let length = first.leadingZeroBitCount + 1
        guard length <= maxLength, at + length <= b.count else { return nil }
        var v = UInt64(keepMarker ? first : first & (0xFF >> length))
        var ones = (first & (0xFF >> length)) == (0xFF >> length)
        for k in 1..<length {
            v = v << 8 | UInt64(b[at + k])
            if b[at + k] != 0xFF { ones = false }
        }
        return (v, length, ones)
    }

    static func element(_ b: [UInt8], _ at: Int) -> Element? {
        guard let id = vint(b, at, keepMarker: true, maxLength: 4),
            let size = vint(b, at + id.length, keepMarker: false, maxLength: 8)
        else { return nil }
        return Element(
            id: id.value, headerSize: id.length + size.length,
            size: size.allOnes ? nil : (size.value <= UInt64(Int64.max) ? Int64(size.value) : nil))
    }

    /// Parses a Matroska or WebM file.
    public static func parse(_ src: ByteSource) -> VideoInfo? {
        var info = VideoInfo(container: "matroska")
        // The EBML header.
        let head = src.read(at: 0, count: 64)
        guard let h = element(head, 0), h.id == ID.ebml, let hsize = h.size, hsize <= 4096 else { return nil }
        let header = src.read(at: Int64(h.headerSize), count: Int(hsize))
        forEachChild(header, 0, header.count) { id, p, n in
            if id == ID.docType { info.brand = cleanText(header[p..<p + n]) }
        }
        // The Segment and its top-level children.
        var offset = Int64(h.headerSize) + hsize
        let sh = src.read(at: offset, count: 16)
        guard let seg = element(sh, 0), seg.id == ID.segment else {
            info.warnings.append("no Segment after the EBML header")
            return info
        }
        var segEnd = src.size
        if let s = seg.size {
            if s > src.size - offset - Int64(seg.headerSize) {
                info.warnings.append("the Segment runs past the end of the file (truncated)")
            } else {
                segEnd = offset + Int64(seg.headerSize) + s
            }
        }
        offset += Int64(seg.headerSize)
        var scale: UInt64 = 1_000_000
        var rawDuration: Double?
        var count = 0
        var sawInfo = false, sawTracks = false
        while offset < segEnd, count < maxElements, !(sawInfo && sawTracks) {
            count += 1
            let eh = src.read(at: offset, count: 12)
            guard let e = element(eh, 0) else { break }
            guard let size = e.size, size <= segEnd - offset - Int64(e.headerSize) else {
                if e.id != ID.cluster { info.warnings.append("an element runs past the end of the Segment") }
                break
            }
            if e.id == ID.cluster { break }
            let p = offset + Int64(e.headerSize)
            if e.id == ID.info || e.id == ID.tracks {
                guard size <= Int64(maxMasterBytes) else { info.warnings.append("a header element is too large"); break }
                let body = src.read(at: p, count: Int(size))
                if e.id == ID.info {
                    sawInfo = true
                    forEachChild(body, 0, body.count) { id, q, n in
                        switch id {
                        case ID.timecodeScale: if let v = uint(body, q, n), v > 0 { scale = v }
                        case ID.duration: rawDuration = float(body, q, n)
                        case ID.dateUTC:
                            if n == 8, let v = uint(body, q, n) { info.creationTime = epoch2001 + Double(Int64(bitPattern: v)) / 1e9 }
                        case ID.muxingApp, ID.writingApp:
                            if let t = cleanText(body[q..<q + n]) {
                                if id == ID.writingApp || info.encoder == nil { info.encoder = t }
                            }
                        default: break
                        }
                    }
                } else {
                    sawTracks = true
                    tracks(body, &info)
                }
            }
            offset = p + size
        }
        if let d = rawDuration, d.isFinite, d > 0 {
            // Duration is a float in TimecodeScale units (nanoseconds each by default).
            let seconds = d * Double(scale) / 1e9
            if seconds.isFinite && seconds > 0 { info.durationSeconds = seconds }
        }
        if !sawInfo { info.warnings.append("no Info element before the media data") }
        return info
    }

    static func tracks(_ b: [UInt8], _ info: inout VideoInfo) {
        forEachChild(b, 0, b.count) { id, p, n in
            guard id == ID.trackEntry else { return }
            var type: UInt64?
            var codec: String?
            var name: String?
            var w: UInt64?, h: UInt64?
            forEachChild(b, p, p + n) { cid, q, m in
                switch cid {
                case ID.trackType: type = uint(b, q, m)
                case ID.codecID: codec = cleanText(b[q..<q + m])
                case ID.name: name = cleanText(b[q..<q + m])
                case ID.video:
                    forEachChild(b, q, q + m) { vid, r, k in
                        if vid == ID.pixelWidth { w = uint(b, r, k) }
                        if vid == ID.pixelHeight { h = uint(b, r, k) }
                    }
                default: break
                }
            }
            if let name, !info.handlerNames.contains(name), info.handlerNames.count < 16 { info.handlerNames.append(name) }
            if type == 1 {
                info.videoTracks += 1
                if info.width == nil, let w, let h, w > 0, h > 0, w < 1 << 20, h < 1 << 20 {
                    info.width = Int(w)
                    info.height = Int(h)
                    info.videoCodec = codec
                }
            } else if type == 2 {
                info.audioTracks += 1
            }
        }
    }

    /// Calls `body(id, payloadStart, payloadLength)` for each child in `[from, to)`, stopping at
    /// the first element that does not fit.
    static func forEachChild(_ b: [UInt8], _ from: Int, _ to: Int, _ body: (UInt64, Int, Int) -> Void) {
        var i = from
        var n = 0
        while i < to, n < maxElements {
            n += 1
            guard let e = element(b, i), let size = e.size, size <= Int64(to - i - e.headerSize) else { return }
            body(e.id, i + e.headerSize, Int(size))
            i += e.headerSize + Int(size)
        }
    }

    static func uint(_ b: [UInt8], _ at: Int, _ n: Int) -> UInt64? {
        guard n >= 1, n <= 8, at >= 0, at + n <= b.count else { return nil }
        var v: UInt64 = 0
        for k in 0..<n { v = v << 8 | UInt64(b[at + k]) }
        return v
    }

    static func float(_ b: [UInt8], _ at: Int, _ n: Int) -> Double? {
        guard let v = uint(b, at, n) else { return nil }
        if n == 4 { return Double(Float(bitPattern: UInt32(v))) }
        if n == 8 { return Double(bitPattern: v) }
        return nil
    }
}
