import Glibc
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

@Suite struct ConfigurationTests {
    @Test func parsesKeysAndReportsBadLinesWithDefaults() {
        let text = """
            # my config
            root = ~/Pictures
            root = /mnt/photos/
            exclude = /mnt/photos/private
            reminder = fortnightly
            session_goal = 40
            web_port = 80
            colour = blue
            just text
            """
        let (c, problems) = Configuration.parse(text, home: "/home/u")
        #expect(c.roots == ["/home/u/Pictures", "/mnt/photos"])
        #expect(c.excludes == ["/mnt/photos/private"])
        #expect(c.sessionGoal == 40)
        #expect(c.reminder == "weekly")
        #expect(c.webPort == 8765)
        #expect(problems.map(\.line) == [5, 7, 8, 9])
        #expect(problems[0].description.contains("line 5"))
    }

    /// A bad value is quoted in its message; a `#` after a value is said to be the problem; an
    /// empty value is reported, not dropped silently.
    @Test func badValuesAreQuotedAndInlineCommentsExplained() {
        let text = """
            web_port = 8765 # the page
            session_goal = 40
            root =
            """
        let (c, problems) = Configuration.parse(text, home: "/home/u")
        #expect(c.webPort == 8765 && c.sessionGoal == 40 && c.roots.isEmpty)
        #expect(problems.map(\.line) == [1, 3])
        #expect(
            problems[0].message == "web_port = '8765 # the page': expected a port from 1024 to 65535 (a # comment goes on its own line); using 8765")
        #expect(problems[1].message == "root: no value, ignored")
    }

    /// A reminder time inside the quiet hours waits for their end: the configuration says so
    /// (it moved silently to 08:00).
    @Test func aReminderTimeInTheQuietHoursIsSaid() {
        let (_, problems) = Configuration.parse("reminder = daily\nreminder_time = 23:00\n", home: "/home/u")
        #expect(
            problems.map(\.description) == [
                "snapsort.conf: reminder_time 23:00 falls in the quiet hours (22:00-08:00): reminders come at 08:00, when they end"
            ])
        #expect(Configuration.parse("reminder = daily\nreminder_time = 21:00\n", home: "/home/u").1.isEmpty)
        #expect(Configuration.parse("reminder = off\nreminder_time = 23:00\n", home: "/home/u").1.isEmpty)
        #expect(Configuration.parse("reminder_time = 23:00\nquiet_hours = off\n", home: "/home/u").1.isEmpty)
    }

    @Test func rootsPrecedence() {
        var c = Configuration()
        let env = Environment(variables: ["HOME": "/home/u", "XDG_CONFIG_HOME": "/nonexistent"])
        #expect(c.effectiveRoots(arguments: [], env: env) == ["/home/u/Pictures"])
        c.roots = ["/data"]
        #expect(c.effectiveRoots(arguments: [], env: env) == ["/data"])
        #expect(c.effectiveRoots(arguments: ["/x"], env: env) == ["/x"])
    }

    /// Each folder once, by its resolved path: a folder and a root inside it, the same folder
    /// twice, a symbolic link to a folder and the folder.
    @Test func distinctRoots() throws {
        let dir = TempDir()
        let a = dir.folder("a"), b = dir.folder("b")
        dir.folder("a/sub")
        #expect(symlink(a, dir.at("link")) == 0)
        let table: [([String], [String])] = [
            ([a, b], [a, b]),
            ([a, a + "/"], [a]),
            ([a, a + "/sub"], [a]),
            ([a + "/sub", b, a], [a, b]),
            ([dir.at("link"), a], [dir.at("link")]),
            ([a, dir.at("link") + "/sub"], [a]),
            (["/nonexistent/x", "/nonexistent/x/y"], ["/nonexistent/x"]),
            (["/", a], ["/"]),
        ]
        for (given, expected) in table {
            #expect(Configuration.distinctRoots(given) == expected, "\(given)")
        }
    }

    /// A byte that is not UTF-8 costs its line's text, never the file's other lines; Windows
    /// line ends are read as line ends.
    @Test func notUTF8AndCRLF() {
        let bytes = Array("# Photos de l'".utf8) + [0xE9] + Array("t\u{E9}\nroot = /data\nsession_goal = 50\n".utf8)
        let (text, problem) = Configuration.decode(bytes)
        #expect(problem?.line == 1)
        let (c, problems) = Configuration.parse(text, home: "/h")
        #expect(c.roots == ["/data"] && c.sessionGoal == 50 && problems.isEmpty)
        let (crlf, crlfProblems) = Configuration.parse("root = /data\r\nreminder = daily\r\nsession_goal = 40\r\n", home: "/h")
        #expect(crlf.roots == ["/data"] && crlf.reminder == "daily" && crlf.sessionGoal == 40 && crlfProblems.isEmpty)
        #expect(Configuration.removingRoot("/data", from: "root = /data\r\nsession_goal = 40\r\n", home: "/h") != nil)
    }

    /// Folder names the file could not hold (review 7, F1): a trailing space is quoted and reads
    /// back, a ':' is part of one `root`, and a line break is refused instead of splitting the
    /// line (the stored root was another, missing folder, and the file had a syntax error).
    @Test func rootsWithOddNamesReadBackOrAreRefused() {
        for dir in ["/p/Trailing ", "/p/Photos: Holiday", "/p/\"quoted\""] {
            let text = Configuration.addingRoot(dir, to: "session_goal = 9\n", home: "/h")
            let (c, problems) = Configuration.parse(text ?? "", home: "/h")
            #expect(c.roots == [dir] && problems.isEmpty, "\(dir): \(String(describing: text)) \(problems)")
            #expect(Configuration.removingRoot(dir, from: text ?? "", home: "/h") == "session_goal = 9\n")
        }
        #expect(Configuration.quotedPath("/p/new\nline") == nil && Configuration.quotedPath("/p/tab\there") == nil)
        #expect(Configuration.addingRoot("/p/new\nline", to: "", home: "/h") == nil)
        #expect(Configuration.parse("roots = /a:/b\n", home: "/h").0.roots == ["/a", "/b"])
    }

    /// A byte-order mark (Notepad) is no part of the first key; a file that is there but cannot
    /// be read is reported, not taken for a missing one (its roots quietly became ~/Pictures).
    @Test func aBOMIsSkippedAndAnUnreadableFileIsSaid() throws {
        let (text, problem) = Configuration.decode([0xEF, 0xBB, 0xBF] + Array("session_goal = 40\r\nreminder = daily\r\n".utf8))
        let (c, problems) = Configuration.parse(text, home: "/h")
        #expect(problem == nil && problems.isEmpty && c.sessionGoal == 40 && c.reminder == "daily")
        let dir = TempDir("snapsort-conf")
        let env = Environment(variables: ["HOME": dir.path, "XDG_CONFIG_HOME": dir.at("config")], home: dir.path)
        #expect(Configuration.load(env).1.isEmpty)
        dir.folder("config/snapsort/snapsort.conf")  // a folder where the file should be
        let (_, said) = Configuration.load(env)
        #expect(said.count == 1 && said[0].description.hasPrefix("snapsort.conf: cannot be read"), "\(said)")
    }

    @Test func renderedTextParsesBackToTheSameSettings() {
        var c = Configuration()
        c.roots = ["/a", "/b c", "/d ", "/e:f"]
        c.sessionGoal = 12
        c.quietHours = nil
        let (back, problems) = Configuration.parse(c.rendered(), home: "/h")
        #expect(problems.isEmpty)
        #expect(back == c)
    }
}
