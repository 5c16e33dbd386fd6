import Foundation
import SnapSortSystem

/// An error of the library store with a code and a message fit for one stderr line.
public struct LibraryError: Error, CustomStringConvertible, Sendable {
    public enum Code: Sendable, Equatable {
        case newerSchema, corrupt, notFound, invalid, io
        /// An existing file that is no library any more (`Library+Refusal`): never initialised over.
        case refused
    }
    public let code: Code
    public let message: String
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { message }
}

/// The SnapSort database: opened with WAL, checked, migrated.
public final class Library: @unchecked Sendable {
    public let db: Database
    public let path: String
    /// Set while a bulk action's decisions are made as one undo step (`Review.asOneUndoStep`):
    /// the undo history is trimmed once they are one step, not under them.
    var undoBatchOpen = false
    /// The models' progress as last counted, and the mark it was counted at (`modelsProgress`).
    var modelsCounted: ModelsCount?
    /// The trash lock while held by this process (`withTrashLock`), and how deep.
    private var trashLock: FileLock?
    private var trashLockDepth = 0

    /// Runs `body` holding the library's trash lock (`<db>.trash.lock`): one commit or restore
    /// at a time across processes (the page and a terminal), so neither reports the files the
    /// other moved as changed, missing or emptied. Re-entrant within this object.
    public func withTrashLock<T>(_ body: () throws -> T) throws -> T {
        try trashLocked(wait: true, body)!
    }

    /// `withTrashLock` when the lock is free now; nil (and `body` not run) while another
    /// commit or restore holds it. For the agent's loop, which must not wait on one.
    public func withTrashLockIfFree<T>(_ body: () throws -> T) throws -> T? {
        try trashLocked(wait: false, body)
    }

    private func trashLocked<T>(wait: Bool, _ body: () throws -> T) throws -> T? {
        if path == ":memory:" { return try body() }
        if trashLockDepth == 0 {
            let lockPath = files.trashLock
            guard let lock = wait ? try FileLock.lock(lockPath) : try FileLock.tryLock(lockPath) else { return nil }
            trashLock = lock
        }
        trashLockDepth += 1
        defer {
            trashLockDepth -= 1
            if trashLockDepth == 0 {
                trashLock?.unlock()
                trashLock = nil
            }
        }
        return try body()
    }

    /// Opens (creating folders and the file as needed) and migrates the library. An existing
    /// file that is no library any more (empty, no SnapSort schema, far poorer than its backup:
    /// `Library+Refusal`) throws `LibraryError.Code.refused` and is left as it is.
    ///
    /// `checkIntegrity`: run `PRAGMA quick_check` first, which reads every page (0.35 s for a
    /// 100 000-photo library with a warm cache, many seconds with a cold one): the agent at its
    /// start and `scan` do; quick commands (`decide`, `status`, …) do not, and a damaged page
    /// they meet is reported by SQLite as it is read (`Library.damaged` words it).
    public init(path: String, readOnly: Bool = false, checkIntegrity: Bool = false) throws {
        self.path = path
        if !readOnly, let slash = path.lastIndex(of: "/") {
            let dir = String(path[..<slash])
            if !dir.isEmpty {
                do {
                    try FileSystem.makeDirectories(dir, mode: 0o700)
                } catch let e as SystemError {
                    throw LibraryError(.io, "cannot make the library's folder \(dir): \(e.message)")
                }
            }
        }
        if FileSystem.lstatusIfExists(path)?.isDirectory == true {
            throw LibraryError(.io, "the library at \(path) is a folder; the library is one database file (e.g. \(path)/library.sqlite3)")
        }
        let isNew = !readOnly && path != ":memory:" && !FileSystem.exists(path)
        if path != ":memory:", !isNew, let refusal = Library.refusalBeforeOpening(path) { throw refusal }
        do {
            // A new library appears whole or not at all: an empty file at its path is never
            // one being made, so it can be refused (`Library+Refusal`).
            if isNew {
                // Its beginning is compared with its backups' file times, which are the wall
                // clock's: the live clock, read once here at the edge.
                try Library.create(path, now: Clock.live.now())
            }
            // Not in WAL mode before it is known to be a library: a foreign database is left
            // as it was.
            db = try Database(path: path, readOnly: readOnly, wal: false)
        } catch let e as SystemError {
            throw LibraryError(.io, "cannot open the library at \(path): \(e.message)")
        }
        // Reading the version is the first read of the file: a damaged one says so here.
        let version: Int
        do {
            if checkIntegrity, let problem = try db.quickCheck() { throw Library.damaged(path, problem) }
            version = try db.userVersion
            if path != ":memory:", let refusal = try Library.refusalAfterOpening(db, path: path, version: version) { throw refusal }
        } catch let e as SystemError where e.code.sqliteValue.map({ $0 & 0xff == 26 }) == true {
            throw Library.notADatabase(path)  // SQLITE_NOTADB
        } catch let e as SystemError where Library.isDamage(e) {
            throw Library.damaged(path, e.message)
        }
        if version > Schema.currentVersion {
            throw LibraryError(
                .newerSchema,
                "the library at \(path) was written by a newer SnapSort (schema \(version), this build knows \(Schema.currentVersion)); upgrade SnapSort — the database is left untouched"
            )
        }
        if !readOnly {
            do {
                try db.switchToWAL()
            } catch let e as SystemError {
                throw Library.explained(path, e) ?? LibraryError(.io, "cannot open the library at \(path): \(e.message)")
            }
            try Library.migrate(db, from: version)
        }
    }

    /// Makes a new library at `path` whole: the schema is written to a temp file beside it
    /// (0600: paths, and the text read off receipts and letters, are for its owner only), which
    /// is synced and renamed to `path` without replacing anything (another process that made it
    /// meanwhile wins). A `-wal` or `-shm` file left at `path` by a library removed without them
    /// is not read into the new one: the `-wal` is kept aside (`.orphaned-wal-SECONDS`), the
    /// `-shm` (an index SQLite rebuilds) removed.
    static func create(_ path: String, now: Date) throws {
        let temp = FileSystem.exclusiveTempPrefix(for: path) + "\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0 ... .max)).new"
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { try? FileSystem.remove(temp + suffix) } }
        do {
            let db = try Database(path: temp)
            try FileSystem.setMode(temp, 0o600)
            try migrate(db, from: 0)
            try db.run(
                "INSERT INTO agent_state(key, value, updated_at) VALUES(?,?,?)", beganKey, StatusTimestamp.string(now),
                StatusTimestamp.string(now))
            // The whole library in the one file before it is renamed (its -wal stays behind).
            try db.execute("PRAGMA journal_mode=DELETE")
        }
        try FileSystem.syncFile(temp)
        if FileSystem.lstatusIfExists(path) == nil {
            if FileSystem.lstatusIfExists(path + "-wal") != nil {
                try? FileSystem.renameNoReplace(path + "-wal", path + ".orphaned-wal-\(Int(now.timeIntervalSince1970))")
            }
            try? FileSystem.remove(path + "-shm")
        }
        do {
            try FileSystem.renameNoReplace(temp, path)
        } catch let e as SystemError where e.code == .errno(EEXIST) {
            return  // made by another process meanwhile: that one is opened
        } catch let e as SystemError where e.code == .errno(EPERM) || e.code == .errno(EOPNOTSUPP) || e.code == .errno(ENOSYS) {
            // A file system with neither the flag nor hard links (FAT): a plain rename, unless
            // another process made it meanwhile.
            if FileSystem.lstatusIfExists(path) != nil { return }
            try FileSystem.rename(temp, path)
        }
        FileSystem.syncDirectory(of: path)
    }

    /// Applies every known migration not yet applied, each in its own transaction.
    /// `user_version` holds the highest applied version (a newer one is refused above);
    /// `schema_migrations` lists each applied version, so concerns that own separate version
    /// ranges can land in any order.
    private static func migrate(_ db: Database, from version: Int) throws {
        // Readers must not need the write lock: check first, migrate only when something is missing.
        let hasTable = try db.scalar("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='schema_migrations'") == 1
        if hasTable {
            let applied = Set(try db.rows("SELECT version FROM schema_migrations").compactMap { $0.int(0) }.map(Int.init))
            if Schema.all.allSatisfy({ applied.contains($0.version) }) { return }
        }
        func apply(_ m: Migration) throws {
            // Re-read inside the write lock: another process may have migrated meanwhile.
            guard try db.scalar("SELECT count(*) FROM schema_migrations WHERE version=?", m.version) == 0 else { return }
            try db.execute(m.sql)
            try db.run("INSERT INTO schema_migrations(version, applied_at) VALUES(?, datetime('now'))", m.version)
            if try db.userVersion < m.version { try db.setUserVersion(m.version) }
        }
        // A new library takes the whole schema in one transaction (a first scan waited ~15 ms
        // for sixty commits); an existing one each migration in its own, so a migration that
        // fails keeps the ones before it.
        if !hasTable && version == 0 {
            try db.transaction {
                try db.execute("CREATE TABLE IF NOT EXISTS schema_migrations(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
                for m in Schema.all { try apply(m) }
            }
            return
        }
        try db.transaction {
            try db.execute("CREATE TABLE IF NOT EXISTS schema_migrations(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
        }
        for m in Schema.all { try db.transaction { try apply(m) } }
    }

    /// The files SnapSort keeps for this library apart from the database (locks, key, backups,
    /// the page's and the status's files).
    public var files: LibraryFiles { LibraryFiles(database: path) }

    /// The lock a scan of this library holds, from its walk to the end of its regroup (the CLI's
    /// `scan` and the agent's reconciles): two scans at once would both insert a new file's row.
    public var scanLockPath: String { files.scanLock }

    /// Whether SQLite says the file is damaged or not a database (SQLITE_CORRUPT, SQLITE_NOTADB).
    public static func isDamage(_ e: SystemError) -> Bool {
        guard let c = e.code.sqliteValue else { return false }
        return c & 0xff == 11 || c & 0xff == 26
    }

    /// What a busy, read-only or full library means, in words, naming the file (SQLite says
    /// "database is locked", "attempt to write a readonly database", "database or disk is
    /// full"); nil for any other error. SQLite undoes the statement: nothing was half-written.
    public static func explained(_ path: String, _ e: SystemError) -> LibraryError? {
        guard let c = e.code.sqliteValue else { return nil }
        switch c & 0xff {
        case 5, 6:  // SQLITE_BUSY, SQLITE_LOCKED
            return LibraryError(
                .io,
                "the library at \(path) is busy: another program holds it (a 'sqlite3' shell, a backup tool?); nothing was changed, try again")
        case 8:  // SQLITE_READONLY
            return LibraryError(.io, "the library at \(path) cannot be written: \(readOnlyPart(path)); nothing was changed")
        case 13:  // SQLITE_FULL
            return LibraryError(.io, "the disk holding the library at \(path) is full; nothing was changed: free some space and try again")
        default:
            return nil
        }
    }

    /// Which part of a read-only library cannot be written. SQLite's `-wal` and `-shm` files
    /// count: left read-only by an opening while the library was (chmod 444), they keep it
    /// unwritable after the file and its folder are writable again, and the user, told to check
    /// those two, found both fine.
    static func readOnlyPart(_ path: String) -> String {
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        for (file, what) in [(path, "the file is read-only"), (folder.isEmpty ? "/" : folder, "its folder is read-only")]
        where FileSystem.lstatusIfExists(file) != nil && !FileSystem.isWritable(file) {
            return what
        }
        for side in ["-wal", "-shm"] where FileSystem.lstatusIfExists(path + side) != nil && !FileSystem.isWritable(path + side) {
            let name = (path + side).split(separator: "/").last.map(String.init) ?? side
            return
                "its \(name) (SQLite's working file, left read-only by an earlier opening) is not writable: 'chmod u+w' it, or remove it while no SnapSort runs"
        }
        return "the file or its folder is read-only, or on a read-only disk"
    }

    /// What a busy, read-only or full library is, in a few words (for messages that go on to
    /// say what was and was not done); nil for any other error.
    public static func condition(_ path: String, _ e: SystemError) -> String? {
        switch e.code.sqliteValue.map({ $0 & 0xff }) {
        case 5, 6: "the library at \(path) is busy (another program holds it)"
        case 8: "the library at \(path) cannot be written (read-only)"
        case 13: "the disk holding the library at \(path) is full"
        default: nil
        }
    }

    /// The error for a damaged library: what SQLite said, the backups and the command that
    /// puts one back (`recoveryAdvice`).
    public static func damaged(_ path: String, _ detail: String) -> LibraryError {
        LibraryError(
            .corrupt,
            "the library at \(path) is damaged (\(detail)); nothing was changed. \(recoveryAdvice(path))"
        )
    }

    /// The schema version on disk.
    public var schemaVersion: Int { (try? db.userVersion) ?? 0 }

    /// SQLite's `PRAGMA data_version`: it changes when another connection (the CLI, the page)
    /// commits to the database, never for this connection's own writes. The agent compares it
    /// to notice the others' changes. See: https://sqlite.org/pragma.html#pragma_data_version
    public func dataVersion() throws -> Int64 {
        try db.scalar("PRAGMA data_version") ?? 0
    }

    /// A mark that moves with every change to the database, this connection's (rows written,
    /// `Database.totalChanges`) or another's (`dataVersion`): what was computed from the library
    /// under one mark is current while the mark is the same.
    public func changeMark() throws -> ChangeMark { ChangeMark(dataVersion: try dataVersion(), changes: db.totalChanges) }

    /// See `changeMark`.
    public struct ChangeMark: Equatable, Sendable {
        let dataVersion: Int64
        let changes: Int
    }
}
