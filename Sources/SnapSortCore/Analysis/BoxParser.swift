/// What a video container says about itself, read without decoding a frame.
public struct VideoInfo: Sendable, Equatable {
    /// "isobmff" (MP4, MOV, M4V, 3GP) or "matroska" (MKV, WebM).
    public var container: String
    /// ISO BMFF `ftyp` major brand (e.g. "isom", "qt  "), or the EBML DocType ("matroska", "webm").
    public var brand: String?
    public var compatibleBrands: [String] = []
    /// Exact duration in seconds: the container's duration over its timescale, no rounding.
    public var durationSeconds: Double?
    /// The first video track's display size, after its rotation (90°/270° swap the sides).
    public var width: Int?
    public var height: Int?
    /// Clockwise rotation of the first video track from its matrix (0, 90, 180, 270).
    public var rotation = 0
    /// Creation time, seconds since 1970 UTC (mvhd creation_time, or Matroska DateUTC).
    public var creationTime: Double?
    /// QuickTime `com.apple.quicktime.creationdate` as written (local time with offset).
    public var creationDateText: String?
    /// The encoder / muxing application (`©too`, `©swr`, Matroska MuxingApp/WritingApp).
    public var encoder: String?
    /// Handler names of the tracks (`hdlr`), e.g. "VideoHandler", "Core Media Video".
    public var handlerNames: [String] = []
    public var make: String?
    public var model: String?
    /// The first video track's codec (sample entry type such as "avc1", "hvc1"; Matroska CodecID).
    public var videoCodec: String?
    public var videoTracks = 0
    public var audioTracks = 0
    /// Problems met on the way (a box running past the end of the file, a truncated `moov`).
    public var warnings: [String] = []

    public init(container: String) { self.container = container }
}

/// A bounded ISO BMFF (ISO/IEC 14496-12) / QuickTime box parser.
///
/// It never trusts a size field: a box must fit in its parent (or, at the top level, in the file;
/// one that runs past the end is read as far as it goes and flagged as truncated), a 64-bit size
/// must be at least its header, nesting is capped at `maxDepth` and the number of boxes at
/// `maxBoxes`; `moov` is read into memory only up to `maxMoovBytes`. Media data is never read.
public enum BoxParser {
    static let maxDepth = 12
    static let maxBoxes = 20_000
    public static let maxMoovBytes = 64 * 1024 * 1024
    /// Seconds from 1904-01-01 (the QuickTime epoch) to 1970-01-01.
    static let epoch1904: UInt64 = 2_082_844_800

    struct Box {
        var type: String
        var start: Int64  // of the header
        var headerSize: Int
        var size: Int64  // including the header, clamped to what exists
        var truncated: Bool
        var payload: Int64 { start + Int64(headerSize) }
        var end: Int64 { start + size }
    }

    /// Reads the header of the box at `offset`, with `limit` the end of its parent.
    static func header(_ src: ByteSource, at offset: Int64, limit: Int64) -> Box? {
        guard offset >= 0, offset + 8 <= limit else { return nil }
        let h = Bytes(src.read(at: offset, count: 16))
        guard let size32 = h.u32(0), let type = h.fourCC(4) else { return nil }
        var header = 8
        var size: Int64
        switch size32 {
        case 0: size = limit - offset  // to the end of the enclosing space
        case 1:
            guard let big = h.u64(8), big <= UInt64(Int64.max) else { return nil }
            header = 16
            size = Int64(big)
        default: size = Int64(size32)
        }
        guard size >= Int64(header) else { return nil }
        var truncated = false
        if size > limit - offset {
            truncated = true
            size = limit - offset
            guard size >= Int64(header) else { return nil }
        }
        return Box(type: type, start: offset, headerSize: header, size: size, truncated: truncated)
    }

    /// Parses a file's top-level boxes and its `moov`.
    public static func parse(_ src: ByteSource) -> VideoInfo? {
        var info = VideoInfo(container: "isobmff")
        var offset: Int64 = 0
        var count = 0
        var sawFtyp = false, sawMoov = false
        while let box = header(src, at: offset, limit: src.size), count < maxBoxes {
            count += 1
            if box.truncated && box.type != "mdat" { info.warnings.append("the \(box.type) box runs past the end of the file") }
            if box.truncated && box.type == "mdat" { info.warnings.append("the media data runs past the end of the file (truncated)") }
            switch box.type {
            case "ftyp":
                sawFtyp = true
                let b = Bytes(src.read(at: box.payload, count: Int(min(box.size - Int64(box.headerSize), 4096))))
                info.brand = b.fourCC(0)
                var i = 8
                while i + 4 <= b.count, info.compatibleBrands.count < 32 {
                    if let c = b.fourCC(i) { info.compatibleBrands.append(c) }
                    i += 4
                }
            case "moov":
                sawMoov = true
                let n = box.size - Int64(box.headerSize)
                guard n <= Int64(maxMoovBytes) else {
                    info.warnings.append("the moov box is \(n) bytes, over the \(maxMoovBytes) byte limit")
                    break
                }
                let payload = src.read(at: box.payload, count: Int(n))
                var state = State()
                walk(Bytes(payload), from: 0, to: payload.count, depth: 0, path: ["moov"], info: &info, state: &state)
                finish(&info, state)
            default:
                break
            }
            offset = box.end
            if box.size <= 0 { break }
        }
        guard sawFtyp || sawMoov else { return nil }
        if !sawMoov { info.warnings.append("no moov box (the file is cut short, or still being written)") }
        return info
    }

    /// Per-track facts gathered during the walk.
    struct Track {
        var handler: String?
        var handlerName: String?
        var width: Double?
        var height: Double?
        var rotation = 0
        var timescale: UInt32?
        var duration: UInt64?
        var codec: String?
    }

    struct State {
        var movieTimescale: UInt32?
        var movieDuration: UInt64?
        var fragmentDuration: UInt64?
        var tracks: [Track] = []
        var keys: [String] = []
        var creation: Double?
        var boxes = 0
    }

    static let containers: Set<String> = ["trak", "mdia", "minf", "stbl", "udta", "edts", "mvex", "dinf"]

    static func walk(_ b: Bytes, from: Int, to: Int, depth: Int, path: [String], info: inout VideoInfo, state: inout State) {
        guard depth < maxDepth else { info.warnings.append("boxes nested deeper than \(maxDepth)"); return }
        var i = from
        while i + 8 <= to, state.boxes < maxBoxes {
            state.boxes += 1
            guard let size32 = b.u32(i), let type = b.fourCC(i + 4) else { return }
            var header = 8
            var size: Int
            if size32 == 1 {
                guard let big = b.u64(i + 8), big <= UInt64(to - i) else { info.warnings.append("bad size in \(type)"); return }
                header = 16
                size = Int(big)
            } else if size32 == 0 {
                size = to - i
            } else {
                size = Int(size32)
            }
            guard size >= header, size <= to - i else {
                info.warnings.append("the \(type) box does not fit in \(path.last ?? "its parent")")
                return
            }
            let p = i + header, end = i + size
            switch type {
            case "trak":
                state.tracks.append(Track())
                walk(b, from: p, to: end, depth: depth + 1, path: path + [type], info: &info, state: &state)
            case _ where containers.contains(type):
                walk(b, from: p, to: end, depth: depth + 1, path: path + [type], info: &info, state: &state)
            case "meta":
                // ISO `meta` is a full box (4 bytes of version and flags); QuickTime's is not.
                let skip = b.fourCC(p + 4) == "hdlr" ? 0 : 4
                walk(b, from: p + skip, to: end, depth: depth + 1, path: path + [type], info: &info, state: &state)
            case "mvhd": mvhd(b, p, end, &state)
            case "mehd":
                if let v = b.u8(p) { state.fragmentDuration = v == 1 ? b.u64(p + 4) : b.u32(p + 4).map(UInt64.init) }
            case "tkhd": if !state.tracks.isEmpty { tkhd(b, p, end, &state.tracks[state.tracks.count - 1]) }
            case "mdhd": if !state.tracks.isEmpty { mdhd(b, p, end, &state.tracks[state.tracks.count - 1]) }
            case "hdlr":
                // Only the media handler (mdia/hdlr) types a track; minf/hdlr is the data handler.
                if path.last == "mdia", !state.tracks.isEmpty {
                    state.tracks[state.tracks.count - 1].handler = b.fourCC(p + 8)
                    state.tracks[state.tracks.count - 1].handlerName = handlerName(b, p + 24, end)
                }
            case "stsd":
                if !state.tracks.isEmpty, state.tracks[state.tracks.count - 1].codec == nil, let n = b.u32(p + 4), n > 0 {
                    state.tracks[state.tracks.count - 1].codec = b.fourCC(p + 12)
                }
            case "keys": keys(b, p, end, &state)
            case "ilst": ilst(b, p, end, depth: depth + 1, info: &info, state: &state)
            case "\u{3F}too", "\u{3F}swr", "\u{3F}mak", "\u{3F}mod":
                // QuickTime user data text (©too …: the © byte 0xA9 reads as "?"): 2-byte length,
                // 2-byte language, then the text; inside `ilst` the same atoms hold a `data` box.
                if path.last == "udta", let len = b.u16(p), let text = b.slice(p + 4, min(Int(len), end - p - 4)) {
                    setText(type, cleanText(text), &info)
                }
            default: break
            }
            i = end
        }
    }

    static func setText(_ type: String, _ value: String?, _ info: inout VideoInfo) {
        guard let value else { return }
        switch type {
        case "\u{3F}too", "\u{3F}swr", "software", "encoder": if info.encoder == nil { info.encoder = value }
        case "\u{3F}mak", "make": if info.make == nil { info.make = value }
        case "\u{3F}mod", "model": if info.model == nil { info.model = value }
        case "creationdate": if info.creationDateText == nil { info.creationDateText = value }
        default: break
        }
    }

    static func mvhd(_ b: Bytes, _ p: Int, _ end: Int, _ state: inout State) {
        guard let v = b.u8(p) else { return }
        let created: UInt64?
        if v == 1 {
            guard p + 32 <= end else { return }
            created = b.u64(p + 4)
            state.movieTimescale = b.u32(p + 20)
            state.movieDuration = b.u64(p + 24)
        } else {
            guard p + 20 <= end else { return }
            created = b.u32(p + 4).map(UInt64.init)
            state.movieTimescale = b.u32(p + 12)
            state.movieDuration = b.u32(p + 16).map(UInt64.init)
            if state.movieDuration == UInt64(UInt32.max) { state.movieDuration = nil }  // "unknown"
        }
        if let c = created, c > epoch1904, c < epoch1904 + 200 * 365 * 86400 {
            state.creation = Double(c - epoch1904)
        }
    }

    static func tkhd(_ b: Bytes, _ p: Int, _ end: Int, _ t: inout Track) {
        guard let v = b.u8(p) else { return }
        // version 1: 8+8+4+4+8 bytes of times, ids and duration; version 0: 4+4+4+4+4.
        let afterTimes = p + 4 + (v == 1 ? 32 : 20)
        let matrix = afterTimes + 8 + 8
        let dims = matrix + 36
        guard dims + 8 <= end, let a = b.u32(matrix), let bb = b.u32(matrix + 4),
            let w = b.u32(dims), let h = b.u32(dims + 4)
        else { return }
        t.width = Double(w) / 65536
        t.height = Double(h) / 65536
        // The matrix's a and b (16.16 fixed): (0,1) 90°, (-1,0) 180°, (0,-1) 270°.
        let fa = Int32(bitPattern: a), fb = Int32(bitPattern: bb)
        if fa == 0 && fb > 0 { t.rotation = 90 } else if fa < 0 && fb == 0 { t.rotation = 180 } else if fa == 0 && fb < 0 { t.rotation = 270 }
    }

    static func mdhd(_ b: Bytes, _ p: Int, _ end: Int, _ t: inout Track) {
        guard let v = b.u8(p) else { return }
        if v == 1 {
            guard p + 32 <= end else { return }
            t.timescale = b.u32(p + 20)
            t.duration = b.u64(p + 24)
        } else {
            guard p + 20 <= end else { return }
            t.timescale = b.u32(p + 12)
            t.duration = b.u32(p + 16).map(UInt64.init)
            if t.duration == UInt64(UInt32.max) { t.duration = nil }
        }
    }

    /// `hdlr` names are C strings in ISO files and Pascal strings (a length byte) in QuickTime.
    static func handlerName(_ b: Bytes, _ at: Int, _ end: Int) -> String? {
        guard at < end, let bytes = b.slice(at, end - at), let first = bytes.first else { return nil }
        if Int(first) == bytes.count - 1 || (Int(first) < bytes.count && first > 0 && first < 0x20) {
            return cleanText(bytes.dropFirst().prefix(Int(first)))
        }
        return cleanText(bytes)
    }

    /// QuickTime metadata keys (`mdta` namespace): `ilst` items refer to them by 1-based index.
    static func keys(_ b: Bytes, _ p: Int, _ end: Int, _ state: inout State) {
        guard let n = b.u32(p + 4) else { return }
        var i = p + 8
        for _ in 0..<min(Int(n), 256) {
            guard let size = b.u32(i), size >= 8, Int(size) <= end - i, let name = b.slice(i + 8, Int(size) - 8) else { return }
            state.keys.append(String(decoding: name, as: UTF8.self))
            i += Int(size)
        }
    }

    static func ilst(_ b: Bytes, _ p: Int, _ end: Int, depth: Int, info: inout VideoInfo, state: inout State) {
        var i = p
        var n = 0
        while i + 8 <= end, n < 512 {
            n += 1
            guard let size = b.u32(i), size >= 8, Int(size) <= end - i, let type = b.fourCC(i + 4), let rawType = b.u32(i + 4) else { return }
            // The item holds a `data` box: size, "data", type indicator (4), locale (4), value.
            if let dsize = b.u32(i + 8), dsize >= 16, Int(dsize) <= Int(size) - 8, b.fourCC(i + 12) == "data",
                let value = b.slice(i + 24, Int(dsize) - 16)
            {
                let text = cleanText(value)
                if rawType >= 1, Int(rawType) <= state.keys.count {
                    let key = state.keys[Int(rawType) - 1]
                    let short = key.split(separator: ".").last.map(String.init) ?? key
                    setText(short, text, &info)
                } else {
                    setText(type, text, &info)
                }
            }
            i += Int(size)
        }
    }

    static func finish(_ info: inout VideoInfo, _ state: State) {
        if let ts = state.movieTimescale, ts > 0 {
            if let d = state.movieDuration, d > 0 {
                info.durationSeconds = Double(d) / Double(ts)
            } else if let d = state.fragmentDuration, d > 0 {
                info.durationSeconds = Double(d) / Double(ts)
            }
        }
        if info.durationSeconds == nil {
            // No movie duration (a fragmented file without mehd): the longest track.
            let durations = state.tracks.compactMap { t -> Double? in
                guard let ts = t.timescale, ts > 0, let d = t.duration, d > 0 else { return nil }
                return Double(d) / Double(ts)
            }
            info.durationSeconds = durations.max()
        }
        info.creationTime = state.creation
        for t in state.tracks {
            if let name = t.handlerName, !info.handlerNames.contains(name) { info.handlerNames.append(name) }
            switch t.handler {
            case "vide":
                info.videoTracks += 1
                if info.width == nil, let w = t.width, let h = t.height, w >= 1, h >= 1 {
                    let swap = t.rotation == 90 || t.rotation == 270
                    info.width = Int((swap ? h : w).rounded())
                    info.height = Int((swap ? w : h).rounded())
                    info.rotation = t.rotation
                    info.videoCodec = t.codec
                }
            case "soun": info.audioTracks += 1
            default: break
            }
        }
    }
}
