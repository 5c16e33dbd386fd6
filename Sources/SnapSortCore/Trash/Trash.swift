import Foundation
import SnapSortSystem

/// An item staged for the Trash (decided `trash`, not committed): still in place and in the
/// library.
public struct StagedItem: Sendable, Equatable {
    public var fileID: Int64
    public var path: String
    public var bytes: Int64
    public var decidedAt: Double
    /// The file changed (or went) since it was reviewed: a commit leaves it in place until it
    /// is decided again.
    public var changedSinceReview = false
    /// …because it is not there: moved away outside SnapSort's sight, or on a drive that is not
    /// mounted (a commit leaves it staged; it is moved once it is back as it was).
    public var missing = false
    /// Why the file cannot be looked at now (its folder unsearchable: "Permission denied"), or
    /// nil. Such a file is neither missing nor changed: a commit leaves it staged.
    public var unreachable: String?
    /// Nothing that stays in the library holds its pixels once the staged items are gone
    /// (`LastCopies`): true for an item in no set, and for the members of a set staged whole.
    public var lastCopy = true
    /// The duplicate or Similar Shots set it leaves whole with the others staged (`s<key>`).
    public var lastCopySet: String?
    /// Whether `lastCopySet` is a duplicate set (copies of one picture).
    public var lastCopyOfDuplicates = false
    /// `lastCopySet` as a person knows it: its keeper's file name and date (`Library.setName`).
    public var lastCopySetName: String? = nil
}

/// A file SnapSort moved to a system Trash (a ledger row).
public struct TrashedFile: Sendable, Equatable {
    public var ledgerID: Int64
    public var fileID: Int64?
    public var originalPath: String
    public var trashPath: String
    public var bytes: Int64
    public var trashedAt: Double
    public var isSidecar: Bool
    /// The Trash folder (holding `files/` and `info/`), the name in it, and the `.trashinfo`
    /// text SnapSort wrote (to tell its file from another trashed later under a freed name).
    var trashDirectory: String
    var name: String
    var info: String?

    var infoPath: String { trashDirectory + "/info/" + name + ".trashinfo" }
}

/// What happened to one file in a commit or restore.
public struct TrashOutcome: Sendable, Equatable {
    public enum Result: Sendable, Equatable {
        /// Moved into the Trash at this path.
        case trashed(String)
        /// Put back at its original path.
        case restored
        /// Un-staged: the item is undecided again (it never left its place).
        case unstaged
        /// Left where it is, with the reason.
        case skipped(String)
    }
    public var path: String
    public var bytes: Int64
    public var result: Result
    public var isSidecar: Bool

    public var succeeded: Bool { if case .skipped = result { return false } else { return true } }

    public init(path: String, bytes: Int64, result: Result, isSidecar: Bool) {
        self.path = path
        self.bytes = bytes
        self.result = result
        self.isSidecar = isSidecar
    }
}

/// What a commit or restore did, file by file.
public struct TrashReport: Sendable, Equatable {
    public var outcomes: [TrashOutcome] = []
    /// Commits interrupted earlier and finished (or rolled back) by this run.
    public var resumed = 0
    public var milestones: [String] = []

    public var succeeded: [TrashOutcome] { outcomes.filter(\.succeeded) }
    public var skipped: [TrashOutcome] { outcomes.filter { !$0.succeeded } }
    public var bytes: Int64 { succeeded.reduce(0) { $0 + $1.bytes } }
}

/// The trash the user controls: staging, the commit to the freedesktop.org Trash, restore.
///
/// Only `commit` and `restore` move a user's file, always with `rename(2)` that never replaces
/// an existing file and never copies across file systems. The commit is journaled in
/// `trash_ledger` before each step, so a commit killed half-way is finished by the next one:
/// every staged file ends trashed once or still in place, and the ledger says which.
public enum Trash {
    // MARK: - Staging

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

    /// Count and bytes of what is staged.
    public static func stagedTotals(library: Library) throws -> (count: Int, bytes: Int64) {
        let r = try library.db.row(
            """
            SELECT count(*), COALESCE(sum(f.size),0) FROM decisions d JOIN files f ON f.id=d.file_id
            WHERE d.decision = \(Decision.trash.sql) AND \(Library.live("f"))
            """)
        return (Int(r?.int(0) ?? 0), r?.int(1) ?? 0)
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

    // MARK: - Commit

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

    // MARK: - Restore

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

/// Files that travel with a photo: `IMG_1234.xmp`, `IMG_1234.jpg.xmp`, `IMG_1234.aae`, and a
/// Live Photo's `IMG_1234.mov` next to its `.heic`/`.jpg`.
public enum Sidecars {
    /// A Live Photo's motion clip is about 3 s long and starts with its still, give or take.
    static let livePhotoSeconds: Double = 5
    /// What travels with item `id` at `path`: the files named after it (`find`) and the RAW of a
    /// RAW+JPEG pair (`Library.sidecars`: same folder, stem and capture time), which is not
    /// reviewed on its own — the pair is one item.
    public static func all(of id: Int64, path: String, library: Library) throws -> [String] {
        var out = find(for: path)
        for raw in try library.sidecars(of: id) {
            // The RAW, and what is named after it (darktable's `DSC_0101.NEF.xmp`: its edits and rating).
            for p in [raw.path] + find(for: raw.path) where p != path && !out.contains(p) { out.append(p) }
        }
        return out.sorted()
    }

    public static func find(for path: String) -> [String] {
        guard let slash = path.lastIndex(of: "/") else { return [] }
        let dir = String(path[..<slash])
        let name = String(path[path.index(after: slash)...])
        let dot = name.lastIndex(of: ".")
        let stem = dot.map { String(name[..<$0]) } ?? name
        let ext = dot.map { name[name.index(after: $0)...].lowercased() } ?? ""
        guard let entries = try? FileSystem.listDirectory(dir) else { return [] }
        var out: [String] = []
        for e in entries where e.name != name {
            let lower = e.name.lowercased()
            let s = stem.lowercased()
            var match = lower == s + ".xmp" || lower == name.lowercased() + ".xmp" || lower == s + ".aae"
            if ["heic", "heif", "jpg", "jpeg"].contains(ext) && lower == s + ".mov" { match = true }
            if match, e.kind == .regular || e.kind == .unknown { out.append(dir + "/" + e.name) }
        }
        return out.sorted()
    }
}
