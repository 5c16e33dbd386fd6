import Foundation
import SnapSortSystem

/// The ledger (`trash_ledger`): the commit's journal, its rows settled after a crash (`resume`), and what it says is in a Trash.
extension Trash {
    struct Ledger {
        var id: Int64
        var fileID: Int64?
        var parentID: Int64?
        var originalPath: String
        var directory: String
        var name: String
        var info: String
        var bytes: Int64
        var device: UInt64
        var inode: UInt64
        var mtime: Int64

        var trashPath: String { directory + "/files/" + name }
        var infoPath: String { directory + "/info/" + name + ".trashinfo" }

        func matches(_ st: FileStatus) -> Bool {
            st.isRegular && st.device == device && st.inode == inode && st.size == bytes && st.mtimeNanoseconds == mtime
        }
    }

    static func loadPlanned(_ library: Library) throws -> [Ledger] {
        try library.db.rows(
            """
            SELECT id, file_id, parent_id, original_path, trash_dir, trash_name, info, bytes, device, inode, mtime_ns
            FROM trash_ledger WHERE state = \(LedgerState.planned.sql) ORDER BY id
            """
        ).map {
            Ledger(
                id: $0.int(0)!, fileID: $0.int(1), parentID: $0.int(2), originalPath: $0.string(3) ?? "",
                directory: $0.string(4) ?? "", name: $0.string(5) ?? "", info: $0.string(6) ?? "", bytes: $0.int(7) ?? 0,
                device: UInt64(bitPattern: $0.int(8) ?? 0), inode: UInt64(bitPattern: $0.int(9) ?? 0), mtime: $0.int(10) ?? 0)
        }
    }

    static func finish(_ library: Library, _ l: Ledger, state: LedgerState, reason: String?, clock: Clock) throws {
        try library.db.run("UPDATE trash_ledger SET state=?, reason=? WHERE id=?", state.rawValue, reason, l.id)
    }

    /// The file is in the Trash: the ledger says so, its row becomes a tombstone (a restore
    /// brings it back to the same row), the bytes count as cleared, its undo steps are sealed.
    static func recordTrashed(_ library: Library, _ l: Ledger, clock: Clock, timeZone: TimeZone? = nil) throws {
        let now = clock.now()
        try library.db.transaction {
            try library.db.run("UPDATE trash_ledger SET state = \(LedgerState.trashed.sql), trashed_ts=? WHERE id=?", now.timeIntervalSince1970, l.id)
            if let f = l.fileID {
                try library.markGone(ids: [f], at: now)
                try Review.sealHistory(fileID: f, library: library)
            }
            try library.db.run(
                "INSERT INTO review_events(ts, kind, file_id, bytes, utc_offset) VALUES(?, \(ReviewEventKind.cleared.sql), ?, ?, ?)",
                now.timeIntervalSince1970, l.fileID, l.bytes, timeZone.map { $0.secondsFromGMT(for: now) })
        }
    }

    /// Finishes or rolls back commits that were interrupted (`kill -9`, power loss). For each
    /// planned ledger row: the file already in `files/` → recorded as trashed; still at its
    /// place → our `.trashinfo` is removed and the file stays staged for this commit; neither →
    /// recorded as missing. Returns how many rows it settled.
    ///
    /// Without `env` (the commands that list and restore, and the agent, settle what a killed
    /// commit left before they show anything) a sidecar whose photo made it stays planned: the
    /// next commit sends it after its photo.
    @discardableResult
    public static func resume(library: Library, clock: Clock, env: TrashEnvironment?) throws -> Int {
        var r = TrashReport()
        return try resume(library: library, clock: clock, env: env, report: &r)
    }

    static func resume(library: Library, clock: Clock, env: TrashEnvironment?, report: inout TrashReport) throws -> Int {
        let planned = try loadPlanned(library)
        for l in planned {
            if env == nil, let parent = l.parentID,
                try library.db.row("SELECT state FROM trash_ledger WHERE id=?", parent)?.string(0) == LedgerState.trashed.rawValue,
                FileSystem.lstatusIfExists(l.originalPath).map(l.matches) == true
            {
                continue
            }
            let inTrash = FileSystem.lstatusIfExists(l.trashPath)
            let atHome = FileSystem.lstatusIfExists(l.originalPath)
            if let t = inTrash, l.matches(t) {
                if !FileSystem.exists(l.infoPath) { try? FileSystem.createExclusive(l.infoPath, Array(l.info.utf8)) }
                try recordTrashed(library, l, clock: clock, timeZone: env?.timeZone)
                report.outcomes.append(
                    TrashOutcome(path: l.originalPath, bytes: l.bytes, result: .trashed(l.trashPath), isSidecar: l.parentID != nil))
            } else {
                removeOurInfo(l)
                if let a = atHome, l.matches(a) {
                    try finish(library, l, state: .abandoned, reason: "interrupted before the move; still in place", clock: clock)
                    if let parent = l.parentID,
                        try library.db.row("SELECT state FROM trash_ledger WHERE id=?", parent)?.string(0) == LedgerState.trashed.rawValue
                    {
                        // A sidecar whose photo made it: send it after its photo now.
                        if let env, let st = FileSystem.lstatusIfExists(l.originalPath), st.isRegular {
                            var o = try trashOne(
                                library: library, clock: clock, env: env, fileID: l.fileID, parentID: l.parentID,
                                path: l.originalPath, status: st)
                            o.isSidecar = true
                            report.outcomes.append(o)
                        }
                    }
                } else {
                    try finish(library, l, state: .skipped, reason: "missing: neither in place nor in the Trash", clock: clock)
                    report.outcomes.append(
                        TrashOutcome(
                            path: l.originalPath, bytes: l.bytes,
                            result: .skipped("missing: neither in place nor in the Trash"), isSidecar: l.parentID != nil))
                }
            }
        }
        // Photos that went while their sidecars did not (killed between the two): their
        // sidecars go now, as the commit would have sent them.
        if let env {
            for r in try library.db.rows("SELECT id FROM trash_ledger WHERE sidecars_pending=1 AND state != \(LedgerState.planned.sql) ORDER BY id") {
                report.outcomes += try sendSidecars(library: library, clock: clock, env: env, ledgerID: r.int(0)!)
            }
        }
        return planned.count
    }

    /// Removes the `.trashinfo` of a file no longer in the Trash when it is exactly the text we wrote.
    static func removeOrphanInfo(_ t: TrashedFile) {
        if let info = t.info { removeInfo(t.infoPath, ifItIs: info, withoutFile: t.trashPath) }
    }

    /// Removes `infoPath` when it holds exactly `info` (ours, not one written since under a freed
    /// name) and its file `trashPath` is not there.
    static func removeInfo(_ infoPath: String, ifItIs info: String, withoutFile trashPath: String) {
        guard let bytes = try? FileSystem.readFile(infoPath, limit: 1 << 16), String(decoding: bytes, as: UTF8.self) == info,
            !FileSystem.exists(trashPath)
        else { return }
        try? FileSystem.remove(infoPath)
    }

    /// Removes a `.trashinfo` only if it is exactly the one we wrote, and any temp file a crash
    /// left while writing it.
    static func removeOurInfo(_ l: Ledger) {
        let prefix = FileSystem.exclusiveTempPrefix(for: l.infoPath)
        let dir = String(prefix[..<(prefix.lastIndex(of: "/") ?? prefix.startIndex)])
        let namePrefix = String(prefix[prefix.index(after: prefix.lastIndex(of: "/") ?? prefix.startIndex)...])
        for e in (try? FileSystem.listDirectory(dir)) ?? [] where e.name.hasPrefix(namePrefix) && e.name.hasSuffix(".tmp") {
            try? FileSystem.remove(dir + "/" + e.name)
        }
        removeInfo(l.infoPath, ifItIs: l.info, withoutFile: l.trashPath)
    }

    /// Files SnapSort moved to a Trash that are still there (as far as the ledger knows; call
    /// `noticeRestores` first to catch restores and emptied Trashes).
    public static func inSystemTrash(library: Library) throws -> [TrashedFile] {
        try library.db.rows(
            """
            SELECT id, file_id, original_path, trash_dir, trash_name, bytes, trashed_ts, parent_id, info FROM trash_ledger
            WHERE state = \(LedgerState.trashed.sql) ORDER BY trashed_ts, id
            """
        ).map(trashedFile)
    }

    /// Bytes of trashed files still sitting in a Trash: emptying the Trash frees them.
    public static func inTrashBytes(library: Library) throws -> Int64 {
        try inSystemTrash(library: library).filter { presence($0) == .ours }.reduce(0) { $0 + $1.bytes }
    }

    /// Where a trashed file stands in its Trash.
    enum Presence: Equatable {
        /// Its name in `files/` holds its bytes, under the `.trashinfo` SnapSort wrote.
        case ours
        /// Not there: the Trash was emptied or the file taken out. A name the emptying freed
        /// may hold another file trashed since (another camera's `IMG_0001.JPG`), whose
        /// `.trashinfo` names another path: that file is not ours to put back.
        case gone
        /// The Trash's `files/` folder is not there (a drive not mounted): nothing can be said.
        case unreachable
    }

    static func presence(_ t: TrashedFile) -> Presence {
        guard let st = FileSystem.lstatusIfExists(t.trashPath) else {
            return FileSystem.lstatusIfExists(t.trashDirectory + "/files")?.isDirectory == true ? .gone : .unreachable
        }
        guard st.isRegular, st.size == t.bytes else { return .gone }
        // A `.trashinfo` that is not there leaves the size to decide (nothing else names the file).
        guard let ours = t.info, let bytes = try? FileSystem.readFile(t.infoPath, limit: 64 * 1024) else { return .ours }
        return pathLine(String(decoding: bytes, as: UTF8.self)) == pathLine(ours) ? .ours : .gone
    }

    /// The `Path=` line of a `.trashinfo`.
    static func pathLine(_ info: String) -> Substring? {
        info.split(whereSeparator: \.isNewline).first { $0.hasPrefix("Path=") }
    }

    static func trashedFile(_ r: Row) -> TrashedFile {
        TrashedFile(
            ledgerID: r.int(0)!, fileID: r.int(1), originalPath: r.string(2) ?? "",
            trashPath: (r.string(3) ?? "") + "/files/" + (r.string(4) ?? ""), bytes: r.int(5) ?? 0,
            trashedAt: r.double(6) ?? 0, isSidecar: r.int(7) != nil, trashDirectory: r.string(3) ?? "", name: r.string(4) ?? "",
            info: r.string(8))
    }
}
