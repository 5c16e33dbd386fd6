import Foundation
import Glibc
import SnapSortCore
import SnapSortTestSupport

@testable import SnapSortAgent

/// An agent running in-process on a temp library, on its own thread.
final class AgentHarness: @unchecked Sendable {
    let dir: TempDir
    let root: String
    let dbPath: String
    let statusPath: String
    let agent: Agent
    private let finished = DispatchSemaphore(value: 0)
    private(set) var exitCode: Int32?
    let logs = LogCapture()

    /// `reuse`: the folder of an earlier harness (a restart on the same library).
    init(reuse: TempDir? = nil, setup: (TempDir) -> Void = { _ in }, tweak: (inout AgentOptions) -> Void = { _ in }) throws {
        dir = reuse ?? TempDir("snapsort-agent")
        root = dir.folder("Pictures")
        dbPath = dir.at("state/library.sqlite3")
        statusPath = dir.at("run/snapsort/status.json")
        setup(dir)
        let env = Environment(variables: ["HOME": dir.path, "XDG_CONFIG_HOME": dir.at("config"), "XDG_RUNTIME_DIR": dir.at("run")], home: dir.path)
        var o = AgentOptions(dbPath: dbPath, env: env)
        o.roots = [root]
        o.statusPath = statusPath
        o.debounce = 0.05
        o.moveTimeout = 0.2
        o.workers = 2
        o.handleSignals = false
        o.logger = logs.logger(label: "agent", level: .info)
        o.quietWork = 0  // every state shows at once (aShortBurstOfWorkDoesNotFlickerTheBars sets it)
        // The fast metrics alone; the tests of the regroup step set it and their own regroup.
        o.steps = LibraryUpdate.Steps(groups: false, models: false)
        tweak(&o)
        agent = try Agent(o)
    }

    func start() {
        let t = Thread { [self] in
            exitCode = try? agent.run()
            finished.signal()
        }
        t.stackSize = 8 << 20
        t.start()
    }

    /// Stops the agent and waits for its loop to end.
    @discardableResult
    func stop() -> Bool {
        agent.requestStop()
        return finished.wait(timeout: .now() + 20) == .success
    }

    /// A second connection for the test's own reads.
    func reader() throws -> Library { try Library(path: dbPath) }

    /// Live rows: path → (id, status).
    func live(_ lib: Library) throws -> [String: (id: Int64, status: String)] {
        var out: [String: (Int64, String)] = [:]
        for r in try lib.db.rows("SELECT path, id, status FROM files WHERE status != 'gone'") {
            out[r.string(0)!] = (r.int(1)!, r.string(2)!)
        }
        return out
    }

    /// The status file, parsed (nil when absent or not valid JSON).
    func status() -> JSON? {
        guard let text = try? String(contentsOfFile: statusPath, encoding: .utf8) else { return nil }
        return JSON.parse(text)
    }

    /// Waits until the agent is idle: watching, nothing queued.
    func waitIdle(timeout: TimeInterval = 20) -> Bool {
        waitUntil(timeout: timeout) { agent.isIdle }
    }
}

/// Writes a small JPEG (unique content per seed).
func photo(_ seed: UInt64, size: Int = 96) -> [UInt8] { Fixtures.jpeg(seed: seed, width: size, height: size * 3 / 4) }

/// Writes bytes to a path in chunks, keeping the file open between chunks until `finish`.
final class SlowWriter {
    let fd: Int32
    let bytes: [UInt8]
    var offset = 0
    init(_ path: String, _ bytes: [UInt8]) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        self.bytes = bytes
    }
    func write(_ n: Int) {
        let end = min(bytes.count, offset + n)
        bytes[offset..<end].withUnsafeBytes { _ = Glibc.write(fd, $0.baseAddress, $0.count) }
        offset = end
    }
    func finish() {
        write(bytes.count)
        close(fd)
    }
}
