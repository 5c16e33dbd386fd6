import Foundation
import SnapSortCore
import SnapSortSystem

/// `/media/ID/{thumb,display,original}`: photos and videos by library id only. The path of
/// a file never comes from the request, so nothing outside the library can be named.
extension WebApp {
    func media(_ r: HTTPRequest) throws -> HTTPResponse {
        guard r.method == "GET" || r.method == "HEAD" else { throw WebError.methodNotAllowed(r, allow: "GET, HEAD") }
        let parts = r.path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, parts[1] == "media",
            !parts[2].isEmpty, parts[2].count <= 18, parts[2].allSatisfy({ $0.isASCII && $0.isNumber }),
            let id = Int64(parts[2])
        else { throw WebError.notFound() }
        guard let item = try withLibrary({ try $0.item(id: id) }), item.status != .gone,
            item.kind == .photo || item.kind == .video
        else { throw WebError.notFound("no such item") }
        // A file the scan could not read is drawn as what it is, not decoded again (a 500).
        if item.kind == .photo && item.status != .ok && parts[3] != "original" { return placeholder(item) }
        // Deleted or moved since the scan: a 404 the page words, not a 500 with stat's errno.
        if parts[3] != "original", FileSystem.lstatusIfExists(item.path)?.isRegular != true {
            throw WebError.notFound("the file is not there now (moved or deleted since the scan)")
        }
        switch parts[3] {
        case "thumb":
            let size = ThumbnailCache.Size(rawValue: r.query["size"] ?? "large") ?? .large
            // A video's poster: the frame the scan stored when one decoded, else the neutral picture.
            guard item.kind == .photo || item.status == .ok else { return placeholder(item) }
            do {
                let png = try thumbnails.thumbnail(for: item, size: size, poster: { try withLibrary { try $0.videoPoster(id: id) } })
                return HTTPResponse(status: 200, contentType: "image/png", png, headers: [("Cache-Control", "private, max-age=3600")])
            } catch is Renderer.Unsupported {
                return placeholder(item)
            } catch  where item.kind == .video {
                return placeholder(item)
            }
        case "display":
            guard item.kind == .photo else { return placeholder(item) }
            do {
                let jpeg = try renditions.rendition(for: item)
                return HTTPResponse(status: 200, contentType: "image/jpeg", jpeg, headers: [("Cache-Control", "private, max-age=3600")])
            } catch is Renderer.Unsupported {
                return placeholder(item)
            }
        case "original":
            return try original(item, r)
        default:
            throw WebError.notFound()
        }
    }

    /// A neutral picture for what cannot be drawn (a video FFmpeg cannot decode, a RAW without preview).
    func placeholder(_ item: Item) -> HTTPResponse {
        let label = item.kind == .video ? "▶" : item.status == .unreadable || item.status == .damaged ? "⚠" : (item.format ?? "?").uppercased()
        let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 160 120"><rect width="160" height="120" fill="#8a8f98"/>\
            <text x="80" y="70" font-family="sans-serif" font-size="28" fill="#fff" text-anchor="middle">\(label)</text></svg>
            """
        return HTTPResponse(status: 200, contentType: "image/svg+xml", Array(svg.utf8), headers: [("Cache-Control", "no-cache")])
    }

    static let mediaTypes: [String: String] = [
        "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp", "heic": "image/heic",
        "avif": "image/avif", "bmp": "image/bmp", "tiff": "image/tiff", "mp4": "video/mp4", "m4v": "video/mp4",
        "mov": "video/quicktime", "3gp": "video/3gpp", "mkv": "video/x-matroska", "webm": "video/webm", "avi": "video/x-msvideo", "ogv": "video/ogg",
        "mpg": "video/mpeg", "mts": "video/mp2t",
    ]

    /// The file itself, with HTTP range requests (RFC 9110 §14) so videos stream and seek.
    func original(_ item: Item, _ r: HTTPRequest) throws -> HTTPResponse {
        guard let st = FileSystem.lstatusIfExists(item.path), st.isRegular else { throw WebError.notFound("the file is gone") }
        let size = st.size
        let type = Self.mediaTypes[item.format ?? ""] ?? "application/octet-stream"
        var headers: [(String, String)] = [("Content-Type", type), ("Accept-Ranges", "bytes"), ("Cache-Control", "private, no-cache")]
        guard let range = r.header("range") else {
            return HTTPResponse(status: 200, headers: headers, body: .file(path: item.path, offset: 0, length: size))
        }
        guard let (start, end) = Self.parseRange(range, size: size) else {
            headers.append(("Content-Range", "bytes */\(size)"))
            return HTTPResponse(status: 416, headers: headers, body: .bytes([]))
        }
        headers.append(("Content-Range", "bytes \(start)-\(end)/\(size)"))
        return HTTPResponse(status: 206, headers: headers, body: .file(path: item.path, offset: start, length: end - start + 1))
    }

    /// One `bytes=` range: `a-b`, `a-`, or `-n` (the last n bytes). nil: unsatisfiable or
    /// malformed (several ranges are answered with the first one only).
    static func parseRange(_ header: String, size: Int64) -> (Int64, Int64)? {
        guard header.hasPrefix("bytes="), size > 0 else { return nil }
        let first = header.dropFirst(6).split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let ab = first.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard ab.count == 2 else { return nil }
        if ab[0].isEmpty {
            guard let n = Int64(ab[1]), n > 0 else { return nil }
            return (max(0, size - n), size - 1)
        }
        guard let a = Int64(ab[0]), a >= 0, a < size else { return nil }
        if ab[1].isEmpty { return (a, size - 1) }
        guard let b = Int64(ab[1]), b >= a else { return nil }
        return (a, min(b, size - 1))
    }
}
