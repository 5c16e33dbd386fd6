import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Synchronization
import Testing

@testable import SnapSortAgent

/// Issue 40: the agent never initialises an emptied library. It waits in state `error` (the
/// refusal as `last_error`, red and ⚠ in the bars) until the person decides, looking again on
/// the injected clock; a signal stops the wait.
@Suite struct LibraryWaitTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Options on `dir/state/library.sqlite3`, the status file in `dir/run`, on a manual clock.
    static func options(_ dir: TempDir, _ clock: Clock) -> AgentOptions {
        let env = Environment(variables: ["HOME": dir.path, "XDG_CONFIG_HOME": dir.at("config"), "XDG_RUNTIME_DIR": dir.at("run")], home: dir.path)
        var o = AgentOptions(dbPath: dir.at("state/library.sqlite3"), env: env)
        o.roots = [dir.folder("Pictures")]
        o.statusPath = dir.at("run/snapsort/status.json")
        o.handleSignals = false
        o.clock = clock
        return o
    }

    /// The status file's document, nil while there is none.
    static func status(_ o: AgentOptions) -> StatusDocument? {
        guard let bytes = try? FileSystem.readFile(o.statusPath!, limit: 1 << 20), let json = JSON.parse(String(decoding: bytes, as: UTF8.self))
        else { return nil }
        return StatusDocument(json: json)
    }

    /// What `LibraryWait.run` returned, once it has.
    final class Outcome: Sendable {
        private let box = Mutex<Bool?>(nil)
        var value: Bool? { box.withLock { $0 } }
        func set(_ v: Bool) { box.withLock { $0 = v } }
    }

    /// Runs `wait` on its own thread.
    static func start(_ wait: LibraryWait, _ refusal: LibraryError) -> Outcome {
        let outcome = Outcome()
        Thread { outcome.set((try? wait.run(refusal)) ?? false) }.start()
        return outcome
    }

    @Test func anEmptiedLibraryMakesTheAgentWaitInErrorUntilItIsMovedAside() throws {
        let dir = TempDir("snapsort-wait")
        let (clock, time) = Clock.manual(Self.start)
        let o = Self.options(dir, clock)
        do {
            let library = try Library(path: o.dbPath)
            try library.db.run("INSERT INTO review_events(ts, kind) VALUES(0, 'decision')")
            try Backup.run(library, keep: 3, now: Self.start)
        }
        try FileSystem.writeAtomically(o.dbPath, [], mode: 0o600)
        // The agent itself refuses it (it would have made a new library of it).
        #expect {
            _ = try Agent(o)
        } throws: { ($0 as? LibraryError)?.code == .refused }
        let refusal = try #require(try LibraryWait.refusal(o.dbPath))
        let wait = try LibraryWait(o)
        let box = Self.start(wait, refusal)
        let said = waitUntil(timeout: 10) {
            guard let doc = Self.status(o) else { return false }
            return doc.agent.state == .error && doc.agent.lastError?.contains("is empty (0 bytes") == true
                && doc.agent.lastError?.contains("snapsort backup restore") == true
        }
        #expect(said)
        let doc = try #require(Self.status(o))
        #expect(StatusFormat.polybar.render(doc).contains("⚠") && StatusSummary(doc).cssClass == "error")
        #expect(Agent.isRunning(dbPath: o.dbPath), "the waiting agent holds the library's lock")
        // Time passes: still refused, still empty.
        time.advance(LibraryWait.checkInterval + 1)
        wait.wake()
        #expect(!waitUntil(timeout: 0.5) { box.value != nil })
        #expect(try FileSystem.status(o.dbPath).size == 0)
        // The person moves the file aside: at the next look the wait ends, and the agent starts.
        try FileSystem.rename(o.dbPath, o.dbPath + ".old")
        time.advance(LibraryWait.checkInterval + 1)
        wait.wake()
        #expect(waitUntil(timeout: 10) { box.value == true })
        #expect(!Agent.isRunning(dbPath: o.dbPath))
        #expect(throws: Never.self) { _ = try Agent(o) }
    }

    /// Issue 40: the tray says ⚠ too while the agent waits — a panel with no bar showed nothing.
    @Test func theTrayShowsTheRefusalAndTheBackupCommandsWhileTheAgentWaits() throws {
        let dir = TempDir("snapsort-wait-tray")
        let bus = try TrayBus()
        try bus.startWatcher()
        let (clock, _) = Clock.manual(Self.start)
        var o = Self.options(dir, clock)
        o.env = Environment(variables: o.env.variables.merging(["DBUS_SESSION_BUS_ADDRESS": bus.address]) { $1 }, home: dir.path)
        o.tray = true
        do {
            let library = try Library(path: o.dbPath)
            try Backup.run(library, keep: 3, now: Self.start)
        }
        try FileSystem.writeAtomically(o.dbPath, [], mode: 0o600)
        let wait = try LibraryWait(o)
        let box = Self.start(wait, try #require(try LibraryWait.refusal(o.dbPath)))
        #expect(waitUntil(timeout: 10) { bus.events("registered").count == 1 })
        var props: [String: Any] = [:]
        // The item's facts are set once the status is published; read until they are.
        #expect(
            waitUntil(timeout: 10) {
                props = (try? bus.command("props", answer: "props")?["props"] as? [String: Any]) ?? [:]
                return props["Status"] as? String == "NeedsAttention"
            })
        #expect(props["IconName"] as? String == TrayIcon.name(.attention))
        let tip = (props["ToolTip"] as? [Any])?.last as? String ?? ""
        #expect(tip.contains("is empty (0 bytes") && tip.contains("snapsort backup restore"), "\(tip)")
        let layout = try #require(try bus.command("layout", answer: "layout"))
        let children = try #require((layout["root"] as? [String: Any])?["children"] as? [[String: Any]])
        let labels = children.compactMap { ($0["props"] as? [String: Any])?["label"] as? String }
        #expect(labels == ["The library cannot be used: see the tooltip", "The backups, to bring one back: snapsort backup list"])
        #expect(children.allSatisfy { ($0["props"] as? [String: Any])?["enabled"] as? Bool == false }, "nothing to open while the library waits")
        // A click opens nothing (there is no page) and the wait goes on: the item answers the
        // next call on the same connection only after it handled the click.
        try bus.command("activate")
        #expect(try bus.command("props", answer: "props")?["props"] != nil)
        #expect(box.value == nil)
        wait.requestStop()
        #expect(waitUntil(timeout: 10) { box.value == false })
        #expect(try FileSystem.status(o.dbPath).size == 0)
    }

    @Test func aStopEndsTheWait() throws {
        let dir = TempDir("snapsort-wait-stop")
        let (clock, _) = Clock.manual(Self.start)
        let o = Self.options(dir, clock)
        try FileSystem.makeDirectories(dir.at("state"), mode: 0o700)
        dir.write("state/library.sqlite3", [])
        let wait = try LibraryWait(o)
        let box = Self.start(wait, try #require(try LibraryWait.refusal(o.dbPath)))
        #expect(waitUntil(timeout: 10) { Agent.isRunning(dbPath: o.dbPath) })
        wait.requestStop()
        #expect(waitUntil(timeout: 10) { box.value == false })
        #expect(try FileSystem.status(o.dbPath).size == 0)
    }
}
