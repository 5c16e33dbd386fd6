import Foundation
import SnapSortCore
import SnapSortSystem
import Synchronization

/// An error the web layer answers with a status and `{"error":{"message":…}}`.
struct WebError: Error {
    var status: Int
    var message: String
    /// The methods the path answers, for a 405's `Allow` header (RFC 9110 §15.5.6).
    var allow: String?
    init(_ status: Int, _ message: String, allow: String? = nil) {
        self.status = status
        self.message = message
        self.allow = allow
    }
    static func notFound(_ what: String = "not found") -> WebError { WebError(404, what) }
    /// A path that exists asked with another method: 405 saying which ones it answers.
    static func methodNotAllowed(_ r: HTTPRequest, allow: String) -> WebError {
        WebError(405, "\(r.path) answers \(allow), not \(r.method)", allow: allow)
    }
    static func bad(_ what: String) -> WebError { WebError(400, what) }
}

/// The review page's server: the JSON API, media by library id and the static page, on
/// loopback only. One call starts it (the agent and `snapsort serve` use it):
///
///     let web = try WebServer.start(dbPath: library.path, config: configuration, env: env)
///     …
///     web.stop()
public final class WebServer: Sendable {
    /// Everything a server needs; defaults are the live values.
    public struct Options: Sendable {
        public var dbPath: String
        public var config: Configuration
        public var env: Environment
        /// 0 = any free port (tests); else the configured port, or the next free one.
        public var port: Int
        public var clock: Clock = .live
        public var timeZone: TimeZone = .current
        public var logger: Logger = .silent
        /// The static page's folder (default: `DataDirectory.find(env)/web`).
        public var webRoot: String?
        /// Where commits move files (default: the live Trash locations for `env`).
        public var trashEnvironment: TrashEnvironment?
        /// Write `web.json` (the server a user runs); tests may leave it out.
        public var writeInfo = true
        public var addresses = ["127.0.0.1", "::1"]
        /// How many connections, and how long one without the key may stay (tests tighten them).
        public var limits = HTTPServer.Limits()

        public init(dbPath: String, config: Configuration, env: Environment) {
            self.dbPath = dbPath
            self.config = config
            self.env = env
            self.port = config.webPort
        }
    }

    public let port: Int
    /// The page's key now (`POST /api/key` and `snapsort open --new-key` replace it).
    public var token: String { app.token }
    /// `http://127.0.0.1:PORT/`
    public let url: String
    /// Where the page is and its key now, as `web.json` says.
    public var info: WebInfo { app.info }
    /// What web.json said before this server wrote it (another server, maybe still serving).
    private let previousInfo: WebInfo?
    let http: Mutex<HTTPServer?>
    let options: Options
    let app: WebApp

    /// Starts the server for the library at `library.path` (the server opens its own
    /// connection, so it never shares one with the caller's thread).
    public static func start(library: Library, config: Configuration, env: Environment, logger: Logger = .silent) throws -> WebServer {
        var o = Options(dbPath: library.path, config: config, env: env)
        o.logger = logger
        return try WebServer(o)
    }

    /// Starts a server with explicit options.
    public static func start(_ options: Options) throws -> WebServer { try WebServer(options) }

    init(_ options: Options) throws {
        self.options = options
        // The user's server keeps its token across restarts; a test's server makes its own.
        // The library first: it makes its folder, where the token is kept (a new account's first
        // page had neither, and the token's file could not be created).
        let library = try Library(path: options.dbPath)
        let token = options.writeInfo ? try WebSecurity.keptToken(at: LibraryFiles(database: options.dbPath).webToken) : try WebSecurity.makeToken()
        let webRoot = options.webRoot ?? DataDirectory.find(options.env).map { $0 + "/web" }
        let app = WebApp(library: library, options: options, webRoot: webRoot)
        let server = try HTTPServer(
            addresses: options.addresses, port: options.port, maxBodyBytes: WebApp.maxBodyBytes, limits: options.limits,
            screen: { app.screen($0) }, handler: { app.handle($0) })
        let port = server.port
        let addresses = server.addresses.joined(separator: " ")
        app.setSecurity(WebSecurity(token: token, port: port))
        self.port = port
        self.url = "http://127.0.0.1:\(port)/"
        self.http = Mutex(server)
        self.app = app
        self.previousInfo = options.writeInfo ? WebInfo.read(options.env) : nil
        if options.writeInfo {
            do { try info.write(options.env) } catch {
                http.withLock { $0?.stop() }
                throw error
            }
        }
        options.logger.info("review page served", ["web.url": url, "web.addresses": addresses])
    }

    /// Uses a reloaded configuration (session goal, reminder settings shown on the page). The
    /// port is fixed for the server's life: a new `web_port` needs a new server.
    public func update(configuration: Configuration) {
        app.config.withLock { $0 = configuration }
    }

    /// Writes `web.json` again when it is gone (its folder removed: a `rm -rf` of the runtime
    /// folder, a tmpfs cleaner) while this server still serves: `snapsort open` found no page.
    /// One that names another server is left alone (another library's agent wrote it last).
    /// True when it wrote.
    @discardableResult
    public func restoreInfoIfMissing() -> Bool {
        guard options.writeInfo, http.withLock({ $0 != nil }) else { return false }
        if WebInfo.read(options.env) == nil { return (try? info.write(options.env)) != nil }
        if WebInfo.read(options.env, database: options.dbPath) == nil { return (try? info.writeOwn(options.env)) != nil }
        return false
    }

    /// Stops serving and removes `web.json`; idempotent.
    public func stop() {
        let s = http.withLock { h -> HTTPServer? in
            let s = h
            h = nil
            return s
        }
        guard let s else { return }
        s.stop()
        guard options.writeInfo else { return }
        WebInfo.remove(options.env, token: token, database: options.dbPath)
        // The opener file holds the key too: it goes with the page.
        try? FileSystem.remove(PageOpener.path(options.env, port: port))
        // The server this one stood in front of in web.json (another library's page, the
        // agent's) is named again if it still serves: 'snapsort open' finds it.
        if let previousInfo, WebInfo.read(options.env) == nil, WebClient.answers(previousInfo) {
            try? previousInfo.write(options.env)
        }
    }

    deinit { stop() }

    /// Replaces the key kept next to the library at `dbPath` while no page serves it (`snapsort
    /// open --new-key` with the page stopped): the next server opens with the new one, and
    /// cookies and links with the old one are refused.
    public static func replaceKeptKey(dbPath: String) throws {
        try WebSecurity.keepToken(try WebSecurity.makeToken(), at: LibraryFiles(database: dbPath).webToken)
    }
}

/// Dispatches requests: guards first, then static files, media and the API.
final class WebApp: Sendable {
    let library: Library
    let options: Options
    let webRoot: String?
    let thumbnails: ThumbnailCache
    let renditions: RenditionCache
    /// One connection, one request touching it at a time.
    let dbLock = Mutex(())
    let security = Mutex<WebSecurity?>(nil)
    /// The configuration as the settings view last wrote it.
    let config: Mutex<Configuration>
    /// State-changing API requests answered (part of `/api/version`: every tab of the page
    /// shares one connection, whose own commits SQLite's `data_version` does not count).
    let changes = Mutex(0)
    typealias Options = WebServer.Options

    init(library: Library, options: Options, webRoot: String?) {
        self.library = library
        self.options = options
        self.webRoot = webRoot
        config = Mutex(options.config)
        thumbnails = ThumbnailCache(env: options.env)
        renditions = RenditionCache(env: options.env)
    }

    /// Request bodies above this are refused (413), before they are read when announced.
    static let maxBodyBytes = 1 << 20
    /// The login form's body (`key=…&deck=…`) is read without the key shown: this much at most.
    static let maxLoginBodyBytes = 4096

    func setSecurity(_ s: WebSecurity) { security.withLock { $0 = s } }

    var token: String { security.withLock { $0?.token ?? "" } }

    var info: WebInfo {
        let port = security.withLock { $0?.port ?? 0 }
        return WebInfo(url: "http://127.0.0.1:\(port)/", port: port, token: token, pid: Int(SystemProcess.currentID), database: options.dbPath)
    }

    /// A new key for the page: kept next to the library (the user's server), written to
    /// `web.json`, and from now on the only one accepted (cookies with the old one get 401).
    func newKey() throws -> WebSecurity {
        let token = try WebSecurity.makeToken()
        if options.writeInfo { try WebSecurity.keepToken(token, at: LibraryFiles(database: options.dbPath).webToken) }
        let sec = try security.withLock { s -> WebSecurity in
            guard let old = s else { throw WebError(503, "starting") }
            s = WebSecurity(token: token, port: old.port)
            return s!
        }
        if options.writeInfo {
            // web.json names this page only when it still does (another library's page may
            // have been started since); the library's own file always.
            let info = self.info
            if let shared = WebInfo.read(options.env), shared.port == info.port, shared.pid == info.pid {
                try info.write(options.env)
            } else {
                try info.writeOwn(options.env)
            }
        }
        options.logger.info("the page has a new key")
        return sec
    }

    /// The headers alone, before any body is read: a request without the key, to another
    /// host, or announcing a body over the limit is answered now, and libmicrohttpd closes
    /// without reading what it sends (a 1 GiB upload without the key held a slot while it
    /// was read to the end). One with the key marks its connection trusted.
    func screen(_ r: HTTPRequest) -> HTTPServer.Screening {
        guard let sec = security.withLock({ $0 }) else { return .answer(handle(r)) }
        let length = r.header("content-length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard sec.hostAllowed(r) else { return .answer(handle(r)) }
        if sec.authenticate(r) != nil {
            if let length, length > Self.maxBodyBytes {
                var res = Self.error(413, "request body too large")
                res.headers += WebSecurity.common
                return .answer(res)
            }
            return .proceed(trusted: true)
        }
        // The login form carries the key in its small body.
        if r.path == WebSecurity.loginPath && r.method == "POST" {
            if (length ?? Int.max) > Self.maxLoginBodyBytes {
                var res = Self.error(413, "request body too large")
                res.headers += WebSecurity.common
                return .answer(res)
            }
            return .proceed(trusted: false)
        }
        return .answer(handle(r))
    }

    func withLibrary<T: Sendable>(_ body: (Library) throws -> T) throws -> T {
        try dbLock.withLock { _ in try body(library) }
    }

    func handle(_ r: HTTPRequest) -> HTTPResponse {
        var response = route(r)
        response.headers += WebSecurity.common
        return response
    }

    private func route(_ r: HTTPRequest) -> HTTPResponse {
        guard let sec = security.withLock({ $0 }) else { return Self.error(503, "starting") }
        guard sec.hostAllowed(r) else { return Self.error(403, "this page is only served to this machine (Host refused)") }
        if r.method == "OPTIONS" { return Self.error(405, "method not allowed") }
        if r.path == WebSecurity.loginPath { return login(r, sec) }
        guard let proof = sec.authenticate(r) else {
            // A browser asking for the page gets a page that says what to do, not JSON.
            if !r.path.hasPrefix("/api/") && !r.path.hasPrefix("/media/") && (r.header("accept") ?? "").contains("text/html") {
                return Self.keyNeeded(401)
            }
            return Self.error(401, "a token is needed: open the page with 'snapsort open'")
        }
        if WebSecurity.isStateChanging(r.method) && !sec.originAllowed(r, proof: proof) {
            return Self.error(403, "cross-origin request refused")
        }
        if r.bodyTooLarge { return Self.error(413, "request body too large") }
        // The first visit carries the token in the URL: trade it for a cookie and drop it from
        // the address bar (the fragment, e.g. #deck=ID, survives the redirect).
        if proof == .query && r.method == "GET" && (r.path == "/" || r.path == "/index.html") {
            return HTTPResponse(status: 303, headers: [("Location", "/"), sec.cookieHeader, ("Cache-Control", "no-store")])
        }
        if r.path == "/api/key" {
            guard r.method == "POST" else { return Self.error(405, "/api/key answers POST, not \(r.method)") }
            do {
                // The browser that asked keeps the page (its cookie is the new key); every
                // other cookie, link and script with the old key gets 401.
                let new = try newKey()
                var res = Self.json(.object([("rotated", .bool(true))]))
                res.headers.append(new.cookieHeader)
                return res
            } catch {
                options.logger.warning("cannot make a new key", ["error": "\(error)"])
                return Self.error(500, "cannot make a new key: \(error)")
            }
        }
        do {
            if r.path.hasPrefix("/api/") {
                let res = try api(r)
                if r.method == "POST" { changes.withLock { $0 += 1 } }
                return res
            }
            if r.path.hasPrefix("/media/") { return try media(r) }
            guard r.method == "GET" || r.method == "HEAD" else { throw WebError.methodNotAllowed(r, allow: "GET, HEAD") }
            var res = try staticFile(r.path)
            if proof == .query { res.headers.append(sec.cookieHeader) }
            return res
        } catch let e as WebError {
            var res = Self.error(e.status, e.message)
            if let allow = e.allow { res.headers.append(("Allow", allow)) }
            return res
        } catch let e as ReviewError {
            let status = e.code == .notInLibrary || e.code == .noSuchDeck || e.code == .noSuchSession ? 404 : 400
            return Self.error(status, e.message)
        } catch let e as SystemError where Library.isDamage(e) {
            options.logger.error("the library is damaged", ["web.path": r.path, "error": "\(e)"])
            return Self.error(500, Library.damaged(options.dbPath, e.message).message)
        } catch {
            options.logger.warning("web request failed", ["web.path": r.path, "error": "\(error)"])
            return Self.error(500, "\(error)")
        }
    }

    /// `POST /open` with `key=…` (and `deck=…`) in a form body: what the file that `snapsort
    /// open` and the reminders open in the browser sends, so the key is in no URL and no
    /// process's arguments. Trades the key for the cookie, then moves to the page by a refresh
    /// from the page itself: a `SameSite=Strict` cookie is not sent on a redirect whose chain
    /// began at a `file:` page (cross-site), and the page answered 401.
    private func login(_ r: HTTPRequest, _ sec: WebSecurity) -> HTTPResponse {
        guard r.method == "POST" else { return Self.error(405, "\(WebSecurity.loginPath) answers POST, not \(r.method)") }
        let form = Self.form(r.body)
        guard let key = form["key"], WebSecurity.equal(key, sec.token) else {
            return Self.keyNeeded(401)
        }
        var target = "/"
        if let deck = form["deck"], !deck.isEmpty, deck.count <= 200 {
            target += "#deck=" + (deck.addingPercentEncoding(withAllowedCharacters: WebSecurity.fragmentSafe) ?? "")
        }
        let html =
            "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0;url=\(target)\">"
            + "<title>SnapSort</title><body><p><a href=\"\(target)\">Open the review page</a></p></body></html>"
        return HTTPResponse(
            status: 200, contentType: "text/html; charset=utf-8", Array(html.utf8), headers: [sec.cookieHeader, ("Cache-Control", "no-store")])
    }

    /// `application/x-www-form-urlencoded` pairs (`+` is a space).
    static func form(_ body: [UInt8]) -> [String: String] {
        var out: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String { String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            out[decode(kv[0])] = kv.count > 1 ? decode(kv[1]) : ""
        }
        return out
    }

    /// The page a browser without the key gets: what to do, not JSON.
    static func keyNeeded(_ status: Int) -> HTTPResponse {
        let html =
            "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>SnapSort</title><body><h1>SnapSort</h1><p>This page opens with its key. Run <code>snapsort open</code> (or click a SnapSort reminder): it opens the page with the key, and this browser remembers it for 30 days.</p></body></html>"
        return HTTPResponse(status: status, contentType: "text/html; charset=utf-8", Array(html.utf8), headers: [("Cache-Control", "no-store")])
    }

    static func error(_ status: Int, _ message: String) -> HTTPResponse {
        json(.object([("error", .object([("message", .string(message))]))]), status: status)
    }

    static func json(_ j: JSON, status: Int = 200) -> HTTPResponse {
        HTTPResponse(
            status: status, contentType: "application/json; charset=utf-8", Array(j.serialized().utf8),
            headers: [("Cache-Control", "no-store")])
    }

    // MARK: - Static files

    static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8",
        "svg": "image/svg+xml", "png": "image/png", "ico": "image/x-icon", "json": "application/json",
        "webmanifest": "application/manifest+json",
    ]

    /// Files of the web folder by plain name only (`[A-Za-z0-9_-]+.ext`): nothing else can be named.
    func staticFile(_ path: String) throws -> HTTPResponse {
        guard let webRoot else { throw WebError(500, "the page's files are not installed (share/snapsort/web)") }
        let name = path == "/" ? "index.html" : String(path.dropFirst())
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty,
            parts[0].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }),
            let type = Self.types[String(parts[1])]
        else { throw WebError.notFound() }
        guard let data = try? FileSystem.readFile(webRoot + "/" + name, limit: 8 * 1024 * 1024) else { throw WebError.notFound() }
        return HTTPResponse(status: 200, contentType: type, data, headers: [("Cache-Control", "no-cache")])
    }
}
