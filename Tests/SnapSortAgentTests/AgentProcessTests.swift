import Foundation
import Glibc
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Synchronization
import Testing

/// The built `snapsort agent` as a child process: sd_notify, signals, kill -9, the lock.
@Suite(.serialized) struct AgentProcessTests {
    /// A running `snapsort agent` child.
    final class Child: @unchecked Sendable {
        let process = Process()
        let stderr = Pipe()
        /// What the agent wrote to stderr, read as it comes: a pipe nobody drains fills at 64 KB
        /// and stops the agent at its next log line.
        private let said = Mutex<[UInt8]>([])
        init(_ args: [String], env: [String: String]) throws {
            process.executableURL = URL(fileURLWithPath: SnapsortBinary.path)
            process.arguments = args
            var e = ProcessInfo.processInfo.environment
            e.removeValue(forKey: "NOTIFY_SOCKET")
            e.removeValue(forKey: "WATCHDOG_USEC")
            for (k, v) in env { e[k] = v }
            process.environment = e
            process.standardError = stderr
            process.standardOutput = FileHandle.nullDevice
            stderr.fileHandleForReading.readabilityHandler = { [weak self] h in
                let data = h.availableData
                self?.said.withLock { $0.append(contentsOf: data) }
            }
            try process.run()
        }
        func signal(_ s: Int32) { kill(process.processIdentifier, s) }
        func wait(timeout: TimeInterval) -> Int32? {
            waitUntil(timeout: timeout) { !process.isRunning } ? process.terminationStatus : nil
        }
        deinit {
            stderr.fileHandleForReading.readabilityHandler = nil
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        /// What it wrote to stderr so far; once it has ended, all of it.
        var stderrText: String {
            if !process.isRunning {
                stderr.fileHandleForReading.readabilityHandler = nil
                let rest = stderr.fileHandleForReading.readDataToEndOfFile()
                said.withLock { $0.append(contentsOf: rest) }
            }
            return String(decoding: said.withLock { $0 }, as: UTF8.self)
        }
        /// For a failing expectation: still running or how it ended, and what it said last.
        var report: String {
            let how = process.isRunning ? "the agent is running" : "the agent exited \(process.terminationStatus)"
            return "\(how); its stderr ends: \(stderrText.suffix(1500))"
        }
    }

    /// A library folder with `count` photos large enough that analysis takes a while.
    static func setup(_ count: Int, size: Int = 96) -> (TempDir, [String: String], String, String) {
        let dir = TempDir("snapsort-proc")
        let root = dir.folder("Pictures")
        // One scene, varied a little per file: distinct photos without drawing a scene each.
        let base = Fixtures.scene(width: size, height: size * 3 / 4, seed: 42)
        for i in 0..<count {
            var b = base
            for k in 0..<9 { b.pixels[(i * 97 + k * 7919) % b.pixels.count] &+= 80 }
            dir.write("Pictures/p\(i).jpg", Fixtures.jpeg(b))
        }
        let run = dir.folder("run")
        chmod(run, 0o700)
        let env = ["HOME": dir.path, "XDG_CONFIG_HOME": dir.at("config"), "XDG_RUNTIME_DIR": run, "XDG_STATE_HOME": dir.at("state")]
        return (dir, env, root, dir.at("state/snapsort/library.sqlite3"))
    }

    @Test func aNotifySocketListenerReceivesReadyStatusWatchdogAndStopping() throws {
        let (dir, env, root, _) = Self.setup(3)
        let socketPath = dir.at("notify.sock")
        let sock = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #expect(sock >= 0)
        defer { close(sock) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { buf in
            for (i, b) in socketPath.utf8.enumerated() { buf[i] = b }
        }
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(sock, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        var e = env
        e["NOTIFY_SOCKET"] = socketPath
        e["WATCHDOG_USEC"] = "300000"
        let child = try Child(["agent", root], env: e)
        var got: [String] = []
        let deadline = Date().addingTimeInterval(20)
        func receive() {
            var p = pollfd(fd: sock, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 200) > 0 else { return }
            var buf = [UInt8](repeating: 0, count: 4096)
            let n = recv(sock, &buf, buf.count, 0)
            if n > 0 { got += String(decoding: buf[0..<n], as: UTF8.self).split(separator: "\n").map(String.init) }
        }
        while Date() < deadline && !(got.contains("READY=1") && got.contains("WATCHDOG=1") && got.contains { $0.hasPrefix("STATUS=Watching") }) {
            receive()
        }
        #expect(got.contains("READY=1"))
        // Before it opens the library (an integrity check, a schema upgrade: minutes at a million
        // rows), the agent asks the manager for more than its 90 s start timeout.
        let extend = got.firstIndex { $0.hasPrefix("EXTEND_TIMEOUT_USEC=") }
        #expect(extend != nil && extend! < got.firstIndex(of: "READY=1")!, "\(got)")
        #expect(got.contains("EXTEND_TIMEOUT_USEC=900000000"), "\(got)")
        #expect(got.contains("WATCHDOG=1"))
        #expect(got.contains { $0.hasPrefix("STATUS=") })
        #expect(got.contains { $0.hasPrefix("STATUS=Watching 3 photos in 1 library folder") })
        child.signal(SIGTERM)
        #expect(child.wait(timeout: 10) == 0)
        while Optional(0) != nil, !got.contains("STOPPING=1"), Date() < deadline { receive() }
        #expect(got.contains("STOPPING=1"))
        let log = child.stderrText
        // Under a service manager each line carries its sd-daemon(3) priority prefix.
        #expect(log.split(separator: "\n").allSatisfy { $0.first == "<" && $0.dropFirst(2).first == ">" })
    }

    @Test(arguments: [SIGTERM, SIGKILL])
    func aStopMidScanLeavesAConsistentDatabaseAndARestartFinishes(signal: Int32) throws {
        // Enough work that the stop lands mid-scan (the scan got faster: 120 photos of 640 px
        // were all stored before SIGTERM arrived).
        let count = 240
        let (dir, env, root, db) = Self.setup(count, size: 1024)
        defer { withExtendedLifetime(dir) {} }
        let child = try Child(["agent", "--workers", "1", root], env: env)
        // Wait until some, not all, photos are stored.
        var analyzed: Int64 = 0
        let started = waitUntil(timeout: 60) {
            guard let lib = try? Library(path: db, readOnly: true) else { return false }
            analyzed = (try? lib.db.scalar("SELECT count(*) FROM files")) ?? 0
            return analyzed > 0
        }
        #expect(started)
        child.signal(signal)
        let code = child.wait(timeout: 10)
        if signal == SIGTERM { #expect(code == 0) } else { #expect(code != nil) }
        let lib = try Library(path: db)
        #expect(try lib.db.quickCheck() == nil)
        let stored = try lib.db.scalar("SELECT count(*) FROM files") ?? 0
        #expect(stored < Int64(count), "the scan was not interrupted; make it longer")
        #expect(try lib.db.scalar("SELECT count(*) FROM files WHERE status = 'pending'") == 0)
        // A restart finishes the job.
        let again = try Child(["agent", root], env: env)
        #expect(waitUntil(timeout: 300) { (try? lib.db.scalar("SELECT count(*) FROM files WHERE status = 'ok'")) == Int64(count) })
        again.signal(SIGTERM)
        #expect(again.wait(timeout: 30) == 0)
    }

    @Test func aSecondAgentExitsThreeWithAClearMessage() throws {
        let (dir, env, root, db) = Self.setup(1)
        defer { withExtendedLifetime(dir) {} }
        let first = try Child(["agent", root], env: env)
        let statusFile = env["XDG_RUNTIME_DIR"]! + "/snapsort/status.json"
        #expect(waitUntil(timeout: 20) { FileManager.default.fileExists(atPath: statusFile) })
        // The one photo in (a stop before its scan ends leaves it for the next start; the
        // stopped document below counts the library's rows).
        #expect(waitUntil(timeout: 60) { (try? Library(path: db).itemCounts().total) == 1 })
        let second = try SnapsortBinary.run(["agent", root], env: env)
        // 3, which the unit does not restart on (RestartPreventExitStatus=3): with 1 systemd
        // restarted it every 5 s for ever (review 8).
        #expect(second.status == 3)
        let unit = try String(
            contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../systemd/snapsort.service.in")
                .standardized.path, encoding: .utf8)
        #expect(unit.contains("RestartPreventExitStatus=3"))
        #expect(second.stderr.contains("already running"))
        // While it runs, `snapsort status` shows the agent's own document.
        let status = try SnapsortBinary.run(["status", "--json"], env: env)
        #expect(status.status == 0)
        #expect(JSON.parse(status.stdout)?["agent"]?["pid"]?.intValue == Int(first.process.processIdentifier))
        first.signal(SIGINT)
        #expect(first.wait(timeout: 10) == 0)
        // Stopped: the document comes from the database.
        let stopped = try SnapsortBinary.run(["status", "--json"], env: env)
        #expect(JSON.parse(stopped.stdout)?["agent"]?["state"]?.stringValue == "stopped")
        #expect(JSON.parse(stopped.stdout)?["agent"]?["total"]?.intValue == 1)
    }

    /// A damaged library (a broken page `quick_check` finds) makes the agent wait in `error`,
    /// the damage and the backups in `last_error`, instead of exiting 1 — which made systemd
    /// start it again every 5 s, each start reading the whole file again; a signal ends the wait,
    /// and once a backup is put back the agent starts on it with its decisions.
    @Test func aDamagedLibraryMakesTheAgentWaitUntilABackupIsPutBack() throws {
        let (dir, env, root, db) = Self.setup(2)
        defer { withExtendedLifetime(dir) {} }
        let scan = try SnapsortBinary.run(["--db", db, "scan", "--quiet", "--no-models", root], env: env)
        #expect(scan.status == 0, "\(scan.stderr)")
        #expect(try SnapsortBinary.run(["--db", db, "decide", "keep", root + "/p0.jpg"], env: env).status == 0)
        do {
            let library = try Library(path: db)
            try Backup.run(library, keep: 3, now: Date())
        }
        try DatabaseDamage.breakTable(db, "files")
        let statusFile = env["XDG_RUNTIME_DIR"]! + "/snapsort/status.json"
        func document() -> StatusDocument? {
            guard let bytes = try? FileSystem.readFile(statusFile, limit: 1 << 20), let j = JSON.parse(String(decoding: bytes, as: UTF8.self))
            else { return nil }
            return StatusDocument(json: j)
        }
        let agent = try Child(["--db", db, "agent", "--no-web", "--no-tray", "--no-reminders", "--no-models", root], env: env)
        #expect(
            waitUntil(timeout: 30) {
                guard let doc = document(), doc.agent.state == .error, let said = doc.agent.lastError else { return false }
                return said.contains("is damaged") && said.contains("snapsort backup restore")
            }, "\(agent.report)")
        #expect(agent.process.isRunning, "\(agent.report)")
        // The log line may reach the pipe's reader after the status file is written: wait for it.
        #expect(waitUntil(timeout: 10) { agent.stderrText.contains("waiting:") }, "\(agent.report)")
        agent.signal(SIGTERM)
        #expect(agent.wait(timeout: 10) == 0, "\(agent.report)")
        // The person puts the backup back; the agent starts on it, the decision there.
        let restore = try SnapsortBinary.run(["--db", db, "backup", "restore"], env: env)
        #expect(restore.status == 0, "\(restore.stderr)")
        let again = try Child(["--db", db, "agent", "--no-web", "--no-tray", "--no-reminders", "--no-models", root], env: env)
        #expect(waitUntil(timeout: 30) { document()?.agent.state == .watching }, "\(again.report)")
        #expect(try Library(path: db).db.scalar("SELECT count(*) FROM decisions") == Int64(1))
        again.signal(SIGTERM)
        #expect(again.wait(timeout: 10) == 0, "\(again.report)")
    }

    /// Two agents for two libraries: the second library's agent writes its own status file
    /// beside the bars' one, so neither library's `status` shows the other's (they wrote one
    /// file, and a stopped second agent left the first one's bar "stopped", review 8).
    @Test func twoLibrariesTwoStatusFiles() throws {
        let (dir, env, root, _) = Self.setup(1)
        defer { withExtendedLifetime(dir) {} }
        let other = dir.folder("Other")
        dir.write("Other/x.jpg", Fixtures.jpeg(seed: 77, width: 64, height: 48))
        dir.write("Other/y.jpg", Fixtures.jpeg(seed: 78, width: 64, height: 48))
        let otherDB = dir.at("other.sqlite3")
        let flags = ["--no-web", "--no-reminders", "--no-models"]
        let first = try Child(["agent"] + flags + [root], env: env)
        let second = try Child(["--db", otherDB, "agent"] + flags + [other], env: env)
        let shared = env["XDG_RUNTIME_DIR"]! + "/snapsort/status.json"
        func total(_ args: [String]) -> Int? {
            (try? SnapsortBinary.run(args + ["status", "--json"], env: env)).flatMap { JSON.parse($0.stdout)?["agent"]?["total"]?.intValue }
        }
        #expect(
            waitUntil(timeout: 20) { total([]) == 1 && total(["--db", otherDB]) == 2 },
            "\(String(describing: total([]))) \(String(describing: total(["--db", otherDB])))")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: env["XDG_RUNTIME_DIR"]! + "/snapsort")) ?? []
        #expect(files.contains("status.json") && files.contains { $0.hasPrefix("status-") && $0.hasSuffix(".json") }, "\(files)")
        // The second stops: the first library's document still says its agent runs.
        second.signal(SIGTERM)
        #expect(second.wait(timeout: 10) == 0)
        let doc = JSON.parse(String(decoding: try FileSystem.readFile(shared, limit: 1 << 20), as: UTF8.self))?["agent"]
        #expect(doc?["state"]?.stringValue != "stopped" && doc?["pid"]?.intValue == Int(first.process.processIdentifier))
        first.signal(SIGTERM)
        #expect(first.wait(timeout: 10) == 0)
    }

    /// An agent writing its status elsewhere (--status-file) is found by `snapsort status`
    /// (it was reported as stopped); `status --status-file` reads a named one.
    @Test func statusFindsAnAgentsOwnStatusFile() throws {
        let (dir, env, root, _) = Self.setup(1)
        defer { withExtendedLifetime(dir) {} }
        let custom = dir.at("elsewhere/status.json")
        let agent = try Child(["agent", "--no-web", "--no-reminders", "--no-models", "--status-file", custom, root], env: env)
        #expect(waitUntil(timeout: 20) { FileManager.default.fileExists(atPath: custom) })
        let found = try SnapsortBinary.run(["status", "--json"], env: env)
        let doc = JSON.parse(found.stdout)?["agent"]
        #expect(doc?["pid"]?.intValue == Int(agent.process.processIdentifier), "\(found.stdout)")
        #expect(doc?["state"]?.stringValue != "stopped")
        let human = try SnapsortBinary.run(["status"], env: env)
        #expect(human.stdout.contains("Status file: \(custom)"), "\(human.stdout)")
        let named = try SnapsortBinary.run(["status", "--format", "waybar", "--status-file", custom], env: env)
        #expect(JSON.parse(named.stdout)?["alt"]?.stringValue != "stopped", "\(named.stdout)")
        agent.signal(SIGTERM)
        #expect(agent.wait(timeout: 10) == 0)
        let stopped = try SnapsortBinary.run(["status", "--json"], env: env)
        #expect(JSON.parse(stopped.stdout)?["agent"]?["state"]?.stringValue == "stopped")
        // With no agent, the line says the document is the library's own: it names no status
        // file (the configured one is another agent's, or nobody's).
        let computed = try SnapsortBinary.run(["status"], env: env)
        #expect(computed.stdout.contains("No agent runs for") && !computed.stdout.contains("Status file:"), "\(computed.stdout)")
        // A pause set while no agent runs is said (review 7, L8).
        #expect(try SnapsortBinary.run(["pause", "2h"], env: env).status == 0)
        let paused = try SnapsortBinary.run(["status"], env: env)
        #expect(paused.stdout.contains("Analysis is paused until"), "\(paused.stdout)")
        // The two output choices together are a usage error, not one of them silently.
        #expect(try SnapsortBinary.run(["status", "--json", "--format", "waybar"], env: env).status == 2)
        // A FIFO as the status file is refused at once (reading it waited for a writer forever).
        let fifo = dir.at("status.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let refused = try SnapsortBinary.run(["10", SnapsortBinary.path, "status", "--status-file", fifo], env: env, launcher: "/usr/bin/timeout")
        #expect(refused.status == 1 && refused.stderr.contains("not a regular file"), "\(refused.status) \(refused.stderr)")
    }

    /// Whether this machine lets a test lower its inotify limits in a user namespace of its own.
    static let canLimitInotify: Bool = {
        (try? SnapsortBinary.run(["-Ur", "sh", "-c", "echo 0 > /proc/sys/user/max_inotify_instances"], launcher: "/usr/bin/unshare").status) == 0
    }()

    /// Every inotify instance of the user taken (fs.inotify.max_user_instances, 128, shared by file
    /// managers and sync clients; here 0 in a user namespace): the agent says which limit and how
    /// to raise it (it said "Too many open files"), and `status --follow` goes on re-reading
    /// instead of ending (a bar's command that ends leaves the bar frozen). Review 7, F6.
    @Test(.enabled(if: canLimitInotify, "no user namespaces here"))
    func noInotifyInstanceLeftIsSaidAndTheFollowerGoesOn() throws {
        let (dir, env, root, _) = Self.setup(1)
        defer { withExtendedLifetime(dir) {} }
        func limited(_ args: String) throws -> SnapsortBinary.Result {
            try SnapsortBinary.run(
                ["-Ur", "sh", "-c", "echo 0 > /proc/sys/user/max_inotify_instances && exec timeout -s KILL 4 \(SnapsortBinary.path) \(args)"],
                env: env,
                launcher: "/usr/bin/unshare")
        }
        _ = try SnapsortBinary.run(["scan", "--no-models", root], env: env)
        let agent = try limited("agent --no-web --no-reminders --no-models \(root)")
        #expect(agent.status == 1 && agent.stderr.contains("fs.inotify.max_user_instances"), "\(agent.status) \(agent.stderr)")
        let follow = try limited("status --format waybar --follow")
        // Killed by timeout (-s KILL, which takes its process group along: the test runner's
        // children inherit a blocked SIGTERM), not ended by itself.
        #expect(follow.status == 137 || follow.status == 9, "the follower is still running when timeout stops it: \(follow.status) \(follow.stderr)")
        #expect(follow.stderr.contains("re-reading every") && follow.stdout.contains("\"text\""), "\(follow.stderr)")
    }

    /// `status --follow` for a bar: a line per change; an agent killed with -9 (its file never
    /// rewritten) is said to be stopped; when the bar closes its pipe the follower leaves at once
    /// (it waited for the next change, hours on an idle agent, holding an inotify instance).
    @Test func followSaysAKilledAgentStoppedAndLeavesWithItsReader() throws {
        let (dir, env, root, _) = Self.setup(1)
        defer { withExtendedLifetime(dir) {} }
        let agent = try Child(["agent", "--no-web", "--no-reminders", "--no-models", root], env: env)
        #expect(
            waitUntil(timeout: 20) { (try? SnapsortBinary.run(["status", "--json"], env: env).stdout.contains("\"watching\"")) == true },
            "\(agent.report)")
        let follower = try Follower(env: env, recheckMs: 200)
        defer { follower.kill() }
        #expect(waitUntil(timeout: 10) { follower.lines().first.flatMap(Follower.state) == "watching" }, "\(follower.text)")
        agent.signal(SIGKILL)
        #expect(agent.wait(timeout: 10) != nil)
        #expect(waitUntil(timeout: 10) { follower.lines().last.flatMap(Follower.state) == "stopped" }, "\(follower.text)")
        try follower.out.fileHandleForReading.close()
        #expect(waitUntil(timeout: 5) { !follower.process.isRunning }, "the follower outlived its reader")
    }

    /// `status --follow` without an agent: a library moved away for a moment does not end it
    /// (a bar never restarts a module whose command ended), the JSON stream prints no line for a
    /// recompute that changed nothing but its time, and an agent started later with its own
    /// `--status-file` is followed there.
    @Test func followOutlivesAMissingLibraryAndFindsAnAgentsOtherFile() throws {
        let (dir, env, root, db) = Self.setup(1)
        defer { withExtendedLifetime(dir) {} }
        #expect(try SnapsortBinary.run(["scan", "--quiet", "--no-models", root], env: env).status == 0)
        let follower = try Follower(env: env, recheckMs: 100)
        defer { follower.kill() }
        #expect(waitUntil(timeout: 10) { !follower.lines().isEmpty })
        // The rechecks are seen on the follower's stderr, not waited for by a fixed sleep: while
        // an empty file stands in for the library (refused, `Library+Refusal`; swapped in and out
        // by atomic renames, so the library is never missing) a recheck says it fails, and the
        // next one after it is back says it answers again. The document's time is in whole
        // seconds: the rechecks come once it moved on from the first line's, so the recomputes
        // that answer again change nothing but its time.
        let first = try #require(
            follower.lines().first.flatMap { JSON.parse(String($0))?["updated_at"]?.stringValue }.flatMap(StatusTimestamp.date))
        #expect(waitUntil(timeout: 5) { Date() >= first.addingTimeInterval(1) })
        func refuse(_ round: Int) throws {
            #expect(link(db, db + ".kept") == 0)
            dir.write("empty", [])
            try FileSystem.rename(dir.at("empty"), db)
            #expect(waitUntil(timeout: 10) { follower.errors().filter { $0.contains("trying again") }.count == round }, "\(follower.errorText)")
            #expect(follower.process.isRunning)
            try FileSystem.rename(db + ".kept", db)
        }
        for round in 1...2 {
            try refuse(round)
            #expect(waitUntil(timeout: 10) { follower.errors().filter { $0.contains("answers again") }.count == round }, "\(follower.errorText)")
        }
        // One more failing recheck: the recompute that answered again has written all it would.
        try refuse(3)
        #expect(follower.lines().count == 1, "\(follower.text)")
        // Moved away: the next recheck meets no library (and makes a new one, the default
        // library being made on first use) without ending the stream.
        let (lines, errors) = (follower.lines().count, follower.errors().count)
        try FileSystem.rename(db, db + ".away")
        #expect(waitUntil(timeout: 10) { follower.lines().count > lines || follower.errors().count > errors }, "\(follower.errorText)")
        #expect(follower.process.isRunning)
        try FileSystem.rename(db + ".away", db)
        let custom = dir.at("elsewhere/status.json")
        let agent = try Child(["agent", "--no-web", "--no-reminders", "--no-models", "--status-file", custom, root], env: env)
        #expect(waitUntil(timeout: 20) { follower.lines().last.flatMap(Follower.state) == "watching" }, "\(follower.text)")
        agent.signal(SIGTERM)
        #expect(agent.wait(timeout: 10) == 0)
    }

    @Test func theUserUnitPassesSystemdAnalyzeVerify() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else {
            Issue.record("systemd-analyze is missing: install the 'systemd' package (scripts/packages.txt)")
            return
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../systemd/verify.sh").standardized.path
        let bindir = URL(fileURLWithPath: SnapsortBinary.path).deletingLastPathComponent().path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = [script, bindir]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(text)")
    }
}

/// `snapsort status --json --follow` as a bar runs it, its output read as it comes.
final class Follower {
    let process = Process()
    let out = Pipe()
    let err = Pipe()
    private(set) var text = ""
    private(set) var errorText = ""

    init(env: [String: String], recheckMs: Int) throws {
        process.executableURL = URL(fileURLWithPath: SnapsortBinary.path)
        process.arguments = ["status", "--json", "--follow"]
        process.environment = ProcessInfo.processInfo.environment.merging(env.merging(["SNAPSORT_FOLLOW_RECHECK_MS": "\(recheckMs)"]) { $1 }) { $1 }
        process.standardOutput = out
        process.standardError = err
        try process.run()
        for fd in [out.fileHandleForReading.fileDescriptor, err.fileHandleForReading.fileDescriptor] {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
    }

    /// The lines written on stderr so far (a recheck that fails, one that answers again).
    func errors() -> [Substring] {
        var buf = [UInt8](repeating: 0, count: 65536)
        let n = read(err.fileHandleForReading.fileDescriptor, &buf, buf.count)
        if n > 0 { errorText += String(decoding: buf[0..<n], as: UTF8.self) }
        return errorText.split(separator: "\n")
    }

    /// The lines printed so far.
    func lines() -> [Substring] {
        var buf = [UInt8](repeating: 0, count: 65536)
        let n = read(out.fileHandleForReading.fileDescriptor, &buf, buf.count)
        if n > 0 { text += String(decoding: buf[0..<n], as: UTF8.self) }
        return text.split(separator: "\n")
    }

    /// The agent's state in one line of the stream.
    static func state(_ line: Substring) -> String? { JSON.parse(String(line))?["agent"]?["state"]?.stringValue }

    func kill() { if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) } }
}
