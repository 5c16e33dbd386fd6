import Foundation
import SnapSortSystem

/// What the reconciler needs of a stored row.
public struct StoredIdentity: Sendable, Equatable {
    public var id: Int64
    public var path: String
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var mtimeNanoseconds: Int64
    public var analyzerVersion: Int
    public var status: ItemStatus
    /// The file's birth time when it was recorded (`FileIdentity`): nil until it was first
    /// looked up, -1 where the file system keeps none.
    public var birthNanoseconds: Int64?
    /// A tombstone whose file was seen deleted (`IN_DELETE`): it is never taken for a file that
    /// comes back.
    public var deleted: Bool

    /// Same (device, inode, size, mtime_ns) → same file. (device, inode) alone is never enough.
    public func matches(_ st: FileStatus) -> Bool {
        device == st.device && inode == st.inode && size == st.size && mtimeNanoseconds == st.mtimeNanoseconds
    }

    /// The identity recorded for the row (the birth time only where one is known).
    public var fileIdentity: FileIdentity {
        FileIdentity(device: device, inode: inode, birthNanoseconds: birthNanoseconds.flatMap { $0 < 0 ? nil : $0 })
    }
}

extension Library {
    static let identityColumns = "id, path, device, inode, size, mtime_ns, analyzer_version, status, btime_ns, deleted"

    static func identity(_ r: Row) -> StoredIdentity {
        StoredIdentity(
            id: r.int(0)!, path: r.string(1)!, device: UInt64(bitPattern: r.int(2) ?? 0), inode: UInt64(bitPattern: r.int(3) ?? 0),
            size: r.int(4) ?? 0, mtimeNanoseconds: r.int(5) ?? 0, analyzerVersion: Int(r.int(6) ?? 0),
            status: ItemStatus(rawValue: r.string(7) ?? "") ?? .pending, birthNanoseconds: r.int(8), deleted: (r.int(9) ?? 0) != 0)
    }

    /// `[lower, upper)` bounds selecting every path strictly under `dir`.
    /// How many live items at or under `dir` have each decision (what `forget` takes with them).
    public func decisionCounts(under dir: String) throws -> [(decision: Decision, count: Int)] {
        let (lo, hi) = Library.prefixBounds(dir)
        return try db.rows(
            """
            SELECT d.decision, count(*) FROM decisions d JOIN files f ON f.id = d.file_id
            WHERE \(Library.live("f")) AND (f.path = ? OR (f.path >= ? AND f.path < ?)) GROUP BY d.decision ORDER BY d.decision
            """, dir, lo, hi
        ).compactMap { r in r.string(0).flatMap(Decision.init).map { ($0, Int(r.int(1) ?? 0)) } }
    }

    /// The paths under folder `dir` sort in [lo, hi): its "/"-terminated prefix up to the same
    /// text with "0", the character after "/".
    package static func prefixBounds(_ dir: String) -> (String, String) {
        let p = dir.hasSuffix("/") ? dir : dir + "/"
        return (p, String(p.dropLast()) + "0")  // "0" sorts right after "/"
    }

    /// The live rows under a folder (bound: the lower and upper bound of `prefixBounds`, then
    /// the folder itself). Two searches, not one `OR`: SQLite answers an `OR` of two ranges
    /// through the table's rows, each search alone from the covering `files_path_identity`.
    static let liveRowsSQL = """
        SELECT \(identityColumns) FROM files WHERE \(Library.live()) AND path >= ? AND path < ?
        UNION ALL SELECT \(identityColumns) FROM files WHERE \(Library.live()) AND path = ?
        """

    /// Live (not gone) rows at `path` or under it.
    public func liveRows(under path: String) throws -> [StoredIdentity] {
        let (lo, hi) = Library.prefixBounds(path)
        // Row by row: 100 000 rows held as `Row`s first would double the rescan's memory.
        var out: [StoredIdentity] = []
        try db.forEach(Library.liveRowsSQL, arguments: [lo, hi, path]) { out.append(Library.identity($0)) }
        return out
    }

    /// The recorded XMP sidecar times (`files.sidecar_mtime_ns`) of the live rows under a folder
    /// or at a path, by path: the few rows that have one, through their partial index.
    public func sidecarTimes(under path: String) throws -> [String: Int64] {
        let (lo, hi) = Library.prefixBounds(path)
        var out: [String: Int64] = [:]
        try db.forEach(
            """
            SELECT path, sidecar_mtime_ns FROM files WHERE sidecar_mtime_ns IS NOT NULL AND \(Library.live()) AND path >= ? AND path < ?
            UNION ALL SELECT path, sidecar_mtime_ns FROM files WHERE sidecar_mtime_ns IS NOT NULL AND \(Library.live()) AND path = ?
            """, arguments: [lo, hi, path]
        ) { r in
            if let p = r.string(0), let t = r.int(1) { out[p] = t }
        }
        return out
    }

    /// The live rows of one folder, as the scan's walk reads them: folder by folder, so what
    /// it holds follows the largest folder, not the library.
    public struct StoredFolder: Sendable {
        /// The rows of the folder's own files (not of its subfolders').
        public var rows: [StoredIdentity] = []
        /// The subfolders that hold live rows, at any depth below them.
        public var subfolders: [String] = []
    }

    static let liveRangeSQL = "SELECT \(identityColumns) FROM files WHERE \(Library.live()) AND path >= ? AND path < ? ORDER BY path"

    /// The live rows directly in the folder `dir`, and its subfolders that hold live rows.
    public func liveRows(in dir: String) throws -> StoredFolder {
        var out = StoredFolder()
        out.subfolders = try forEachDirectly(in: dir, Library.liveRangeSQL, pathColumn: 1) { out.rows.append(Library.identity($0)) }
        return out
    }

    /// The live rows strictly below the folder `dir` (not a row at `dir` itself): a subfolder
    /// the walk did not find, whose rows are gone.
    public func liveRows(below dir: String) throws -> [StoredIdentity] {
        let (lo, hi) = Library.prefixBounds(dir)
        var out: [StoredIdentity] = []
        try db.forEach(Library.liveRangeSQL, arguments: [lo, hi]) { out.append(Library.identity($0)) }
        return out
    }

    /// Whether any live row lies at `path` or under it.
    public func hasLiveRows(under path: String) throws -> Bool {
        let (lo, hi) = Library.prefixBounds(path)
        return try db.scalar("SELECT count(*) FROM (\(Library.liveRowsSQL) LIMIT 1)", lo, hi, path) ?? 0 > 0
    }

    /// The recorded XMP sidecar times of the live rows directly in the folder `dir`, by path.
    public func sidecarTimes(in dir: String) throws -> [String: Int64] {
        var out: [String: Int64] = [:]
        _ = try forEachDirectly(
            in: dir,
            """
            SELECT path, sidecar_mtime_ns FROM files WHERE sidecar_mtime_ns IS NOT NULL AND \(Library.live()) AND path >= ? AND path < ?
            ORDER BY path
            """, pathColumn: 0
        ) { r in
            if let p = r.string(0), let t = r.int(1) { out[p] = t }
        }
        return out
    }

    /// Calls `body` for each row of `sql` (a range `path >= ? AND path < ?` in path order, the
    /// path in column `pathColumn`) that lies directly in the folder `dir`, and returns the subfolders
    /// it skipped. An index range read in path order, started again after each subfolder's
    /// range at its first row: a folder's files cost their rows and one row a subfolder,
    /// whatever lies below it.
    private func forEachDirectly(in dir: String, _ sql: String, pathColumn: Int, _ body: (Row) -> Void) throws -> [String] {
        let prefix = dir.hasSuffix("/") ? dir : dir + "/"
        let hi = Library.prefixBounds(dir).1
        var subfolders: [String] = []
        var from = prefix
        while true {
            var next: String?
            try db.forEachWhile(sql, arguments: [from, hi]) { r -> Bool in
                let path = r.string(pathColumn) ?? ""
                if let sub = Library.subfolder(of: prefix, holding: path) {
                    subfolders.append(sub)
                    next = sub + "0"  // "0" sorts right after "/": past the subfolder's rows
                    return false
                }
                body(r)
                return true
            }
            guard let n = next else { return subfolders }
            from = n
        }
    }

    /// The subfolder of the folder `prefix` (ending in "/") that holds `path`; nil for a file
    /// of the folder itself.
    static func subfolder(of prefix: String, holding path: String) -> String? {
        let u = path.utf8
        guard u.count > prefix.utf8.count, let start = u.index(u.startIndex, offsetBy: prefix.utf8.count, limitedBy: u.endIndex) else { return nil }
        guard let slash = u[start...].firstIndex(of: UInt8(ascii: "/")) else { return nil }
        return String(path[..<slash])
    }

    /// The live row at exactly `path`.
    public func liveRow(path: String) throws -> StoredIdentity? {
        try db.row("SELECT \(Library.identityColumns) FROM files WHERE \(Library.live()) AND path = ?", path).map(Library.identity)
    }

    /// Rows of this size that could be the source of a move: tombstones and live rows
    /// (the caller checks whether a live row's file still exists).
    /// The reason code of a row (why its file was not analyzed), nil when none.
    public func reasonCode(id: Int64) throws -> ReasonCode? {
        try db.rows("SELECT reason_code FROM files WHERE id = ?", id).first?.string(0).map(ReasonCode.init)
    }

    public func moveCandidates(size: Int64) throws -> [(StoredIdentity, quick: [UInt8]?, content: [UInt8]?)] {
        try db.rows("SELECT \(Library.identityColumns), quick_hash, content_hash FROM files WHERE size = ?", size).map {
            (Library.identity($0), $0.blob(10), $0.blob(11))
        }
    }

    /// Moves a row to a new path and identity: its analysis and decisions follow.
    public func recordMove(id: Int64, to path: String, status st: FileStatus, restoreStatus: ItemStatus?) throws {
        let birth = Library.birthTime(path, st)
        if let restoreStatus {
            try db.run(
                "UPDATE files SET path=?, device=?, inode=?, mtime_ns=?, btime_ns=?, deleted=0, status=?, gone_at=NULL WHERE id=?",
                path, UInt64(st.device), UInt64(st.inode), st.mtimeNanoseconds, birth, restoreStatus.rawValue, id)
        } else {
            try db.run(
                "UPDATE files SET path=?, device=?, inode=?, mtime_ns=?, btime_ns=?, deleted=0, gone_at=NULL WHERE id=?",
                path, UInt64(st.device), UInt64(st.inode), st.mtimeNanoseconds, birth, id)
        }
    }

    /// Dates the row `id` by the modification time in `st` when its capture time came from its
    /// mtime (`CaptureTime.Source.mtime`: no EXIF, container or name said when it was taken): a
    /// file whose times alone changed (`touch -d`, a date-fixing tool) moves to its new month.
    /// The stored time is part of the grouper's fingerprint, so the next regroup places it anew.
    public func retimeFromModification(id: Int64, status st: FileStatus) throws {
        let capture = CaptureTime.fromInstant(Double(st.mtimeNanoseconds) / 1e9, source: .mtime)
        try db.run(
            "UPDATE files SET taken_at=?, taken_ts=? WHERE id=? AND taken_source=?", capture.text, capture.timestamp, id,
            CaptureTime.Source.mtime.rawValue)
    }

    /// The birth time to record for the file at `path` that `st` describes: -1 where its file
    /// system keeps none, nil when the path names another file now (it is looked up again).
    static func birthTime(_ path: String, _ st: FileStatus) -> Int64? {
        guard let now = FileIdentity.of(path), now.device == st.device, now.inode == st.inode else { return nil }
        return now.birthNanoseconds ?? -1
    }

    /// Records the birth times of rows that have none yet (libraries from before they were
    /// kept), for the files that are still the rows' (same device and inode).
    public func recordBirthTimes(_ rows: [(id: Int64, path: String, status: FileStatus)]) throws {
        guard !rows.isEmpty else { return }
        try db.transaction {
            for r in rows {
                guard let birth = Library.birthTime(r.path, r.status) else { continue }
                try db.run("UPDATE files SET btime_ns=? WHERE id=? AND btime_ns IS NULL", birth, r.id)
            }
        }
    }

    /// Marks rows gone (tombstones keep analysis and decisions so a file that comes back — a
    /// restore from the Trash, a re-mounted disk — is recognized).
    /// `deleted`: their files were seen deleted (not moved away): such tombstones are never
    /// revived by a file that appears later, whatever its bytes and inode number.
    public func markGone(ids: [Int64], at: Date, deleted: Bool = false) throws {
        let ts = StatusTimestamp.string(at)
        for id in ids {
            try db.run(
                "UPDATE files SET status=\(ItemStatus.gone.sql), gone_at=?, deleted=? WHERE id=?", ts, deleted ? 1 : 0, id)
        }
    }

    /// The status a tombstone had before it went: the one its stored reason implies
    /// (`ReasonCode.status`, the analysis's own rule), `ok` without a reason.
    func revivedStatus(id: Int64) throws -> ItemStatus {
        try reasonCode(id: id)?.status ?? .ok
    }

    /// Writes an analysis result: a new row when `id` is nil, else an update.
    @discardableResult
    public func store(_ r: AnalysisResult, id: Int64?, path: String, status st: FileStatus, at now: Date) throws -> Int64 {
        let ts = StatusTimestamp.string(now)
        let sigDhash: SQLValue = r.signature.map { .integer(Int64(bitPattern: $0.dhash)) } ?? .null
        let sigPhash: SQLValue = r.signature.map { .integer(Int64(bitPattern: $0.phash)) } ?? .null
        let args: [SQLBindable] = [
            path, UInt64(st.device), UInt64(st.inode), st.size, st.mtimeNanoseconds,
            r.quickHash.map { SQLValue.blob($0) } ?? .null, r.contentHash.map { SQLValue.blob($0) } ?? .null,
            r.kind.rawValue, r.format.rawValue, r.width, r.height, r.status.rawValue,
            r.reason?.code.rawValue, r.reason?.text,
            r.capture?.text, r.capture?.timestamp, r.capture?.source.rawValue,
            r.exif?.make, r.exif?.model, r.exif?.lens, r.exif?.software,
            r.exif?.orientation, r.exif.map { $0.hasGPS ? 1 : 0 }, r.rating, r.exifOffset,
            r.durationSeconds, r.metrics?.encoded(), sigDhash, sigPhash,
            r.signature.map { SQLValue.blob($0.thumbnail) } ?? .null,
            Analyzer.version, ts, r.video?.json.serialized(), r.sidecarModified, Library.birthTime(path, st),
            r.pixelHash.map { SQLValue.blob($0) } ?? .null, r.videoSignature.map { SQLValue.blob($0.encoded()) } ?? .null,
            r.videoPoster.map { SQLValue.blob($0) } ?? .null,
        ]
        let cols = """
            path, device, inode, size, mtime_ns, quick_hash, content_hash, kind, format, width, height, status,
            reason_code, reason, taken_at, taken_ts, taken_source, make, model, lens, software, orientation, has_gps,
            rating, exif_offset, duration_s, metrics, dhash, phash, signature, analyzer_version, analyzed_at, details,
            sidecar_mtime_ns, btime_ns, pixel_hash, video_signature, video_poster
            """
        if let id {
            // The same bytes read again by a newer analyzer (an upgrade's re-analysis) that
            // decodes them to the same pixels (`Analyzer.samePixelsSince`): what the models found
            // of them still holds, and goes over to the new analysis rather than being looked at
            // again (~0.2 s of models a photo). Asked of the row before it is rewritten.
            if r.status == .ok, let hash = r.contentHash {
                try db.run(
                    """
                    UPDATE vision SET analyzed_at = ? WHERE file_id = ? AND analyzed_at = (
                        SELECT analyzed_at FROM files
                        WHERE id = ? AND status = \(ItemStatus.ok.sql) AND content_hash = ? AND analyzer_version >= ?)
                    """, ts, id, id, SQLValue.blob(hash), Analyzer.samePixelsSince)
            }
            let sets = cols.split(separator: ",").map { "\($0.trimmingCharacters(in: .whitespacesAndNewlines))=?" }.joined(separator: ", ")
            try db.run("UPDATE files SET \(sets), gone_at=NULL, deleted=0 WHERE id=?", arguments: args + [id])
            return id
        }
        let marks = Array(repeating: "?", count: args.count).joined(separator: ",")
        try db.run("INSERT INTO files(\(cols), first_seen_at) VALUES(\(marks), ?)", arguments: args + [ts])
        return db.lastInsertRowID
    }

    /// Records a root's state after a scan.
    public func recordRoot(_ path: String, device: UInt64?, online: Bool, at now: Date) throws {
        let ts = StatusTimestamp.string(now)
        try db.run(
            """
            INSERT INTO roots(path, device, state, last_scan_at) VALUES(?,?,?,?)
            ON CONFLICT(path) DO UPDATE SET device=COALESCE(excluded.device, roots.device), state=excluded.state,
              last_scan_at=CASE WHEN excluded.state=\(RootState.online.sql) THEN excluded.last_scan_at ELSE roots.last_scan_at END
            """, path, device, (online ? RootState.online : .offline).rawValue, ts)
    }

    /// Whether the library has a root at `path`, or rows at or under it.
    public func knows(_ path: String) throws -> Bool {
        if try db.scalar("SELECT count(*) FROM roots WHERE path=?", path) ?? 0 > 0 { return true }
        let (lo, hi) = Library.prefixBounds(path)
        return try db.scalar("SELECT count(*) FROM (SELECT 1 FROM files WHERE path = ? OR (path >= ? AND path < ?) LIMIT 1)", path, lo, hi) ?? 0 > 0
    }

    /// The device a root was on at its last online scan.
    public func rootDevice(_ path: String) throws -> UInt64? {
        try db.scalar("SELECT device FROM roots WHERE path=?", path).map { UInt64(bitPattern: $0) }
    }

    /// The state of the newest Trash ledger entry of a file SnapSort moved to the Trash
    /// (`trashed`, `restored`, `purged`), nil when it never did.
    public func trashState(of id: Int64) throws -> LedgerState? {
        try db.row(
            "SELECT state FROM trash_ledger WHERE file_id = ? AND state IN \(LedgerState.sql(LedgerState.afterTheMove)) ORDER BY id DESC LIMIT 1", id
        )?.string(0).flatMap(LedgerState.init)
    }

    /// Forgets the listing stamps of `dir` and the folders under it: their rows changed
    /// without a scan (the agent saw the folder go), so the next scan must list them.
    public func forgetFolderStamps(under dir: String) throws {
        let (lo, hi) = Library.prefixBounds(dir)
        try db.run("DELETE FROM folders WHERE path = ? OR (path >= ? AND path < ?)", dir, lo, hi)
    }

    /// Drops every row at or under `dir` (files on disk are untouched). `dir` is added to the
    /// agent state's `forgottenPathsKey`: a running agent lists it again (what is under a watched
    /// root comes back, as a `snapsort scan` would bring it) and clears the key. The listing
    /// stamps of the folders above `dir` go too: an agent started later walks its roots from
    /// their stamps, and an unchanged parent was not listed again, so the forgotten folder's
    /// photos never came back (70 rows for 120 files).
    public func forget(under dir: String, at now: Date) throws -> Int {
        let (lo, hi) = Library.prefixBounds(dir)
        return try db.transaction {
            try db.run("DELETE FROM files WHERE path = ? OR (path >= ? AND path < ?)", dir, lo, hi)
            let n = db.changes
            try db.run("DELETE FROM roots WHERE path = ? OR (path >= ? AND path < ?)", dir, lo, hi)
            try db.run("DELETE FROM folders WHERE path = ? OR (path >= ? AND path < ?)", dir, lo, hi)
            var above = dir
            while let slash = above.lastIndex(of: "/") {
                above = slash == above.startIndex ? "/" : String(above[..<slash])
                try db.run("DELETE FROM folders WHERE path = ?", above)
                if above == "/" { break }
            }
            let earlier = try agentState(Library.forgottenPathsKey).map { $0 + "\n" } ?? ""
            try setAgentState(Library.forgottenPathsKey, earlier + dir, at: now)
            return n
        }
    }

    /// The agent state key listing the paths `forget` dropped since the agent last looked (one
    /// a line).
    public static let forgottenPathsKey = "forgotten_paths"

    /// A folder's recorded stamp: what it was when a scan last listed it completely.
    public struct FolderStamp: Sendable, Equatable {
        public var mtimeNanoseconds: Int64
        public var device: UInt64
        public var inode: UInt64
        public init(mtimeNanoseconds: Int64, device: UInt64, inode: UInt64) {
            self.mtimeNanoseconds = mtimeNanoseconds
            self.device = device
            self.inode = inode
        }
        public init(_ st: FileStatus) { self.init(mtimeNanoseconds: st.mtimeNanoseconds, device: st.device, inode: st.inode) }
    }

    /// The stamps of `dir` and the folders under it.
    public func folderStamps(under dir: String) throws -> [String: FolderStamp] {
        let (lo, hi) = Library.prefixBounds(dir)
        var out: [String: FolderStamp] = [:]
        for r in try db.rows("SELECT path, mtime_ns, device, inode FROM folders WHERE path = ? OR (path >= ? AND path < ?)", dir, lo, hi) {
            out[r.string(0)!] = FolderStamp(mtimeNanoseconds: r.int(1)!, device: UInt64(bitPattern: r.int(2)!), inode: UInt64(bitPattern: r.int(3)!))
        }
        return out
    }

    /// Replaces the stamps of `dir` and everything under it. Only what differs is written: a
    /// rescan of an unchanged library (20 000 folders) writes nothing and syncs nothing.
    public func replaceFolderStamps(under dir: String, with stamps: [String: FolderStamp]) throws {
        try db.transaction {
            let old = try folderStamps(under: dir)
            for path in old.keys where stamps[path] == nil {
                try db.run("DELETE FROM folders WHERE path = ?", path)
            }
            for (path, s) in stamps where old[path] != s {
                try db.run(
                    "INSERT OR REPLACE INTO folders(path, mtime_ns, device, inode) VALUES(?,?,?,?)",
                    path, s.mtimeNanoseconds, Int64(bitPattern: s.device), Int64(bitPattern: s.inode))
            }
        }
    }
}
