import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// Issue 40: an emptied library is never initialised over (`Library+Refusal`), backups are
/// kept by generation and by content (`Backup.retained`), and `Backup.restore` puts one back
/// keeping the file that was there. On real SQLite files in a temp folder.
@Suite struct BackupTests {
    /// 2027-01-15 08:00 UTC, a Friday.
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A library at `dir/state/library.sqlite3` with `n` files, each decided (kept), each
    /// decision a review event.
    static func library(_ dir: TempDir, decisions n: Int) throws -> Library {
        let library = try Library(path: dir.at("state/library.sqlite3"))
        try addDecisions(library, n)
        return library
    }

    static func addDecisions(_ library: Library, _ n: Int, from first: Int = 0) throws {
        try library.db.transaction {
            for i in first..<(first + n) {
                try library.db.run(
                    "INSERT INTO files(path, device, inode, size, mtime_ns, kind, status, first_seen_at) VALUES(?, 1, ?, 1, 0, 'photo', 'ok', '2027-01-01')",
                    "/p/\(i).jpg", i)
                try library.db.run("INSERT INTO decisions(file_id, decision, decided_ts) SELECT id, 'keep', 0 FROM files WHERE path=?", "/p/\(i).jpg")
                try library.db.run("INSERT INTO review_events(ts, kind, decision) VALUES(0, 'decision', 'keep')")
            }
        }
    }

    static func refusal(_ path: String) -> LibraryError? {
        do {
            _ = try Library(path: path)
            return nil
        } catch let e as LibraryError {
            return e.code == .refused ? e : nil
        } catch {
            return nil
        }
    }

    // MARK: The refusal

    /// `: > library.sqlite3`: every opening refuses it, names the backups and the restore
    /// command, and leaves the file as it was (0 bytes: nothing initialised over it).
    @Test func anEmptiedLibraryIsRefusedAndLeftAsItIs() throws {
        let dir = TempDir("snapsort-refuse")
        let path = try Self.library(dir, decisions: 3).path
        try Backup.run(try Library(path: path), keep: 3, now: Self.start)
        try FileSystem.writeAtomically(path, [], mode: 0o600)
        for readOnly in [false, true] {
            #expect(throws: LibraryError.self) { try Library(path: path, readOnly: readOnly) }
        }
        let e = try #require(Self.refusal(path))
        #expect(e.message.contains("is empty (0 bytes"), "\(e.message)")
        #expect(e.message.contains(".backup-20270115-080000") && e.message.contains("snapsort backup restore"), "\(e.message)")
        #expect(try FileSystem.status(path).size == 0)
        // A brand-new path is still made.
        #expect(throws: Never.self) { try Library(path: dir.at("state/new.sqlite3")) }
    }

    /// A SQLite database without SnapSort's tables, in either journal mode, is refused untouched.
    @Test(arguments: ["DELETE", "WAL"]) func aForeignDatabaseIsRefused(mode: String) throws {
        let dir = TempDir("snapsort-foreign")
        let path = dir.at("other.sqlite3")
        do {
            let db = try Database(path: path)
            try db.execute("CREATE TABLE notes(x); INSERT INTO notes VALUES(1); PRAGMA journal_mode=\(mode)")
        }
        let bytes = try FileSystem.readFile(path, limit: 1 << 20)
        let e = try #require(Self.refusal(path))
        #expect(e.message.contains("holds no SnapSort library"), "\(e.message)")
        #expect(try FileSystem.readFile(path, limit: 1 << 20) == bytes)
        // Bytes that are no database at all.
        let junk = dir.write("junk.sqlite3", Array("hello, this is not a database".utf8))
        #expect(Self.refusal(junk)?.message.contains("not a database at all") == true)
    }

    /// A library that lost its history (the decisions and review events gone, as when an older
    /// SnapSort started one over an emptied file) is refused while a backup since it began
    /// holds them; a library started afresh beside old backups (the old file moved aside) is not.
    @Test func aLibraryFarPoorerThanItsBackupIsRefused() throws {
        let dir = TempDir("snapsort-poorer")
        let path = dir.at("state/library.sqlite3")
        do {
            let library = try Self.library(dir, decisions: 40)
            // Begun a day ago, backed up a minute ago.
            try library.setAgentState(Library.beganKey, StatusTimestamp.string(Date().addingTimeInterval(-86_400)), at: Date())
            try Backup.run(library, keep: 3, now: Date().addingTimeInterval(-60))
            try library.db.execute("DELETE FROM decisions; DELETE FROM review_events")
            try Self.addDecisions(library, 5, from: 100)
        }
        let e = try #require(Self.refusal(path))
        #expect(e.message.contains("holds 5 review events") && e.message.contains("holds 40"), "\(e.message)")
        // Half or more of the history is no refusal (an undo, a forget: events only grow).
        do {
            let db = try Database(path: path)
            for _ in 0..<15 { try db.run("INSERT INTO review_events(ts, kind) VALUES(0, 'decision')") }
        }
        #expect(Self.refusal(path) == nil)
        do {
            let db = try Database(path: path)
            try db.execute("DELETE FROM review_events")
        }
        #expect(Self.refusal(path) != nil)
        // Started afresh: the old file moved aside, a new library made beside the backups.
        try FileSystem.rename(path, path + ".old")
        #expect(Self.refusal(path) == nil)
        #expect(Self.refusal(path) == nil)
    }

    // MARK: Retention

    /// Daily backups for 70 days with keep=3: the three newest, a weekly (7–13 days old) and a
    /// monthly (a month or more old) are kept; and a backup that lost its decisions never
    /// pushes out the newest that had more.
    @Test func retentionKeepsDailyWeeklyMonthlyAndTheRicherBackup() throws {
        let day: TimeInterval = 86_400
        var backups: [(path: String, date: Date, decisions: Int?)] = []
        var kept = Set<String>()
        for d in 0..<70 {
            let now = Self.start.addingTimeInterval(Double(d) * day)
            backups.append((path: "b\(d)", date: now, decisions: 100 + d))
            kept = Backup.retained(backups, keep: 3, now: now)
            backups.removeAll { !kept.contains($0.path) }
            let ages = backups.map { now.timeIntervalSince($0.date) / day }
            #expect(ages.filter { $0 < 3 }.count == min(3, d + 1))
            if d >= 14 { #expect(ages.contains { $0 >= 7 && $0 < 14 }, "day \(d): \(ages)") }
            if d >= 62 { #expect(ages.contains { $0 >= 28 }, "day \(d): \(ages)") }
            #expect(backups.count <= 7)
        }
        // The library emptied on day 70: its backups hold no decision, three days running.
        var now = Self.start
        for d in 70..<74 {
            now = Self.start.addingTimeInterval(Double(d) * day)
            backups.append((path: "b\(d)", date: now, decisions: 0))
            let kept = Backup.retained(backups, keep: 3, now: now)
            backups.removeAll { !kept.contains($0.path) }
        }
        #expect(backups.contains { $0.path == "b69" }, "\(backups.map(\.path))")
        // By generation alone, b69 (four days old) would be gone.
        #expect(!Backup.retained(backups.map { ($0.path, $0.date, 0) }, keep: 3, now: now).contains("b69"))
    }

    /// The same on real files: `Backup.run` after the decisions were lost keeps the backup
    /// that had them, with keep=1.
    @Test func aBackupOfALibraryThatLostItsDecisionsKeepsTheRicherOne() throws {
        let dir = TempDir("snapsort-rotate")
        let library = try Self.library(dir, decisions: 30)
        let day: TimeInterval = 86_400
        // Friday, the week's and the month's first: kept by generation anyway.
        let first = try Backup.run(library, keep: 1, now: Self.start)
        try Self.addDecisions(library, 5, from: 100)
        let rich = try Backup.run(library, keep: 1, now: Self.start.addingTimeInterval(day))
        try library.db.execute("DELETE FROM decisions")
        let poor1 = try Backup.run(library, keep: 1, now: Self.start.addingTimeInterval(2 * day))
        // Monday: a new week, whose first this is.
        let poor2 = try Backup.run(library, keep: 1, now: Self.start.addingTimeInterval(3 * day))
        #expect(Backup.list(library.path) == [first, rich, poor2])
        #expect(!FileSystem.exists(poor1))
        #expect(Backup.contents(rich)?.decisions == 35)
    }

    // MARK: Restore

    /// `Backup.restore` on an emptied library: the backup's decisions are back, the emptied file
    /// is kept aside under its own name, and the restored library opens (not refused by the
    /// backups made before it).
    @Test func restorePutsTheBackupBackAndKeepsTheFileAside() throws {
        let dir = TempDir("snapsort-restore")
        let path = try Self.library(dir, decisions: 12).path
        try Backup.run(try Library(path: path), keep: 3, now: Self.start)
        try FileSystem.writeAtomically(path, [], mode: 0o600)
        let now = Self.start.addingTimeInterval(3600)
        let restored = try Backup.restore(nil, dbPath: path, now: now)
        #expect(restored.backup.name == "library.sqlite3.backup-20270115-080000")
        #expect(restored.keptAside == path + ".before-restore-20270115-090000")
        #expect(try FileSystem.status(path + ".before-restore-20270115-090000").size == 0)
        let library = try Library(path: path)
        #expect(try library.db.scalar("SELECT count(*) FROM decisions") == 12)
        #expect(try FileSystem.status(path).mode & 0o777 == 0o600)
        // A name that is no backup of it changes nothing.
        #expect(throws: LibraryError.self) { try Backup.restore("nope", dbPath: path, now: now) }
    }

    /// The default backup is the newest whole one unless it holds far less than an older one;
    /// a damaged backup is never the default, and is refused by name.
    @Test func theDefaultBackupIsTheNewestGoodOne() throws {
        let dir = TempDir("snapsort-best")
        let library = try Self.library(dir, decisions: 20)
        let rich = try Backup.run(library, keep: 5, now: Self.start)
        try library.db.execute("DELETE FROM decisions; DELETE FROM review_events")
        _ = try Backup.run(library, keep: 5, now: Self.start.addingTimeInterval(60))
        let damaged = dir.write("state/library.sqlite3.backup-20270115-090000", Array(try FileSystem.readFile(rich, limit: 1 << 24).prefix(4096)))
        let entries = Backup.entries(library.path)
        #expect(
            entries.map(\.name) == [
                "library.sqlite3.backup-20270115-090000", "library.sqlite3.backup-20270115-080100", "library.sqlite3.backup-20270115-080000",
            ])
        #expect(entries[0].problem != nil && entries[1].problem == nil)
        #expect(entries.first { $0.isBest }?.path == rich)
        #expect(throws: LibraryError.self) { try Backup.restore(Backup.name(damaged), dbPath: library.path, now: Self.start) }
    }
}
