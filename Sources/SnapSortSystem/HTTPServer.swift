import CMicroHTTPD
import Glibc
import Synchronization

/// One HTTP request as libmicrohttpd parsed it.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path, percent-decoded, without the query string.
    public var path: String
    /// Header names lowercased; the last value wins.
    public var headers: [String: String]
    /// Query arguments, percent-decoded.
    public var query: [String: String]
    public var body: [UInt8]
    /// The body went over the server's limit and was dropped.
    public var bodyTooLarge: Bool

    public init(
        method: String, path: String, headers: [String: String] = [:], query: [String: String] = [:],
        body: [UInt8] = [], bodyTooLarge: Bool = false
    ) {
        self.method = method
        self.path = path
        self.headers = headers
        self.query = query
        self.body = body
        self.bodyTooLarge = bodyTooLarge
    }

    /// A header by name (case-insensitive).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The cookies of the `Cookie` header.
    public var cookies: [String: String] {
        var out: [String: String] = [:]
        for part in (header("cookie") ?? "").split(separator: ";") {
            let kv = part.split(separator: "=", maxSplits: 1)
            guard kv.count == 2 else { continue }
            out[kv[0].trimmingCharacters(in: " ")] = kv[1].trimmingCharacters(in: " ")
        }
        return out
    }
}

/// An answer: a status, headers and a body in memory or a slice of a file.
public struct HTTPResponse: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        /// `length` bytes of the file at `path` from `offset` (opened without following symlinks).
        case file(path: String, offset: Int64, length: Int64)
    }
    public var status: Int
    /// Header lines in order (no `Content-Length`: libmicrohttpd writes it).
    public var headers: [(String, String)]
    public var body: Body

    public init(status: Int, headers: [(String, String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: Int, contentType: String, _ bytes: [UInt8], headers: [(String, String)] = []) {
        self.init(status: status, headers: [("Content-Type", contentType)] + headers, body: .bytes(bytes))
    }
}

/// An HTTP server on loopback through GNU libmicrohttpd: one daemon per address, a polling
/// thread and a thread per connection (so a slow thumbnail never blocks another request).
/// The handler runs on those threads and must be thread-safe.
public final class HTTPServer: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    /// Looks at a request when its headers have arrived, before its body is read.
    public typealias Screen = @Sendable (HTTPRequest) -> Screening

    /// What the screen decided about a request whose headers (only) have arrived.
    public enum Screening: Sendable {
        /// Read the body and call the handler; `trusted`: the request showed the key, and its
        /// connection is no longer cut by `Limits` for being slow.
        case proceed(trusted: Bool)
        /// Answer now, without reading the body (libmicrohttpd then closes the connection).
        case answer(HTTPResponse)
    }

    /// How many connections the server takes, and how long one that no request has shown the
    /// key on (untrusted) may stay open. libmicrohttpd's own timeout is an idle timeout that
    /// every byte resets: 100 sockets sending a header line every 20 s held every slot.
    public struct Limits: Sendable {
        /// Open connections per address: a new one beyond this many cuts the oldest untrusted
        /// one at once (libmicrohttpd takes 64 more, for those cut but not yet closed, then
        /// resets new ones; 200 parallel requests of the page's own must all get in).
        public var connections = 256
        /// Untrusted connections kept while more are open: beyond this many, the oldest are
        /// cut once older than `graceSeconds`.
        public var untrusted = 32
        /// An untrusted connection is cut this long after it was accepted, whatever it sends.
        public var headerSeconds = 10.0
        /// A burst of real requests is untrusted for the time their headers take: never cut
        /// before this age for being one too many.
        public var graceSeconds = 1.0

        public init() {}
    }

    /// The port every address listens on.
    public let port: Int
    /// The addresses actually bound.
    public let addresses: [String]
    private let daemons: [OpaquePointer]
    private let stopped = Mutex(false)
    private let box: Unmanaged<HandlerBox>

    final class HandlerBox: Sendable {
        let handler: Handler
        let screen: Screen
        init(_ h: @escaping Handler, _ s: @escaping Screen) {
            handler = h
            screen = s
        }
    }

    /// Binds the first address on `port` (0: any free port; taken: the next free one up to
    /// `port + portAttempts - 1`), then the other addresses on the same port (an address that
    /// cannot be bound, e.g. `::1` without IPv6, is left out). Throws when the first fails.
    /// `screen` sees each request when its headers have arrived (default: read every body,
    /// every connection trusted).
    public init(
        addresses: [String] = ["127.0.0.1", "::1"], port: Int, portAttempts: Int = 20,
        maxBodyBytes: Int = 1 << 20, limits: Limits = Limits(),
        screen: @escaping Screen = { _ in .proceed(trusted: true) }, handler: @escaping Handler
    ) throws {
        precondition(!addresses.isEmpty, "HTTPServer needs an address")
        let box = Unmanaged.passRetained(HandlerBox(handler, screen))
        let context = box.toOpaque()
        let callback: ss_http_handler = { ctx, request in
            guard let ctx, let request else { return }
            let box = Unmanaged<HandlerBox>.fromOpaque(ctx).takeUnretainedValue()
            if request.pointee.headers_only != 0 {
                HTTPServer.screen(request, box.screen)
            } else {
                HTTPServer.serve(request, box.handler)
            }
        }
        let cLimits = ss_http_limits(
            connections: UInt32(clamping: limits.connections), untrusted: UInt32(clamping: limits.untrusted),
            header_seconds: limits.headerSeconds, grace_seconds: limits.graceSeconds)
        var msg = [CChar](repeating: 0, count: Int(SS_HTTP_MSG))
        var first: OpaquePointer?
        var bound = 0
        let tries = port == 0 ? 1 : max(1, portAttempts)
        for attempt in 0..<tries {
            let p = port == 0 ? 0 : port + attempt
            guard p <= 65535 else { break }
            if let d = ss_http_start(addresses[0], Int32(p), maxBodyBytes, cLimits, callback, context, &msg) {
                first = d
                bound = Int(ss_http_port(d))
                break
            }
        }
        guard let first else {
            box.release()
            throw SystemError(.errno(EADDRINUSE), String(cBuffer: msg), operation: "http listen")
        }
        var all = [first]
        var names = [addresses[0]]
        for a in addresses.dropFirst() {
            if let d = ss_http_start(a, Int32(bound), maxBodyBytes, cLimits, callback, context, &msg) {
                all.append(d)
                names.append(a)
            }
        }
        self.port = bound
        self.addresses = names
        self.daemons = all
        self.box = box
    }

    /// Stops every daemon (waiting for running requests); idempotent.
    public func stop() {
        let already = stopped.withLock { s -> Bool in
            let was = s
            s = true
            return was
        }
        guard !already else { return }
        for d in daemons { ss_http_stop(d) }
    }

    deinit {
        stop()
        box.release()
    }

    private static func screen(_ raw: UnsafeMutablePointer<ss_http_request>, _ screen: Screen) {
        switch screen(request(raw.pointee)) {
        case .proceed(let trusted): raw.pointee.trusted = trusted ? 1 : 0
        case .answer(var response): respond(raw, &response)
        }
    }

    private static func serve(_ raw: UnsafeMutablePointer<ss_http_request>, _ handler: Handler) {
        var response = handler(request(raw.pointee))
        respond(raw, &response)
    }

    private static func request(_ r: ss_http_request) -> HTTPRequest {
        var headers: [String: String] = [:]
        for line in String(cString: r.headers).split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: " ")
            headers[name] = value
        }
        var query: [String: String] = [:]
        for line in String(cString: r.arguments).split(separator: "\n") {
            let kv = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            query[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
        }
        let body = r.body.map { Array(UnsafeBufferPointer(start: $0, count: r.body_len)) } ?? []
        return HTTPRequest(
            method: String(cString: r.method), path: String(cString: r.url), headers: headers,
            query: query, body: body, bodyTooLarge: r.body_too_large != 0)
    }

    private static func respond(_ raw: UnsafeMutablePointer<ss_http_request>, _ response: inout HTTPResponse) {
        if case .file(let path, let offset, let length) = response.body {
            let fd = PathName.withCString(path) { Glibc.open($0, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
            if fd >= 0 {
                let text = headerText(response.headers)
                _ = ss_http_respond_fd(raw, Int32(response.status), text, fd, UInt64(offset), UInt64(length))
                return
            }
            response = HTTPResponse(
                status: 404, contentType: "application/json; charset=utf-8",
                Array(#"{"error":{"message":"not found"}}"#.utf8))
        }
        guard case .bytes(let bytes) = response.body else { return }
        let text = headerText(response.headers)
        _ = bytes.withUnsafeBufferPointer { ss_http_respond(raw, Int32(response.status), text, $0.baseAddress, $0.count) }
    }

    private static func headerText(_ headers: [(String, String)]) -> String {
        headers.map { name, value in
            // A header value never spans lines (no response splitting).
            let clean = value.replacingAll("\r", " ").replacingAll("\n", " ")
            return "\(name): \(clean)\n"
        }.joined()
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in c: Character) -> String {
        var s = Substring(self)
        while s.first == c { s = s.dropFirst() }
        while s.last == c { s = s.dropLast() }
        return String(s)
    }

    fileprivate func replacingAll(_ a: Character, _ b: Character) -> String {
        String(map { $0 == a ? b : $0 })
    }
}

/// A minimal HTTP/1.1 client for loopback only (`snapsort open` checks that the page answers;
/// tests speak raw requests, wrong `Host` headers included). One request per connection.
public enum LoopbackHTTP {
    public struct Response: Sendable {
        public var status: Int
        /// Header names lowercased.
        public var headers: [String: String]
        public var body: [UInt8]
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// `connect(2)` once: interrupted, it goes on in the background and is not tried again
    /// (a second call says `EALREADY`); any failure throws.
    private static func connectOnce(_ body: () -> Int32) throws {
        _ = try valueOrErrnoOnce("connect", body)
    }

    /// Sends `request` (a complete HTTP/1.1 request; add `Connection: close`) to `address`
    /// (127.0.0.1 or ::1) and reads the answer until the server closes.
    public static func send(_ request: [UInt8], port: Int, address: String = "127.0.0.1", timeoutSeconds: Int = 10) throws -> Response {
        let v6 = address.contains(":")
        let fd = try valueOrErrno("socket") { socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        defer { close(fd) }
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        if v6 {
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            a.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, address, &a.sin6_addr)
            try connectOnce {
                withUnsafePointer(to: &a) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
                }
            }
        } else {
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, address, &a.sin_addr)
            try connectOnce {
                withUnsafePointer(to: &a) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
            }
        }
        var sent = 0
        while sent < request.count {
            let from = sent
            let n = try valueOrErrno("send") {
                request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + from, request.count - from, Int32(MSG_NOSIGNAL)) }
            }
            try errnoUnless(n > 0, "send", EPIPE)
            sent += n
        }
        var data: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = try valueOrErrno("recv") { buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) } }
            if n == 0 { break }
            data += buf[0..<n]
        }
        return try parse(data)
    }

    /// A GET (or any method) with the usual headers; `Host` defaults to 127.0.0.1:PORT.
    public static func request(
        _ method: String, _ target: String, port: Int, headers: [(String, String)] = [],
        body: [UInt8] = [], address: String = "127.0.0.1"
    ) throws -> Response {
        var lines = ["\(method) \(target) HTTP/1.1"]
        if !headers.contains(where: { $0.0.lowercased() == "host" }) { lines.append("Host: 127.0.0.1:\(port)") }
        for (k, v) in headers { lines.append("\(k): \(v)") }
        if !body.isEmpty || method == "POST" { lines.append("Content-Length: \(body.count)") }
        lines.append("Connection: close")
        return try send(Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8) + body, port: port, address: address)
    }

    /// Parses a complete response (status line, headers, body; a chunked body is joined).
    public static func parse(_ data: [UInt8]) throws -> Response {
        let sep: [UInt8] = [13, 10, 13, 10]
        var end = -1
        if data.count >= 4 {
            for i in 0...(data.count - 4) where data[i] == 13 && Array(data[i..<(i + 4)]) == sep {
                end = i
                break
            }
        }
        guard end >= 0 else { throw SystemError(.decode, "incomplete HTTP response", operation: "http") }
        let head = String(decoding: data[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw SystemError(.decode, "bad status line", operation: "http") }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let c = line.firstIndex(of: ":") else { continue }
            let k = line[..<c].lowercased()
            let v = line[line.index(after: c)...].trimmingCharacters(in: " ")
            headers[k] = headers[k].map { $0 + ", " + v } ?? v
        }
        var body = Array(data[(end + 4)...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = dechunk(body) }
        return Response(status: status, headers: headers, body: body)
    }

    static func dechunk(_ b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < b.count {
            var j = i
            while j + 1 < b.count && !(b[j] == 13 && b[j + 1] == 10) { j += 1 }
            let sizeText = String(decoding: b[i..<j], as: UTF8.self).split(separator: ";").first.map(String.init) ?? "0"
            guard let n = Int(sizeText.trimmingCharacters(in: " "), radix: 16), n > 0, j + 2 + n <= b.count else { break }
            out += b[(j + 2)..<(j + 2 + n)]
            i = j + 2 + n + 2
        }
        return out
    }
}
