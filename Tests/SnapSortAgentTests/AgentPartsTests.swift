import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Synchronization
import Testing

@testable import SnapSortAgent

/// The agent's parts on their own, on real folders and a real library, on the manual clock:
/// `RootMonitor`, `EventIngest`, `StatusPublisher` (the loop's tests are `AgentWatchTests`).
@Suite struct AgentPartsTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A root monitor of `roots`, started, looking for offline roots every 5 s.
    static func monitor(_ roots: [String], _ logs: LogCapture) throws -> RootMonitor {
        let monitor = RootMonitor(
            roots: roots, watcher: try Watcher(rules: ExcludeRules(), logger: logs.logger()), logger: logs.logger(), checkInterval: 5)
        monitor.start(at: start)
        return monitor
    }

    /// A root renamed away is offline (its watches dropped) from the event that said so, looked
    /// for every `checkInterval` on the injected time, and watched and reconciled once back.
    @Test func aRootMovedAwayIsOfflineUntilItIsBack() throws {
        let dir = TempDir("snapsort-parts")
        let root = dir.folder("Pictures")
        dir.folder("Pictures/2024")
        let logs = LogCapture()
        let monitor = try Self.monitor([root], logs)
        #expect(monitor.offline.isEmpty)
        #expect(monitor.watcher.isWatched(root + "/2024"))
        #expect(rename(root, dir.at("Elsewhere")) == 0)
        monitor.checkPaths([root], at: Self.start)
        #expect(monitor.offline == [root])
        #expect(monitor.takeChanged())
        #expect(!monitor.watcher.isWatched(root))
        #expect(monitor.nextOfflineCheck == Self.start.addingTimeInterval(5))
        // A file under it missing now is kept, not a removal.
        #expect(monitor.absentRoots().keepsMissing(root + "/2024/a.jpg"))
        // Not back yet: looked for again 5 s later.
        monitor.checkOffline(at: Self.start.addingTimeInterval(5))
        #expect(monitor.offline == [root])
        #expect(monitor.nextOfflineCheck == Self.start.addingTimeInterval(10))
        #expect(rename(dir.at("Elsewhere"), root) == 0)
        _ = monitor.takeReconcile()
        monitor.checkOffline(at: Self.start.addingTimeInterval(10))
        #expect(monitor.offline.isEmpty)
        #expect(monitor.takeReconcile() == [root])
        #expect(monitor.takeChanged())
        #expect(monitor.watcher.isWatched(root + "/2024"))
        #expect(monitor.nextOfflineCheck == .distantFuture)
        #expect(!monitor.absentRoots().keepsMissing(root + "/2024/a.jpg"))
    }

    /// New roots from a reloaded configuration are watched and reconciled, those gone are not
    /// watched; a new root that is not there is offline at once.
    @Test func newRootsAreWatchedAndReconciledAndMissingOnesOffline() throws {
        let dir = TempDir("snapsort-parts")
        let a = dir.folder("A")
        let b = dir.folder("B")
        let missing = dir.at("C")
        let logs = LogCapture()
        let monitor = try Self.monitor([a], logs)
        monitor.setRoots([b, missing], rewatch: false, at: Self.start)
        #expect(monitor.roots == [b, missing])
        #expect(!monitor.watcher.isWatched(a))
        #expect(monitor.watcher.isWatched(b))
        #expect(monitor.takeReconcile() == [b, missing])
        #expect(monitor.offline == [missing])
    }

    /// An overflowed queue: every root reconciled and walked for its watches, said once until
    /// a reconcile begins (a flood overflows again and again before it does).
    @Test func anOverflowIsSaidOnceUntilTheReconcileBegins() throws {
        let dir = TempDir("snapsort-parts")
        let root = dir.folder("Pictures")
        let logs = LogCapture()
        let monitor = try Self.monitor([root], logs)
        let overflows = Mutex(0)
        var options = AgentOptions(dbPath: dir.at("db"), env: Environment(variables: [:], home: dir.path))
        options.logger = logs.logger()
        let ingest = EventIngest(monitor: monitor, options: options) { _, n in overflows.withLock { $0 += n } }
        let overflow = Inotify.Event(wd: -1, mask: Inotify.overflow, cookie: 0, name: "")
        for _ in 0..<3 { ingest.ingest(overflow, at: Self.start) }
        #expect(overflows.withLock { $0 } == 3)
        #expect(monitor.takeReconcile() == [root])
        #expect(logs.messages.filter { $0.contains("overflowed") }.count == 1)
        ingest.reconcileStarted()
        ingest.ingest(overflow, at: Self.start)
        #expect(logs.messages.filter { $0.contains("overflowed") }.count == 2)
    }

    /// A written file is due after the debounce on the injected time, and a sidecar's write is
    /// its photo's.
    @Test func writesAreDebouncedAndASidecarIsItsPhotos() throws {
        let dir = TempDir("snapsort-parts")
        let root = dir.folder("Pictures")
        let logs = LogCapture()
        let monitor = try Self.monitor([root], logs)
        var options = AgentOptions(dbPath: dir.at("db"), env: Environment(variables: [:], home: dir.path))
        options.debounce = 1
        let ingest = EventIngest(monitor: monitor, options: options) { _, _ in }
        let wd = try #require(monitor.watcher.pathByWatch.first { $0.value == root }?.key)
        ingest.ingest(Inotify.Event(wd: wd, mask: Inotify.closeWrite, cookie: 0, name: "IMG_1.jpg"), at: Self.start)
        ingest.ingest(Inotify.Event(wd: wd, mask: Inotify.closeWrite, cookie: 0, name: "IMG_2.jpg.xmp"), at: Self.start)
        #expect(ingest.due(at: Self.start.addingTimeInterval(0.5)).isEmpty)
        let due = ingest.due(at: Self.start.addingTimeInterval(1))
        #expect(due.count == 2 && due.contains(.file(root + "/IMG_1.jpg")) && due.contains(.file(root + "/IMG_2.jpg")))
        #expect(ingest.isEmpty)
    }

    /// Work from idle is hidden for `quietWork` on the injected time, then shown; the file and
    /// systemd's `STATUS=` line say the same state.
    @Test func shortWorkIsHiddenAndTheFileAndStatusLineAgree() throws {
        let dir = TempDir("snapsort-parts")
        let (clock, time) = Clock.manual(Self.start)
        let lines = Mutex<[String]>([])
        var options = AgentOptions(dbPath: dir.at("library.sqlite3"), env: Environment(variables: [:], home: dir.path))
        options.clock = clock
        options.quietWork = 2
        options.notifier = Notifier(send: { m in lines.withLock { $0.append(m) } }, watchdogInterval: nil)
        let library = try Library(path: options.dbPath)
        let written = Mutex<[AgentState]>([])
        let publisher = StatusPublisher(path: dir.at("run/status.json"), library: library, options: options) { s in written.withLock { $0.append(s) }
        }
        let facts = StatusPublisher.Facts(
            pausedUntil: nil, holdReason: nil, degraded: false, offlineRoots: [], pending: 0, roots: 1, services: [],
            configuration: Configuration())
        publisher.publish(.watching, facts: facts)
        publisher.refresh(facts)
        publisher.publish(.analyzing, facts: facts)
        publisher.progress = (1, 4)
        publisher.refresh(facts)
        #expect(Set(written.withLock { $0 }) == [.watching])
        time.advance(3)
        publisher.refresh(facts)
        #expect(written.withLock { $0 }.last == .analyzing)
        let doc = try #require(JSON.parse(String(contentsOfFile: publisher.path, encoding: .utf8)))
        #expect(doc["agent"]?["state"]?.stringValue == "analyzing")
        #expect(doc["agent"]?["done"]?.intValue == 1)
        #expect(lines.withLock { $0 }.last == "STATUS=Analyzing 1 of 4 …")
        // The status file removed under it is written again at the next check.
        try FileManager.default.removeItem(atPath: publisher.path)
        publisher.checkFileIsThere(at: clock.now())
        publisher.refresh(facts)
        #expect(FileManager.default.fileExists(atPath: publisher.path))
    }
}
