import Foundation
import SnapSortSystem

/// An error of the library store with a code and a message fit for one stderr line.
public struct LibraryError: Error, CustomStringConvertible, Sendable {
    public enum Code: Sendable, Equatable { case newerSchema, corrupt, notFound, invalid, io }
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

    /// Opens (creating folders and the file as needed) and migrates the library.
    public init(path: String, readOnly: Bool = false) throws {
        self.path = path
        if !readOnly, let slash = path.lastIndex(of: "/") {
            let dir = String(path[..<slash])
            if !dir.isEmpty { try FileSystem.makeDirectories(dir, mode: 0o700) }
        }
        let isNew = !readOnly && path != ":memory:" && !FileSystem.exists(path)
        do {
            db = try Database(path: path, readOnly: readOnly)
            // Paths, and the text read off receipts and letters: for its owner only. SQLite
            // gives the -wal and -shm files the database's mode.
            if isNew { try FileSystem.setMode(path, 0o600) }
        } catch let e as SystemError {
            throw LibraryError(.io, "cannot open the library at \(path): \(e.message)")
        }
        if let problem = try db.quickCheck() {
            throw LibraryError(.corrupt, "the library at \(path) failed its integrity check (\(problem)); restore a backup next to it")
        }
        let version = try db.userVersion
        if version > Schema.currentVersion {
            throw LibraryError(.newerSchema,
                "the library at \(path) was written by a newer SnapSort (schema \(version), this build knows \(Schema.currentVersion)); upgrade SnapSort — the database is left untouched")
        }
        if !readOnly { try migrate(from: version) }
    }

    /// Applies every known migration not yet applied, each in its own transaction.
    /// `user_version` holds the highest applied version (a newer one is refused above);
    /// `schema_migrations` lists each applied version, so concerns that own separate version
    /// ranges can land in any order.
    private func migrate(from version: Int) throws {
        // Readers must not need the write lock: check first, migrate only when something is missing.
        let hasTable = try db.scalar("SELECT count(*) FROM sqlite_master WHERE type='table' AND name='schema_migrations'") == 1
        if hasTable {
            let applied = Set(try db.rows("SELECT version FROM schema_migrations").compactMap { $0.int(0) }.map(Int.init))
            if Schema.all.allSatisfy({ applied.contains($0.version) }) { return }
        }
        try db.transaction {
            try db.execute("CREATE TABLE IF NOT EXISTS schema_migrations(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
        }
        for m in Schema.all {
            try db.transaction {
                // Re-read inside the write lock: another process may have migrated meanwhile.
                guard try db.scalar("SELECT count(*) FROM schema_migrations WHERE version=?", m.version) == 0 else { return }
                try db.execute(m.sql)
                try db.run("INSERT INTO schema_migrations(version, applied_at) VALUES(?, datetime('now'))", m.version)
                if try db.userVersion < m.version { try db.setUserVersion(m.version) }
            }
        }
    }

    /// The lock a scan of this library holds, from its walk to the end of its regroup (the CLI's
    /// `scan` and the agent's reconciles): two scans at once would both insert a new file's row.
    public var scanLockPath: String { path + ".scan.lock" }

    /// The schema version on disk.
    public var schemaVersion: Int { (try? db.userVersion) ?? 0 }
}
