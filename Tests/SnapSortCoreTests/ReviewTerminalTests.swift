import Foundation
import Testing
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport

/// `snapsort review` on a real pseudo-terminal (Tests/Fixtures/pty/drive.py types the keys).
@Suite struct ReviewTerminalTests {
    static var driver: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fixtures/pty/drive.py").standardized.path
    }

    @Test("← trash, → keep, u undo, ↑ later, q quit: each key is a decision in the database")
    func keysBecomeDecisions() throws {
        let dir = TempDir()
        for (i, name) in ["a.jpg", "b.jpg", "c.jpg"].enumerated() {
            dir.write("Pictures/\(name)", Fixtures.jpeg(seed: UInt64(40 + i), width: 160, height: 120,
                                                        dateTimeOriginal: "2024:05:0\(i + 1) 10:00:00"))
        }
        let db = dir.at("lib.sqlite3")
        let scan = try SnapsortBinary.run(["--db", db, "scan", "--quiet", dir.at("Pictures")])
        #expect(scan.status == 0, "\(scan.stderr)")

        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        p.arguments = [Self.driver, "left,right,u,up,q", "--", SnapsortBinary.path, "--db", db, "review", "--deck", "month:2024-05"]
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = dir.path
        env["XDG_CONFIG_HOME"] = dir.at("config")
        env["XDG_RUNTIME_DIR"] = dir.folder("run")
        p.environment = env
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let screen = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(screen.suffix(400))")
        #expect(screen.contains("← trash  → keep  ↓ skip  ↑ later  u undo  q quit"))
        #expect(screen.contains("undid keep"))

        let lib = try Library(path: db)
        var byName: [String: Int64] = [:]
        for item in try lib.items() { byName[item.name] = item.id }
        // The deck runs oldest first: a (trash), b (keep, undone, then later), c untouched.
        #expect(try Review.decision(for: byName["a.jpg"]!, library: lib)?.decision == .trash)
        #expect(try Review.decision(for: byName["b.jpg"]!, library: lib)?.decision == .later)
        #expect(try Review.decision(for: byName["c.jpg"]!, library: lib) == nil)
        // Nothing left the library while sorting.
        for name in ["a.jpg", "b.jpg", "c.jpg"] { #expect(FileSystem.exists(dir.at("Pictures/" + name))) }
    }

    @Test("without a terminal, review refuses with a usage error")
    func needsATerminal() throws {
        let dir = TempDir()
        let r = try SnapsortBinary.run(["--db", dir.at("lib.sqlite3"), "review"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("terminal"))
    }
}
