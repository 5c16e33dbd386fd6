import Foundation
import Glibc
import SnapSortTestSupport
import Synchronization
import Testing

@testable import SnapSortSystem

/// The libmicrohttpd wrapper on its own, against a real socket: what a handler is given, what
/// it answers, the screen before the body, the body limit, and a stop that closes the port.
@Suite("System: HTTP server")
struct HTTPServerTests {
    @Test func aRequestReachesTheHandlerWholeAndItsAnswerComesBack() throws {
        let server = try HTTPServer(addresses: ["127.0.0.1"], port: 0) { r in
            let text =
                "\(r.method) \(r.path) q=\(r.query["q"] ?? "-") h=\(r.header("X-Probe") ?? "-") body=\(String(decoding: r.body, as: UTF8.self))"
            return HTTPResponse(status: 201, contentType: "text/plain", Array(text.utf8), headers: [("X-Answer", "yes")])
        }
        defer { server.stop() }
        #expect(server.port > 0 && server.addresses == ["127.0.0.1"])
        let r = try LoopbackHTTP.request(
            "POST", "/a%20b/c?q=x%2By", port: server.port, headers: [("X-Probe", "1")], body: Array("hello".utf8))
        #expect(r.status == 201)
        #expect(r.headers["x-answer"] == "yes" && r.headers["content-type"] == "text/plain")
        #expect(r.text == "POST /a b/c q=x+y h=1 body=hello", "\(r.text)")
    }

    @Test func theScreenAnswersBeforeTheBodyIsRead() throws {
        let handled = Mutex(0)
        let server = try HTTPServer(
            addresses: ["127.0.0.1"], port: 0,
            screen: { r in
                r.header("Authorization") == nil
                    ? .answer(HTTPResponse(status: 401, contentType: "text/plain", Array("no".utf8))) : .proceed(trusted: true)
            }
        ) { _ in
            handled.withLock { $0 += 1 }
            return HTTPResponse(status: 200, contentType: "text/plain", Array("ok".utf8))
        }
        defer { server.stop() }
        let refused = try LoopbackHTTP.request("POST", "/x", port: server.port, body: Array("body".utf8))
        #expect(refused.status == 401 && refused.text == "no")
        #expect(handled.withLock { $0 } == 0)
        let admitted = try LoopbackHTTP.request("POST", "/x", port: server.port, headers: [("Authorization", "Bearer k")], body: Array("body".utf8))
        #expect(admitted.status == 200 && admitted.text == "ok")
        #expect(handled.withLock { $0 } == 1)
    }

    @Test func aBodyOverTheLimitIsDroppedAndSaidSo() throws {
        let server = try HTTPServer(addresses: ["127.0.0.1"], port: 0, maxBodyBytes: 16) { r in
            HTTPResponse(status: r.bodyTooLarge ? 413 : 200, contentType: "text/plain", Array("\(r.body.count)".utf8))
        }
        defer { server.stop() }
        let small = try LoopbackHTTP.request("POST", "/", port: server.port, body: Array(repeating: 65, count: 16))
        #expect(small.status == 200 && small.text == "16")
        let big = try LoopbackHTTP.request("POST", "/", port: server.port, body: Array(repeating: 65, count: 4096))
        #expect(big.status == 413 && big.text != "4096", "\(big.status) \(big.text)")
    }

    @Test func afterStopThePortRefusesConnections() throws {
        let server = try HTTPServer(addresses: ["127.0.0.1"], port: 0) { _ in HTTPResponse(status: 204) }
        let port = server.port
        #expect(try LoopbackHTTP.request("GET", "/", port: port).status == 204)
        server.stop()
        server.stop()  // twice is fine
        #expect(throws: SystemError.self) { try LoopbackHTTP.request("GET", "/", port: port) }
    }
}
