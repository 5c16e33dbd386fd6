import Foundation
import Glibc
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Testing

/// The CLI as a process: exit statuses, the arguments as the kernel passes them, two processes
/// at once, a session bus named in the process's environment.
@Suite struct CLIEndToEndTests {
    @Test func exitCodes() throws {
        let dir = TempDir()
        let db = dir.at("lib.sqlite3")
        #expect(try SnapsortBinary.run(["--db", db, "frobnicate"]).status == 2)
        #expect(try SnapsortBinary.run(["--db", db, "scan", "--bogus"]).status == 2)
        #expect(try SnapsortBinary.run(["--db", db, "info", dir.at("nope.jpg")]).status == 1)
        #expect(try SnapsortBinary.run(["--version"]).stdout.hasPrefix("snapsort "))
        for c in ["scan", "report", "info", "demo"] {
            let h = try SnapsortBinary.run([c, "--help"])
            #expect(h.status == 0 && h.stdout.contains("Usage: snapsort \(c)"))
        }
        // A newer database is refused with one clear line.
        _ = try SnapsortBinary.run(["--db", db, "report", "--jsonl"])
        let lib = try Library(path: db)
        try lib.db.execute("PRAGMA user_version=9999")
        let r = try SnapsortBinary.run(["--db", db, "report", "--jsonl"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("newer SnapSort"))
        #expect(r.stderr.split(separator: "\n").count == 1)
    }

    /// Junk named `.jpg` up to `maxPhotoBytes` (random bytes, here a random head and a sparse
    /// rest) is recognised from its first bytes and never read whole: four 400 MB files held a
    /// scan above 800 MB with two workers (1.05 GB for four 500 MB files, issue 40). Each is
    /// recorded with its reason. The peak is the child's own `ru_maxrss`.
    @Test func bigJunkFilesAreScannedUnderAMemoryBound() throws {
        let dir = TempDir()
        let pictures = dir.folder("Pictures")
        let size: Int64 = 400 << 20
        for i in 0..<4 {
            let path = "\(pictures)/junk\(i).jpg"
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            #expect(fd >= 0)
            var head = [UInt8](repeating: 0, count: 64 * 1024)
            for k in head.indices { head[k] = UInt8.random(in: 0...255) }
            head[0] = 0x42  // never a JPEG's FF D8 by chance
            #expect(head.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == head.count)
            #expect(ftruncate(fd, off_t(size)) == 0)
            close(fd)
        }
        dir.write("Pictures/real.jpg", Fixtures.jpeg(seed: 7, width: 96, height: 72))
        // A real picture of 100 MB (its metadata padded with 1 600 APP15 segments of 64 KiB, as
        // a tool's embedded data would): decoded from the file, never held whole.
        let small = Fixtures.jpeg(seed: 8, width: 96, height: 72)
        var big = Array(small.prefix(2))
        let pad = [UInt8](repeating: 0x5A, count: 65533)
        for _ in 0..<1600 { big += [0xFF, 0xEF, 0xFF, 0xFF] + pad }
        big += small.dropFirst(2)
        dir.write("Pictures/big.jpg", big)
        let db = dir.at("lib.sqlite3")
        let run = try SnapsortBinary.runMeasuringPeak(["--db", db, "scan", "--quiet", "--no-models", "--workers", "2", pictures])
        #expect(run.status == 0)
        // Well under one file's size: the process itself, its database and two workers' buffers.
        #expect(run.peakKiB < 200 << 10, "peak \(run.peakKiB / 1024) MB")
        let lib = try Library(path: db)
        let rows = try lib.db.rows("SELECT path, status, reason_code FROM files")
        let byName = Dictionary(
            uniqueKeysWithValues: rows.map { (URL(fileURLWithPath: $0.string(0)!).lastPathComponent, ($0.string(1)!, $0.string(2))) })
        for i in 0..<4 {
            #expect(byName["junk\(i).jpg"]?.0 == "unreadable" && byName["junk\(i).jpg"]?.1 == "unknown_format", "\(byName)")
        }
        #expect(byName["real.jpg"]?.0 == "ok")
        #expect(byName["big.jpg"]?.0 == "ok", "\(byName)")
    }

    /// A file name that is not UTF-8, given on the command line as the shell passes it (its
    /// bytes), names that file: `info` finds it, and what is printed shows the byte as U+FFFD.
    @Test func aFileNamedInLatin1IsFoundFromTheCommandLine() throws {
        let dir = TempDir()
        let name = PathName.decode(Array("caf".utf8) + [0xE9] + Array(".jpg".utf8))
        dir.write("Pictures/\(name)", Fixtures.jpeg(seed: 41, width: 64, height: 48))
        let db = dir.at("lib.sqlite")
        #expect(try SnapsortBinary.run(["--db", db, "scan", "--quiet", dir.at("Pictures")]).status == 0)
        // Through sh and printf: Foundation's Process would pass the String's UTF-8.
        let info = try SnapsortBinary.run(
            ["-c", "exec \"$0\" --db \"$1\" info \"$2/$(printf 'caf\\351.jpg')\"", SnapsortBinary.path, db, dir.at("Pictures")], launcher: "/bin/sh")
        #expect(
            info.status == 0 && info.stdout.contains("Pictures/caf\u{FFFD}.jpg") && info.stdout.contains("status:    ok"),
            "\(info.stdout)\(info.stderr)")
        let report = try SnapsortBinary.run(["--db", db, "report", "--jsonl"])
        #expect(report.stdout.contains("/caf\\udce9.jpg\""), "\(report.stdout)")
    }

    /// Two scans of one library do not run at once (both would insert a new file's row): the
    /// second says it waits, and runs when the first ends.
    @Test func aSecondScanWaitsForTheFirst() throws {
        let dir = TempDir()
        dir.write("Pictures/a.jpg", Fixtures.jpeg(seed: 83, width: 96, height: 72))
        let db = dir.at("lib.sqlite3")
        #expect(try SnapsortBinary.run(["--db", db, "scan", "--quiet", "--no-models", dir.at("Pictures/a.jpg")]).status == 0)
        dir.write("Pictures/b.jpg", Fixtures.jpeg(seed: 84, width: 96, height: 72))
        let lib = try Library(path: db)
        let first = try #require(try FileLock.tryLock(lib.scanLockPath))  // the first scan, running
        let p = Process()
        p.executableURL = URL(fileURLWithPath: SnapsortBinary.path)
        p.arguments = ["--db", db, "scan", "--no-models", dir.at("Pictures")]
        let errPath = dir.at("scan.err")
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        p.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        #expect(waitUntil { (try? String(contentsOfFile: errPath, encoding: .utf8))?.contains("waiting for it to end") == true })
        #expect(p.isRunning)
        #expect(try lib.db.scalar("SELECT count(*) FROM files") == 1)
        first.unlock()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(try lib.db.scalar("SELECT count(*) FROM files") == 2)
    }

    /// `remind --now` with no notification server to reach (the bus address names no socket)
    /// fails once, with the reason and exit 3; a one-shot does not promise a retry.
    @Test func remindNowWithoutANotificationServerSaysSoOnce() throws {
        let dir = TempDir()
        let db = dir.at("lib.sqlite3")
        dir.folder("Pictures")
        #expect(try SnapsortBinary.run(["--db", db, "scan", "--quiet", "--no-models", dir.at("Pictures")]).status == 0)
        let r = try SnapsortBinary.run(
            ["--db", db, "remind", "--now"],
            env: [
                "HOME": dir.path, "XDG_CONFIG_HOME": dir.at("config"), "XDG_RUNTIME_DIR": dir.at("run"),
                "DBUS_SESSION_BUS_ADDRESS": "unix:path=\(dir.at("no-bus"))",
            ])
        #expect(r.status == 3, "\(r.status) \(r.stderr)")
        #expect(r.stderr.components(separatedBy: "cannot show").count == 2, "\(r.stderr)")
        #expect(!r.stderr.contains("retry"), "\(r.stderr)")
    }
}
