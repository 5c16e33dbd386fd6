import Foundation
import SnapSortSystem

/// Restore: unstaging, putting trashed files back, and noticing the files the user put back.
extension Trash {
    /// Un-stages items (they become undecided; the files never moved): one undo step, which
    /// stages them again.
    public static func unstage(fileIDs: [Int64], library: Library, clock: Clock) throws -> [TrashOutcome] {
        try oneUndoStep(library) { try unstage(fileIDs: fileIDs, library: library, clock: clock, steps: &$0) }
    }

    /// Runs `body`, whose undo steps (recorded in the array it is given) become one.
    private static func oneUndoStep(_ library: Library, _ body: (inout [Int64]) throws -> [TrashOutcome]) throws -> [TrashOutcome] {
        var steps: [Int64] = []
        let out = try body(&steps)
        try Review.joinSteps(steps, library: library)
        return out
    }

    static func unstage(fileIDs: [Int64], library: Library, clock: Clock, steps: inout [Int64]) throws -> [TrashOutcome] {
        let now = clock.now()
        var made: [Int64] = []
        let out = try library.db.transaction {
            var out: [TrashOutcome] = []
            for id in fileIDs {
                guard let d = try Review.decision(for: id, library: library), d.decision == .trash,
                    let item = try library.item(id: id), item.status != .gone
                else { continue }
                made.append(try Review.recordRestore(fileID: id, record: d, from: .staging, at: now, library: library))
                out.append(TrashOutcome(path: item.path, bytes: item.bytes, result: .unstaged, isSidecar: false))
            }
            return out
        }
        steps += made
        return out
    }

    /// Restores files from the system Trash to their original paths, refusing to overwrite a
    /// file that is there now. Sidecars come back with their photo, and stay in the Trash with
    /// it when it cannot come back (its metadata beside another file would belong to that one).
    /// The item's row comes back
    /// (same identity), its trash decision is cleared and the bytes are no longer cleared.
    /// One undo step: undone, the items are staged for the Trash again (not moved there).
    public static func restore(ledgerIDs: [Int64], library: Library, clock: Clock) throws -> [TrashOutcome] {
        try oneUndoStep(library) { try restore(ledgerIDs: ledgerIDs, library: library, clock: clock, steps: &$0) }
    }

    static func restore(ledgerIDs: [Int64], library: Library, clock: Clock, steps: inout [Int64]) throws -> [TrashOutcome] {
        try library.withTrashLock {
            var out: [TrashOutcome] = []
            for id in ledgerIDs {
                guard
                    let r = try library.db.row(
                        """
                        SELECT id, file_id, original_path, trash_dir, trash_name, bytes, trashed_ts, parent_id, info FROM trash_ledger
                        WHERE id=? AND state = \(LedgerState.trashed.sql)
                        """, id)
                else { continue }
                let t = trashedFile(r)
                let photo = try restoreOne(t, trashDir: r.string(3) ?? "", name: r.string(4) ?? "", library: library, clock: clock, steps: &steps)
                out.append(photo)
                guard photo.succeeded else { continue }
                for sr in try library.db.rows(
                    """
                    SELECT id, file_id, original_path, trash_dir, trash_name, bytes, trashed_ts, parent_id, info FROM trash_ledger
                    WHERE parent_id=? AND state = \(LedgerState.trashed.sql)
                    """, id)
                {
                    var o = try restoreOne(
                        trashedFile(sr), trashDir: sr.string(3) ?? "", name: sr.string(4) ?? "", library: library, clock: clock, steps: &steps)
                    o.isSidecar = true
                    out.append(o)
                }
            }
            return out
        }
    }

    /// Restores by original path: un-stages a staged item, or brings a trashed file back (one
    /// undo step for them all).
    public static func restore(paths: [String], library: Library, clock: Clock) throws -> [TrashOutcome] {
        var steps: [Int64] = []
        defer { try? Review.joinSteps(steps, library: library) }
        return try library.withTrashLock {
            _ = try noticeRestores(library: library, clock: clock)
            var out: [TrashOutcome] = []
            for p in paths {
                if let row = try library.liveRow(path: p), try Review.decision(for: row.id, library: library)?.decision == .trash {
                    out += try unstage(fileIDs: [row.id], library: library, clock: clock, steps: &steps)
                    continue
                }
                let ids = try library.db.rows(
                    "SELECT id FROM trash_ledger WHERE original_path=? AND state = \(LedgerState.trashed.sql) ORDER BY id DESC LIMIT 1", p
                )
                .compactMap { $0.int(0) }
                if ids.isEmpty {
                    let purged =
                        try library.db.scalar("SELECT count(*) FROM trash_ledger WHERE original_path=? AND state = \(LedgerState.purged.sql)", p) ?? 0
                        > 0
                    let why =
                        purged
                        ? "it was removed from the Trash (emptied): it cannot be restored"
                        : "neither staged nor in the Trash by SnapSort"
                    out.append(TrashOutcome(path: p, bytes: 0, result: .skipped(why), isSidecar: false))
                } else {
                    out += try restore(ledgerIDs: ids, library: library, clock: clock, steps: &steps)
                }
            }
            return out
        }
    }

    /// `restore --all`: un-stages everything staged and brings back everything committed (one
    /// undo step).
    public static func restoreAll(library: Library, clock: Clock) throws -> [TrashOutcome] {
        var steps: [Int64] = []
        defer { try? Review.joinSteps(steps, library: library) }
        return try library.withTrashLock {
            _ = try noticeRestores(library: library, clock: clock)
            var out = try unstage(fileIDs: staged(library: library).map(\.fileID), library: library, clock: clock, steps: &steps)
            let ids = try library.db.rows("SELECT id FROM trash_ledger WHERE state = \(LedgerState.trashed.sql) AND parent_id IS NULL ORDER BY id")
                .compactMap {
                    $0.int(0)
                }
            out += try restore(ledgerIDs: ids, library: library, clock: clock, steps: &steps)
            // Sidecars whose photo is no longer in the Trash (restored or purged meanwhile); those of
            // a photo that stayed stay with it.
            let orphans = try library.db.rows(
                """
                SELECT s.id FROM trash_ledger s LEFT JOIN trash_ledger p ON p.id = s.parent_id
                WHERE s.state = \(LedgerState.trashed.sql) AND s.parent_id IS NOT NULL AND (p.id IS NULL OR p.state != \(LedgerState.trashed.sql)) ORDER BY s.id
                """
            ).compactMap { $0.int(0) }
            for id in orphans {
                guard
                    let r = try library.db.row(
                        """
                        SELECT id, file_id, original_path, trash_dir, trash_name, bytes, trashed_ts, parent_id, info FROM trash_ledger WHERE id=?
                        """, id)
                else { continue }
                var o = try restoreOne(
                    trashedFile(r), trashDir: r.string(3) ?? "", name: r.string(4) ?? "", library: library, clock: clock, steps: &steps)
                o.isSidecar = true
                out.append(o)
            }
            return out
        }
    }

    static func restoreOne(
        _ t: TrashedFile, trashDir: String, name: String, library: Library, clock: Clock, steps: inout [Int64]
    ) throws -> TrashOutcome {
        func skipped(_ why: String) -> TrashOutcome {
            TrashOutcome(path: t.originalPath, bytes: t.bytes, result: .skipped(why), isSidecar: t.isSidecar)
        }
        switch presence(t) {
        case .ours: break
        case .unreachable:
            return skipped("its Trash (\(trashDir)) is not there now (a drive not mounted?); nothing was changed")
        case .gone:
            try recordPurged(t, library: library, clock: clock)
            return skipped("no longer in the Trash (it was emptied or removed; a file there under its name now is another one)")
        }
        if FileSystem.exists(t.originalPath) { return skipped("a file exists at its original path; not overwritten") }
        if let slash = t.originalPath.lastIndex(of: "/"), slash != t.originalPath.startIndex {
            let folder = String(t.originalPath[..<slash])
            // The folder leads elsewhere now (it, or one above it, was replaced by a symbolic
            // link): the photo would land there, outside its library.
            if let was = try library.db.row("SELECT real_dir FROM trash_ledger WHERE id=?", t.ledgerID)?.string(0),
                let now = TrashLocator.existingRealPath(folder), now != was
            {
                return skipped("its folder now leads to \(now) (a symbolic link?); not restored through it")
            }
            recreateFolder(folder)
        }
        do {
            try FileSystem.renameNoReplace(t.trashPath, t.originalPath)
        } catch let e as SystemError {
            return skipped(e.code == .errno(EEXIST) ? "a file exists at its original path; not overwritten" : "cannot move it back: \(e.message)")
        }
        FileSystem.syncDirectory(of: t.originalPath)
        try? FileSystem.remove(trashDir + "/info/" + name + ".trashinfo")
        if let step = try recordRestored(t, library: library, clock: clock) { steps.append(step) }
        return TrashOutcome(path: t.originalPath, bytes: t.bytes, result: .restored, isSidecar: t.isSidecar)
    }

    /// Makes a restored photo's folder again when it went since, each level with the permissions
    /// of the folder it is made in (the nearest that is still there): its own are gone with it,
    /// and the agent's `UMask=0077` would make it private, a folder the user's other programs
    /// see locked.
    static func recreateFolder(_ folder: String) {
        var missing: [String] = []
        var existing = folder
        while !FileSystem.exists(existing), let slash = existing.lastIndex(of: "/"), slash != existing.startIndex {
            missing.append(existing)
            existing = String(existing[..<slash])
        }
        guard !missing.isEmpty else { return }
        try? FileSystem.makeDirectories(folder)
        guard let parent = try? FileSystem.status(existing), parent.isDirectory else { return }
        let mode = mode_t(parent.mode) & 0o2777  // permissions and setgid, never sticky or setuid
        for dir in missing.reversed() where (try? FileSystem.lstatus(dir))?.isDirectory == true {
            try? FileSystem.setMode(dir, mode)
        }
    }

    /// Back at its path: the same row comes back live, the decision is cleared (an undo step,
    /// whose id is returned, when it was the staging), the bytes are no longer cleared.
    @discardableResult
    static func recordRestored(_ t: TrashedFile, library: Library, clock: Clock, undoable: Bool = true) throws -> Int64? {
        let now = clock.now()
        return try library.db.transaction {
            var step: Int64?
            try library.db.run(
                "UPDATE trash_ledger SET state = \(LedgerState.restored.sql), restored_ts=? WHERE id=?", now.timeIntervalSince1970, t.ledgerID)
            if let f = t.fileID, let st = FileSystem.lstatusIfExists(t.originalPath) {
                if let row = try library.item(id: f) {
                    if row.status == .gone || row.path != t.originalPath {
                        // A stale live row at this path (its file is not there) gives way.
                        if let other = try library.liveRow(path: t.originalPath), other.id != f { try library.markGone(ids: [other.id], at: now) }
                        try library.recordMove(
                            id: f, to: t.originalPath, status: st,
                            restoreStatus: row.status == .gone ? try library.revivedStatus(id: f) : nil)
                    }
                }
                if undoable, let d = try Review.decision(for: f, library: library), d.decision == .trash {
                    step = try Review.recordRestore(fileID: f, record: d, from: .trash, at: now, library: library)
                } else {
                    try library.db.run("DELETE FROM decisions WHERE file_id=?", f)
                    try Review.sealHistory(fileID: f, library: library)
                }
            }
            try library.db.run(
                "INSERT INTO review_events(ts, kind, file_id, bytes) VALUES(?, \(ReviewEventKind.restored.sql), ?, ?)",
                now.timeIntervalSince1970, t.fileID, -t.bytes)
            // A "100 MB cleared" badge goes with the bytes put back (as one goes with an undo).
            try Stats.withdrawMilestones(library: library, clock: clock)
            return step
        }
    }

    /// Notices what happened to trashed files outside SnapSort: a file back at its original
    /// path with the identity it had in the Trash (a file manager's or `trash-restore`'s
    /// Restore) is counted as restored — its decision cleared, its row live again; a file gone
    /// from the Trash and not back is marked purged (the Trash was emptied). Returns the
    /// number of restores noticed.
    @discardableResult
    /// `waitForLock` false: 0 at once while a commit or restore runs (the agent's loop).
    ///
    /// First it settles what a killed commit left planned (`resume`): before, a photo in flight
    /// was in no list — `trash list` did not show it, `restore` passed it over while it sat in
    /// the Trash — until the next commit, which then moved one still in place without asking.
    public static func noticeRestores(library: Library, clock: Clock, waitForLock: Bool = true) throws -> Int {
        guard waitForLock else { return try library.withTrashLockIfFree { try noticeRestores(library: library, clock: clock) } ?? 0 }
        return try library.withTrashLock {
            try resume(library: library, clock: clock, env: nil)
            var restored = 0
            var settled: Set<Int64> = []
            for r in try library.db.rows(
                """
                SELECT id, file_id, original_path, trash_dir, trash_name, bytes, trashed_ts, parent_id, info, device, inode, mtime_ns
                FROM trash_ledger WHERE state = \(LedgerState.trashed.sql)
                """)
            {
                let t = trashedFile(r)
                if settled.contains(t.ledgerID) { continue }  // a sidecar brought back with its photo
                // Still there, or its Trash not reachable now (a drive not mounted): nothing to notice.
                if presence(t) != .gone { continue }
                let dev = UInt64(bitPattern: r.int(9) ?? 0), ino = UInt64(bitPattern: r.int(10) ?? 0), mtime = r.int(11) ?? 0
                var back = false
                if let st = FileSystem.lstatusIfExists(t.originalPath), st.isRegular, st.device == dev, st.inode == ino,
                    st.size == t.bytes, st.mtimeNanoseconds == mtime
                {
                    back = true
                } else if let f = t.fileID, let item = try library.item(id: f), item.status != .gone {
                    back = true  // the scanner already saw it come back (same content, same row)
                }
                if back {
                    var moved = t
                    if let f = t.fileID, let item = try library.item(id: f), item.status != .gone { moved.originalPath = item.path }
                    // Put back outside SnapSort (a file manager): not an undo step of ours.
                    try recordRestored(moved, library: library, clock: clock, undoable: false)
                    restored += 1
                    // A restore killed between the move and removing the `.trashinfo` left ours
                    // behind: a file manager would list a photo that is not there.
                    removeOrphanInfo(t)
                    // Its sidecars (an .xmp, the RAW of the pair) come back with it: a file manager
                    // restores the one file it is asked for, and emptying the Trash then lost them.
                    for sr in try library.db.rows(
                        """
                        SELECT id, file_id, original_path, trash_dir, trash_name, bytes, trashed_ts, parent_id, info FROM trash_ledger
                        WHERE parent_id=? AND state = \(LedgerState.trashed.sql)
                        """, t.ledgerID)
                    {
                        var none: [Int64] = []
                        _ = try restoreOne(
                            trashedFile(sr), trashDir: sr.string(3) ?? "", name: sr.string(4) ?? "", library: library, clock: clock, steps: &none)
                        settled.insert(trashedFile(sr).ledgerID)
                    }
                } else {
                    try recordPurged(t, library: library, clock: clock)
                }
            }
            return restored
        }
    }
}
