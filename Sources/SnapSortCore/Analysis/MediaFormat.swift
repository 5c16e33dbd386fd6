/// What a file is, told by its first bytes (the name only breaks ties and flags a mismatch).
public enum MediaFormat: String, Sendable, CaseIterable {
    case jpeg, png, gif, webp, heic, avif, tiff, bmp, dng, cr2, nef, arw, orf, rw2
    case mp4, mov, m4v
    case threegp = "3gp"
    case mkv, webm, avi
    /// MPEG program stream (DVD-style `.mpg`/`.mpeg`, camcorders of the 2000s).
    case mpg
    /// MPEG transport stream (AVCHD `.mts`/`.m2ts`).
    case mts
    /// Ogg video (Theora: screencasts, Wikimedia Commons, older Linux cameras' software).
    case ogv
    case html, empty, unknown

    public enum Kind: String, Sendable { case photo, video, other }

    public var kind: Kind {
        switch self {
        case .jpeg, .png, .gif, .webp, .heic, .avif, .tiff, .bmp, .dng, .cr2, .nef, .arw, .orf, .rw2: .photo
        case .mp4, .mov, .m4v, .threegp, .mkv, .webm, .avi, .mpg, .mts, .ogv: .video
        case .html, .empty, .unknown: .other
        }
    }

    /// File name extensions (lower case) that the scanner considers media.
    public static let extensions: [String: MediaFormat] = [
        "jpg": .jpeg, "jpeg": .jpeg, "jpe": .jpeg, "jfif": .jpeg, "png": .png, "gif": .gif, "webp": .webp,
        "heic": .heic, "heif": .heic, "hif": .heic, "avif": .avif, "tif": .tiff, "tiff": .tiff, "bmp": .bmp,
        "dng": .dng, "cr2": .cr2, "nef": .nef, "arw": .arw, "orf": .orf, "rw2": .rw2,
        "mp4": .mp4, "mov": .mov, "m4v": .m4v, "3gp": .threegp, "mkv": .mkv, "webm": .webm, "avi": .avi,
        "mpg": .mpg, "mpeg": .mpg, "mts": .mts, "m2ts": .mts, "ogv": .ogv,
    ]

    /// The format a name's extension claims, if any.
    public static func fromName(_ name: String) -> MediaFormat? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        return extensions[name[name.index(after: dot)...].lowercased()]
    }

    /// Sniffs the first bytes (16 or more are best).
    public static func sniff(_ head: ArraySlice<UInt8>, nameHint: MediaFormat?) -> MediaFormat {
        let b = Array(head.prefix(64))
        if b.isEmpty { return .empty }
        func starts(_ p: [UInt8], at: Int = 0) -> Bool { b.count >= at + p.count && Array(b[at..<at + p.count]) == p }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("GIF8".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("RIFF".utf8)), starts(Array("AVI ".utf8), at: 8) { return .avi }
        // MPEG-PS: a pack header; a bare MPEG video stream starts with its sequence header.
        if starts([0x00, 0x00, 0x01, 0xBA]) || starts([0x00, 0x00, 0x01, 0xB3]) { return .mpg }
        // MPEG-TS: 188-byte packets behind the 0x47 sync byte (AVCHD's `.m2ts` puts a 4-byte
        // time code before each); one byte is too weak alone, so the name must say so too.
        if nameHint == .mts, starts([0x47]) || starts([0x47], at: 4) { return .mts }
        // Ogg: the page capture pattern. `.ogg`/`.oga` are sound: only a name that says video
        // makes it one (the probe then says whether it holds a picture).
        if nameHint == .ogv, starts(Array("OggS".utf8)) { return .ogv }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return nameHint == .webm ? .webm : .mkv }
        if starts(Array("BM".utf8)), nameHint == .bmp { return .bmp }
        if starts(Array("II*\0".utf8)) || starts(Array("MM\0*".utf8)) {
            // TIFF-based RAW formats share the header; the extension names the maker.
            if let n = nameHint, [.dng, .cr2, .nef, .arw, .orf, .rw2].contains(n) { return n }
            return .tiff
        }
        if starts(Array("IIRO".utf8)) || starts(Array("IIU\0".utf8)) { return nameHint == .rw2 ? .rw2 : .orf }
        if starts(Array("ftyp".utf8), at: 4) {
            let brand = b.count >= 12 ? String(decoding: b[8..<12], as: UTF8.self) : ""
            switch brand {
            case "heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1": return .heic
            case "avif", "avis": return .avif
            case "qt  ": return .mov
            case "M4V ", "M4VH", "M4VP": return .m4v
            default:
                if brand.hasPrefix("3g") { return .threegp }
                return nameHint?.kind == .video ? nameHint! : .mp4
            }
        }
        if starts(Array("moov".utf8), at: 4) || starts(Array("mdat".utf8), at: 4) || starts(Array("wide".utf8), at: 4) {
            return nameHint?.kind == .video ? nameHint! : .mov
        }
        let text = String(decoding: b.prefix(64), as: UTF8.self).lowercased()
        let trimmed = text.drop { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" || $0 == "\u{FEFF}" }
        if trimmed.hasPrefix("<!doctype html") || trimmed.hasPrefix("<html") || trimmed.hasPrefix("<head")
            || trimmed.hasPrefix("<?xml") && text.contains("html")
        {
            return .html
        }
        return .unknown
    }
}
