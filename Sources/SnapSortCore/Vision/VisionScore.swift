import SnapSortSystem

/// The face term of the keeper score (`KeeperScore`), from tier 2's eye aspect ratios.
enum VisionScore {
    /// Eye openness (mean eye aspect ratio of a face) at and above which eyes count as open.
    static let open = 0.25
    /// … at and below which they count as closed (Soukupová & Čech: closed < ~0.2).
    static let closed = 0.15

    /// 0 when the worst face's eyes are open, or when the photo has no faces (neutral); down to −1
    /// when they are closed; linear in between.
    static func eyes(worst: Double?) -> Double {
        guard let worst else { return 0 }
        return -min(1, max(0, (open - worst) / (open - closed)))
    }

    /// The worst face's eye openness per photo with faces (current tier-2 results only).
    /// Of the photos `ids` only, unless nil.
    static func worstEyes(_ db: Database, of ids: [Int64]? = nil) throws -> [Int64: Double] {
        var out: [Int64: Double] = [:]
        try Grouper.forEach(
            db,
            """
            SELECT v.file_id, v.worst_eyes FROM vision v JOIN files f ON f.id = v.file_id
            WHERE v.status = \(VisionStatus.ok.sql) AND v.worst_eyes IS NOT NULL AND v.analyzed_at IS f.analyzed_at
            """, column: "v.file_id", in: ids
        ) { out[$0.int(0)!] = $0.double(1) }
        return out
    }
}
