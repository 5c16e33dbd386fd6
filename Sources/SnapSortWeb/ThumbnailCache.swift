import Foundation
import SnapSortCore
import SnapSortSystem

/// The freedesktop.org thumbnail cache, shared with the file managers:
/// `$XDG_CACHE_HOME/thumbnails/{normal,large,x-large,xx-large}/MD5(URI).png` with the
/// `Thumb::URI` and `Thumb::MTime` tEXt chunks (Thumbnail Managing Standard 0.9).
/// A thumbnail is fresh when both keys match the file; otherwise it is made again.
struct ThumbnailCache: Sendable {
    let root: String

    init(env: Environment) { root = env.cacheHome + "/thumbnails" }

    /// The spec's sizes (the long side in pixels).
    enum Size: String, CaseIterable, Sendable {
        case normal, large
        case xLarge = "x-large"
        case xxLarge = "xx-large"
        var pixels: Int {
            switch self {
            case .normal: 128
            case .large: 256
            case .xLarge: 512
            case .xxLarge: 1024
            }
        }
    }

    /// `file://` + the absolute path's bytes, percent-encoded as GLib's `g_filename_to_uri` does
    /// (a name that is not UTF-8 keeps its bytes, so the file manager's thumbnail is shared).
    static func uri(for path: String) -> String {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/".utf8)
        var out = "file://"
        for b in PathName.encode(path) {
            if allowed.contains(b) { out.append(Character(UnicodeScalar(b))) } else { out += String(format: "%%%02X", b) }
        }
        return out
    }

    func path(for filePath: String, size: Size) -> String {
        "\(root)/\(size.rawValue)/\(MD5.hex(Self.uri(for: filePath))).png"
    }

    /// Marks a video's thumbnail made from the scan's stored poster (upright); one SnapSort made
    /// before, in this process with FFmpeg and without the rotation, is made again.
    static let posterKey = (key: "X-SnapSort::Poster", value: "scan")

    /// The cached PNG if it still describes the file (URI and mtime match).
    func cached(for filePath: String, mtime: Int64, size: Size, video: Bool = false) -> [UInt8]? {
        guard let data = try? FileSystem.readFile(path(for: filePath, size: size), limit: 32 * 1024 * 1024) else { return nil }
        let text = Dictionary(PNG.textChunks(data).map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        guard text["Thumb::URI"] == Self.uri(for: filePath), text["Thumb::MTime"] == String(mtime) else { return nil }
        if video && text["Software"] == "SnapSort" && text[Self.posterKey.key] != Self.posterKey.value { return nil }
        return data
    }

    /// No poster was stored for the video (none of its frames decoded, or an older scan).
    struct NoPoster: Error {}

    /// Makes (or returns the fresh cached) thumbnail of a photo or a video. Written 0600 in 0700
    /// folders, atomically (a temporary file renamed into place), as the spec asks. A video's is
    /// its poster as the scan stored it (`poster`, read only when the cache has none): this
    /// process never runs FFmpeg's decoders on a library's file, only libjpeg on our own JPEG.
    func thumbnail(for item: Item, size: Size, poster: () throws -> [UInt8]? = { nil }) throws -> [UInt8] {
        let st = try FileSystem.status(item.path)
        let mtime = st.mtimeNanoseconds / 1_000_000_000
        let video = item.kind == .video
        if let data = cached(for: item.path, mtime: mtime, size: size, video: video) { return data }
        var bitmap: Bitmap
        if video {
            guard let jpeg = try poster() else { throw NoPoster() }
            bitmap = try JPEG.decode(jpeg, scaleNumerator: 8, maxHeaderPixels: 4_000_000, maxOutputPixels: 4_000_000).bitmap
            let long = max(bitmap.width, bitmap.height)
            if long > size.pixels {
                let f = Double(size.pixels) / Double(long)
                bitmap = Renderer.resize(
                    bitmap, max(1, Int((Double(bitmap.width) * f).rounded())), max(1, Int((Double(bitmap.height) * f).rounded())))
            }
        } else {
            bitmap = try Renderer.render(path: item.path, format: item.format, orientation: item.orientation, longSide: size.pixels)
        }
        var text: [(key: String, value: String)] = [
            ("Thumb::URI", Self.uri(for: item.path)), ("Thumb::MTime", String(mtime)), ("Thumb::Size", String(st.size)),
            ("Software", "SnapSort"),
        ]
        if video { text.append(Self.posterKey) }
        if let w = item.width, let h = item.height {
            text.append(("Thumb::Image::Width", String(w)))
            text.append(("Thumb::Image::Height", String(h)))
        }
        let png = try PNG.encode(bitmap, text: text)
        let dir = "\(root)/\(size.rawValue)"
        try FileSystem.makeDirectories(root, mode: 0o700)
        try FileSystem.makeDirectories(dir, mode: 0o700)
        try FileSystem.writeAtomically(path(for: item.path, size: size), png, mode: 0o600)
        return png
    }
}

/// Larger display renditions as JPEGs in `$XDG_CACHE_HOME/snapsort/renditions/`, keyed by
/// the item's identity, its mtime and the size.
struct RenditionCache: Sendable {
    let root: String
    static let longSide = 2048

    init(env: Environment) { root = env.cacheHome + "/snapsort/renditions" }

    func rendition(for item: Item) throws -> [UInt8] {
        let st = try FileSystem.status(item.path)
        let name = "\(root)/\(item.id)-\(st.mtimeNanoseconds)-\(Self.longSide).jpg"
        if let data = try? FileSystem.readFile(name, limit: 64 * 1024 * 1024), !data.isEmpty { return data }
        let bitmap = try Renderer.render(path: item.path, format: item.format, orientation: item.orientation, longSide: Self.longSide)
        let jpeg = try JPEG.encode(bitmap, quality: 88, progressive: true)
        try FileSystem.makeDirectories(root, mode: 0o700)
        // Older renditions of the same item are stale now.
        if let entries = try? FileSystem.listDirectory(root) {
            for e in entries where e.name.hasPrefix("\(item.id)-") { try? FileSystem.remove(root + "/" + e.name) }
        }
        try FileSystem.writeAtomically(name, jpeg, mode: 0o600)
        return jpeg
    }
}
