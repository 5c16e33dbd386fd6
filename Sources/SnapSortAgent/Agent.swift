import Foundation
import SnapSortCore
import SnapSortSystem
import Synchronization

/// The long-running service: watches the roots, keeps the library current, publishes the
/// status file. Single-threaded: one loop blocks in `poll` on the inotify, signal and wakeup
/// descriptors with a timeout that is the next due timer; analysis threads run only inside a
/// reconcile, whose progress callback keeps serving events, signals and the watchdog.
///
/// The loop (this type: poll, timers, signals, services, configuration, backups) drives four
/// parts, each with one responsibility: `RootMonitor` (roots online and offline, the mount
/// table), `EventIngest` (inotify events into changes), `Reconciler` (changes into the library
/// through `LibraryUpdate`) and `StatusPublisher` (the status file, `STATUS=`, the tray).
public final class Agent: @unchecked Sendable {
    public let options: AgentOptions
    public let library: Library
    public private(set) var configuration: Configuration
    public var roots: [String] { monitor.roots }
    public var statusPath: String { publisher.path }
    var watcher: Watcher { monitor.watcher }
    let monitor: RootMonitor
    let events: EventIngest
    let reconciler: Reconciler
    let publisher: StatusPublisher
    private let meta: Inotify
    private var metaWatches: [Int32: String] = [:]
    private let wakeup: WakeupFD
    private var signals: SignalFD?
    private let lock: FileLock
    private var logger: Logger { options.logger }
    private var now: Date { options.clock.now() }

    private var pausedUntil: Date?
    private let stopFlag = Atomic<Bool>(false)
    private let reloadFromOutside = Atomic<Bool>(false)
    private var stopping = false
    private var reloadRequested = false
    private var dataVersion: Int64 = 0

    // Timers (on the injected clock), and the watchdog (on the monotonic clock).
    private var nextReconcile: Date
    private var nextDegradedCheck: Date
    private var nextBackupCheck: Date
    private var databaseCheckAt: Date?
    private var configCheckAt: Date?
    private var lastWatchdog = ContinuousClock.now

    /// The services in the loop (the page, the reminders, the tray, the models).
    let services: ServiceRunner

    private let countersBox = CounterBox()
    /// What the agent did so far (readable from any thread).
    public var counters: AgentCounters { countersBox.current }
    private let stateBox = Mutex(AgentState.starting.rawValue)
    /// The state in the status file last written ("watching" only when nothing is queued;
    /// "busy" otherwise), readable from any thread.
    public var currentState: String { stateBox.withLock { $0 } }

    /// The library file the agent opened: removed or replaced under it (a user starting over
    /// with `rm -rf ~/.local/state/snapsort`), the agent would go on writing to an unlinked
    /// file, process nothing and look alive to systemd's watchdog.
    private var libraryFile: FileStatus
    /// Why the agent stopped on its own (its exit code is then 1, and systemd restarts it).
    private var stoppedBecause: String?

    /// Takes the database lock, opens the library, and sets the watches. Throws
    /// `AgentError.alreadyRunning` when another agent holds the database.
    public init(_ options: AgentOptions) throws {
        self.options = options
        try FileSystem.makeDirectories(Agent.folder(of: options.dbPath), mode: 0o700)
        guard let lock = try FileLock.tryLock(Agent.lockPath(options.dbPath)) else {
            throw AgentError(.alreadyRunning, "another snapsort agent is already running for \(options.dbPath)")
        }
        self.lock = lock
        if options.handleSignals { signals = try SignalFD([SignalNumber.terminate, SignalNumber.interrupt, SignalNumber.hangUp]) }
        library = try Library(path: options.dbPath, checkIntegrity: true)
        let update = LibraryUpdate(library: library, steps: options.steps, clock: options.clock, logger: options.logger, regroup: options.regroup)
        let (config, problems) = Configuration.load(options.env)
        configuration = config
        for p in problems { options.logger.warning(p.description) }
        let statusPath = options.statusPath ?? config.statusFilePath(options.env, database: options.dbPath)
        // Where this agent writes its status, for `snapsort status` (an agent started with
        // --status-file elsewhere was reported as stopped).
        try? lock.setContents("pid=\(ProcessInfo.processInfo.processIdentifier)\nstatus_file=\(statusPath)\n")
        let watcher = try Watcher(
            rules: ExcludeRules(excludedPaths: config.excludes), budget: options.watchBudget, limit: options.watchLimit, logger: options.logger)
        meta = try Inotify()
        wakeup = try WakeupFD()
        let start = options.clock.now()
        nextReconcile = start.addingTimeInterval(TimeInterval(config.reconcileIntervalMinutes * 60))
        nextDegradedCheck = start.addingTimeInterval(options.degradedInterval)
        nextBackupCheck = start
        pausedUntil = try library.pausedUntil(now: start)
        dataVersion = try library.dataVersion()
        libraryFile = try FileSystem.status(options.dbPath)
        let counters = countersBox
        services = ServiceRunner(logger: options.logger)
        monitor = RootMonitor(
            roots: config.effectiveRoots(arguments: options.roots, env: options.env), watcher: watcher, logger: options.logger,
            checkInterval: options.offlineCheckInterval)
        events = EventIngest(monitor: monitor, options: options) { n, overflows in
            counters.update {
                $0.events += n
                $0.overflows += overflows
            }
        }
        publisher = StatusPublisher(path: statusPath, library: library, options: options) { state in
            counters.update {
                $0.statusWrites += 1
                if $0.statesWritten.last != state.rawValue { $0.statesWritten.append(state.rawValue) }
                // The newest only: an agent runs for months.
                if $0.statesWritten.count > 64 { $0.statesWritten.removeFirst($0.statesWritten.count - 64) }
            }
        }
        reconciler = Reconciler(
            library: library, update: update, options: options, monitor: monitor, ingest: events, publisher: publisher, counters: countersBox,
            facts: { fatalError("set below") })
        reconciler.facts = { [unowned self] in statusFacts() }
        reconciler.serve = { [unowned self] in serveFromInsideWork() }
        reconciler.reconciled = { [unowned self] in services.reconciled(now: now) }
        watchMeta()
        monitor.start(at: start)
        // What changed while the agent was down (forgotten paths included: every root is listed).
        reconciler.markFolders(monitor.roots)
        _ = monitor.takeReconcile()
        _ = try? library.takeForgottenPaths()
    }

    /// The lock file that keeps one agent per database.
    public static func lockPath(_ dbPath: String) -> String { LibraryFiles(database: dbPath).agentLock }

    /// Whether an agent is running on this database.
    public static func isRunning(dbPath: String) -> Bool { FileLock.isHeld(lockPath(dbPath)) }

    /// The status file of the agent running for `dbPath`, nil when none runs (or it did not say).
    public static func runningStatusPath(dbPath: String) -> String? {
        guard isRunning(dbPath: dbPath), let text = FileLock.contents(lockPath(dbPath)) else { return nil }
        let line = text.split(separator: "\n").first { $0.hasPrefix("status_file=") }
        return line.map { String($0.dropFirst("status_file=".count)) }.flatMap { $0.hasPrefix("/") ? $0 : nil }
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// How often the loop checks that the status file is still there.
    static var statusFileCheckInterval: TimeInterval { StatusPublisher.fileCheckInterval }

    /// Watches the database folder (to notice the CLI's writes) and the configuration folder.
    private func watchMeta() {
        let mask =
            Inotify.modify | Inotify.closeWrite | Inotify.movedTo | Inotify.create | Inotify.delete | Inotify.movedFrom | Inotify.deleteSelf
            | Inotify.onlyDir
        // The configuration folder may not exist yet (a fresh install): create it, so a
        // snapsort.conf written later is noticed without a SIGHUP.
        try? FileSystem.makeDirectories(Agent.folder(of: Configuration.path(options.env)), mode: 0o700)
        for dir in [Agent.folder(of: options.dbPath), Agent.folder(of: Configuration.path(options.env))] {
            if let wd = try? meta.addWatch(dir, mask: mask) {
                metaWatches[wd] = (metaWatches[wd].map { $0 + "\n" } ?? "") + dir
            }
        }
    }

    /// Asks the loop to stop (from any thread); the same as SIGTERM.
    public func requestStop() {
        stopFlag.store(true, ordering: .sequentiallyConsistent)
        wakeup.wake()
    }

    /// Wakes the loop so it re-reads the clock (tests that advance a manual clock).
    public func wake() { wakeup.wake() }

    /// What SIGHUP does, from another thread (tests run the agent without its signals).
    public func requestReload() {
        reloadFromOutside.store(true, ordering: .releasing)
        wakeup.wake()
    }

    private func checkLibraryFileIsThere() {
        let now = FileSystem.lstatusIfExists(options.dbPath)
        guard now?.device != libraryFile.device || now?.inode != libraryFile.inode else { return }
        let why = now == nil ? "was removed" : "was replaced by another file"
        stoppedBecause = "the library \(options.dbPath) \(why) while the agent ran"
        logger.error("\(stoppedBecause!); stopping (started again, the agent opens the library that is there now)")
        stop()
    }

    private func stop() {
        stopping = true
        reconciler.stopWork()
    }

    // MARK: The loop

    /// Runs until SIGTERM, SIGINT or `requestStop()`. Returns the exit code (0).
    public func run() throws -> Int32 {
        publisher.publish(.starting, facts: statusFacts())
        startServices()
        refreshStatus(force: true)
        options.notifier.send("READY=1\nSTATUS=\(statusLine())")
        logger.notice("agent ready", ["roots": "\(roots.count)", "watches": "\(watcher.count)", "status.file": statusPath])
        if watcher.isDegraded { noteDegraded() }
        while !stopping {
            let timeout = nextTimeoutMs()
            service(timeoutMs: timeout)
            if stopping { break }
            step()
        }
        publisher.publish(.stopping, facts: statusFacts())
        options.notifier.send("STOPPING=1\nSTATUS=Stopping")
        services.stop()
        publisher.writeStopped(statusFacts())
        lock.unlock()
        logger.notice("agent stopped")
        return stoppedBecause == nil ? 0 : 1
    }

    /// One pass over what is due: changes, timers, work, status.
    func step() {
        let t = now
        if reloadFromOutside.exchange(false, ordering: .acquiring) { reloadRequested = true }
        if reloadRequested || (configCheckAt.map { $0 <= t } ?? false) {
            if reloadRequested && watcher.isDegraded {
                // After 'sysctl fs.inotify.max_user_watches=…', as the message advises.
                // What landed in them while they were not watched is looked for now (it waited
                // for the hourly reconcile).
                reconciler.markFolders(watcher.unwatched)
                watcher.refreshBudget()
                watcher.retryUnwatched()
                noteDegraded()
            }
            reloadRequested = false
            configCheckAt = nil
            reloadConfiguration()
            // The roots' mounts looked at again (a SIGHUP after mounting a disk by hand).
            monitor.checkMounts(at: t)
        }
        if let at = databaseCheckAt, at <= t {
            databaseCheckAt = nil
            checkDatabase()
        }
        if let p = pausedUntil, p <= t {
            pausedUntil = nil
            logger.notice("pause ended")
            publisher.dirty = true
        }
        reconciler.apply(events.due(at: t), mayAnalyze: analysisMayRun)
        if t >= monitor.nextOfflineCheck { monitor.checkOffline(at: t) }
        if t >= nextReconcile {
            nextReconcile = t.addingTimeInterval(TimeInterval(configuration.reconcileIntervalMinutes * 60))
            watcher.retryUnwatched()
            monitor.rewatchAll()
            reconciler.fullListing = true
        }
        // Every folder watched again (the unwatched ones deleted, watches freed): the note goes.
        if publisher.isDegradedNoted && !watcher.isDegraded { noteDegraded() }
        if watcher.isDegraded && t >= nextDegradedCheck {
            nextDegradedCheck = t.addingTimeInterval(options.degradedInterval)
            reconciler.markFolders(watcher.unwatched)
            watcher.refreshBudget()
            watcher.retryUnwatched()
            noteDegraded()
        }
        takeFromMonitor()
        let mayWork = pausedUntil == nil && holdReason == nil && reconciler.mayRetry(at: t)
        if reconciler.hasWork && mayWork {
            reconciler.reconcile()
        } else if reconciler.groupingPending && mayWork {
            reconciler.groupAgain()
        }
        // A SIGTERM served inside the reconcile: stop now, not after a backup.
        if stopping { return }
        if !reconciler.hasWork && pausedUntil == nil && holdReason == nil && now >= nextBackupCheck {
            backupIfDue()
        }
        publisher.checkFileIsThere(at: t)
        refreshStatus()
        // Idle (for tests and benches) means: the status file says so and nothing is queued.
        let written = publisher.writtenState
        let idle = written == .watching && !reconciler.hasWork && !reconciler.groupingPending && events.isEmpty
        if idle { publisher.burst = nil }
        let shown = idle ? "watching" : written == .watching ? "busy" : (written ?? .starting).rawValue
        stateBox.withLock { $0 = shown }
    }

    /// The folders the root monitor wants reconciled, and its news for the status.
    private func takeFromMonitor() {
        reconciler.markFolders(monitor.takeReconcile())
        if monitor.takeChanged() { publisher.dirty = true }
    }

    /// Whether tier-2 services may run now: not paused, not held, not inside a reconcile.
    private var analysisMayRun: Bool { pausedUntil == nil && holdReason == nil && !reconciler.isWorking }

    /// Why a service holds analysis now (on battery), nil when none does.
    private var holdReason: String? { services.holdReason }

    /// Milliseconds until the next due timer (-1: none; the loop then waits for an event).
    private func nextTimeoutMs() -> Int32 {
        let t = now
        var deadlines: [Date] = [nextReconcile, publisher.dayEnds, publisher.nextFileCheck]
        if let d = events.nextDeadline { deadlines.append(d) }
        if watcher.isDegraded { deadlines.append(nextDegradedCheck) }
        if !monitor.offline.isEmpty { deadlines.append(monitor.nextOfflineCheck) }
        if let d = databaseCheckAt { deadlines.append(d) }
        if let d = configCheckAt { deadlines.append(d) }
        if let p = pausedUntil, p != .distantFuture { deadlines.append(p) }
        let held = holdReason != nil
        if pausedUntil == nil && !reconciler.hasWork && !held { deadlines.append(nextBackupCheck) }
        if (reconciler.hasWork || reconciler.groupingPending) && pausedUntil == nil && !held {
            deadlines.append(max(t, reconciler.retryAt ?? t))
        }
        deadlines += services.deadlines(now: t, analysisMayRun: analysisMayRun)
        var ms = deadlines.map { max(0, $0.timeIntervalSince(t) * 1000) }.min() ?? -1
        if let w = options.notifier.watchdogInterval {
            let next = (w / 3) - secondsSince(lastWatchdog)
            ms = min(ms < 0 ? .infinity : ms, max(0, next * 1000))
        }
        if ms < 0 { return -1 }
        return Int32(min(ms.rounded(.up), Double(Int32.max)))
    }

    /// The next midnight in the system's time zone (re-read: a laptop changes zones).
    static func nextLocalMidnight(after t: Date) -> Date {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = TimeZone.current
        return cal.nextDate(after: t, matching: DateComponents(hour: 0, minute: 0, second: 0), matchingPolicy: .nextTime)
            ?? t.addingTimeInterval(86_400)
    }

    private func secondsSince(_ i: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - i
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// Waits up to `timeoutMs` for events and handles them: signals, inotify, wakeups, the
    /// watchdog. Also called with 0 from inside a reconcile.
    func service(timeoutMs: Int32) {
        var fds = [watcher.inotify.fd, meta.fd, wakeup.fd]
        if let s = signals { fds.append(s.fd) }
        fds += services.descriptors
        let ready: [Int32]
        do {
            ready = try Poll.readable(fds, priority: monitor.mounts.map { [$0.fd] } ?? [], timeoutMs: timeoutMs)
        } catch {
            publisher.noteError("poll failed", error)
            ready = []
        }
        if let s = signals, ready.contains(s.fd) {
            for sig in s.read() {
                switch sig {
                case SignalNumber.hangUp:
                    logger.notice("SIGHUP: reloading the configuration")
                    reloadRequested = true
                default:
                    logger.notice("stopping on signal", ["signal": "\(sig)"])
                    stop()
                }
            }
        }
        if ready.contains(wakeup.fd) { wakeup.drain() }
        if stopFlag.load(ordering: .sequentiallyConsistent) { stop() }
        // Before the watch events: a root's `IN_UNMOUNT` then finds the table current.
        if let m = monitor.mounts, ready.contains(m.fd) { monitor.checkMounts(at: now) }
        if ready.contains(watcher.inotify.fd) {
            do { try events.read(at: now) } catch { publisher.noteError("cannot read inotify events", error) }
        }
        if ready.contains(meta.fd) { readMetaEvents() }
        runServices(ready)
        pingWatchdog()
    }

    /// Feeds one inotify event to the ingest (tests: an overflow).
    func ingest(_ e: Inotify.Event, at t: Date) { events.ingest(e, at: t) }

    // MARK: Services

    private func startServices() {
        let context = AgentServiceContext(
            library: library, configuration: configuration, dbPath: options.dbPath,
            env: options.env, clock: options.clock, logger: logger)
        services.start(options.services, context: context, now: now)
    }

    /// Fires each service whose deadline passed or whose descriptors are readable.
    private func runServices(_ ready: [Int32]) {
        guard !stopping else { return }
        let fired = services.fire(ready: ready, now: now, analysisMayRun: analysisMayRun)
        if fired.statusChanged { publisher.dirty = true }
        if fired.holdBegan { reconciler.stopWork() }
    }

    private func pingWatchdog() {
        guard let w = options.notifier.watchdogInterval, secondsSince(lastWatchdog) >= w / 3 else { return }
        lastWatchdog = ContinuousClock.now
        options.notifier.send("WATCHDOG=1")
    }

    /// Keeps serving the loop from inside a reconcile or a regroup: signals, events (so the
    /// queue does not overflow), the watchdog, a pause written by the CLI, the status.
    private func serveFromInsideWork() {
        service(timeoutMs: 0)
        if let at = databaseCheckAt, at <= now {
            databaseCheckAt = nil
            checkDatabase()
        }
        refreshStatus()
    }

    // MARK: The database and the configuration

    private func readMetaEvents() {
        guard let events = try? meta.read() else { return }
        let dbName = String(options.dbPath.split(separator: "/").last ?? "")
        let t = now
        for e in events {
            if e.has(Inotify.overflow) {
                databaseCheckAt = t
                continue
            }
            if e.name == dbName && (e.has(Inotify.delete) || e.has(Inotify.movedFrom) || e.has(Inotify.movedTo)) || e.has(Inotify.deleteSelf) {
                checkLibraryFileIsThere()
            } else if e.name == dbName || e.name == dbName + "-wal" {
                if databaseCheckAt == nil { databaseCheckAt = t.addingTimeInterval(0.1) }
            } else if e.name == "snapsort.conf", e.has(Inotify.closeWrite) || e.has(Inotify.movedTo) || e.has(Inotify.create) {
                configCheckAt = t.addingTimeInterval(0.2)
            }
        }
    }

    /// The CLI (or the review page) wrote to the database: reload the pause state and refresh
    /// the status. The data version changes only for commits by other connections.
    private func checkDatabase() {
        guard let v = try? library.dataVersion(), v != dataVersion else { return }
        dataVersion = v
        countersBox.update { $0.databaseChanges += 1 }
        services.databaseChanged(now: now)
        let was = pausedUntil
        pausedUntil = (try? library.pausedUntil(now: now)) ?? nil
        if was == nil && pausedUntil != nil { logger.notice("analysis paused") }
        if was != nil && pausedUntil == nil { logger.notice("analysis resumed") }
        if pausedUntil != nil { reconciler.stopWork() }
        reconciler.relistForgotten()
        publisher.dirty = true
    }

    private func reloadConfiguration() {
        let (config, problems) = Configuration.load(options.env)
        for p in problems { logger.warning(p.description) }
        countersBox.update { $0.configReloads += 1 }
        guard config != configuration else { return }
        let oldExcludes = configuration.excludes
        if config.statusFile != configuration.statusFile && options.statusPath == nil {
            // Bars follow the file the agent named in its lock at start: it stays where it is.
            logger.notice(
                "status_file changed in snapsort.conf: the agent keeps writing its status to \(statusPath) until it is restarted",
                ["status.file": statusPath])
        }
        configuration = config
        services.configurationChanged(config, now: now)
        watcher.rules = ExcludeRules(excludedPaths: config.excludes)
        // As a restart would: a newly excluded folder is no longer watched and its photos
        // leave the library at the reconcile that follows; a folder no longer excluded is
        // watched and its photos come in (a reload only changed the rules, and the excluded
        // folder kept being watched, its new photos added).
        for e in config.excludes where !oldExcludes.contains(e) { watcher.unwatch(e) }
        monitor.setRoots(config.effectiveRoots(arguments: options.roots, env: options.env), rewatch: config.excludes != oldExcludes, at: now)
        takeFromMonitor()
        nextReconcile = min(nextReconcile, now.addingTimeInterval(TimeInterval(config.reconcileIntervalMinutes * 60)))
        logger.notice("configuration reloaded", ["roots": "\(roots.count)"])
        publisher.dirty = true
    }

    // MARK: Backup

    private func backupIfDue() {
        let t = now
        let last = (try? library.agentState("last_backup_at")).flatMap { $0 }.flatMap(StatusTimestamp.date)
        if let last, t.timeIntervalSince(last) < options.backupInterval {
            nextBackupCheck = last.addingTimeInterval(options.backupInterval)
            return
        }
        do {
            let copy = try Backup.run(library, keep: options.backupsKept, now: t)
            try library.setAgentState("last_backup_at", StatusTimestamp.string(t), at: t)
            dataVersion = (try? library.dataVersion()) ?? dataVersion
            countersBox.update { $0.backups += 1 }
            // The copies there are now (at most `backupsKept`), not the most there may be.
            logger.info("database backed up", ["backup.path": copy, "backups.kept": "\(Backup.list(options.dbPath).count)"])
        } catch {
            publisher.noteError("database backup failed", error)
        }
        nextBackupCheck = t.addingTimeInterval(options.backupInterval)
    }

    // MARK: Status

    /// What the status shows of the loop and its parts.
    private func statusFacts() -> StatusPublisher.Facts {
        StatusPublisher.Facts(
            pausedUntil: pausedUntil, holdReason: holdReason, degraded: watcher.isDegraded, offlineRoots: monitor.offline.sorted(),
            pending: reconciler.pending, roots: roots.count, services: services.services, configuration: configuration)
    }

    /// Rebuilds the status document when something changed (`StatusPublisher.refresh`).
    func refreshStatus(force: Bool = false) {
        takeFromMonitor()
        publisher.refresh(force: force, statusFacts())
    }

    /// The watch-limit note, as the watcher stands now.
    private func noteDegraded() {
        publisher.noteDegraded(unwatched: watcher.isDegraded ? watcher.unwatched.count : nil, interval: options.degradedInterval)
    }

    /// The `STATUS=` line: "Analyzing 1 204 of 5 310 …", "Watching 12 431 photos in 3 folders".
    func statusLine() -> String { publisher.serviceLine(statusFacts()) }
}
