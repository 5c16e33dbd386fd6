import Foundation
import SnapSortSystem

/// The commit: staged files (and their sidecars) moved to the Trash of their file system, journaled in `trash_ledger`.
extension Trash {
    /// Moves every staged file (and its sidecars) to the Trash of its file system — only those of
    /// `only` when given: what the user confirmed (a page or a terminal listed them), so a file
    /// staged meanwhile in another window stays staged for the next commit. Finishes an
    /// interrupted commit first. A file that changed since it was reviewed, or that has no
    /// usable Trash on its mount, is left in place and reported.
    public static func commit(
        library: Library, clock: Clock, env: TrashEnvironment, logger: Logger = .silent, only: Set<Int64>? = nil
    ) throws -> TrashReport {
        try library.withTrashLock {
            var report = TrashReport()
            do {
                // What an interrupted commit had planned was confirmed then: it goes on now, whatever
                // this commit's list (staged rows in flight are not listed).
                var only = only
                if only != nil {
                    try library.db.forEach("SELECT file_id FROM trash_ledger WHERE state = \(LedgerState.planned.sql) AND file_id IS NOT NULL") {
                        only?.insert($0.int(0)!)
                    }
                }
                report.resumed = try resume(library: library, clock: clock, env: env, report: &report)
                for s in try stagedRows(library) where only?.contains(s.id) ?? true {
                    let id = s.id, path = s.path
                    let (found, unreachable) = reach(path)
                    guard let st = found else {
                        let reason =
                            unreachable.map { "cannot be reached now (\($0)): it stays staged" } ?? "missing: the file is no longer there"
                        report.outcomes.append(try skip(library, fileID: id, path: path, bytes: s.row.size, reason: reason, clock: clock))
                        continue
                    }
                    guard s.isAsReviewedOrSameBytes(st) else {
                        report.outcomes.append(
                            try skip(
                                library, fileID: id, path: path, bytes: st.size,
                                reason: "changed since it was reviewed: review it again", clock: clock))
                        continue
                    }
                    if let stars = s.ratedSinceStaged(library) {
                        report.outcomes.append(
                            try skip(
                                library, fileID: id, path: path, bytes: st.size,
                                reason: "rated \(stars) stars since it was staged (its XMP sidecar): it stays; decide again", clock: clock))
                        continue
                    }
                    if let other = try otherPath(ofSameFile: st, id: id, library: library) {
                        let why =
                            "it is the same file as \(other) (one file reached by two paths: a symbolic link or a bind mount); moving it would take both, so it stays"
                        report.outcomes.append(try skip(library, fileID: id, path: path, bytes: st.size, reason: why, clock: clock))
                        continue
                    }
                    let outcome = try trashOne(library: library, clock: clock, env: env, fileID: id, parentID: nil, path: path, status: st)
                    report.outcomes.append(outcome)
                    if let parent = try library.db.scalar("SELECT max(id) FROM trash_ledger WHERE file_id=?", id) {
                        report.outcomes += try sendSidecars(library: library, clock: clock, env: env, ledgerID: parent)
                    }
                }
            } catch let e as SystemError where !report.succeeded.isEmpty {
                // The library's disk filled up (or turned read-only) mid-commit: some files are
                // in the Trash already, and the message must not say "nothing was changed".
                let n = report.succeeded.count
                throw LibraryError(
                    .io,
                    "the commit stopped after moving \(n) file\(n == 1 ? "" : "s") to the Trash: \(Library.condition(library.path, e) ?? e.message). "
                        + "Free some space, then 'snapsort trash list' shows what is where, and a commit goes on")
            }
            report.milestones = try library.db.transaction { try Stats.recordMilestones(library: library, clock: clock, timeZone: env.timeZone) }
            logger.info("trash commit done", ["trash.trashed": "\(report.succeeded.count)", "trash.skipped": "\(report.skipped.count)"])
            return report
        }
    }

    /// Sends the sidecars of the photo that ledger entry `ledgerID` moved after it (a sidecar
    /// goes with its photo unless it is a library item the user decided otherwise: kept, or
    /// staged itself — then it is committed on its own), and records that they went. A photo
    /// that did not go keeps its sidecars.
    static func sendSidecars(library: Library, clock: Clock, env: TrashEnvironment, ledgerID: Int64) throws -> [TrashOutcome] {
        guard let l = try library.db.row("SELECT file_id, original_path, state, sidecars_pending FROM trash_ledger WHERE id=?", ledgerID),
            let id = l.int(0), let path = l.string(1), l.int(3) == 1
        else { return [] }
        var out: [TrashOutcome] = []
        if l.string(2) == LedgerState.trashed.rawValue {
            for side in try Sidecars.all(of: id, path: path, library: library) where try sidecarMayTravel(library, side, photoID: id) {
                guard let sst = FileSystem.lstatusIfExists(side), sst.isRegular else { continue }
                let sideID = try library.liveRow(path: side)?.id
                var o = try trashOne(library: library, clock: clock, env: env, fileID: sideID, parentID: ledgerID, path: side, status: sst)
                o.isSidecar = true
                out.append(o)
            }
        }
        try library.db.run("UPDATE trash_ledger SET sidecars_pending=0 WHERE id=?", ledgerID)
        return out
    }

    /// Another live row's path that is this very file now (the same device and inode, one
    /// name: a folder reached through a symbolic link or a bind mount as well as directly). A
    /// hard link is another name: the file stays under it, so it is no such path.
    static func otherPath(ofSameFile st: FileStatus, id: Int64, library: Library) throws -> String? {
        guard st.linkCount <= 1 else { return nil }
        for r in try library.db.rows(
            "SELECT path FROM files WHERE size=? AND \(Library.live()) AND device=? AND inode=? AND id != ?",
            st.size, st.device, st.inode, id)
        {
            guard let p = r.string(0), let now = FileSystem.lstatusIfExists(p) else { continue }
            if now.isRegular && now.device == st.device && now.inode == st.inode { return p }
        }
        return nil
    }

    /// Whether a sidecar goes with its photo: never one the user decided on, and a `.mov` only
    /// when it is the photo's Live Photo motion (a few seconds, taken with it). A video of its
    /// own that happens to share the photo's name (`IMG_0042.JPG` and a 3-minute
    /// `IMG_0042.MOV` from another day) stays, undecided: it was taken along unseen.
    static func sidecarMayTravel(_ library: Library, _ path: String, photoID: Int64) throws -> Bool {
        let isVideo = path.lowercased().hasSuffix(".mov")
        guard let row = try library.liveRow(path: path) else { return !isVideo }
        guard try Review.decision(for: row.id, library: library) == nil else { return false }
        guard isVideo else { return true }
        guard let clip = try library.item(id: row.id), let d = clip.durationSeconds, d <= Sidecars.livePhotoSeconds else { return false }
        if let a = clip.takenTimestamp, let b = try library.item(id: photoID)?.takenTimestamp {
            return abs(a - b) <= Sidecars.livePhotoSeconds
        }
        return true
    }

    static func skip(_ library: Library, fileID: Int64?, path: String, bytes: Int64, reason: String, clock: Clock) throws -> TrashOutcome {
        try library.db.run(
            """
            INSERT INTO trash_ledger(file_id, original_path, state, reason, bytes, planned_ts) VALUES(?,?,\(LedgerState.skipped.sql),?,?,?)
            """, fileID, path, reason, bytes, clock.now().timeIntervalSince1970)
        return TrashOutcome(path: path, bytes: bytes, result: .skipped(reason), isSidecar: false)
    }

    /// Trashes one file: plan in the ledger, `info/NAME.trashinfo` with `O_EXCL`, re-check the
    /// identity, `rename` into `files/NAME`, record.
    static func trashOne(
        library: Library, clock: Clock, env: TrashEnvironment, fileID: Int64?, parentID: Int64?,
        path: String, status st: FileStatus
    ) throws -> TrashOutcome {
        let now = clock.now()
        let real: String
        do { real = try TrashLocator.realPath(ofFile: path) } catch {
            return try skip(library, fileID: fileID, path: path, bytes: st.size, reason: "cannot resolve its folder: \(error)", clock: clock)
        }
        var preferHome = true
        var deviceTop: String?
        while true {
            let loc: TrashLocation
            do {
                loc = try TrashLocator.locate(realPath: real, env: env, preferHome: preferHome, topDirectory: deviceTop)
            } catch {
                return try skip(
                    library, fileID: fileID, path: path, bytes: st.size,
                    reason: "no Trash on its file system (\(error)); left in place", clock: clock)
            }
            let info = TrashInfo.render(pathKey: loc.pathKey(for: path, realPath: real), deletedAt: now, timeZone: env.timeZone)
            let base = fitted(String(path.split(separator: "/").last ?? "file"))
            // Plan first: a crash after this point is finished or rolled back by `resume`.
            var ledger = Ledger(
                id: 0, fileID: fileID, parentID: parentID, originalPath: path, directory: loc.directory,
                name: base, info: info, bytes: st.size, device: st.device, inode: st.inode, mtime: st.mtimeNanoseconds)
            let realDir = String(real[..<(real.lastIndex(of: "/") ?? real.startIndex)])
            try library.db.run(
                """
                INSERT INTO trash_ledger(file_id, parent_id, original_path, trash_dir, trash_name, info, state, bytes, device, inode, mtime_ns, planned_ts, real_dir,
                    sidecars_pending)
                VALUES(?,?,?,?,?,?,\(LedgerState.planned.sql),?,?,?,?,?,?,?)
                """, fileID, parentID, path, loc.directory, base, info, st.size, st.device, st.inode, st.mtimeNanoseconds, now.timeIntervalSince1970,
                realDir.isEmpty ? "/" : realDir, parentID == nil && fileID != nil ? 1 : 0)
            ledger.id = library.db.lastInsertRowID
            // A unique name: the .trashinfo is created with O_EXCL (the specification's lock).
            var n = 1
            while true {
                let name = n == 1 ? base : numbered(base, n)
                if name != ledger.name {
                    ledger.name = name
                    try library.db.run("UPDATE trash_ledger SET trash_name=? WHERE id=?", name, ledger.id)
                }
                if FileSystem.exists(ledger.trashPath) { n += 1; continue }
                do {
                    try FileSystem.createExclusive(ledger.infoPath, Array(info.utf8))
                    break
                } catch let e as SystemError where e.code == .errno(EEXIST) {
                    n += 1
                } catch {
                    try finish(library, ledger, state: .skipped, reason: "cannot write its .trashinfo: \(error)", clock: clock)
                    return TrashOutcome(
                        path: path, bytes: st.size, result: .skipped("cannot write its .trashinfo: \(error)"), isSidecar: parentID != nil)
                }
            }
            try env.afterInfoWritten(path)
            // Last identity check right before the move.
            guard let now2 = FileSystem.lstatusIfExists(path), ledger.matches(now2) else {
                try? FileSystem.remove(ledger.infoPath)
                try finish(library, ledger, state: .skipped, reason: "changed while committing", clock: clock)
                return TrashOutcome(path: path, bytes: st.size, result: .skipped("changed while committing"), isSidecar: parentID != nil)
            }
            do {
                try FileSystem.renameNoReplace(path, ledger.trashPath)
            } catch let e as SystemError {
                try? FileSystem.remove(ledger.infoPath)
                if e.code == .errno(EXDEV) && loc.isHome && preferHome {
                    // The home trash is on another mount after all (e.g. a bind mount): never
                    // copy — try the Trash of the file's own mount.
                    try finish(library, ledger, state: .abandoned, reason: "home trash on another mount", clock: clock)
                    preferHome = false
                    continue
                }
                if e.code == .errno(EXDEV), deviceTop == nil, let top = TrashLocator.deviceTop(ofFile: real), top != loc.topDirectory {
                    // The file's device ends below its mount (a btrfs subvolume not mounted on
                    // its own): the Trash at that device's top, as file managers use.
                    try finish(library, ledger, state: .abandoned, reason: "its mount's trash is on another device", clock: clock)
                    preferHome = false
                    deviceTop = top
                    continue
                }
                let why =
                    e.code == .errno(EXDEV)
                    ? "its Trash is on another file system; SnapSort never copies, left in place"
                    : "cannot move it into the Trash: \(e.message)"
                try finish(library, ledger, state: .skipped, reason: why, clock: clock)
                return TrashOutcome(path: path, bytes: st.size, result: .skipped(why), isSidecar: parentID != nil)
            }
            FileSystem.syncDirectory(of: ledger.trashPath)
            try env.afterRename(path)
            try recordTrashed(library, ledger, clock: clock, timeZone: env.timeZone)
            return TrashOutcome(path: path, bytes: st.size, result: .trashed(ledger.trashPath), isSidecar: parentID != nil)
        }
    }

    /// The longest name in `files/` whose `.trashinfo`, and the temp name it is written under
    /// (`FileSystem.createExclusive`: 33 bytes more at most), are still file names (NAME_MAX,
    /// 255 bytes), with room for a clash number (`numbered`).
    static let longestBase = 255 - ".trashinfo".utf8.count - 33 - 8

    /// A name that fits `longestBase`: a longer one loses the end of its stem (whole
    /// characters) and keeps its extension. The specification lets the name in `files/` differ
    /// from the original's; `Path=` in the `.trashinfo` keeps that.
    static func fitted(_ name: String) -> String {
        guard name.utf8.count > longestBase else { return name }
        var stem = name, ext = ""
        if let dot = name.lastIndex(of: "."), dot != name.startIndex, name.utf8.distance(from: dot, to: name.endIndex) <= 16 {
            stem = String(name[..<dot])
            ext = String(name[dot...])
        }
        while !stem.isEmpty && stem.utf8.count + ext.utf8.count > longestBase { stem.removeLast() }
        return stem + ext
    }

    /// `IMG_1.jpg` → `IMG_1.2.jpg`.
    static func numbered(_ name: String, _ n: Int) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "\(name).\(n)" }
        return "\(name[..<dot]).\(n)\(name[dot...])"
    }
}
