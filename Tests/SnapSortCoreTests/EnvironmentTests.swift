import Foundation
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

@Suite struct EnvironmentTests {
    /// Every form tzset(3) takes is a zone Foundation reads (it read all but the first as UTC).
    @Test(
        arguments: [
            ("Europe/Stockholm", "Europe/Stockholm"),
            (":Europe/Stockholm", "Europe/Stockholm"),
            (":/usr/share/zoneinfo/Asia/Tokyo", "Asia/Tokyo"),
            ("/usr/share/zoneinfo/Asia/Tokyo", "Asia/Tokyo"),
            ("EST5EDT", "EST5EDT"),
            ("XYZ-7", "Etc/GMT-7"), ("ABC+3", "Etc/GMT+3"), ("ZZZ0", "Etc/UTC"),
            ("Foo/Bar", nil), (":../../etc/passwd", nil), ("", nil), ("XYZ-99", nil),
        ] as [(String, String?)])
    func timeZoneForms(tz: String, expected: String?) {
        #expect(SystemTimeZone.resolve(tz) == expected)
    }

    /// A rule is the zone whose file ends in that rule: the same offsets from now on, summer
    /// time included, as the zone the rule was written from.
    @Test(arguments: [
        ("CET-1CEST,M3.5.0,M10.5.0/3", "Europe/Stockholm"), ("JST-9", "Asia/Tokyo"),
        ("EST5EDT,M3.2.0,M11.1.0", "America/New_York"), ("AEST-10AEDT,M10.1.0,M4.1.0/3", "Australia/Sydney"),
        ("<+0545>-5:45", "Asia/Kathmandu"),
    ])
    func timeZoneRules(rule: String, zone: String) throws {
        #expect(SystemTimeZone.isRule(rule))
        let name = try #require(SystemTimeZone.resolve(rule))
        let got = try #require(TimeZone(identifier: name)), want = try #require(TimeZone(identifier: zone))
        let start = Date(timeIntervalSince1970: 1_800_000_000)  // 2027
        for day in stride(from: 0, to: 730, by: 5) {
            let t = start.addingTimeInterval(Double(day) * 86_400)
            #expect(got.secondsFromGMT(for: t) == want.secondsFromGMT(for: t), "\(name) vs \(zone) at \(t)")
        }
    }

    /// The process takes the user's TZ in every form: the next reminder is due at 19:00 local.
    @Test func theCommandLineReadsTZInEveryForm() throws {
        let dir = TempDir()
        let db = dir.at("lib.sqlite3")
        dir.folder("Pictures")
        dir.write("config/snapsort/snapsort.conf", Array("reminder = daily\n".utf8))
        #expect(try SnapsortBinary.run(["--db", db, "scan", "--quiet", "--no-models", dir.at("Pictures")]).status == 0)
        func next(_ tz: String) throws -> (String, String) {
            let r = try SnapsortBinary.run(["--db", db, "remind", "--next"], env: ["TZ": tz, "XDG_CONFIG_HOME": dir.at("config")])
            #expect(r.status == 0, "\(r.stderr)")
            return (r.stdout.trimmingCharacters(in: .whitespacesAndNewlines), r.stderr)
        }
        #expect(try next("JST-9").0.hasSuffix("T19:00:00+09:00"))
        #expect(try next(":Asia/Kolkata").0.hasSuffix("T19:00:00+05:30"))
        #expect(try next("XYZ-7").0.hasSuffix("T19:00:00+07:00"))
        #expect(try next("CET-1CEST,M3.5.0,M10.5.0/3").0 == next("Europe/Stockholm").0)
        let unknown = try next("Foo/Bar")
        #expect(unknown.0.hasSuffix("T19:00:00Z"))
        #expect(unknown.1.contains("TZ='Foo/Bar' names no time zone"), "\(unknown.1)")
    }

    /// The browser a notification's action starts gets the server's activation token (a real
    /// `xdg-open` stand-in records what it was given); one the opener inherited is not passed on.
    @Test func theOpenerIsGivenTheActivationTokenAndNoStaleOne() throws {
        let dir = TempDir()
        let log = dir.at("env.txt")
        let script = dir.writeScript(
            "bin/xdg-open",
            "#!/bin/sh\n{ echo \"url=$1\"; echo \"xdg=${XDG_ACTIVATION_TOKEN-unset}\"; echo \"startup=${DESKTOP_STARTUP_ID-unset}\"; } > '\(log)'\n")
        // PATH holds the stand-in only (no systemd-run), and a token the agent inherited.
        let env = Environment(variables: ["PATH": dir.at("bin"), "XDG_ACTIVATION_TOKEN": "stale", "DESKTOP_STARTUP_ID": "stale"])
        #expect(URLOpener.command(for: "http://127.0.0.1:9/", env: env) == [script, "http://127.0.0.1:9/"])
        #expect(URLOpener.open("http://127.0.0.1:9/", env: env, wait: true, activationToken: "tok-1"))
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "url=http://127.0.0.1:9/\nxdg=tok-1\nstartup=tok-1\n")
        #expect(URLOpener.open("http://127.0.0.1:9/", env: env, wait: true))
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "url=http://127.0.0.1:9/\nxdg=unset\nstartup=unset\n")
    }

    /// A user manager that cannot make the scope (`systemd-run` fails): the page opens by
    /// xdg-open alone (the review issue: `snapsort open` exited 1).
    @Test func theOpenerFallsBackToXdgOpenWhenTheScopeFails() throws {
        let dir = TempDir()
        let log = dir.at("opened")
        let xdg = dir.writeScript("bin/xdg-open", "#!/bin/sh\necho \"$1\" >> '\(log)'\n")
        let run = dir.writeScript("bin/systemd-run", "#!/bin/sh\necho 'Failed to start transient scope unit' >&2\nexit 1\n")
        dir.write("run/bus", [])
        let env = Environment(variables: ["PATH": dir.at("bin"), "XDG_RUNTIME_DIR": dir.at("run")])
        #expect(URLOpener.command(for: "file:///x.html", env: env) == [run, "--user", "--scope", "--quiet", "--collect", xdg, "file:///x.html"])
        #expect(URLOpener.open("file:///x.html", env: env, wait: true, silent: true))
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "file:///x.html\n")
    }

    /// The agent's path (a reminder's click, the tray) without a user manager: `systemd-run`
    /// fails, `xdg-open` alone opens the page file, and the log says which opener ran (issue 43:
    /// nothing opened while the agent logged that it had asked the browser).
    @Test func theAgentsOpenerFallsBackToXdgOpenAndSaysWhichRan() throws {
        let dir = TempDir()
        let log = dir.at("opened")
        dir.writeScript("bin/xdg-open", "#!/bin/sh\necho \"$1\" >> '\(log)'\n")
        dir.writeScript("bin/systemd-run", "#!/bin/sh\necho 'Failed to connect to bus: No medium found' >&2\nexit 1\n")
        dir.write("run/bus", [])
        let env = Environment(variables: ["PATH": dir.at("bin"), "XDG_RUNTIME_DIR": dir.at("run")])
        let logs = LogCapture()
        let page = ReviewPage.live(env, logger: logs.logger(label: "reminders"))
        let file = "file://" + dir.at("run/snapsort/open-8765.html")
        page.open(file, "tok-1")
        #expect(waitUntil { (try? String(contentsOfFile: log, encoding: .utf8)) == file + "\n" })
        let said = { logs.messages.filter { $0.contains("started xdg-open alone") && $0.contains("opener=xdg-open") } }
        #expect(waitUntil { said().count == 1 }, "\(logs.messages)")
        #expect(!logs.messages.contains { $0.contains("systemd-run --user --scope") }, "\(logs.messages)")

        // No opener at all: the log says none ran.
        let none = LogCapture()
        ReviewPage.live(Environment(variables: ["PATH": dir.at("nothing")]), logger: none.logger()).open(file, nil)
        #expect(none.messages.contains { $0.contains("cannot open the review page: no opener ran") }, "\(none.messages)")
    }

    @Test func relativeXDGValuesAreIgnored() {
        let env = Environment(variables: ["XDG_STATE_HOME": "relative/state", "HOME": "/home/u"])
        #expect(env.defaultDatabasePath == "/home/u/.local/state/snapsort/library.sqlite3")
        let abs = Environment(variables: ["XDG_STATE_HOME": "/var/s", "HOME": "/home/u"])
        #expect(abs.defaultDatabasePath == "/var/s/snapsort/library.sqlite3")
        let db = Environment(variables: ["SNAPSORT_DB": "/tmp/x.db", "HOME": "/home/u"])
        #expect(db.defaultDatabasePath == "/tmp/x.db")
    }

    @Test(
        arguments: [
            ("XDG_PICTURES_DIR=\"$HOME/Bilder\"", "/home/u/Bilder"),
            ("XDG_PICTURES_DIR=\"/data/photos/\"", "/data/photos"),
            ("# comment\nXDG_DESKTOP_DIR=\"$HOME/Desktop\"\nXDG_PICTURES_DIR=\"$HOME/\"", nil),
            ("XDG_PICTURES_DIR=\"$HOME\"", nil),
            ("XDG_PICTURES_DIR=\"relative\"", nil),
            // Sourced by the shell (xdg-user-dir), the last line for the key wins.
            ("XDG_PICTURES_DIR=\"$HOME/Old\"\nXDG_PICTURES_DIR=\"$HOME/New\"", "/home/u/New"),
            ("", nil),
        ] as [(String, String?)])
    func userDirs(text: String, expected: String?) {
        #expect(Environment.parseUserDirs(text, key: "XDG_PICTURES_DIR", home: "/home/u") == expected)
    }

    @Test func picturesDirFallsBackToHomePictures() {
        let dir = TempDir()
        let env = Environment(variables: ["HOME": dir.path, "XDG_CONFIG_HOME": dir.at("cfg")])
        #expect(env.defaultRoots == [dir.path + "/Pictures"])
        dir.write("cfg/user-dirs.dirs", Array("XDG_PICTURES_DIR=\"$HOME/Fotos\"\n".utf8))
        #expect(env.defaultRoots == [dir.path + "/Fotos"])
        // The environment's XDG_PICTURES_DIR counts when user-dirs.dirs does not say (as for
        // xdg-user-dir); the file, when it does.
        let withVar = Environment(variables: ["HOME": dir.path, "XDG_CONFIG_HOME": dir.at("other"), "XDG_PICTURES_DIR": "/data/photos"])
        #expect(withVar.defaultRoots == ["/data/photos"])
        let both = Environment(variables: ["HOME": dir.path, "XDG_CONFIG_HOME": dir.at("cfg"), "XDG_PICTURES_DIR": "/data/photos"])
        #expect(both.defaultRoots == [dir.path + "/Fotos"])
    }
}
