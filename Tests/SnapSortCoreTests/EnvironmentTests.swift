import Foundation
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

@Suite struct EnvironmentTests {
    /// The browser a notification's action starts gets the server's activation token (a real
    /// `xdg-open` stand-in records what it was given); one the opener inherited is not passed on.
    @Test func theOpenerIsGivenTheActivationTokenAndNoStaleOne() throws {
        let dir = TempDir()
        let log = dir.at("env.txt")
        let script = dir.write(
            "bin/xdg-open",
            Array(
                "#!/bin/sh\n{ echo \"url=$1\"; echo \"xdg=${XDG_ACTIVATION_TOKEN-unset}\"; echo \"startup=${DESKTOP_STARTUP_ID-unset}\"; } > '\(log)'\n"
                    .utf8))
        #expect(chmod(script, 0o755) == 0)
        // PATH holds the stand-in only (no systemd-run), and a token the agent inherited.
        let env = Environment(variables: ["PATH": dir.at("bin"), "XDG_ACTIVATION_TOKEN": "stale", "DESKTOP_STARTUP_ID": "stale"])
        #expect(URLOpener.command(for: "http://127.0.0.1:9/", env: env) == [script, "http://127.0.0.1:9/"])
        #expect(URLOpener.open("http://127.0.0.1:9/", env: env, wait: true, activationToken: "tok-1"))
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "url=http://127.0.0.1:9/\nxdg=tok-1\nstartup=tok-1\n")
        #expect(URLOpener.open("http://127.0.0.1:9/", env: env, wait: true))
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "url=http://127.0.0.1:9/\nxdg=unset\nstartup=unset\n")
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
