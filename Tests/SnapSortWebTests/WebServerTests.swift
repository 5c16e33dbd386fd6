import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortWeb

/// The server's guards, against a live server on loopback.
@Suite(.serialized) struct WebServerTests {
    /// The menu entry's `open --start` with nothing serving the page (right after installing):
    /// the page is started and its URL given (the click did nothing visible). Without a systemd
    /// user manager, `snapsort serve` runs in a session of its own, outliving the command.
    @Test func openStartStartsThePageWhenNothingServesIt() throws {
        let lib = try TestLibrary()
        lib.dir.write("Pictures/a.jpg", Fixtures.jpeg(seed: 3, width: 64, height: 48))
        try lib.scan()
        let run = lib.dir.folder("run")
        chmod(run, 0o700)
        let home = lib.dir.folder("home")
        let env = ["HOME": home, "XDG_RUNTIME_DIR": run, "XDG_CONFIG_HOME": home + "/.config", "XDG_STATE_HOME": home + "/.local/state"]
        let plain = try SnapsortBinary.run(["--db", lib.dbPath, "open", "--print-url"], env: env)
        #expect(plain.status == 3)
        // A privileged port is refused as web_port refuses it (review 7, L5).
        #expect(try SnapsortBinary.run(["--db", lib.dbPath, "serve", "--port", "80"], env: env).status == 2)
        // The server holds none of the command's pipes: the command ends (and its output ends) at once.
        let started = try SnapsortBinary.run(["--db", lib.dbPath, "open", "--start", "--print-url"], env: env)
        let environment = Environment(variables: env, home: home)
        let info = WebInfo.read(environment, database: lib.dbPath)
        defer { if let pid = info?.pid, pid > 0 { kill(pid_t(pid), SIGKILL) } }
        #expect(started.status == 0 && started.stdout.hasPrefix("http://127.0.0.1:"), "\(started.status) \(started.stderr)")
        #expect(info.map(WebClient.answers) == true)
        #expect(info.map { started.stdout.hasPrefix($0.openURL) } == true)
    }

    /// A new account's first click on the menu entry: no library yet, no --db. The page comes
    /// up on the default library, created on first use (the server was told the library by name
    /// and refused to create it, review 8).
    @Test func openStartOnANewAccountCreatesTheDefaultLibrary() throws {
        let dir = TempDir()
        let run = dir.folder("run")
        chmod(run, 0o700)
        let home = dir.folder("home")
        let env = [
            "HOME": home, "XDG_RUNTIME_DIR": run, "XDG_CONFIG_HOME": home + "/.config", "XDG_STATE_HOME": home + "/.local/state",
            "XDG_DATA_HOME": home + "/.local/share",
        ]
        let started = try SnapsortBinary.run(["open", "--start", "--print-url"], env: env)
        let info = WebInfo.read(Environment(variables: env, home: home))
        defer { if let pid = info?.pid, pid > 0 { kill(pid_t(pid), SIGKILL) } }
        #expect(started.status == 0 && started.stdout.hasPrefix("http://127.0.0.1:"), "\(started.status) \(started.stderr)")
        #expect(info.map(WebClient.answers) == true)
    }

    @Test func tokenIsRequiredOnEveryRequest() throws {
        let h = try WebHarness()
        for path in ["/", "/app.js", "/api/summary", "/media/\(h.id("beach.jpg"))/thumb"] {
            let r = try h.get(path, [])
            #expect(r.status == 401, "\(path)")
            #expect(h.json(r)["error"]?["message"]?.stringValue != nil)
        }
        #expect(try h.get("/api/summary", [("Authorization", "Bearer nope")]).status == 401)
        #expect(try h.get("/api/summary").status == 200)
    }

    @Test func firstVisitTradesTheTokenForACookie() throws {
        let h = try WebHarness()
        let r = try h.get("/?token=\(h.token)", [])
        #expect(r.status == 303)
        #expect(r.headers["location"] == "/")
        let cookie = try #require(r.headers["set-cookie"])
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        // One cookie per port: another SnapSort page on this machine keeps its own.
        #expect(cookie.hasPrefix("snapsort_token_\(h.port)=\(h.token);"), "\(cookie)")
        #expect(try h.get("/api/summary", [("Cookie", "snapsort_token_1=\(h.token)")]).status == 401)
        let page = try h.get("/", [("Cookie", "snapsort_token_\(h.port)=\(h.token)")])
        #expect(page.status == 200)
        #expect(page.text.contains("<title>SnapSort</title>"))
        let csp = try #require(page.headers["content-security-policy"])
        #expect(csp.contains("default-src 'none'") && csp.contains("script-src 'self'") && !csp.contains("unsafe"))
        #expect(page.headers["access-control-allow-origin"] == nil)
    }

    @Test(arguments: ["evil.example", "evil.example:8765", "127.0.0.1:1", "192.168.1.20", ""])
    func wrongHostIsRefused(host: String) throws {
        let h = try WebHarness()
        let r = try h.get("/api/summary", h.auth + [("Host", host)])
        #expect(r.status == 403)
    }

    @Test func localHostNamesAreAccepted() throws {
        let h = try WebHarness()
        for host in ["127.0.0.1:\(h.port)", "localhost:\(h.port)", "[::1]:\(h.port)"] {
            #expect(try h.get("/api/summary", h.auth + [("Host", host)]).status == 200, "\(host)")
        }
        // And over IPv6 when the machine has it.
        if h.server.info.port > 0,
            let r = try? LoopbackHTTP.request(
                "GET", "/api/summary", port: h.port,
                headers: h.auth + [("Host", "[::1]:\(h.port)")], address: "::1")
        {
            #expect(r.status == 200)
        }
    }

    @Test func stateChangingRequestsNeedOurOrigin() throws {
        let h = try WebHarness()
        let body = #"{"id":\#(h.id("beach.jpg")),"decision":"keep"}"#
        let json = ("Content-Type", "application/json")
        // A browser's cookie without our Origin is refused; a script's bearer header without any
        // browser header (no Origin, no Sec-Fetch-Site) is a script.
        #expect(try h.post("/api/decide", body, [("Cookie", "snapsort_token_\(h.port)=\(h.token)"), json]).status == 403)
        #expect(try h.post("/api/decide", body, h.auth + [json]).status == 200)
        #expect(try h.post("/api/decide", body, h.auth + [json, ("Sec-Fetch-Site", "cross-site")]).status == 403)
        #expect(try h.post("/api/decide", body, h.auth + [json, ("Origin", "http://evil.example")]).status == 403)
        #expect(
            try h.post("/api/decide", body, h.auth + [json, ("Origin", "http://127.0.0.1:\(h.port)"), ("Sec-Fetch-Site", "cross-site")]).status == 403
        )
        #expect(try h.post("/api/decide", body).status == 200)
        #expect(try LoopbackHTTP.request("OPTIONS", "/api/decide", port: h.port, headers: h.auth + [h.origin]).status == 405)
    }

    /// A path that exists asked with the wrong method is a 405 naming the methods it answers;
    /// a path that does not exist stays a 404.
    @Test func aWrongMethodIsA405WithAllow() throws {
        let h = try WebHarness()
        let decide = try h.get("/api/decide")
        #expect(decide.status == 405 && decide.headers["allow"] == "POST", "\(decide.status) \(decide.headers)")
        let summary = try h.post("/api/summary", "{}")
        #expect(summary.status == 405 && summary.headers["allow"] == "GET, HEAD", "\(summary.status) \(summary.headers)")
        let item = try h.post("/api/items/\(h.id("beach.jpg"))", "{}")
        #expect(item.status == 405 && item.headers["allow"] == "GET, HEAD")
        let media = try h.post("/media/\(h.id("beach.jpg"))/thumb", "{}")
        #expect(media.status == 405 && media.headers["allow"] == "GET, HEAD")
        #expect(try h.get("/api/nothing-here").status == 404)
        #expect(try h.get("/api/items/1/2").status == 404)
    }

    @Test(arguments: [
        "/media/../../../../etc/passwd", "/media/1/../../../etc/passwd", "/media/%2e%2e/%2e%2e/etc/passwd",
        "/../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/etc/passwd", "/media/999999/original",
        "/media/-1/original", "/media/1.5/thumb", "/media/abc/original", "/media/1/../../Package.swift",
        "/..%2fPackage.swift", "/app.js/../../Package.swift", "/.hidden.js", "/media//etc/passwd/original",
    ])
    func onlyLibraryIDsCanBeRequested(path: String) throws {
        let h = try WebHarness()
        let r = try h.get(path)
        #expect(r.status == 404, "\(path) → \(r.status)")
        #expect(!r.text.contains("root:"))
    }

    @Test func rangeRequests() throws {
        let h = try WebHarness()
        let id = h.id("beach.jpg")
        let file = try FileSystem.readFile(h.lib.root + "/beach.jpg", limit: 1 << 24)
        let full = try h.get("/media/\(id)/original")
        #expect(full.status == 200 && full.body == file)
        #expect(full.headers["accept-ranges"] == "bytes")
        let part = try h.get("/media/\(id)/original", h.auth + [("Range", "bytes=10-19")])
        #expect(part.status == 206)
        #expect(part.headers["content-range"] == "bytes 10-19/\(file.count)")
        #expect(part.body == Array(file[10..<20]))
        let tail = try h.get("/media/\(id)/original", h.auth + [("Range", "bytes=-7")])
        #expect(tail.status == 206 && tail.body == Array(file.suffix(7)))
        let open = try h.get("/media/\(id)/original", h.auth + [("Range", "bytes=\(file.count - 3)-")])
        #expect(open.status == 206 && open.body == Array(file.suffix(3)))
        let bad = try h.get("/media/\(id)/original", h.auth + [("Range", "bytes=\(file.count)-")])
        #expect(bad.status == 416)
        #expect(bad.headers["content-range"] == "bytes */\(file.count)")
        if let vid = h.ids["clip.mp4"] {
            let v = try h.get("/media/\(vid)/original", h.auth + [("Range", "bytes=0-99")])
            #expect(v.status == 206 && v.body.count == 100 && v.headers["content-type"] == "video/mp4")
        }
    }

    @Test func thumbnailsFollowTheFreedesktopSpec() throws {
        let h = try WebHarness()
        for (name, size, long) in [("beach.jpg", "normal", 128), ("rotated.jpg", "large", 256), ("Screenshot_20230101_101010.png", "x-large", 512)] {
            let path = h.lib.root + "/" + name
            let r = try h.get("/media/\(h.id(name))/thumb?size=\(size)")
            #expect(r.status == 200 && r.headers["content-type"] == "image/png")
            let uri = "file://" + path
            let cached = "\(h.home)/.cache/thumbnails/\(size)/\(MD5.hex(uri)).png"
            let st = try FileSystem.lstatus(cached)
            #expect(st.mode & 0o777 == 0o600)
            #expect(try FileSystem.lstatus("\(h.home)/.cache/thumbnails").mode & 0o777 == 0o700)
            let data = try FileSystem.readFile(cached, limit: 1 << 24)
            #expect(data == r.body)
            let text = Dictionary(PNG.textChunks(data).map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
            #expect(text["Thumb::URI"] == uri)
            let mtime = try FileSystem.status(path).mtimeNanoseconds / 1_000_000_000
            #expect(text["Thumb::MTime"] == String(mtime))
            let header = try PNG.readHeader(data)
            #expect(max(header.width, header.height) <= long)
            if name == "rotated.jpg" { #expect(header.height > header.width, "orientation 6 makes it portrait") }
        }
        // A stale entry (the file changed) is made again.
        let path = h.lib.root + "/beach.jpg"
        utimes(path, nil)
        let cachedPath = "\(h.home)/.cache/thumbnails/normal/\(MD5.hex("file://" + path)).png"
        var tv = [timeval(tv_sec: 1_000_000_000, tv_usec: 0), timeval(tv_sec: 1_000_000_000, tv_usec: 0)]
        utimes(path, &tv)
        _ = try h.get("/media/\(h.id("beach.jpg"))/thumb?size=normal")
        let text = Dictionary(
            PNG.textChunks(try FileSystem.readFile(cachedPath, limit: 1 << 24)).map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(text["Thumb::MTime"] == "1000000000")
    }

    /// A video's card is the poster the scan stored (made on its confined worker): the server
    /// runs no video decoder on the library's file. The file's bytes replaced by noise (its
    /// size and mtime kept), the card is still the clip's picture; before, the server decoded the
    /// file itself and drew the neutral picture.
    @Test func aVideoCardIsThePosterTheScanStoredNotADecodeOfTheFile() throws {
        let h = try WebHarness()
        let id = try #require(h.ids["clip.mp4"])
        let poster = try #require(try h.lib.library.videoPoster(id: id))
        let stored = try JPEG.decode(poster, scaleNumerator: 8, maxHeaderPixels: 1 << 22, maxOutputPixels: 1 << 22).bitmap
        #expect(stored.width == 64 && stored.height == 48)
        let path = h.lib.root + "/clip.mp4"
        let st = try FileSystem.status(path)
        try FileSystem.writeAtomically(path, [UInt8](repeating: 0x5A, count: Int(st.size)))
        var tv = [
            timeval(tv_sec: Int(st.mtimeNanoseconds / 1_000_000_000), tv_usec: 0),
            timeval(tv_sec: Int(st.mtimeNanoseconds / 1_000_000_000), tv_usec: 0),
        ]
        utimes(path, &tv)
        let r = try h.get("/media/\(id)/thumb?size=large")
        #expect(r.status == 200 && r.headers["content-type"] == "image/png")
        let header = try PNG.readHeader(r.body)
        #expect(header.width == 64 && header.height == 48)
        let text = Dictionary(PNG.textChunks(r.body).map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(text[ThumbnailCache.posterKey.key] == ThumbnailCache.posterKey.value)
    }

    @Test func uriEncodingMatchesGLib() {
        #expect(ThumbnailCache.uri(for: "/home/jens/photos/me.png") == "file:///home/jens/photos/me.png")
        #expect(ThumbnailCache.uri(for: "/a b/ü#.jpg") == "file:///a%20b/%C3%BC%23.jpg")
        #expect(ThumbnailCache.uri(for: "/a/" + PathName.decode([0x66, 0xFC, 0x2E, 0x6A])) == "file:///a/f%FC.j")
        #expect(MD5.hex("") == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(MD5.hex("The quick brown fox jumps over the lazy dog") == "9e107d9d372bb6826bd81d3542a419d6")
    }

    @Test func displayRenditionsAreJPEGsAndHEICIsTranscoded() throws {
        let h = try WebHarness()
        let r = try h.get("/media/\(h.id("rotated.jpg"))/display")
        #expect(r.status == 200 && r.headers["content-type"] == "image/jpeg")
        let hdr = try JPEG.readHeader(r.body)
        #expect(hdr.height > hdr.width)
        let files = try FileSystem.listDirectory("\(h.home)/.cache/snapsort/renditions")
        #expect(files.contains { $0.name.hasPrefix("\(h.id("rotated.jpg"))-") && $0.name.hasSuffix(".jpg") })
        guard HEIF.canEncode, let heic = h.ids["phone.heic"] else { return }
        let t = try h.get("/media/\(heic)/display")
        #expect(t.status == 200 && t.headers["content-type"] == "image/jpeg")
        let th = try JPEG.readHeader(t.body)
        #expect(th.width == 480 && th.height == 320)
        let p = try h.get("/media/\(heic)/thumb?size=normal")
        #expect(p.status == 200)
        let ph = try PNG.readHeader(p.body)
        #expect(ph.width == 128)
    }

    @Test func webInfoIsWrittenPrivatelyAndRemovedOnStop() throws {
        let h = try WebHarness(writeInfo: true)
        let path = WebInfo.path(h.env)
        #expect(try FileSystem.lstatus(path).mode & 0o777 == 0o600)
        let info = try #require(WebInfo.read(h.env))
        #expect(info.port == h.port && info.token == h.token && info.url == "http://127.0.0.1:\(h.port)/")
        #expect(info.openURL == "http://127.0.0.1:\(h.port)/?token=\(h.token)")
        #expect(info.database == h.lib.dbPath)
        #expect(WebClient.answers(info))
        // 'open' opens the page of its own library only.
        let env = h.env.variables
        let own = try SnapsortBinary.run(["--db", h.lib.dbPath, "open", "--print-url"], env: env)
        #expect(own.status == 0 && own.stdout.hasPrefix(info.openURL), "\(own.stderr)")
        let other = try SnapsortBinary.run(["--db", h.lib.dir.at("other.sqlite3"), "open", "--print-url"], env: env)
        #expect(other.status == 3 && other.stdout.isEmpty)
        #expect(other.stderr.contains("for another library"), "\(other.stderr)")
        // A second server of this library is refused (it only took web.json from the first);
        // `timeout` ends it should it serve.
        let again = try SnapsortBinary.run(
            ["20", SnapsortBinary.path, "--db", h.lib.dbPath, "serve", "--port", "0"], env: env, launcher: "/usr/bin/timeout")
        #expect(again.status == 1 && again.stderr.contains("already served at \(info.url)"), "\(again.status) \(again.stderr)")
        #expect(WebInfo.read(h.env)?.token == info.token)
        // Another library's server takes web.json while it serves, and hands it back.
        var o = WebServer.Options(dbPath: h.lib.dir.at("other.sqlite3"), config: Configuration(), env: h.env)
        o.port = 0
        o.webRoot = WebHarness.webRoot
        o.addresses = ["127.0.0.1"]
        let second = try WebServer.start(o)
        #expect(WebInfo.read(h.env)?.token == second.info.token)
        // Meanwhile each library's own file says where its page is: 'open' and 'serve' of the
        // first library still find it (they said "another library" and started a second page).
        #expect(try FileSystem.lstatus(WebInfo.path(h.env, database: h.lib.dbPath)).mode & 0o777 == 0o600)
        let ownWhileShared = try SnapsortBinary.run(["--db", h.lib.dbPath, "open", "--print-url"], env: env)
        #expect(ownWhileShared.status == 0 && ownWhileShared.stdout.hasPrefix(info.openURL), "\(ownWhileShared.stderr)")
        let serveWhileShared = try SnapsortBinary.run(
            ["20", SnapsortBinary.path, "--db", h.lib.dbPath, "serve", "--port", "0"], env: env, launcher: "/usr/bin/timeout")
        #expect(serveWhileShared.status == 1, "\(serveWhileShared.stderr)")
        second.stop()
        #expect(!FileSystem.exists(WebInfo.path(h.env, database: h.lib.dir.at("other.sqlite3"))))
        #expect(WebInfo.read(h.env)?.token == info.token)
        h.server.stop()
        #expect(!FileSystem.exists(path) && !FileSystem.exists(WebInfo.path(h.env, database: h.lib.dbPath)))
        #expect(!WebClient.answers(info))
        // The next server of this library (the agent after a restart) keeps the token: a
        // bookmark and the browser's cookie (30 days) still open the page.
        var again2 = WebServer.Options(dbPath: h.lib.dbPath, config: Configuration(), env: h.env)
        again2.port = 0
        again2.webRoot = WebHarness.webRoot
        again2.addresses = ["127.0.0.1"]
        let restarted = try WebServer.start(again2)
        defer { restarted.stop() }
        #expect(restarted.token == info.token)
        #expect(try FileSystem.lstatus(h.lib.dbPath + ".web-token").mode & 0o777 == 0o600)
        let first = try LoopbackHTTP.request("GET", "/?token=\(info.token)", port: restarted.port)
        #expect(first.status == 303 && first.headers["set-cookie"]?.contains("Max-Age=2592000") == true, "\(first.headers)")
        // Without the key, a browser gets a page that says what to do; a script gets JSON.
        let browser = try LoopbackHTTP.request("GET", "/", port: restarted.port, headers: [("Accept", "text/html,application/xhtml+xml")])
        #expect(browser.status == 401 && browser.headers["content-type"]?.hasPrefix("text/html") == true)
        #expect(browser.text.contains("snapsort open"))
        let script = try LoopbackHTTP.request("GET", "/api/summary", port: restarted.port, headers: [("Accept", "text/html")])
        #expect(script.status == 401 && script.headers["content-type"]?.hasPrefix("application/json") == true)
    }

    @Test func takenPortMovesToTheNextFreeOne() throws {
        let a = try HTTPServer(addresses: ["127.0.0.1"], port: 0) { _ in HTTPResponse(status: 204) }
        defer { a.stop() }
        let b = try HTTPServer(addresses: ["127.0.0.1"], port: a.port) { _ in HTTPResponse(status: 204) }
        defer { b.stop() }
        #expect(b.port > a.port && b.port < a.port + 20)
    }
}
