import Foundation
import SnapSortSystem

/// `$XDG_RUNTIME_DIR/snapsort/web.json`: where the running page is (`url`, `port`, `token`,
/// `pid`, and the `database` it serves), written 0600 by the server and read by
/// `snapsort open`. A contract.
public struct WebInfo: Sendable, Equatable {
    public var url: String
    public var port: Int
    public var token: String
    public var pid: Int
    /// The library the page serves (nil in a file written before this was recorded).
    public var database: String?

    public init(url: String, port: Int, token: String, pid: Int, database: String? = nil) {
        self.url = url
        self.port = port
        self.token = token
        self.pid = pid
        self.database = database
    }

    /// The file: `$XDG_RUNTIME_DIR/snapsort/web.json`, else `$XDG_STATE_HOME/snapsort/web.json`
    /// (the same fallback as the status file).
    public static func path(_ env: Environment) -> String { LibraryFiles.sharedWebInfo(env) }

    /// The URL that opens the page and hands it the token: `http://127.0.0.1:PORT/?token=…`.
    public var openURL: String { "\(url)?token=\(token)" }

    public var json: JSON {
        .object([("url", .string(url)), ("port", .int(port)), ("token", .string(token)), ("pid", .int(pid)), ("database", .opt(database))])
    }

    /// The page of one library: `web-KEY.json` beside `web.json` (KEY: 16 hex digits of the
    /// database path's FNV-1a hash). `web.json` names the page started last; with two libraries
    /// served (two agents, an agent and `serve`), each one's own file still says where its page is.
    public static func path(_ env: Environment, database: String) -> String { LibraryFiles(database: database).webInfo(env) }

    /// Writes `web.json` and, when the database is known, the library's own file: 0600 (the
    /// folder 0700), atomically.
    public func write(_ env: Environment) throws {
        try write(at: WebInfo.path(env))
        if let database { try write(at: WebInfo.path(env, database: database)) }
    }

    /// Writes only the library's own file (`web.json` names another page now).
    public func writeOwn(_ env: Environment) throws {
        if let database { try write(at: WebInfo.path(env, database: database)) }
    }

    private func write(at p: String) throws {
        try FileSystem.makeDirectories((p as NSString).deletingLastPathComponent, mode: 0o700)
        try FileSystem.writeAtomically(p, Array((json.serialized(pretty: true) + "\n").utf8), mode: 0o600)
    }

    /// Reads `web.json`; nil when missing or malformed.
    public static func read(_ env: Environment) -> WebInfo? { read(at: path(env)) }

    /// The page of the library at `database`: its own file, else `web.json` when that names it
    /// (or, written by an older version, no library).
    public static func read(_ env: Environment, database: String) -> WebInfo? {
        if let own = read(at: path(env, database: database)), own.database == database { return own }
        guard let shared = read(env), shared.database == nil || shared.database == database else { return nil }
        return shared
    }

    static func read(at p: String) -> WebInfo? {
        guard let bytes = try? FileSystem.readFile(p, limit: 64 * 1024),
            let j = JSON.parse(String(decoding: bytes, as: UTF8.self)),
            let url = j["url"]?.stringValue, let port = j["port"]?.intValue, let token = j["token"]?.stringValue
        else { return nil }
        return WebInfo(url: url, port: port, token: token, pid: j["pid"]?.intValue ?? 0, database: j["database"]?.stringValue)
    }

    /// Removes the files that still describe this server (a newer server may have replaced them).
    public static func remove(_ env: Environment, token: String, database: String? = nil) {
        if let current = read(env), current.token == token { try? FileSystem.remove(path(env)) }
        if let database, let own = read(at: path(env, database: database)), own.token == token {
            try? FileSystem.remove(path(env, database: database))
        }
    }
}
