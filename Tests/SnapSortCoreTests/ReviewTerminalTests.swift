import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Testing

/// `snapsort review` on a real pseudo-terminal (Tests/Fixtures/pty/drive.py types the keys,
/// resizes the window, sends signals and emulates the screen).
@Suite struct ReviewTerminalTests {
    static var driver: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fixtures/pty/drive.py").standardized.path
    }

    /// A screen drive.py recorded (`dump`).
    struct Screen {
        var columns = 0, rows = 0, wraps = 0, scrolls = 0
        var lines: [String] = []
        var text: String { lines.joined(separator: "\n") }
    }

    /// What one drive.py run saw.
    struct Drive {
        var status: Int32
        /// Everything the program wrote to the terminal.
        var output: String
        var screens: [Screen]
        /// The terminal's mode after the program ended (`echo=1 icanon=1` when restored).
        var tty: String
        /// Steps that did not happen (a `wait=` that timed out, ...).
        var failures: [String]
    }

    /// A library in a temp dir: `Pictures/NAME` for each file (taken on 2024-05-0N), scanned.
    struct Setup {
        let dir = TempDir()
        var db: String { dir.at("lib.sqlite3") }
        /// HOME, config and runtime dirs inside the temp dir; a UTF-8 locale unless overridden.
        var env: [String: String] {
            [
                "HOME": dir.path, "XDG_CONFIG_HOME": dir.at("config"), "XDG_RUNTIME_DIR": dir.folder("run"),
                "LC_ALL": "C.UTF-8", "LC_CTYPE": "", "LANG": "C.UTF-8",
            ]
        }

        init(_ names: [String] = ["a.jpg", "b.jpg", "c.jpg"], config: String? = nil) throws {
            for (i, name) in names.enumerated() {
                dir.write(
                    "Pictures/\(name)",
                    Fixtures.jpeg(
                        seed: UInt64(40 + i), width: 160, height: 120,
                        dateTimeOriginal: "2024:05:0\(i + 1) 10:00:00"))
            }
            if let config { dir.write("config/snapsort/snapsort.conf", Array(config.utf8)) }
            try scan()
        }

        func scan() throws {
            let scan = try SnapsortBinary.run(["--db", db, "scan", "--quiet", dir.at("Pictures")], env: env)
            #expect(scan.status == 0, "\(scan.stderr)")
        }

        /// Runs `snapsort --db DB ARGS…` on a pseudo-terminal through drive.py.
        func drive(_ steps: String, _ args: [String], size: String? = nil, env extra: [String: String] = [:]) throws -> Drive {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            p.arguments = [ReviewTerminalTests.driver] + (size.map { ["--size", $0] } ?? []) + [steps, "--", SnapsortBinary.path, "--db", db] + args
            var e = ProcessInfo.processInfo.environment
            for (k, v) in env.merging(extra, uniquingKeysWith: { _, b in b }) { e[k] = v }
            // Python turns a C LC_CTYPE into C.UTF-8 for itself and its children (PEP 538).
            e["PYTHONCOERCECLOCALE"] = "0"
            p.environment = e
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            let all = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            // drive.py appends its report after the program's output, each line in @@…@@.
            let cut = all.range(of: "\n@@screen ")?.lowerBound ?? all.range(of: "\n@@tty")?.lowerBound ?? all.endIndex
            var d = Drive(status: p.terminationStatus, output: String(all[..<cut]), screens: [], tty: "", failures: [])
            var screen: Screen?
            for line in all[cut...].split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
                if line.hasPrefix("@@screen ") {
                    var s = Screen()
                    let words = line.dropFirst(9).dropLast(2).split(separator: " ")
                    let size = words[0].split(separator: "x")
                    s.columns = Int(size[0]) ?? 0
                    s.rows = Int(size[1]) ?? 0
                    s.wraps = Int(words[1].dropFirst(6)) ?? -1
                    s.scrolls = Int(words[2].dropFirst(8)) ?? -1
                    screen = s
                } else if line == "@@end@@" {
                    if let s = screen { d.screens.append(s) }
                    screen = nil
                } else if screen != nil {
                    screen?.lines.append(line)
                } else if line.hasPrefix("@@tty ") {
                    d.tty = String(line.dropFirst(6).dropLast(2))
                } else if line.hasPrefix("@@fail ") {
                    d.failures.append(String(line.dropFirst(7).dropLast(2)))
                }
            }
            return d
        }

        func ids() throws -> [String: Int64] {
            var byName: [String: Int64] = [:]
            for item in try Library(path: db).items() { byName[item.name] = item.id }
            return byName
        }

        func decision(_ name: String) throws -> Decision? {
            let lib = try Library(path: db)
            return try Review.decision(for: try ids()[name]!, library: lib)?.decision
        }
    }

    @Test("← trash, → keep, u undo, ↑ later, q quit: each key is a decision in the database")
    func keysBecomeDecisions() throws {
        let s = try Setup()
        let d = try s.drive("left,right,u,up,q", ["review", "--deck", "month:2024-05"])
        #expect(d.status == 0, "\(d.output.suffix(400))")
        #expect(d.output.contains("← trash  → keep  ↓ skip  ↑ later  u undo  q quit"))
        #expect(d.output.contains("undid keep"))

        // The alternate screen is left, and one line says what the session did (review 7, F3).
        #expect(d.output.contains("\u{1B}[?1049h") && d.output.contains("\u{1B}[?1049l"))
        #expect(d.output.contains("review: 2 decisions this time; 1 photo staged for the Trash"), "\(d.output.suffix(300))")
        // The deck runs oldest first: a (trash), b (keep, undone, then later), c untouched.
        #expect(try s.decision("a.jpg") == .trash)
        #expect(try s.decision("b.jpg") == .later)
        #expect(try s.decision("c.jpg") == nil)
        // Nothing left the library while sorting.
        for name in ["a.jpg", "b.jpg", "c.jpg"] { #expect(FileSystem.exists(s.dir.at("Pictures/" + name))) }
    }

    @Test("without a terminal, review refuses with a usage error")
    func needsATerminal() throws {
        let dir = TempDir()
        let r = try SnapsortBinary.run(["--db", dir.at("lib.sqlite3"), "review"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("terminal"))
    }
}

// MARK: - Keys

extension ReviewTerminalTests {
    @Test("Ctrl+Z undoes like u; ? shows the keys; an unknown key is answered with the keys")
    func ctrlZUndoesAndHelp() throws {
        let s = try Setup()
        let d = try s.drive(
            "right,wait=keep: a.jpg,ctrl-z,wait=undid keep on a.jpg,?,wait=keys: ,left,wait=trash: a.jpg,x,wait=keys: ,q",
            ["review", "--deck", "month:2024-05"])
        #expect(d.status == 0, "\(d.output.suffix(400))")
        #expect(d.failures.isEmpty, "\(d.failures)")
        #expect(try s.decision("a.jpg") == .trash)
        #expect(try s.decision("b.jpg") == nil)
    }
}

// MARK: - Window size

extension ReviewTerminalTests {
    @Test("keys pressed while the window is too small to show the card decide nothing")
    func noDecisionOnAHiddenCard() throws {
        let s = try Setup()
        let d = try s.drive(
            "resize=60x6,wait=terminal too small (60x6),right,left,resize=80x24,wait=enlarge the window,q", ["review", "--deck", "month:2024-05"])
        #expect(d.status == 0 && d.failures.isEmpty, "\(d.failures) \(d.output.suffix(300))")
        for name in ["a.jpg", "b.jpg", "c.jpg"] { #expect(try s.decision(name) == nil) }
    }

    @Test("a video's card says how long it is (review 8)")
    func aVideoCardSaysItsLength() throws {
        let s = try Setup(["a.jpg"])
        s.dir.write("Pictures/clip.mov", try VideoFixtures.bytes("tiny.mov"))  // 2 s
        try s.scan()
        let d = try s.drive("wait=clip.mov,q", ["review", "--deck", "filter:videos"])
        #expect(d.failures.isEmpty && d.output.contains("0:02"), "\(d.failures) \(d.output.suffix(400))")
    }

    @Test("the favourites deck shows the photos kept before (it ended at once, 'deck done — 0 decisions'); ← on one stages it")
    func theFavouritesDeckShowsKeptPhotos() throws {
        let s = try Setup()
        for name in ["a.jpg", "b.jpg"] {
            #expect(try SnapsortBinary.run(["--db", s.db, "decide", "keep", s.dir.at("Pictures/" + name)]).status == 0)
        }
        let d = try s.drive("wait=a.jpg,left,wait=b.jpg,q", ["review", "--deck", "filter:favourites"])
        #expect(d.failures.isEmpty, "\(d.failures) \(d.output.suffix(400))")
        #expect(!d.output.contains("passed over"))
        #expect(try s.decision("a.jpg") == .trash && s.decision("b.jpg") == .keep)
    }

    @Test("a card decided in another window meanwhile is passed over, and u never undoes that window's decision")
    func otherWindowsDecisionsStand() throws {
        let s = try Setup()
        let decide = { (what: String, name: String) in "sh=\(SnapsortBinary.path) --db \(s.db) decide \(what) \(s.dir.at("Pictures/" + name))" }
        // b is staged elsewhere while a is on screen: the deck passes over it.
        let d = try s.drive(
            "wait=a.jpg,\(decide("trash", "b.jpg")),right,wait=was decided elsewhere,right,wait=done,\(decide("later", "a.jpg")),u,wait=nothing of this deck to undo,q",
            ["review", "--deck", "month:2024-05"])
        #expect(d.failures.isEmpty, "\(d.failures) \(d.output.suffix(400))")
        #expect(try s.decision("b.jpg") == .trash)
        #expect(try s.decision("c.jpg") == .keep)
        // The other window's later on a.jpg is the newest decision: the deck's u left it.
        #expect(try s.decision("a.jpg") == .later)
    }

    @Test("a resize redraws at once at the new size; no line wraps; a tiny window says so")
    func resizeRedrawsAndClips() throws {
        let long = "a_rather_long_file_name_straight_from_the_camera_roll_0001.jpg"
        let s = try Setup([long, "b.jpg"], config: "session_goal = 1\n")
        let d = try s.drive(
            "wait=q quit,dump,resize=40x12,wait=May 2024,dump,right,wait=goal met,dump,resize=60x6,wait=terminal too small (60x6),resize=80x24,wait=May 2024,dump,q",
            ["review", "--deck", "month:2024-05"], size: "80x24")
        #expect(d.status == 0, "\(d.output.suffix(400))")
        #expect(d.failures.isEmpty, "\(d.failures)")
        #expect(d.screens.count == 4)
        for screen in d.screens {
            // The header stays on top and nothing wrapped or scrolled.
            #expect(screen.lines.first?.hasPrefix("May 2024") == true, "\(screen.text)")
            #expect(screen.wraps == 0 && screen.scrolls == 0, "\(screen.columns)x\(screen.rows): \(screen.text)")
        }
        // The goal-met footer fits the 40 columns instead of wrapping.
        #expect(d.screens[2].columns == 40)
        #expect(d.screens[2].lines.contains { $0.hasPrefix("keep: ") && $0.count <= 40 }, "\(d.screens[2].text)")
        #expect(try s.decision(long) == .keep)
    }
}

// MARK: - Signals

extension ReviewTerminalTests {
    @Test("SIGTERM, SIGHUP and SIGQUIT restore the terminal and keep the decisions made", arguments: ["TERM", "HUP", "QUIT"])
    func signalsRestoreTheTerminal(signal: String) throws {
        let s = try Setup()
        let d = try s.drive("left,wait=trash: a.jpg,signal=\(signal)", ["review", "--deck", "month:2024-05"])
        #expect(d.status == 0, "\(d.output.suffix(400))")
        #expect(d.failures.isEmpty, "\(d.failures)")
        #expect(d.tty == "echo=1 icanon=1")
        // The cursor is shown again after it was last hidden.
        let hidden = d.output.range(of: "\u{1B}[?25l", options: .backwards)
        #expect(hidden != nil && d.output[hidden!.upperBound...].contains("\u{1B}[?25h"))
        #expect(try s.decision("a.jpg") == .trash)
    }
}

// MARK: - Files changed behind the review's back

extension ReviewTerminalTests {
    @Test("a file deleted after the scan is skipped with a message; a replaced one says so")
    func goneAndChangedFiles() throws {
        let s = try Setup()
        let ids = try s.ids()
        try FileSystem.remove(s.dir.at("Pictures/b.jpg"))
        s.dir.write("Pictures/c.jpg", Fixtures.jpeg(seed: 99, width: 200, height: 150))
        let d = try s.drive(
            "right,wait=b.jpg is gone from disk: skipped,wait=changed since it was analyzed,q",
            ["review", "--deck", "month:2024-05"])
        #expect(d.status == 0, "\(d.output.suffix(400))")
        #expect(d.failures.isEmpty, "\(d.failures)")
        #expect(try s.decision("a.jpg") == .keep)
        #expect(try s.decision("b.jpg") == nil)
        // The session moved past the gone file for good: resuming starts at c.
        let library = try Library(path: s.db)
        let session = try DeckSession.open(deckID: "month:2024-05", library: library)
        #expect(session?.current == ids["c.jpg"])
    }
}

// MARK: - Where a file is

extension ReviewTerminalTests {
    @Test("the card shows the folder and, in a duplicate set, which is the copy and which the keeper")
    func folderAndDuplicateTags() throws {
        let s = try Setup(["IMG_1.JPG", "other.jpg"])
        s.dir.write("Pictures/backup/IMG_1.JPG", Array(try FileSystem.readFile(s.dir.at("Pictures/IMG_1.JPG"), limit: 1 << 20)))
        try s.scan()
        let d = try s.drive("wait=q quit,dump,down,dump,q", ["review", "--deck", "group:duplicate"])
        #expect(d.status == 0, "\(d.output.suffix(400))")
        #expect(d.failures.isEmpty, "\(d.failures)")
        let both = d.screens.map(\.text).joined(separator: "\n")
        #expect(both.contains("~/Pictures/backup"), "\(both)")
        #expect(both.contains("suggested keeper"), "\(both)")
        #expect(both.contains("copy of IMG_1.JPG in ~/Pictures"), "\(both)")
    }
}

// MARK: - Locale

extension ReviewTerminalTests {
    @Test(
        "a non-UTF-8 locale gets plain ASCII",
        arguments: [
            ["LC_ALL": "C"],
            ["LC_ALL": "", "LC_CTYPE": "POSIX"],
            ["LC_ALL": "", "LC_CTYPE": "", "LANG": "en_US.ISO-8859-1"],
        ])
    func asciiUnderNonUTF8Locale(locale: [String: String]) throws {
        let s = try Setup()
        let d = try s.drive("wait=q quit,dump,right,wait=keep: a.jpg,q", ["review", "--deck", "month:2024-05"], env: locale)
        #expect(d.status == 0, "\(d.output.suffix(400))")
        #expect(d.failures.isEmpty, "\(d.failures)")
        let notASCII = String(String.UnicodeScalarView(d.output.unicodeScalars.filter { !$0.isASCII }.prefix(20)))
        #expect(notASCII.isEmpty, "\(notASCII)")
        #expect(d.screens.first?.text.contains("<- trash  -> keep  v skip  ^ later") == true)
    }
}

// MARK: - Today's goal

extension ReviewTerminalTests {
    @Test("the header counts today's decisions as stats does, and says when the goal is met")
    func headerCountsTheDay() throws {
        let s = try Setup(config: "session_goal = 2\n")
        let before = try SnapsortBinary.run(["--db", s.db, "decide", "keep", s.dir.at("Pictures/c.jpg")], env: s.env)
        #expect(before.status == 0, "\(before.stderr)")
        let d = try s.drive("wait=1/2 toward today's goal,right,wait=goal met (2 today),q", ["review", "--deck", "month:2024-05"])
        #expect(d.status == 0, "\(d.output.suffix(400))")
        #expect(d.failures.isEmpty, "\(d.failures)")
        let stats = try SnapsortBinary.run(["--db", s.db, "stats"], env: s.env)
        #expect(stats.stdout.contains("Today:                 2 reviewed · goal 2"), "\(stats.stdout)")
    }
}
