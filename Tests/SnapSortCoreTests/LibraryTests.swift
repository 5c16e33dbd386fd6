import Foundation
import Glibc
import SnapSortSystem
import SnapSortTestSupport
import Synchronization
import Testing

@testable import SnapSortCore

@Suite struct LibraryTests {
    @Test func migratesAFileDatabaseAndReopens() throws {
        let dir = TempDir()
        let path = dir.at("state/snapsort/library.sqlite3")
        do {
            let lib = try Library(path: path)
            #expect(lib.schemaVersion == Schema.currentVersion)
            #expect(try lib.db.scalar("SELECT count(*) FROM sqlite_master WHERE name='files'") == 1)
            #expect(try lib.db.row("PRAGMA journal_mode")?.string(0) == "wal")
            // Private to its owner whatever the umask, and so are its WAL and shared memory.
            for f in [path, path + "-wal", path + "-shm"] { #expect(try FileSystem.lstatus(f).mode & 0o777 == 0o600, "\(f)") }
        }
        let again = try Library(path: path)
        #expect(again.schemaVersion == Schema.currentVersion)
        let applied = try again.db.scalar("SELECT count(*) FROM schema_migrations")
        #expect(applied == Int64(Schema.all.count))
    }

    /// A new library opened by several programs at the same moment (the agent starting while a
    /// bar runs `status`, which creates the default library) opens in each: switching the new
    /// file to WAL answered "database is locked" at once, without the busy timeout, and the
    /// agent stopped (a CI run). Connections of one process take SQLite's locks as processes do.
    @Test func aNewLibraryOpenedByManyAtOnceOpensInEach() throws {
        let dir = TempDir()
        let failures = Mutex<[String]>([])
        for round in 0..<40 {
            let path = dir.at("r\(round)/library.sqlite3")
            DispatchQueue.concurrentPerform(iterations: 6) { _ in
                do {
                    let library = try Library(path: path)
                    _ = try library.db.scalar("SELECT count(*) FROM files")
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            let db = try Database(path: path, readOnly: true)
            #expect(try db.row("PRAGMA journal_mode")?.string(0) == "wal")
            #expect(try db.scalar("SELECT count(*) FROM schema_migrations") == Int64(Schema.all.count))
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(3) })")
        // A database that cannot be WAL opens in its own mode (the first version of the retry
        // asked it again and again).
        #expect(try Library(path: ":memory:").db.row("PRAGMA journal_mode")?.string(0) == "memory")
    }

    /// A library another program holds says so in words, naming the file (SQLite's "database
    /// is locked" said neither); nothing is written.
    @Test func aBusyLibraryIsSaidInWords() throws {
        let dir = TempDir()
        let path = dir.at("lib.sqlite3")
        let holder = try Library(path: path)
        let other = try Library(path: path)
        try other.db.execute("PRAGMA busy_timeout = 50")
        try holder.db.execute("BEGIN EXCLUSIVE")
        defer { try? holder.db.execute("ROLLBACK") }
        var said: LibraryError?
        do {
            try other.setAgentState("k", "v", at: Date())
        } catch let e as SystemError {
            said = Library.explained(path, e)
        }
        let message = try #require(said?.message)
        #expect(message.contains(path) && message.contains("is busy") && message.contains("nothing was changed"), "\(message)")
        // Other errors are not dressed up.
        #expect(Library.explained(path, SystemError(.errno(ENOENT), "x", operation: "open")) == nil)
    }

    /// `--db` naming a folder, or a place where no folder can be made, is said as such
    /// (SQLite said "unable to open database file"; mkdir's errno came without what it was for).
    @Test func aLibraryPathThatCannotBeAFileIsSaidAsSuch() throws {
        let dir = TempDir()
        let folder = dir.folder("photos-db")
        #expect {
            try Library(path: folder)
        } throws: { ($0 as? LibraryError)?.message.contains("\(folder) is a folder; the library is one database file") == true }
        dir.write("file", [1])
        #expect {
            try Library(path: dir.at("file/lib.sqlite3"))
        } throws: { ($0 as? LibraryError)?.message.contains("cannot make the library's folder \(dir.at("file"))") == true }
    }

    @Test func refusesANewerSchemaWithoutTouchingIt() throws {
        let dir = TempDir()
        let path = dir.at("library.sqlite3")
        do {
            let db = try Database(path: path)
            try db.execute("CREATE TABLE keep(x); PRAGMA user_version=9999")
        }
        #expect {
            _ = try Library(path: path)
        } throws: { e in
            guard let e = e as? LibraryError else { return false }
            return e.code == .newerSchema && e.message.contains("newer SnapSort")
        }
        let db = try Database(path: path, readOnly: true)
        #expect(try db.userVersion == 9999)
        #expect(try db.scalar("SELECT count(*) FROM sqlite_master WHERE name='files'") == 0)
    }

    @Test func refusesACorruptFile() throws {
        let dir = TempDir()
        let path = dir.write("library.sqlite3", Array("SQLite format 3\0".utf8) + [UInt8](repeating: 0x41, count: 4096))
        #expect(throws: (any Error).self) { _ = try Library(path: path) }
    }

    @Test func aSecondConnectionReadsWhileAScanWrites() throws {
        let t = try TestLibrary()
        for i in 0..<24 { t.dir.write("Pictures/a/IMG_\(i).jpg", Fixtures.jpeg(seed: UInt64(i), width: 320, height: 240)) }
        let reader = try Library(path: t.dbPath)
        let scanner = t.scanner()
        var readsDuringScan = 0
        let summary = try scanner.scan([t.root]) { p in
            if p.phase == .analyzing {
                // Reading from another connection while the scanner holds write transactions.
                _ = try? reader.db.scalar("SELECT count(*) FROM files")
                readsDuringScan += 1
            }
        }
        #expect(summary.added == 24)
        #expect(readsDuringScan > 0)
        #expect(try reader.db.scalar("SELECT count(*) FROM files WHERE status='ok'") == 24)
    }

    @Test func aSecondProcessReadsWhileThisOneWrites() throws {
        let t = try TestLibrary()
        for i in 0..<16 { t.dir.write("Pictures/IMG_\(i).jpg", Fixtures.jpeg(seed: UInt64(i), width: 320, height: 240)) }
        try t.scan()
        // Hold a write transaction open in this process; another process must still read.
        try t.library.db.execute("BEGIN IMMEDIATE")
        try t.library.db.run("UPDATE files SET reason='x' WHERE id=1")
        let r = try SnapsortBinary.run(["report", "--jsonl", "--db", t.dbPath])
        try t.library.db.execute("COMMIT")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.split(separator: "\n").count == 16)
    }

    /// The live-row rule, written once (`Library.live`), is the partial indexes' own predicate:
    /// SQLite takes a partial index only for a query whose `WHERE` implies the index's, so a
    /// query of live rows by path or by kind searches them, aliased in a join or not.
    @Test func theLiveRuleIsThePartialIndexesRule() throws {
        let t = try TestLibrary()
        for index in ["files_live_path", "files_kind_live"] {
            let sql = try #require(try t.library.db.row("SELECT sql FROM sqlite_master WHERE name = ?", index)?.string(0))
            #expect(sql.hasSuffix("WHERE \(Library.live())"), "\(sql)")
        }
        func plan(_ sql: String, _ args: SQLBindable...) throws -> String {
            try t.library.db.rows("EXPLAIN QUERY PLAN " + sql, arguments: args).compactMap { $0.string(3) }.joined(separator: "; ")
        }
        #expect(try plan("SELECT id FROM files WHERE \(Library.live()) AND path = ?", "/a").contains("USING INDEX files_live_path (path=?)"))
        #expect(try plan("SELECT f.id FROM files f WHERE \(Library.live("f")) AND f.path = ?", "/a").contains("USING INDEX files_live_path (path=?)"))
        #expect(try plan("SELECT f.id FROM files f WHERE \(Library.live("f")) AND f.kind = 'photo'").contains("files_kind_live (kind=?)"))
        // A tombstone is not live; the others are.
        t.dir.write("Pictures/a.jpg", Fixtures.jpeg(seed: 1, width: 64, height: 48))
        t.dir.write("Pictures/b.jpg", Fixtures.jpeg(seed: 2, width: 64, height: 48))
        try t.scan()
        try t.library.markGone(ids: [try #require(try t.library.liveRow(path: t.root + "/a.jpg")).id], at: Date())
        #expect(try t.library.db.scalar("SELECT count(*) FROM files WHERE \(Library.live())") == 1)
        #expect(try t.library.db.scalar("SELECT count(*) FROM files WHERE status = ?", ItemStatus.gone.rawValue) == 1)
    }

    /// `dataVersion` changes when another connection commits, not for this one's own writes
    /// (how the agent notices the CLI's and the page's changes).
    @Test func theDataVersionChangesForAnotherConnectionsCommit() throws {
        let t = try TestLibrary()
        let other = try Library(path: t.dbPath)
        let first = try t.library.dataVersion()
        try t.library.setAgentState("k", "1", at: Date())
        #expect(try t.library.dataVersion() == first)
        try other.setAgentState("k", "2", at: Date())
        #expect(try t.library.dataVersion() != first)
    }
}
