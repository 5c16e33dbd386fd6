import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortWeb

/// The page's key stays with the user (issue 30, item 3): no process SnapSort starts has it in
/// its arguments, and a new key refuses the old one. Live server, the real `snapsort` binary,
/// an `xdg-open` stand-in that records its arguments.
@Suite(.serialized) struct WebKeyTests {
    /// A stand-in `xdg-open` on PATH (no `systemd-run`: the runtime folder has no user manager)
    /// that writes its arguments, one a line, to `log`.
    static func fakeOpener(_ dir: TempDir, log: String) -> String {
        _ = dir.writeScript("bin/xdg-open", "#!/bin/sh\nfor a in \"$@\"; do echo \"$a\"; done > '\(log).tmp'\nmv '\(log).tmp' '\(log)'\n")
        return dir.at("bin") + ":/usr/bin:/bin"
    }

    /// What a browser does with the opener file: posts its form (from a `file:` page, so
    /// `Origin: null`) to its action. Returns the answer.
    static func submit(_ file: String, port: Int) throws -> LoopbackHTTP.Response {
        let html = try String(contentsOfFile: file, encoding: .utf8)
        let action = try #require(html.firstMatch(of: /action="([^"]*)"/)?.1)
        #expect(action == "http://127.0.0.1:\(port)/open")
        var fields: [String] = []
        for m in html.matches(of: /<input type="hidden" name="([a-z]+)" value="([^"]*)">/) {
            fields.append("\(m.1)=\(String(m.2).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")")
        }
        #expect(html.contains(#"document.getElementById("snapsort-open").submit()"#))
        return try LoopbackHTTP.request(
            "POST", "/open", port: port,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Origin", "null"), ("Sec-Fetch-Site", "cross-site")],
            body: Array(fields.joined(separator: "&").utf8))
    }

    static func cookie(_ r: LoopbackHTTP.Response) -> String? {
        r.headers["set-cookie"].flatMap { $0.split(separator: ";").first.map(String.init) }
    }

    /// `snapsort open` starts the browser on a 0600 file in the runtime folder, not on a URL
    /// with the key: the key is in neither the opener's arguments nor the command's output.
    /// Posting the file's form (what the browser does) gives the cookie that opens the page,
    /// and moves to the deck asked for.
    @Test func openHandsTheKeyOverInAPrivateFile() throws {
        let h = try WebHarness(writeInfo: true, heic: false)
        let dir = TempDir()
        let log = dir.at("argv.txt")
        var env = h.env.variables
        env["PATH"] = Self.fakeOpener(dir, log: log)
        let run = try SnapsortBinary.run(["--db", h.lib.dbPath, "open", "--deck", "later"], env: env)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stdout.contains(h.token) && !run.stderr.contains(h.token))
        #expect(run.stdout.hasPrefix("http://127.0.0.1:\(h.port)/"))
        let argv = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(!argv.joined().contains(h.token), "\(argv)")
        let file = PageOpener.path(h.env, port: h.port)
        #expect(argv == [PageOpener.fileURL(file)])
        #expect(file.hasPrefix(h.env.runtimeDir! + "/snapsort/"))
        #expect(try FileSystem.lstatus(file).mode & 0o777 == 0o600)
        let r = try Self.submit(file, port: h.port)
        #expect(r.status == 200)
        #expect(r.text.contains(#"<meta http-equiv="refresh" content="0;url=/#deck=later">"#), "\(r.text)")
        let setCookie = try #require(r.headers["set-cookie"])
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"))
        let cookie = try #require(Self.cookie(r))
        #expect(try h.get("/api/summary", [("Cookie", cookie)]).status == 200)
        // A form with another key opens nothing.
        let wrong = try LoopbackHTTP.request(
            "POST", "/open", port: h.port, headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Origin", "null")],
            body: Array("key=\(String(repeating: "0", count: 64))".utf8))
        #expect(wrong.status == 401 && wrong.headers["set-cookie"] == nil)
        // --print-url still prints the key, on its own output, for pasting.
        let printed = try SnapsortBinary.run(["--db", h.lib.dbPath, "open", "--print-url"], env: env)
        #expect(printed.stdout.hasPrefix("http://127.0.0.1:\(h.port)/?token=\(h.token)"))
        // The file goes with the page.
        h.server.stop()
        #expect(!FileSystem.exists(file))
    }

    /// The reminders' "Start a session" opens the same kind of file, never a URL with the key.
    @Test func theRemindersOpenThePageThroughTheFile() throws {
        let h = try WebHarness(writeInfo: true, heic: false)
        let dir = TempDir()
        let log = dir.at("argv.txt")
        var vars = h.env.variables
        vars["PATH"] = Self.fakeOpener(dir, log: log)
        let env = Environment(variables: vars, home: h.home)
        let page = ReviewPage.live(env, database: h.lib.dbPath)
        let url = try #require(page.url("group:blurry"))
        #expect(!url.contains(h.token))
        page.open(url, nil)
        #expect(waitUntil { FileSystem.exists(log) })
        let argv = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(argv == [url])
        let r = try Self.submit(PageOpener.path(h.env, port: h.port), port: h.port)
        #expect(r.status == 200 && r.text.contains("url=/#deck=group:blurry"), "\(r.text)")
    }

    /// `snapsort open --new-key` gives the page a new key: the old cookie, link and bearer
    /// header get 401, the new key opens the page, and it is kept for the next server.
    @Test func aNewKeyRefusesTheOldOne() throws {
        let h = try WebHarness(writeInfo: true, heic: false)
        let old = h.token
        let oldCookie = ("Cookie", "snapsort_token_\(h.port)=\(old)")
        #expect(try h.get("/api/summary", [oldCookie]).status == 200)
        let run = try SnapsortBinary.run(["--db", h.lib.dbPath, "open", "--new-key", "--print-url"], env: h.env.variables)
        #expect(run.status == 0, "\(run.stderr)")
        let new = h.token
        #expect(new != old && new.count == 64)
        #expect(run.stdout.hasPrefix("http://127.0.0.1:\(h.port)/?token=\(new)"), "\(run.stdout)")
        #expect(WebInfo.read(h.env)?.token == new && WebInfo.read(h.env, database: h.lib.dbPath)?.token == new)
        #expect(try h.get("/api/summary", [oldCookie]).status == 401)
        #expect(try h.get("/api/summary", [("Authorization", "Bearer \(old)")]).status == 401)
        #expect(try h.get("/?token=\(old)", []).status == 401)
        #expect(try h.get("/api/summary", [("Cookie", "snapsort_token_\(h.port)=\(new)")]).status == 200)
        let kept = try FileSystem.readFile(h.lib.dbPath + ".web-token", limit: 256)
        #expect(String(decoding: kept, as: UTF8.self).hasPrefix(new))
        // With the page stopped, --new-key replaces the kept key: the next server opens with
        // another one (exit 3: nothing serves the page).
        h.server.stop()
        let stopped = try SnapsortBinary.run(["--db", h.lib.dbPath, "open", "--new-key", "--print-url"], env: h.env.variables)
        #expect(stopped.status == 3, "\(stopped.stderr)")
        var o = WebServer.Options(dbPath: h.lib.dbPath, config: Configuration(), env: h.env)
        o.port = 0
        o.addresses = ["127.0.0.1"]
        let next = try WebServer.start(o)
        defer { next.stop() }
        #expect(next.token != new && next.token.count == 64)
        #expect(try LoopbackHTTP.request("GET", "/api/summary", port: next.port, headers: [("Authorization", "Bearer \(new)")]).status == 401)
    }

    /// The Settings view's button: `POST /api/key` from the page itself. The browser that
    /// asked gets the new cookie; the old cookie is refused.
    @Test func theSettingsButtonMakesANewKey() throws {
        let h = try WebHarness(heic: false)
        let old = h.token
        let oldCookie = ("Cookie", "snapsort_token_\(h.port)=\(old)")
        // Only from the page: another site's request is refused.
        #expect(try h.post("/api/key", "{}", [oldCookie, ("Origin", "http://evil.example")]).status == 403)
        #expect(h.token == old)
        let r = try h.post("/api/key", "{}", [oldCookie, h.origin, ("Content-Type", "application/json")])
        #expect(r.status == 200)
        #expect(h.json(r)["rotated"]?.boolValue == true)
        let cookie = try #require(Self.cookie(r))
        #expect(cookie == "snapsort_token_\(h.port)=\(h.token)" && h.token != old)
        #expect(try h.get("/api/summary", [oldCookie]).status == 401)
        #expect(try h.get("/api/summary", [("Cookie", cookie)]).status == 200)
    }
}
