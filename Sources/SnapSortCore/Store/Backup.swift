import Foundation
import SnapSortSystem

/// Daily copies of the database next to it (`VACUUM INTO`): decisions are the user's work.
///
/// Each copy is `<database>.backup-YYYYMMDD-HHMMSS`; it is written under a temporary name,
/// synced and renamed, so a crash never leaves a half-written backup under a backup's name.
/// Only the newest `keep` copies are kept; nothing else in the folder is touched.
public enum Backup {
    /// Writes a backup now and prunes old ones. Returns the new backup's path.
    @discardableResult
    public static func run(_ library: Library, keep: Int, now: Date) throws -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd-HHmmss"
        let target = library.files.backup(stamp: f.string(from: now))
        let tmp = library.files.partialBackup(stamp: f.string(from: now))
        try? FileSystem.remove(tmp)  // a partial copy from an interrupted run (our own temporary name)
        // A copy of a damaged library must not push the good backups out: SQLite stops the copy
        // at a bad page it reads, and the finished copy is checked.
        do {
            try library.db.run("VACUUM INTO ?", tmp)
            try FileSystem.setMode(tmp, 0o600)  // as private as the database
            if let problem = try Database(path: tmp, readOnly: true).quickCheck() { throw Library.damaged(library.path, problem) }
        } catch let e as SystemError where Library.isDamage(e) {
            try? FileSystem.remove(tmp)
            throw Library.damaged(library.path, e.message)
        } catch {
            try? FileSystem.remove(tmp)
            throw error
        }
        try FileSystem.syncFile(tmp)
        try FileSystem.rename(tmp, target)
        try prune(library.path, keep: keep)
        return target
    }

    /// The existing backups of `dbPath`, oldest first.
    public static func list(_ dbPath: String) -> [String] {
        let files = LibraryFiles(database: dbPath)
        let dir = files.folder
        let prefix = files.backupNamePrefix
        let names = ((try? FileSystem.listDirectory(dir)) ?? []).map(\.name).filter {
            $0.hasPrefix(prefix) && !$0.hasSuffix(".partial") && $0.count == prefix.count + 15
        }
        return names.sorted().map { (dir == "/" ? "" : dir) + "/" + $0 }
    }

    static func prune(_ dbPath: String, keep: Int) throws {
        let all = list(dbPath)
        for old in all.dropLast(max(1, keep)) { try? FileSystem.remove(old) }
    }
}
