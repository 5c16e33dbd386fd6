import SnapSortTestSupport
import Testing

@testable import SnapSortCore

@Suite struct EnvironmentTests {
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
