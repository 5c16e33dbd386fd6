import Foundation
import SnapSortSystem

/// One library item as stored: what `report`, `info`, groups and decks read.
public struct Item: Sendable {
    public var id: Int64
    public var path: String
    public var kind: MediaFormat.Kind
    public var format: String?
    public var bytes: Int64
    public var width: Int?
    public var height: Int?
    public var status: ItemStatus
    public var reason: Reason?
    public var takenAt: String?
    public var takenTimestamp: Double?
    public var takenSource: String?
    public var make: String?
    public var model: String?
    public var lens: String?
    public var software: String?
    public var orientation: Int?
    public var hasGPS: Bool
    public var rating: Int?
    public var durationSeconds: Double?
    public var metricsText: String?
    public var dhash: UInt64?
    public var phash: UInt64?
    public var signature: [UInt8]?
    public var contentHash: [UInt8]?
    public var mtimeNanoseconds: Int64
    /// Which file the row describes (birth time where recorded).
    public var identity: FileIdentity

    public var metrics: Metrics? { metricsText.flatMap(Metrics.decode) }
    public var name: String {
        // The last component, as `split` gave it (a trailing slash is skipped), without an array.
        var end = path.endIndex
        while end > path.startIndex, path[path.index(before: end)] == "/" { end = path.index(before: end) }
        let start = path[..<end].lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        return String(path[start..<end])
    }

    static let columns = """
        id, path, kind, format, size, width, height, status, reason_code, reason, taken_at, taken_ts, taken_source,
        make, model, lens, software, orientation, has_gps, rating, duration_s, metrics, dhash, phash, signature,
        content_hash, mtime_ns, device, inode, btime_ns
        """

    init(_ r: Row) {
        id = r.int(0)!
        path = r.string(1) ?? ""
        kind = r.string(2).flatMap(MediaFormat.Kind.init) ?? .other
        format = r.string(3)
        bytes = r.int(4) ?? 0
        width = r.int(5).map(Int.init)
        height = r.int(6).map(Int.init)
        status = ItemStatus(rawValue: r.string(7) ?? "") ?? .pending
        reason = r.string(8).map { Reason(ReasonCode(rawValue: $0), r.string(9) ?? "") }
        takenAt = r.string(10)
        takenTimestamp = r.double(11)
        takenSource = r.string(12)
        make = r.string(13)
        model = r.string(14)
        lens = r.string(15)
        software = r.string(16)
        orientation = r.int(17).map(Int.init)
        hasGPS = (r.int(18) ?? 0) != 0
        rating = r.int(19).map(Int.init)
        durationSeconds = r.double(20)
        metricsText = r.string(21)
        dhash = r.int(22).map { UInt64(bitPattern: $0) }
        phash = r.int(23).map { UInt64(bitPattern: $0) }
        signature = r.blob(24)
        contentHash = r.blob(25)
        mtimeNanoseconds = r.int(26) ?? 0
        identity = FileIdentity(
            device: UInt64(bitPattern: r.int(27) ?? 0), inode: UInt64(bitPattern: r.int(28) ?? 0),
            birthNanoseconds: r.int(29).flatMap { $0 < 0 ? nil : $0 })
    }
}

extension Library {
    /// Live items, optionally only under some folders (or exactly some files), ordered by path.
    public func items(under paths: [String] = []) throws -> [Item] {
        if paths.isEmpty {
            return try db.rows("SELECT \(Item.columns) FROM files WHERE \(Library.live()) ORDER BY path").map(Item.init)
        }
        var out: [Item] = []
        var seen = Set<Int64>()
        for p in paths {
            let (lo, hi) = Library.prefixBounds(p)
            for r in try db.rows(
                "SELECT \(Item.columns) FROM files WHERE \(Library.live()) AND (path = ? OR (path >= ? AND path < ?)) ORDER BY path", p, lo, hi)
            {
                let item = Item(r)
                if seen.insert(item.id).inserted { out.append(item) }
            }
        }
        return out
    }

    /// One live item by path.
    public func item(path: String) throws -> Item? {
        try db.row("SELECT \(Item.columns) FROM files WHERE \(Library.live()) AND path = ?", path).map(Item.init)
    }

    /// Items by id (gone ones included) in the order of `ids`, in one read; an id with no row
    /// is left out.
    public func items(ids: [Int64]) throws -> [Item] {
        guard !ids.isEmpty else { return [] }
        var byID: [Int64: Item] = [:]
        try db.forEach(
            "SELECT \(Item.columns) FROM files WHERE id IN (SELECT value FROM json_each(?))",
            arguments: ["[" + ids.map(String.init).joined(separator: ",") + "]"]
        ) { r in
            let item = Item(r)
            byID[item.id] = item
        }
        return ids.compactMap { byID[$0] }
    }

    /// One item by id (gone ones included).
    public func item(id: Int64) throws -> Item? {
        try db.row("SELECT \(Item.columns) FROM files WHERE id = ?", id).map(Item.init)
    }

    /// A video's poster as the scan stored it (a small upright JPEG; nil when none decoded).
    public func videoPoster(id: Int64) throws -> [UInt8]? {
        try db.row("SELECT video_poster FROM files WHERE id = ?", id)?.blob(0)
    }
}
