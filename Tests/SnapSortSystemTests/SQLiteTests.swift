import Foundation
import SnapSortTestSupport
import Testing

@testable import SnapSortSystem

/// `Database` on a real file: values round-trip, a transaction that throws leaves nothing, SQL
/// errors are typed errors with SQLite's words, and another connection sees only what committed.
@Suite("System: SQLite")
struct SQLiteTests {
    @Test func valuesRoundTripThroughAFile() throws {
        let dir = TempDir()
        let db = try Database(path: dir.at("t.sqlite3"))
        try db.execute("CREATE TABLE t(i INTEGER, r REAL, s TEXT, b BLOB, n INTEGER)")
        try db.run("INSERT INTO t VALUES(?,?,?,?,?)", Int64.min, 0.5, "é'x", [UInt8]([0, 255]), Int?.none)
        #expect(db.lastInsertRowID == 1 && db.changes == 1)
        let r = try #require(try db.row("SELECT i, r, s, b, n FROM t"))
        #expect(r.int(0) == Int64.min && r.double(1) == 0.5 && r.string(2) == "é'x" && r.blob(3) == [0, 255] && r.int(4) == nil)
        #expect(try db.scalar("SELECT count(*) FROM t WHERE s = ?", "é'x") == 1)
        #expect(try db.row("SELECT i FROM t WHERE 0") == nil)
        // Text is bound and read by its length: a NUL inside it is kept (it ended the text when
        // bound as a C string), and the empty text stays text, not NULL.
        try db.run("INSERT INTO t(s) VALUES(?)", "before\u{0}after")
        let kept = try #require(try db.row("SELECT s, length(CAST(s AS BLOB)) FROM t WHERE rowid = 2"))
        #expect(kept.string(0) == "before\u{0}after" && kept.int(1) == 12)
        try db.run("INSERT INTO t(s) VALUES(?)", "")
        let empty = try #require(try db.row("SELECT s, s IS NULL FROM t WHERE rowid = 3"))
        #expect(empty.string(0) == "" && empty.int(1) == 0)
    }

    /// The prepared statements a connection keeps are bounded: statements whose text carries
    /// their values (a pHash's neighbouring chunk keys, a list of ids) are new texts each time,
    /// and a connection the agent keeps for years kept every one (~70 KB each: the sliced
    /// regroup of each photo added made eight: 600 of them held 43 MB). A
    /// statement evicted while it is being stepped through (a query inside another's rows)
    /// lives on until that is done.
    @Test func theStatementCacheIsBoundedAndAStatementInUseOutlivesItsEviction() throws {
        let dir = TempDir()
        let db = try Database(path: dir.at("t.sqlite3"))
        try db.execute("CREATE TABLE files(id INTEGER PRIMARY KEY, phash INTEGER)")
        try db.transaction { for i in 0..<2000 { try db.run("INSERT INTO files(phash) VALUES(?)", Int64(i) &* 0x1E37_79B9_7F4A_7C15) } }
        var found = 0
        for h in 0..<600 {
            // A text that carries its values, as `RegroupSlice.phashBall` wrote its 697 chunk keys
            // until it bound them as one JSON array: each call a new statement.
            let keys = (0..<65536).lazy.filter { $0.nonzeroBitCount <= 3 }.map { String($0 ^ (h & 0xFFFF)) }.joined(separator: ",")
            try db.forEach("SELECT id FROM files WHERE (phash & 65535) IN (\(keys))") { _ in found += 1 }
        }
        #expect(db.cachedStatements <= Database.statementCacheLimit, "\(db.cachedStatements) statements kept")
        #expect(db.statementBytes < 2 << 20, "the connection's statements hold \(db.statementBytes >> 10) KB")
        // Rows of one statement, each asking with a new text: the outer statement is evicted
        // from the cache on the way, and still steps through every row.
        var outer = 0
        try db.forEach("SELECT id FROM files ORDER BY id") { r in
            outer += 1
            _ = try db.scalar("SELECT \(r.int(0)!) + count(*) FROM files WHERE id = \(r.int(0)!)")
        }
        #expect(outer == 2000)
        #expect(db.cachedStatements <= Database.statementCacheLimit)
    }

    @Test func aTransactionThatThrowsLeavesNothing() throws {
        let dir = TempDir()
        let db = try Database(path: dir.at("t.sqlite3"))
        try db.execute("CREATE TABLE t(v INTEGER)")
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try db.transaction {
                try db.run("INSERT INTO t VALUES(1)")
                throw Stop()
            }
        }
        #expect(try db.scalar("SELECT count(*) FROM t") == 0)
        try db.transaction { try db.run("INSERT INTO t VALUES(2)") }
        // Another connection sees what committed.
        let other = try Database(path: dir.at("t.sqlite3"), readOnly: true)
        #expect(try other.scalar("SELECT sum(v) FROM t") == 2)
    }

    /// A read sees one state of the database while another connection commits, and a
    /// transaction inside it works (a savepoint of the read): it was a raw `SAVEPOINT` beside
    /// the depth counter, inside which `transaction` began again and failed.
    @Test func aReadSeesOneStateAndATransactionInsideItWorks() throws {
        let dir = TempDir()
        let db = try Database(path: dir.at("t.sqlite3"))
        let other = try Database(path: dir.at("t.sqlite3"))
        try db.execute("CREATE TABLE t(v INTEGER)")
        try db.run("INSERT INTO t VALUES(1)")
        let seen = try db.read { () -> [Int64?] in
            let before = try db.scalar("SELECT sum(v) FROM t")
            try other.run("INSERT INTO t VALUES(10)")
            return [before, try db.scalar("SELECT sum(v) FROM t")]
        }
        #expect(seen == [1, 1])
        #expect(try db.scalar("SELECT sum(v) FROM t") == 11)
        // A transaction inside a read (nothing written since the read began): committed with it.
        try db.read {
            _ = try db.scalar("SELECT sum(v) FROM t")
            try db.transaction { try db.run("INSERT INTO t VALUES(100)") }
        }
        #expect(try other.scalar("SELECT sum(v) FROM t") == 111)
        // One that throws takes back only its own part; a read that throws leaves nothing.
        struct Stop: Error {}
        try db.read {
            try db.run("INSERT INTO t VALUES(10000)")
            #expect(throws: Stop.self) {
                try db.transaction {
                    try db.run("INSERT INTO t VALUES(1000)")
                    throw Stop()
                }
            }
        }
        #expect(try other.scalar("SELECT sum(v) FROM t") == 10111)
        try db.run("DELETE FROM t WHERE v = 10000")
        #expect(throws: Stop.self) {
            try db.read {
                try db.transaction { try db.run("INSERT INTO t VALUES(1000)") }
                throw Stop()
            }
        }
        #expect(try other.scalar("SELECT sum(v) FROM t") == 111)
        // Both are usable afterwards: the depth is back to none.
        try db.transaction { try db.run("INSERT INTO t VALUES(1000)") }
        #expect(try other.scalar("SELECT sum(v) FROM t") == 1111)
    }

    @Test func badSQLIsATypedErrorWithSQLitesWords() throws {
        let dir = TempDir()
        let db = try Database(path: dir.at("t.sqlite3"))
        do {
            try db.run("SELECT * FROM nowhere")
            Issue.record("a query of a missing table ran")
        } catch let e as SystemError {
            #expect(e.message.contains("no such table: nowhere"), "\(e)")
        }
        try db.execute("CREATE TABLE u(k TEXT UNIQUE)")
        try db.run("INSERT INTO u VALUES('a')")
        #expect(throws: SystemError.self) { try db.run("INSERT INTO u VALUES('a')") }
        #expect(try db.scalar("SELECT count(*) FROM u") == 1)
    }
}
