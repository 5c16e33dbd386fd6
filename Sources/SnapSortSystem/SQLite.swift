import CSQLite

/// A value bound to or read from SQLite.
public enum SQLValue: Sendable, Equatable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// Types that convert to an `SQLValue` for binding.
public protocol SQLBindable { var sqlValue: SQLValue { get } }
extension Int: SQLBindable { public var sqlValue: SQLValue { .integer(Int64(self)) } }
extension Int64: SQLBindable { public var sqlValue: SQLValue { .integer(self) } }
extension UInt64: SQLBindable { public var sqlValue: SQLValue { .integer(Int64(bitPattern: self)) } }
extension Double: SQLBindable { public var sqlValue: SQLValue { .real(self) } }
extension String: SQLBindable { public var sqlValue: SQLValue { .text(self) } }
extension Bool: SQLBindable { public var sqlValue: SQLValue { .integer(self ? 1 : 0) } }
extension Array: SQLBindable where Element == UInt8 { public var sqlValue: SQLValue { .blob(self) } }
extension SQLValue: SQLBindable { public var sqlValue: SQLValue { self } }
extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

/// One row of a result, read by column index.
public struct Row: Sendable {
    public let values: [SQLValue]
    public subscript(_ i: Int) -> SQLValue { values[i] }
    public func int(_ i: Int) -> Int64? {
        if case .integer(let v) = values[i] { return v }; if case .real(let d) = values[i] { return Int64(d) }; return nil
    }
    public func double(_ i: Int) -> Double? {
        switch values[i] {
        case .real(let v): return v;
        case .integer(let v): return Double(v);
        default: return nil
        }
    }
    public func string(_ i: Int) -> String? { if case .text(let v) = values[i] { return v }; return nil }
    public func blob(_ i: Int) -> [UInt8]? { if case .blob(let v) = values[i] { return v }; return nil }
}

/// A prepared statement; finalized when released.
public final class Statement {
    let handle: OpaquePointer
    unowned let db: Database

    init(db: Database, sql: String) throws {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(db.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw db.error(rc, "prepare: \(sql.prefix(80))") }
        self.handle = stmt
        self.db = db
    }

    deinit { sqlite3_finalize(handle) }

    func bind(_ args: [SQLBindable]) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (i, a) in args.enumerated() {
            let idx = Int32(i + 1)
            let rc: Int32
            switch a.sqlValue {
            case .null: rc = sqlite3_bind_null(handle, idx)
            case .integer(let v): rc = sqlite3_bind_int64(handle, idx, v)
            case .real(let v): rc = sqlite3_bind_double(handle, idx, v)
            case .text(let s):
                // By its byte length, not as a C string: a NUL inside the text is kept, not
                // the end of it.
                var text = s
                rc = text.withUTF8 { u in
                    u.withMemoryRebound(to: CChar.self) { c in
                        guard let base = c.baseAddress else { return sqlite3_bind_text(handle, idx, "", 0, snapsort_sqlite_transient()) }
                        return sqlite3_bind_text(handle, idx, base, Int32(c.count), snapsort_sqlite_transient())
                    }
                }
            case .blob(let b):
                rc = b.withUnsafeBytes { sqlite3_bind_blob(handle, idx, $0.baseAddress, Int32($0.count), snapsort_sqlite_transient()) }
            }
            guard rc == SQLITE_OK else { throw db.error(rc, "bind") }
        }
    }

    /// Steps once; true when a row is available.
    func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            sqlite3_reset(handle)
            throw db.error(rc, "step")
        }
    }

    func row() -> Row {
        let n = sqlite3_column_count(handle)
        var values: [SQLValue] = []
        values.reserveCapacity(Int(n))
        for i in 0..<n {
            switch sqlite3_column_type(handle, i) {
            case SQLITE_INTEGER: values.append(.integer(sqlite3_column_int64(handle, i)))
            case SQLITE_FLOAT: values.append(.real(sqlite3_column_double(handle, i)))
            case SQLITE_TEXT:
                // The pointer first, then its length (sqlite3_column_bytes after the conversion).
                let text = sqlite3_column_text(handle, i)
                let count = Int(sqlite3_column_bytes(handle, i))
                values.append(.text(String(decoding: UnsafeBufferPointer(start: text, count: text == nil ? 0 : count), as: UTF8.self)))
            case SQLITE_BLOB:
                let count = Int(sqlite3_column_bytes(handle, i))
                if count == 0 { values.append(.blob([])); break }
                let p = sqlite3_column_blob(handle, i)!
                values.append(.blob(Array(UnsafeRawBufferPointer(start: p, count: count))))
            default: values.append(.null)
            }
        }
        return Row(values: values)
    }
}

/// A SQLite connection. One connection is used by one thread at a time.
public final class Database: @unchecked Sendable {
    let handle: OpaquePointer
    public let path: String
    private var cache: [String: Statement] = [:]
    private var transactionDepth = 0

    /// Opens (creating if needed) a database with WAL, foreign keys and a busy timeout.
    /// `wal` false: the journal mode is left as the file has it until `switchToWAL()` (a caller
    /// that looks at a file before it writes anything to it).
    public init(path: String, readOnly: Bool = false, busyTimeoutMs: Int32 = 10_000, wal: Bool = true) throws {
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_NOMUTEX
        let rc = PathName.withCString(path) { sqlite3_open_v2($0, &db, flags, nil) }
        guard rc == SQLITE_OK, let db else {
            let msg = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw SystemError(.sqlite(rc), msg, operation: "open database")
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMs)
        // Switching to WAL needs an exclusive lock: only do it when the file is not WAL yet,
        // so a second process can open while another one writes. On a new file opened by two
        // processes at once SQLite answers SQLITE_BUSY at once, without the busy handler (the
        // agent, started while a bar ran `status`, stopped with "database is locked"): try
        // again within the busy timeout; the other opener has often switched it meanwhile.
        self.busyTimeoutMs = busyTimeoutMs
        if !readOnly && wal { try switchToWAL() }
        try execute("PRAGMA foreign_keys=ON")
    }

    deinit {
        cache.removeAll()
        sqlite3_close_v2(handle)
    }

    private let busyTimeoutMs: Int32

    /// Puts the database in WAL mode (when it is not yet) with `synchronous=NORMAL`; `init`
    /// does unless told `wal: false`.
    public func switchToWAL() throws {
        try switchToWAL(busyTimeoutMs)
        try execute("PRAGMA synchronous=NORMAL")
    }

    private func switchToWAL(_ timeoutMs: Int32) throws {
        var waited: Int32 = 0
        while true {
            do {
                // Once: a database that cannot be WAL (":memory:") answers with its own mode.
                if try rows("PRAGMA journal_mode").first?.string(0) != "wal" { try execute("PRAGMA journal_mode=WAL") }
                return
            } catch let e as SystemError where e.code.sqliteValue.map({ $0 & 0xff == SQLITE_BUSY }) == true && waited < timeoutMs {
                let pause = min(5 + waited / 8, 100)
                sqlite3_sleep(pause)
                waited += pause
            }
        }
    }

    func error(_ rc: Int32, _ op: String) -> SystemError {
        let primary = rc & 0xff
        precondition(primary != SQLITE_MISUSE, "SQLite misuse in \(op): \(String(cString: sqlite3_errmsg(handle)))")
        return SystemError(.sqlite(primary), String(cString: sqlite3_errmsg(handle)), operation: op)
    }

    /// The statement of `sql`, prepared once and kept — up to `statementCacheLimit` of them
    /// (then the kept ones are let go and kept anew), and not when the text is longer than
    /// `longStatement`: such a text carries its values (a pHash's neighbouring chunk keys, a
    /// list of ids), is seldom asked twice, and a connection the agent holds for years kept
    /// every one (~70 KB each with 697 keys; the sliced regroup of each photo added made eight).
    /// A statement let go while a caller steps through it lives until that caller is done.
    private func statement(_ sql: String) throws -> Statement {
        if let s = cache[sql] { return s }
        let s = try Statement(db: self, sql: sql)
        guard sql.utf8.count <= Self.longStatement else { return s }
        if cache.count >= Self.statementCacheLimit { cache.removeAll() }
        cache[sql] = s
        return s
    }

    /// How many prepared statements the connection keeps.
    var cachedStatements: Int { cache.count }
    /// The heap its prepared statements hold (SQLITE_DBSTATUS_STMT_USED), in bytes.
    var statementBytes: Int {
        var current: Int32 = 0, highest: Int32 = 0
        sqlite3_db_status(handle, SQLITE_DBSTATUS_STMT_USED, &current, &highest, 0)
        return Int(current)
    }
    static let statementCacheLimit = 256
    static let longStatement = 2048

    /// Runs one or more statements without results (no bindings).
    public func execute(_ sql: String) throws {
        var err: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &err)
        if rc != SQLITE_OK {
            let msg = err.map { String(cString: $0) } ?? "error"
            sqlite3_free(err)
            throw SystemError(.sqlite(rc & 0xff), msg, operation: "exec: \(sql.prefix(60))")
        }
    }

    /// Runs one statement with bindings.
    public func run(_ sql: String, _ args: SQLBindable...) throws {
        try run(sql, arguments: args)
    }

    public func run(_ sql: String, arguments: [SQLBindable]) throws {
        let s = try statement(sql)
        try s.bind(arguments)
        while try s.step() {}
        sqlite3_reset(s.handle)
    }

    /// All rows of a query.
    public func rows(_ sql: String, _ args: SQLBindable...) throws -> [Row] {
        try rows(sql, arguments: args)
    }

    public func rows(_ sql: String, arguments: [SQLBindable]) throws -> [Row] {
        let s = try statement(sql)
        try s.bind(arguments)
        var out: [Row] = []
        while try s.step() { out.append(s.row()) }
        sqlite3_reset(s.handle)
        return out
    }

    /// Calls `body` for each row without building an array.
    public func forEach(_ sql: String, arguments: [SQLBindable] = [], _ body: (Row) throws -> Void) throws {
        let s = try statement(sql)
        try s.bind(arguments)
        defer { sqlite3_reset(s.handle) }
        while try s.step() { try body(s.row()) }
    }

    /// Calls `body` for each row until it returns false: the rest are never stepped to (a
    /// range read that stops where it is no longer wanted).
    public func forEachWhile(_ sql: String, arguments: [SQLBindable] = [], _ body: (Row) throws -> Bool) throws {
        let s = try statement(sql)
        try s.bind(arguments)
        defer { sqlite3_reset(s.handle) }
        while try s.step() {
            if try !body(s.row()) { return }
        }
    }

    /// The first row, if any.
    public func row(_ sql: String, _ args: SQLBindable...) throws -> Row? {
        try rows(sql, arguments: args).first
    }

    /// The first column of the first row as an integer.
    public func scalar(_ sql: String, _ args: SQLBindable...) throws -> Int64? {
        try rows(sql, arguments: args).first?.int(0)
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    public var changes: Int { Int(sqlite3_changes(handle)) }
    /// Rows changed by this connection since it opened.
    public var totalChanges: Int { Int(sqlite3_total_changes64(handle)) }

    /// Runs `body` in a write transaction (BEGIN IMMEDIATE), committing on success and rolling
    /// back on error. Nested calls (inside a `transaction` or a `read`) use savepoints.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        if transactionDepth > 0 { return try savepoint(body) }
        return try outermost("BEGIN IMMEDIATE", body)
    }

    /// Runs `body` in one read transaction (BEGIN DEFERRED): its statements see one state of
    /// the database, whatever other connections commit meanwhile. Inside a transaction it is a
    /// savepoint of it. A `transaction` inside it is a savepoint too; its first write takes the
    /// write lock, and fails with SQLITE_BUSY when another connection wrote since the read
    /// began (SQLite cannot move a read's snapshot forward: see https://sqlite.org/lang_transaction.html).
    public func read<T>(_ body: () throws -> T) throws -> T {
        if transactionDepth > 0 { return try savepoint(body) }
        return try outermost("BEGIN DEFERRED", body)
    }

    /// The outermost transaction, begun with `begin`: committed on success, rolled back on error.
    private func outermost<T>(_ begin: String, _ body: () throws -> T) throws -> T {
        try execute(begin)
        transactionDepth = 1
        defer { transactionDepth = 0 }
        do {
            let r = try body()
            try execute("COMMIT")
            return r
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// A savepoint inside the open transaction: released on success, rolled back to on error.
    private func savepoint<T>(_ body: () throws -> T) throws -> T {
        let name = "sp\(transactionDepth)"
        try execute("SAVEPOINT \(name)")
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        do {
            let r = try body()
            try execute("RELEASE \(name)")
            return r
        } catch {
            try? execute("ROLLBACK TO \(name); RELEASE \(name)")
            throw error
        }
    }

    /// `PRAGMA user_version`.
    public var userVersion: Int {
        get throws { Int(try scalar("PRAGMA user_version") ?? 0) }
    }

    public func setUserVersion(_ v: Int) throws { try execute("PRAGMA user_version=\(v)") }

    /// `PRAGMA quick_check`: nil when ok, else the first problem.
    public func quickCheck() throws -> String? {
        let r = try rows("PRAGMA quick_check").first?.string(0)
        return r == "ok" ? nil : (r ?? "unknown")
    }

    /// The SQLite library version.
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }
}
