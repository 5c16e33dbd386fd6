import Foundation
import SnapSortSystem

/// The page's guards: a secret token on every request, `Host` checked on every request
/// (against DNS rebinding), `Origin` on every state-changing one, a strict CSP, no CORS.
struct WebSecurity: Sendable {
    let token: String
    let port: Int

    /// One cookie per port: cookies are not kept apart by port, so two pages (two libraries, or
    /// the agent's and a `serve`) shared one and each logged the other out.
    var cookieName: String { "snapsort_token_\(port)" }

    /// 32 bytes from /dev/urandom, hex.
    /// The token kept in `path` (0600, next to the library in its 0700 folder), made on first use:
    /// the page's bookmark and its cookie stay good when the agent restarts (at every login it
    /// made a new one, and open tabs and bookmarks answered 401).
    static func keptToken(at path: String) throws -> String {
        if let bytes = try? FileSystem.readFile(path, limit: 256) {
            let t = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if t.count == 64, t.allSatisfy(\.isHexDigit) { return t }
        }
        let t = try makeToken()
        try keepToken(t, at: path)
        return t
    }

    /// Writes the key to `path` (0600, atomically).
    static func keepToken(_ token: String, at path: String) throws {
        try FileSystem.writeAtomically(path, Array((token + "\n").utf8), mode: 0o600)
    }

    /// Where the opener's form sends the key (`POST`, form body `key=…&deck=…`).
    static let loginPath = "/open"

    /// A deck id as it may stand in the refresh's fragment and an HTML attribute.
    static let fragmentSafe = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:-_.")

    static func makeToken() throws -> String {
        let fd = try FileDescriptor.open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        let bytes = try fd.readAll(expected: 32, limit: 32)
        guard bytes.count == 32 else { throw SystemError(.decode, "short read from /dev/urandom", operation: "token") }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The hosts a browser on this machine names us by.
    var allowedHosts: Set<String> { ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"] }
    var allowedOrigins: Set<String> { Set(allowedHosts.map { "http://" + $0 }) }

    func hostAllowed(_ r: HTTPRequest) -> Bool {
        guard let h = r.header("host")?.lowercased() else { return false }
        return allowedHosts.contains(h)
    }

    /// State-changing requests must come from our own page — or from a script that proved the
    /// token in its `Authorization` header and is no browser (no `Origin`, no `Sec-Fetch-Site`:
    /// a page elsewhere cannot add that header to a request without a CORS preflight, which is
    /// refused).
    func originAllowed(_ r: HTTPRequest, proof: Proof) -> Bool {
        if proof == .bearer && r.header("origin") == nil && r.header("sec-fetch-site") == nil { return true }
        if let site = r.header("sec-fetch-site"), site != "same-origin" { return false }
        guard let o = r.header("origin")?.lowercased() else { return false }
        return allowedOrigins.contains(o)
    }

    static func isStateChanging(_ method: String) -> Bool { !["GET", "HEAD"].contains(method) }

    /// How the request proves it knows the token: the query (first visit), the cookie, or a
    /// bearer header (scripts).
    enum Proof { case query, cookie, bearer }

    func authenticate(_ r: HTTPRequest) -> Proof? {
        if let q = r.query["token"], Self.equal(q, token) { return .query }
        if let c = r.cookies[cookieName], Self.equal(c, token) { return .cookie }
        if let a = r.header("authorization"), a.hasPrefix("Bearer "), Self.equal(String(a.dropFirst(7)), token) { return .bearer }
        return nil
    }

    var cookieHeader: (String, String) {
        ("Set-Cookie", "\(cookieName)=\(token); Path=/; Max-Age=2592000; HttpOnly; SameSite=Strict")
    }

    /// Constant-time comparison.
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var d: UInt8 = 0
        for i in 0..<x.count { d |= x[i] ^ y[i] }
        return d == 0
    }

    /// Headers on every response.
    static let common: [(String, String)] = [
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; media-src 'self'; "
                + "connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        ),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"),
        ("Cross-Origin-Resource-Policy", "same-origin"),
        ("Cross-Origin-Opener-Policy", "same-origin"),
    ]
}
