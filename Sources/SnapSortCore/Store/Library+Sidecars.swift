import Foundation
import SnapSortSystem

/// A file that goes with an item: the RAW of a RAW+JPEG pair, a Live Photo's clip.
public struct Sidecar: Sendable, Equatable {
    public var id: Int64
    public var path: String
    public var format: String?
    /// "raw", or "live" (a Live Photo's motion clip).
    public var kind: String
}

extension Library {
    static let rawFormats = ["dng", "cr2", "nef", "arw", "orf", "rw2"]
    static let pairedFormats = ["jpeg", "heic"]

    /// The sidecars of item `id` (live ones only): review and trash move them with the item.
    public func sidecars(of id: Int64) throws -> [Sidecar] {
        try db.rows(
            """
            SELECT f.id, f.path, f.format, s.kind FROM sidecars s JOIN files f ON f.id = s.sidecar_id
            WHERE s.file_id = ? AND \(Library.live("f")) ORDER BY f.path
            """, id
        ).map { Sidecar(id: $0.int(0)!, path: $0.string(1) ?? "", format: $0.string(2), kind: $0.string(3) ?? "raw") }
    }

    /// The ratings of paired RAWs, by the id of the JPEG they go with (rated RAWs only): a
    /// RAW+JPEG pair is one item, and darktable and Lightroom rate the RAW (`DSC_0101.NEF.xmp`).
    /// Of the items `ids` only, unless nil.
    static func rawRatings(in db: Database, of ids: [Int64]? = nil) throws -> [Int64: Int] {
        var out: [Int64: Int] = [:]
        try Grouper.forEach(
            db, "SELECT s.file_id, f.rating FROM sidecars s JOIN files f ON f.id = s.sidecar_id WHERE f.rating IS NOT NULL AND f.rating != 0",
            column: "s.file_id", in: ids
        ) { out[$0.int(0)!] = Int($0.int(1)!) }
        return out
    }

    /// The item a sidecar belongs to, if `id` is one.
    public func sidecarOwner(of id: Int64) throws -> Int64? {
        try db.scalar("SELECT file_id FROM sidecars WHERE sidecar_id = ?", id)
    }

    /// Re-pairs RAW and JPEG (or HEIC) files at or under `dir`: same folder, same name stem
    /// (case-insensitive: `IMG_0001.CR2` + `IMG_0001.JPG`), capture times within a second of each
    /// other (sub-seconds differ between the two writes; a lone stem match with another time is a
    /// different shot that reused a number). A Live Photo's motion clip (`IMG_0001.MOV` of a few
    /// seconds beside `IMG_0001.HEIC`, starting within `Sidecars.livePhotoSeconds` of the still)
    /// pairs the same way: it is no video card of its own, and never trashed apart from its
    /// photo. Pairs are rebuilt from the live rows each time, so renames, deletions and moves are
    /// reflected. Returns how many pairs exist under `dir`.
    @discardableResult
    public func pairSidecars(under dir: String) throws -> Int {
        let (lo, hi) = Library.prefixBounds(dir)
        let formats = (Library.rawFormats + Library.pairedFormats + ["mov"]).map { "'\($0)'" }.joined(separator: ",")
        let rows = try db.rows(
            """
            SELECT id, path, format, taken_ts, duration_s, status FROM files
            WHERE \(Library.live()) AND format IN (\(formats)) AND (path = ? OR (path >= ? AND path < ?))
            """, dir, lo, hi)
        struct Entry {
            var id: Int64
            var isRaw: Bool
            var taken: Double?
            /// A clip short enough to be a Live Photo's motion.
            var isClip = false
            var isVideo = false
            var status: ItemStatus?
            /// Read whole (`ok`): only such a photo takes a RAW or a clip with it.
            var isReadable: Bool { status == .ok }
            /// Cut short or unreadable: a RAW so is no sidecar of its good JPEG, but an item of
            /// its own in Unreadable, so the user learns it is broken.
            var isBroken: Bool { status == .damaged || status == .unreadable }
        }
        var byStem: [String: [Entry]] = [:]
        for r in rows {
            guard let id = r.int(0), let path = r.string(1) else { continue }
            let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
            let name = path[slash...]
            guard let dot = name.lastIndex(of: "."), dot > name.startIndex else { continue }
            var stem = name[..<dot].lowercased()
            // Pixel's RAW+JPEG: PXL_….RAW-01.MP.COVER.jpg with PXL_….RAW-02.ORIGINAL.dng.
            if let r = stem.range(of: ".raw-0") { stem = String(stem[..<r.lowerBound]) }
            let key = String(path[..<slash]) + stem
            let format = r.string(2) ?? ""
            var e = Entry(id: id, isRaw: Library.rawFormats.contains(format), taken: r.double(3))
            e.isVideo = format == "mov"
            e.status = r.string(5).flatMap(ItemStatus.init(rawValue:))
            e.isClip = e.isVideo && (r.double(4).map { $0 > 0 && $0 <= Sidecars.livePhotoSeconds } ?? false)
            byStem[key, default: []].append(e)
        }
        var pairs: [(Int64, Int64, String)] = []
        for (_, entries) in byStem where entries.count > 1 {
            // A JPEG or HEIC cut short, empty or unreadable is no item to carry its intact RAW or
            // clip: trashing it from Unreadable took the good RAW along. They stand apart.
            let raws = entries.filter { $0.isRaw && !$0.isBroken }, items = entries.filter { !$0.isRaw && !$0.isVideo && $0.isReadable }
            for raw in raws {
                guard let t = raw.taken,
                    let item = items.first(where: { $0.taken.map { abs($0 - t) < 1 } ?? false })
                else { continue }
                pairs.append((item.id, raw.id, "raw"))
            }
            for clip in entries where clip.isClip {
                guard let t = clip.taken,
                    let item = items.first(where: { $0.taken.map { abs($0 - t) <= Sidecars.livePhotoSeconds } ?? false })
                else { continue }
                pairs.append((item.id, clip.id, "live"))
            }
        }
        try db.transaction {
            try db.run(
                """
                DELETE FROM sidecars WHERE sidecar_id IN (SELECT id FROM files WHERE path = ? OR (path >= ? AND path < ?))
                   OR file_id IN (SELECT id FROM files WHERE path = ? OR (path >= ? AND path < ?))
                """, dir, lo, hi, dir, lo, hi)
            for (item, sidecar, kind) in pairs {
                try db.run("INSERT OR REPLACE INTO sidecars(file_id, sidecar_id, kind) VALUES(?, ?, ?)", item, sidecar, kind)
            }
        }
        return pairs.count
    }
}
