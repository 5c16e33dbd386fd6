import Foundation
import Testing
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport

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
            ["HOME": dir.path, "XDG_CONFIG_HOME": dir.at("config"), "XDG_RUNTIME_DIR": dir.folder("run"),
             "LC_ALL": "C.UTF-8", "LC_CTYPE": "", "LANG": "C.UTF-8"]
        }

        init(_ names: [String] = ["a.jpg", "b.jpg", "c.jpg"], config: String? = nil) throws {
            for (i, name) in names.enumerated() {
                dir.write("Pictures/\(name)", Fixtures.jpeg(seed: UInt64(40 + i), width: 160, height: 120,
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
