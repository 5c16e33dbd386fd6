import Foundation
import SnapSortSystem

/// An existing library file that is no library any more is never initialised over (issue 40):
/// an emptied file (`: > library.sqlite3`, a crash on a file system that lost the data) was
/// silently made a new, empty library, and its daily backup then pushed the good ones out.
///
/// The rule, checked at every opening of an existing file (`Library.init`), before anything is
/// written to it:
/// - the file is empty (0 bytes), or is no SQLite database (SQLite says so at its first read), or
///   is one with no SnapSort schema (`user_version` 0 and no `schema_migrations`), looked at
///   before the connection puts it in WAL mode: refused;
/// - it holds far less than a backup of it: the richest backup made after the library began
///   (`library_began_at`: when this SnapSort created it or `snapsort backup restore` put it
///   there; without it, every backup) holds at least `minimumHistory` review events and the
///   library fewer than half as many. Review events (`review_events`: every verdict, clear and
///   restore, the stats' history) are the measure because they only ever grow — decisions go
///   legitimately (`snapsort forget`, an undo) — so a library with far fewer events than its
///   own backup has lost them.
///
/// A brand-new path (no file) is created as before, whole or not at all (`Library.create`).
extension Library {
    /// The `agent_state` key that says when this library began: made new, or restored.
    static let beganKey = "library_began_at"
    /// A backup with fewer review events than this is not compared (a first session's few).
    public static let minimumHistory = 10

    /// What an existing file at `path` is before SQLite opens it: empty, nil otherwise. Only
    /// `stat`: a descriptor of ours opened and closed on a database this process has open would
    /// drop that connection's POSIX locks (see: https://sqlite.org/howtocorrupt.html#_posix_advisory_locks_canceled_by_a_separate_thread_doing_close_),
    /// and SQLite opening an empty file removes a `-wal` beside it.
    static func refusalBeforeOpening(_ path: String) -> LibraryError? {
        guard let st = try? FileSystem.status(path), st.isRegular, st.size == 0 else { return nil }
        return refused(path, "is empty (0 bytes: emptied by a crash of its file system, or a redirect into it?)")
    }

    /// The refusal for a file SQLite says is no database (`SQLITE_NOTADB` at its first read).
    static func notADatabase(_ path: String) -> LibraryError {
        refused(path, "is not a SnapSort library (not a database at all: overwritten by another program, or its first page damaged)")
    }

    /// What an opened existing library is, nil when it may be used: a database without the
    /// SnapSort schema, or one holding far less than its backups (see the rule above).
    static func refusalAfterOpening(_ db: Database, path: String, version: Int) throws -> LibraryError? {
        func hasTable(_ name: String) throws -> Bool {
            try db.scalar("SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?", name) == 1
        }
        if version == 0, try !hasTable("schema_migrations") {
            return refused(path, "holds no SnapSort library (a SQLite database without its tables)")
        }
        // A damaged page in these two tables is no reason to refuse here: it is said as
        // damaged where it is read (the agent's check, `scan`'s, the command that meets it).
        let events: Int
        let began: Date?
        do {
            events = try hasTable("review_events") ? Int(try db.scalar("SELECT count(*) FROM review_events") ?? 0) : 0
            began =
                try hasTable("agent_state")
                ? try db.row("SELECT value FROM agent_state WHERE key=?", beganKey)?.string(0).flatMap(StatusTimestamp.date) : nil
        } catch let e as SystemError where isDamage(e) {
            return nil
        }
        guard let richest = Backup.richest(path, since: began), richest.events >= minimumHistory, events * 2 < richest.events else {
            return nil
        }
        return refused(
            path,
            "holds \(events) review event\(events == 1 ? "" : "s") (verdicts, clears, restores) where its backup \(Backup.name(richest.path)) holds \(richest.events): it lost its decisions and history"
        )
    }

    /// The error for a library file that is not used: what it is, the backups beside it and
    /// the command that puts one back, or how to start afresh.
    static func refused(_ path: String, _ what: String) -> LibraryError {
        LibraryError(
            .refused,
            "the library at \(path) \(what); SnapSort does not start a new library over it, and nothing was changed. \(recoveryAdvice(path))"
        )
    }

    /// What to do about a library that cannot be used: the backups beside it and
    /// `snapsort backup restore`, else how to start afresh without losing the file.
    static func recoveryAdvice(_ path: String) -> String {
        let backups = Backup.list(path)
        let move = "mv '\(path)' '\(path).old'"
        guard let newest = backups.last else {
            let pattern = LibraryFiles(database: path).backupNamePrefix + "YYYYMMDD-HHMMSS"
            return
                "There is no backup beside it (the agent keeps them, \(pattern), while it runs): move the file aside (\(move); keep it: 'sqlite3 FILE .recover' may save its decisions) and 'snapsort scan' builds a new library"
        }
        let others = backups.count > 1 ? " and \(backups.count - 1) older" : ""
        return
            "Backups beside it: \(newest)\(others) ('snapsort backup list' shows what each holds); 'snapsort backup restore' puts the newest good one back and keeps this file aside (stop the agent first). To start afresh instead: \(move)"
    }
}
