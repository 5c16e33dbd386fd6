import Foundation
import SnapSortSystem

/// Staging: what is decided `trash` and not yet committed, and where each file stands.
extension Trash {
    /// Items staged for the Trash, oldest decision first; only `fileID`'s when given.
    public static func staged(library: Library, fileID: Int64? = nil) throws -> [StagedItem] {
        let rows = try stagedRows(library, fileID: fileID)
        let last = try LastCopies.of(library: library, fileIDs: rows.map(\.id))
        return rows.map { s in
            let (st, unreachable) = reach(s.path)
            let same = (st.map(s.isAsReviewedOrSameBytes) ?? false) && s.ratedSinceStaged(library) == nil
            return StagedItem(
                fileID: s.id, path: s.path, bytes: s.row.size, decidedAt: s.decidedAt, changedSinceReview: !same && unreachable == nil,
                missing: st == nil && unreachable == nil, unreachable: unreachable, lastCopy: last[s.id] != nil,
                lastCopySet: last[s.id]?.setID, lastCopyOfDuplicates: last[s.id]?.isDuplicateSet ?? false,
                lastCopySetName: last[s.id]?.setName)
        }
    }

    /// A staged file's status, or why it cannot be had: nil and nil when it is not there.
    static func reach(_ path: String) -> (FileStatus?, String?) {
        do {
            return (try FileSystem.lstatusUnlessMissing(path), nil)
        } catch let e as SystemError {
            return (nil, e.code.errnoText ?? e.message)
        } catch {
            return (nil, "\(error)")
        }
    }

    /// The sidecars that go with a staged photo at a commit (`sidecarMayTravel`): named before
    /// the commit, so nothing goes to the Trash unseen.
    public static func travellingSidecars(of item: StagedItem, library: Library) throws -> [(path: String, bytes: Int64)] {
        try Sidecars.all(of: item.fileID, path: item.path, library: library).compactMap { side in
            guard try sidecarMayTravel(library, side, photoID: item.fileID), let st = FileSystem.lstatusIfExists(side), st.isRegular else {
                return nil
            }
            return (side, st.size)
        }
    }

    /// A staged file's row, and what the user saw when deciding.
    struct StagedRow {
        var id: Int64
        var path: String
        var row: FileStatus
        var contentHash: [UInt8]?
        var reviewedSize: Int64?, reviewedMtime: Int64?, reviewedHash: [UInt8]?
        var decidedAt: Double
        /// The file the verdict was given to (nil in decisions from before it was recorded).
        var reviewedIdentity: FileIdentity?

        /// Whether the file at the path now (`st`) is the one the verdict was given to: the same
        /// device and inode, and the same birth time where one was recorded — not another file
        /// that took over the row, whatever its bytes (an inode number is handed out again at
        /// once after a delete). The last line behind the scanner's move rules.
        func isReviewedFile(_ st: FileStatus) -> Bool {
            guard let reviewed = reviewedIdentity else { return true }
            guard st.device == reviewed.device, st.inode == reviewed.inode else { return false }
            guard reviewed.birthNanoseconds != nil else { return true }
            return FileIdentity.of(path).map(reviewed.isSameFile) ?? false
        }

        /// Identity: the row is what the user reviewed, and the file on disk (`st`) is the row.
        func isAsReviewed(_ st: FileStatus) -> Bool {
            let reviewedSame =
                (reviewedSize == nil || reviewedSize == row.size) && (reviewedMtime == nil || reviewedMtime == row.mtimeNanoseconds)
                && (reviewedHash == nil || contentHash == nil || reviewedHash == contentHash)
            return st.isRegular && reviewedSame && st.device == row.device && st.inode == row.inode && st.size == row.size
                && st.mtimeNanoseconds == row.mtimeNanoseconds
        }

        /// The stars an XMP sidecar of the photo (or of its RAW) gave it after it was staged, when
        /// they make it a favourite (4 or 5): the user changed their mind in darktable, digiKam or
        /// Lightroom, so a commit leaves it (the sidecar is no change of the photo's own bytes).
        func ratedSinceStaged(_ library: Library) -> Int? {
            var paths = [path]
            paths += ((try? library.sidecars(of: id)) ?? []).filter { $0.kind == "raw" }.map(\.path)
            for p in paths {
                guard let x = XMPSidecar.find(for: p), Double(x.modified) / 1e9 > decidedAt, let stars = x.rating(),
                    stars >= GroupRules.favouriteRating
                else { continue }
                return stars
            }
            return nil
        }

        /// `isAsReviewed`, or the same file (inode) of the reviewed size whose times alone moved
        /// (a `touch`, a viewer or backup tool that set them, a rescan that followed): its bytes
        /// are read and compared with those the user reviewed (the 128-bit content hash), so a
        /// photo whose bytes are the ones decided on is not sent back to review.
        func isAsReviewedOrSameBytes(_ st: FileStatus) -> Bool {
            guard isReviewedFile(st) else { return false }
            if isAsReviewed(st) { return true }
            guard st.isRegular, st.device == row.device, st.inode == row.inode, let reviewedHash, let reviewedSize, st.size == reviewedSize
            else { return false }
            return (try? Analyzer.contentHash(path: path)) == reviewedHash
        }
    }

    /// What is staged, oldest decision first (not what a planned commit step holds).
    static func stagedRows(_ library: Library, fileID: Int64? = nil) throws -> [StagedRow] {
        try library.db.rows(
            """
            SELECT f.id, f.path, f.device, f.inode, f.size, f.mtime_ns, f.content_hash,
                   d.reviewed_size, d.reviewed_mtime_ns, d.reviewed_hash, d.decided_ts,
                   d.reviewed_device, d.reviewed_inode, d.reviewed_btime_ns
            FROM decisions d JOIN files f ON f.id=d.file_id
            WHERE d.decision = \(Decision.trash.sql) AND \(Library.live("f")) AND (?1 IS NULL OR d.file_id = ?1)
              AND NOT EXISTS(SELECT 1 FROM trash_ledger l WHERE l.file_id=f.id AND l.state = \(LedgerState.planned.sql))
            ORDER BY d.decided_ts, f.id
            """, fileID
        ).map { r in
            StagedRow(
                id: r.int(0)!, path: r.string(1) ?? "",
                row: FileStatus(
                    device: UInt64(bitPattern: r.int(2) ?? 0), inode: UInt64(bitPattern: r.int(3) ?? 0),
                    size: r.int(4) ?? 0, mtimeNanoseconds: r.int(5) ?? 0, mode: 0),
                contentHash: r.blob(6), reviewedSize: r.int(7), reviewedMtime: r.int(8), reviewedHash: r.blob(9),
                decidedAt: r.double(10) ?? 0,
                reviewedIdentity: r.int(11).flatMap { dev in
                    r.int(12).map { FileIdentity(device: UInt64(bitPattern: dev), inode: UInt64(bitPattern: $0), birthNanoseconds: r.int(13)) }
                })
        }
    }

    /// Count and bytes of what is staged: kept as the decisions and files are written
    /// (`decided_counts`, migration 90), a row where every trash verdict was read.
    public static func stagedTotals(library: Library) throws -> (count: Int, bytes: Int64) {
        let r = try library.db.row("SELECT coalesce(sum(n), 0), coalesce(sum(bytes), 0) FROM decided_counts WHERE scope = 'staged'")
        return (Int(r?.int(0) ?? 0), r?.int(1) ?? 0)
    }

    /// `stagedTotals` by definition: every trash verdict read with its file.
    static func stagedTotalsByScan(library: Library) throws -> (count: Int, bytes: Int64) {
        let r = try library.db.row(
            """
            SELECT count(*), COALESCE(sum(f.size),0) FROM decisions d CROSS JOIN files f INDEXED BY files_decided ON f.id=d.file_id
            WHERE d.decision = \(Decision.trash.sql) AND \(Library.live("f"))
            """)
        return (Int(r?.int(0) ?? 0), r?.int(1) ?? 0)
    }
}
