import Foundation
import SnapSortSystem

/// Daily copies of the database next to it (`VACUUM INTO`): decisions are the user's work.
///
/// Each copy is `<database>.backup-YYYYMMDD-HHMMSS` (UTC); it is written under a temporary
/// name, synced and renamed, so a crash never leaves a half-written backup under a backup's
/// name. Copies are kept by generation and by content (`retained`): the `keep` newest, the
/// first of this week and of last week, the first of this month and of last month, and the
/// newest that holds more decisions than the new one; nothing else in the folder is touched.
public enum Backup {
    /// What a backup holds, read from it (nil for a file SQLite cannot read as a library).
    public struct Contents: Sendable, Equatable {
        /// Live files (not tombstones).
        public var files: Int
        /// Rows of `decisions`: trash, keep, skip, later.
        public var decisions: Int
        /// Rows of `review_events` (the stats' history; it only grows).
        public var events: Int
    }

    /// Writes a backup now and prunes old ones (`retained`). Returns the new backup's path.
    @discardableResult
    public static func run(_ library: Library, keep: Int, now: Date) throws -> String {
        let f = stampFormatter()
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
        try prune(library.path, keep: keep, now: now)
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

    /// The backup's file name (its path's last part).
    public static func name(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }

    /// When the backup was made, from its name (UTC); nil for a name that is not a backup's.
    public static func date(_ path: String) -> Date? {
        let n = name(path)
        guard let r = n.range(of: LibraryFiles.backupInfix, options: .backwards) else { return nil }
        return stampFormatter().date(from: String(n[r.upperBound...]))
    }

    static func stampFormatter() -> DateFormatter {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd-HHmmss"
        return f
    }

    /// What the backup at `path` holds; nil when it cannot be read as a SnapSort library.
    public static func contents(_ path: String) -> Contents? {
        guard let db = try? Database(path: path, readOnly: true) else { return nil }
        func count(_ table: String) -> Int? {
            guard (try? db.scalar("SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?", table)) == 1 else { return 0 }
            return (try? db.scalar("SELECT count(*) FROM \(table)")).map { Int($0) }
        }
        guard (try? db.userVersion) ?? 0 > 0,
            let files = (try? db.scalar("SELECT count(*) FROM files WHERE \(Library.live())")).map({ Int($0) }),
            let decisions = count("decisions"), let events = count("review_events")
        else { return nil }
        return Contents(files: files, decisions: decisions, events: events)
    }

    /// The review events a backup holds (its smallest count, read at every opening of the
    /// library: `Library+Refusal`); nil when it cannot be read as a SnapSort library.
    static func reviewEvents(_ path: String) -> Int? {
        guard let db = try? Database(path: path, readOnly: true), (try? db.userVersion) ?? 0 > 0 else { return nil }
        return (try? db.scalar("SELECT count(*) FROM review_events")).map { Int($0) }
    }

    /// The backup holding the most review events among those made after the second `since`
    /// (all when nil; one made in that second may be of the library set aside then), the
    /// newest of equals; nil when none can be read.
    static func richest(_ dbPath: String, since: Date?) -> (path: String, events: Int)? {
        var best: (path: String, events: Int)?
        for b in list(dbPath).reversed() {
            if let since, let d = date(b), d <= since { continue }
            guard let events = reviewEvents(b) else { continue }
            if events > (best?.events ?? -1) { best = (b, events) }
        }
        return best
    }

    /// Which of `backups` (paths with their dates and decisions, any order) are kept at `now`:
    /// - the `keep` newest (at least one): the daily ones;
    /// - the first of the current week and the first of the week before (ISO weeks from
    ///   Monday, UTC): a copy 7 to 13 days old is always kept once the agent has run so long;
    /// - the first of the current month and the first of the month before (UTC);
    /// - the newest that holds more decisions than the newest of all: a library that lost its
    ///   decisions (emptied, or a folder forgotten) never pushes out the copy that still has them.
    /// A backup whose decisions cannot be read counts none.
    public static func retained(_ backups: [(path: String, date: Date, decisions: Int?)], keep: Int, now: Date) -> Set<String> {
        let sorted = backups.sorted { $0.date < $1.date }
        guard let newest = sorted.last else { return [] }
        var kept = Set(sorted.suffix(max(1, keep)).map(\.path))
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for unit in [Calendar.Component.weekOfYear, .month] {
            guard let current = calendar.dateInterval(of: unit, for: now),
                let previous = calendar.dateInterval(of: unit, for: current.start.addingTimeInterval(-1))
            else { continue }
            for period in [previous, current] {
                if let first = sorted.first(where: { $0.date >= period.start && $0.date < period.end }) { kept.insert(first.path) }
            }
        }
        let newestDecisions = newest.decisions ?? 0
        if let richer = sorted.last(where: { ($0.decisions ?? 0) > newestDecisions }) { kept.insert(richer.path) }
        return kept
    }

    /// Removes the backups `retained` does not keep.
    static func prune(_ dbPath: String, keep: Int, now: Date) throws {
        let all = list(dbPath).compactMap { p in date(p).map { (path: p, date: $0, decisions: contents(p)?.decisions) } }
        let kept = retained(all, keep: keep, now: now)
        for old in all where !kept.contains(old.path) { try? FileSystem.remove(old.path) }
    }
}
