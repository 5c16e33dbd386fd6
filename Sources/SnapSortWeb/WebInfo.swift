import Foundation
import SnapSortCore
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
    public static func path(_ env: Environment) -> String {
        (env.runtimeDir ?? env.stateHome) + "/snapsort/web.json"
    }

    /// The URL that opens the page and hands it the token: `http://127.0.0.1:PORT/?token=…`.
    public var openURL: String { "\(url)?token=\(token)" }

    public var json: JSON {
        .object([("url", .string(url)), ("port", .int(port)), ("token", .string(token)), ("pid", .int(pid)), ("database", .opt(database))])
    }

    /// Writes the file 0600 (its folder 0700), atomically.
    public func write(_ env: Environment) throws {
        let p = WebInfo.path(env)
        try FileSystem.makeDirectories((p as NSString).deletingLastPathComponent, mode: 0o700)
        try FileSystem.writeAtomically(p, Array((json.serialized(pretty: true) + "\n").utf8), mode: 0o600)
    }

    /// Reads the file; nil when missing or malformed.
    public static func read(_ env: Environment) -> WebInfo? {
        guard let bytes = try? FileSystem.readFile(path(env), limit: 64 * 1024),
            let j = JSON.parse(String(decoding: bytes, as: UTF8.self)),
            let url = j["url"]?.stringValue, let port = j["port"]?.intValue, let token = j["token"]?.stringValue
        else { return nil }
        return WebInfo(url: url, port: port, token: token, pid: j["pid"]?.intValue ?? 0, database: j["database"]?.stringValue)
    }

    /// Removes the file if it still describes this server (a newer server may have replaced it).
    public static func remove(_ env: Environment, token: String) {
        if let current = read(env), current.token == token { unlink(path(env)) }
    }
}
