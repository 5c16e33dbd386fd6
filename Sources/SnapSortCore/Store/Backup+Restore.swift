import Foundation
import SnapSortSystem

/// The backups as `snapsort backup list` shows them, and `snapsort backup restore`: a backup
/// put back in the library's place, the file that was there kept aside (never removed).
extension Backup {
    /// One backup: when it was made, what it holds and whether SQLite finds it whole.
    public struct Entry: Sendable, Equatable {
        public var path: String
        public var name: String { Backup.name(path) }
        public var date: Date
        public var bytes: Int64
        /// Nil when it cannot be read as a SnapSort library.
        public var contents: Contents?
        /// Nil when whole (`PRAGMA quick_check` says ok), else what is wrong.
        public var problem: String?
        /// Whether `restore` takes this one when none is named (`best`).
        public var isBest = false
        public var isGood: Bool { problem == nil && contents != nil }
    }

    /// What `restore` did.
    public struct Restored: Sendable, Equatable {
        /// The backup put back.
        public var backup: Entry
        /// Where the file that was at the library's path is now (and its `-wal`, `-shm`), nil
        /// when there was none.
        public var keptAside: String?
    }

    /// Whether SQLite finds the backup whole and it is a SnapSort library this build can open:
    /// nil when it is, else what is wrong.
    public static func problem(_ path: String) -> String? {
        do {
            let db = try Database(path: path, readOnly: true)
            if let p = try db.quickCheck() { return "damaged: \(p)" }
            let v = try db.userVersion
            if v == 0 { return "not a SnapSort library" }
            if v > Schema.currentVersion { return "written by a newer SnapSort (schema \(v))" }
            return nil
        } catch let e as SystemError {
            return "unreadable: \(e.message)"
        } catch {
            return "unreadable: \(error)"
        }
    }

    /// Every backup of `dbPath`, newest first, each checked (this reads every page of each);
    /// the one `restore` takes by default is marked `isBest`.
    public static func entries(_ dbPath: String) -> [Entry] {
        var all = list(dbPath).reversed().compactMap { p -> Entry? in
            guard let d = date(p) else { return nil }
            let problem = problem(p)
            return Entry(
                path: p, date: d, bytes: (try? FileSystem.status(p))?.size ?? 0, contents: problem == nil ? contents(p) : nil,
                problem: problem)
        }
        if let i = bestIndex(all) { all[i].isBest = true }
        return Array(all)
    }

    /// The backup `restore` takes when none is named, among `entries` (newest first): the
    /// newest good one (whole, readable) unless it holds far less than the richest good one —
    /// the rule that refuses a library (`Library+Refusal`: under half its review events, the
    /// richest holding at least `Library.minimumHistory`) — then the newest that does not.
    static func bestIndex(_ entries: [Entry]) -> Int? {
        let richest = entries.compactMap { $0.isGood ? $0.contents?.events : nil }.max() ?? 0
        return entries.firstIndex { e in
            guard e.isGood, let c = e.contents else { return false }
            return richest < Library.minimumHistory || c.events * 2 >= richest
        }
    }

    /// Puts the backup `name` (its file name or path; nil: the best, `entries`) in the place of
    /// the library at `dbPath`, after checking it whole. Refuses, changing nothing, while an
    /// agent runs on the library (it is told to stop first: nothing is stopped unasked) or a
    /// scan or a trash commit holds it; holds their locks meanwhile so none starts.
    ///
    /// Crash-safe: the backup is copied (`VACUUM INTO`) to a temp file beside the library,
    /// marked as a library that began now (`library_began_at`: the backups made before it are
    /// of another history), synced; the file at the library's path, with its `-wal` and
    /// `-shm`, is renamed to `<library>.before-restore-YYYYMMDD-HHMMSS` (never replacing
    /// anything), and the copy renamed into its place.
    public static func restore(_ name: String?, dbPath: String, now: Date) throws -> Restored {
        let files = LibraryFiles(database: dbPath)
        guard let agentLock = try FileLock.tryLock(files.agentLock) else {
            let pid = FileLock.contents(files.agentLock)?.split(separator: "\n").first { $0.hasPrefix("pid=") }.map { " (" + $0 + ")" } ?? ""
            throw LibraryError(
                .io,
                "an agent is running for the library at \(dbPath)\(pid); nothing was changed: stop it first ('systemctl --user stop snapsort', or Ctrl-C where it runs), run the restore again, then start it"
            )
        }
        defer { agentLock.unlock() }
        guard let scanLock = try FileLock.tryLock(files.scanLock) else {
            throw LibraryError(.io, "a scan of the library at \(dbPath) is running; nothing was changed: let it end and run the restore again")
        }
        defer { scanLock.unlock() }
        guard let trashLock = try FileLock.tryLock(files.trashLock) else {
            throw LibraryError(
                .io, "a trash commit or restore holds the library at \(dbPath); nothing was changed: let it end and run the restore again")
        }
        defer { trashLock.unlock() }

        let all = entries(dbPath)
        let chosen: Entry
        if let name {
            guard let e = all.first(where: { $0.name == name || $0.path == name }) else {
                throw LibraryError(
                    .notFound, "\(name) is not one of the backups of the library at \(dbPath) (see 'snapsort backup list'); nothing was changed")
            }
            chosen = e
        } else {
            guard let i = bestIndex(all) else {
                throw LibraryError(
                    .notFound,
                    all.isEmpty
                        ? "there is no backup beside the library at \(dbPath) (the agent makes them while it runs); nothing was changed"
                        : "no backup of the library at \(dbPath) is whole (see 'snapsort backup list'); nothing was changed")
            }
            chosen = all[i]
        }
        if let p = chosen.problem { throw LibraryError(.corrupt, "the backup \(chosen.path) cannot be restored: \(p); nothing was changed") }

        let temp =
            FileSystem.exclusiveTempPrefix(for: dbPath) + "\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0 ... .max)).restore"
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { try? FileSystem.remove(temp + suffix) } }
        do {
            try Database(path: chosen.path, readOnly: true).run("VACUUM INTO ?", temp)
            try FileSystem.setMode(temp, 0o600)
            let db = try Database(path: temp)
            try db.run(
                """
                INSERT INTO agent_state(key, value, updated_at) VALUES(?,?,?)
                ON CONFLICT(key) DO UPDATE SET value=excluded.value, updated_at=excluded.updated_at
                """, Library.beganKey, StatusTimestamp.string(now), StatusTimestamp.string(now))
            if let p = try db.quickCheck() { throw LibraryError(.corrupt, "the copy of \(chosen.path) is damaged (\(p)); nothing was changed") }
            // The whole library in the one file before it is renamed.
            try db.execute("PRAGMA journal_mode=DELETE")
        } catch let e as SystemError {
            throw LibraryError(.io, "cannot copy the backup \(chosen.path) beside the library: \(e.message); nothing was changed")
        }
        try FileSystem.syncFile(temp)

        var aside: String?
        if FileSystem.lstatusIfExists(dbPath) != nil || FileSystem.lstatusIfExists(dbPath + "-wal") != nil {
            var target = dbPath + ".before-restore-" + stampFormatter().string(from: now)
            var n = 2
            while (["", "-wal", "-shm"].contains { FileSystem.lstatusIfExists(target + $0) != nil }) {
                target = dbPath + ".before-restore-" + stampFormatter().string(from: now) + "-\(n)"
                n += 1
            }
            // The library first, then its working files under the same new name (SQLite pairs
            // `X` with `X-wal`): none is left at the library's path to be read into the copy.
            for suffix in ["", "-wal", "-shm", "-journal"] where FileSystem.lstatusIfExists(dbPath + suffix) != nil {
                do {
                    try FileSystem.renameNoReplace(dbPath + suffix, target + suffix)
                } catch let e as SystemError {
                    throw LibraryError(
                        .io,
                        "cannot move \(dbPath + suffix) aside to \(target + suffix): \(e.message); the restore stopped (what was moved is at \(target)*)"
                    )
                }
            }
            aside = target
        }
        do {
            try FileSystem.renameNoReplace(temp, dbPath)
        } catch let e as SystemError {
            throw LibraryError(
                .io, "cannot put the backup in place at \(dbPath): \(e.message); the library that was there is at \(aside ?? "(none)")")
        }
        FileSystem.syncDirectory(of: dbPath)
        return Restored(backup: chosen, keptAside: aside)
    }
}
