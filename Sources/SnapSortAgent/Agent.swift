import Foundation
import SnapSortCore
import SnapSortSystem
import Synchronization

/// The long-running service: watches the roots, keeps the library current, publishes the
/// status file. Single-threaded: one loop blocks in `poll` on the inotify, signal and wakeup
/// descriptors with a timeout that is the next due timer; analysis threads run only inside a
/// reconcile, whose progress callback keeps serving events, signals and the watchdog.
///
/// The loop (this type: poll, timers, signals, services) drives parts, each with one
/// responsibility: `RootMonitor` (roots online and offline, the mount table), `EventIngest`
/// (inotify events into changes), `Reconciler` (changes into the library through
/// `LibraryUpdate`), `StatusPublisher` (the status file, `STATUS=`, the tray), `OutsideChanges`
/// (the CLI's database writes, the configuration, the library file) and `BackupSchedule`.
public final class Agent: @unchecked Sendable {
    public let options: AgentOptions
    public let library: Library
    public var configuration: Configuration { outside.configuration }
    public var roots: [String] { monitor.roots }
    public var statusPath: String { publisher.path }
    var watcher: Watcher { monitor.watcher }
    let monitor: RootMonitor
    let events: EventIngest
    let reconciler: Reconciler
    let publisher: StatusPublisher
    /// The CLI's writes to the database, the configuration, the library file.
    let outside: OutsideChanges
    /// The database's backups.
    let backups: BackupSchedule
    /// The services in the loop (the page, the reminders, the tray, the models).
    let services: ServiceRunner
    private let wakeup: WakeupFD
    private var signals: SignalFD?
    private let lock: FileLock
    private var logger: Logger { options.logger }
    private var now: Date { options.clock.now() }

    private var pausedUntil: Date?
    private let stopFlag = Atomic<Bool>(false)
    private let reloadFromOutside = Atomic<Bool>(false)
    private var stopping = false

    // Timers (on the injected clock), and the watchdog (on the monotonic clock).
    private var nextReconcile: Date
    private var nextDegradedCheck: Date
    private var lastWatchdog = ContinuousClock.now

    private let countersBox = CounterBox()
    /// What the agent did so far (readable from any thread).
    public var counters: AgentCounters { countersBox.current }
    private let stateBox = Mutex((state: AgentState.starting, idle: false))
    /// The state in the status file last written, readable from any thread.
    public var currentState: AgentState { stateBox.withLock { $0.state } }
    /// Whether the agent is idle: the status file says `watching` and nothing is queued (a
    /// short burst of work keeps the file at `watching`, `AgentOptions.quietWork`). Tests and
    /// benches wait for it; readable from any thread.
    public var isIdle: Bool { stateBox.withLock { $0.idle } }

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
        do {
            library = try Library(path: options.dbPath, checkIntegrity: true)
        } catch {
            // A refused or damaged library is waited for (`LibraryWait`), which takes the lock.
            lock.unlock()
            throw error
        }
        let update = LibraryUpdate(library: library, steps: options.steps, clock: options.clock, logger: options.logger, regroup: options.regroup)
        let (config, problems) = Configuration.load(options.env)
        for p in problems { options.logger.warning(p.description) }
        let statusPath = options.statusPath ?? config.statusFilePath(options.env, database: options.dbPath)
        // Where this agent writes its status, for `snapsort status` (an agent started with
        // --status-file elsewhere was reported as stopped).
        try? lock.setContents("pid=\(ProcessInfo.processInfo.processIdentifier)\nstatus_file=\(statusPath)\n")
        let watcher = try Watcher(
            rules: ExcludeRules(excludedPaths: config.excludes), budget: options.watchBudget, limit: options.watchLimit, logger: options.logger)
        outside = try OutsideChanges(library: library, configuration: config, statusPath: statusPath, options: options)
        wakeup = try WakeupFD()
        let start = options.clock.now()
        nextReconcile = start.addingTimeInterval(TimeInterval(config.reconcileIntervalMinutes * 60))
        nextDegradedCheck = start.addingTimeInterval(options.degradedInterval)
        backups = BackupSchedule(library: library, options: options, start: start)
        pausedUntil = try library.pausedUntil(now: start)
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
        publisher = StatusPublisher(path: statusPath, library: library, options: options, wrote: counters.statusWritten)
        reconciler = Reconciler(
            library: library, update: update, options: options, monitor: monitor, ingest: events, counters: countersBox)
        monitor.start(at: start)
        // What changed while the agent was down (forgotten paths included: every root is listed).
        reconciler.markFolders(monitor.roots)
        _ = monitor.takeReconcile()
        _ = try? library.takeForgottenPaths()
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

    /// The library file removed or replaced under the agent (`OutsideChanges.libraryGone`).
    private func stop(because why: String) {
        stoppedBecause = why
        logger.error("\(why); stopping (started again, the agent opens the library that is there now)")
        stop()
    }

    private func stop() {
        stopping = true
        reconciler.stopWork()
    }

    // MARK: The loop

    /// Runs until SIGTERM, SIGINT or `requestStop()`. Returns the exit code (0).
    public func run() throws -> Int32 {
        publisher.publish(.starting, facts: statusFacts)
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
        publisher.publish(.stopping, facts: statusFacts)
        options.notifier.send("STOPPING=1\nSTATUS=Stopping")
        services.stop()
        publisher.writeStopped(statusFacts)
        lock.unlock()
        logger.notice("agent stopped")
        return stoppedBecause == nil ? 0 : 1
    }

    /// One pass over what is due: changes, timers, work, status.
    func step() {
        let t = now
        if reloadFromOutside.exchange(false, ordering: .acquiring) { outside.reloadRequested = true }
        if outside.reloadDue(at: t) {
            // After 'sysctl fs.inotify.max_user_watches=…', as the message advises. What landed
            // in them while they were not watched is looked for now (it waited for the hourly
            // reconcile).
            if outside.reloadRequested && watcher.isDegraded { lookAtUnwatched() }
            reloadConfiguration()
            // The roots' mounts looked at again (a SIGHUP after mounting a disk by hand).
            monitor.checkMounts(at: t)
        }
        if outside.takeDatabaseChange(at: t) { databaseChanged() }
        if let p = pausedUntil, p <= t {
            pausedUntil = nil
            logger.notice("pause ended")
            publisher.dirty = true
        }
        reconciler.apply(events.due(at: t), mayAnalyze: analysisMayRun, report: workReported)
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
            lookAtUnwatched()
        }
        takeFromMonitor()
        let mayWork = pausedUntil == nil && holdReason == nil && reconciler.mayRetry(at: t)
        if mayWork && (reconciler.hasWork || reconciler.groupingPending) {
            // Not idle while it works, whatever the bars show (a test that saw a photo analyzed
            // must not read the last iteration's "watching" while its regroup still runs).
            stateBox.withLock { $0.idle = false }
            if reconciler.hasWork {
                reconciler.reconcile(serve: serveFromInsideWork, report: workReported)
            } else {
                reconciler.groupAgain(serve: serveFromInsideWork, report: workReported)
            }
        }
        // A SIGTERM served inside the reconcile: stop now, not after a backup.
        if stopping { return }
        if !reconciler.hasWork && pausedUntil == nil && holdReason == nil { backUpIfDue() }
        publisher.checkFileIsThere(at: t)
        refreshStatus()
        // Idle (for tests and benches) means: the status file says so and nothing is queued.
        let written = publisher.writtenState
        let idle = written == .watching && !reconciler.hasWork && !reconciler.groupingPending && events.isEmpty
        if idle { publisher.burst = nil }
        stateBox.withLock { $0 = (state: written ?? .starting, idle: idle) }
    }

    /// The folders not watched (the watch limit reached) reconciled, and watched when watches
    /// are free again.
    private func lookAtUnwatched() {
        reconciler.markFolders(watcher.unwatched)
        watcher.refreshBudget()
        watcher.retryUnwatched()
        noteDegraded()
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
        deadlines += outside.deadlines
        if let p = pausedUntil, p != .distantFuture { deadlines.append(p) }
        let held = holdReason != nil
        if pausedUntil == nil && !reconciler.hasWork && !held { deadlines.append(backups.nextCheck) }
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

    private func secondsSince(_ i: ContinuousClock.Instant) -> Double {
        (ContinuousClock.now - i).seconds
    }

    /// Waits up to `timeoutMs` for events and handles them: signals, inotify, wakeups, the
    /// watchdog. Also called with 0 from inside a reconcile.
    func service(timeoutMs: Int32) {
        var fds = [watcher.inotify.fd, outside.fd, wakeup.fd]
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
                    outside.reloadRequested = true
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
            if events.overflowPending { publisher.dirty = true }
        }
        if ready.contains(outside.fd), let why = outside.read(at: now) { stop(because: why) }
        runServices(ready)
        pingWatchdog()
    }

    /// Feeds one inotify event to the ingest (tests: an overflow).
    func ingest(_ e: Inotify.Event, at t: Date) {
        events.ingest(e, at: t)
        if events.overflowPending { publisher.dirty = true }
    }

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
    func serveFromInsideWork() {
        service(timeoutMs: 0)
        if outside.takeDatabaseChange(at: now) { databaseChanged() }
        refreshStatus()
    }

    /// What the reconciler's work says, turned into the status here only; a reconcile that
    /// changed the library is heard by the services.
    func workReported(_ report: WorkReport) {
        if case .libraryChanged = report { services.reconciled(now: now) }
        publisher.record(report, facts: statusFacts)
    }

    // MARK: The database and the configuration

    /// The CLI (or the review page) wrote to the database: reload the pause state and refresh
    /// the status.
    private func databaseChanged() {
        services.databaseChanged(now: now)
        // Counted once the services heard it: a test that waits for the count sees what they did.
        countersBox.update { $0.databaseChanges += 1 }
        let was = pausedUntil
        pausedUntil = (try? library.pausedUntil(now: now)) ?? nil
        if was == nil && pausedUntil != nil { logger.notice("analysis paused") }
        if was != nil && pausedUntil == nil { logger.notice("analysis resumed") }
        if pausedUntil != nil { reconciler.stopWork() }
        reconciler.relistForgotten()
        publisher.dirty = true
    }

    /// Reads the configuration again and applies what changed (as a restart would).
    private func reloadConfiguration() {
        let changed = outside.reload()
        countersBox.update { $0.configReloads += 1 }
        guard let (old, config) = changed else { return }
        services.configurationChanged(config, now: now)
        monitor.configurationChanged(from: old, to: config, roots: config.effectiveRoots(arguments: options.roots, env: options.env), at: now)
        takeFromMonitor()
        nextReconcile = min(nextReconcile, now.addingTimeInterval(TimeInterval(config.reconcileIntervalMinutes * 60)))
        logger.notice("configuration reloaded", ["roots": "\(roots.count)"])
        publisher.dirty = true
    }

    // MARK: Backup

    private func backUpIfDue() {
        do {
            guard try backups.runIfDue(at: now) else { return }
            outside.agentWroteElsewhere()
            countersBox.update { $0.backups += 1 }
        } catch {
            publisher.noteError("database backup failed", error)
        }
    }

    // MARK: Status

    /// What the status shows of the loop and its parts.
    var statusFacts: StatusPublisher.Facts {
        StatusPublisher.Facts(
            pausedUntil: pausedUntil, holdReason: holdReason, degraded: watcher.isDegraded, offlineRoots: monitor.offline.sorted(),
            pending: reconciler.pending, roots: roots.count, services: services.services, configuration: configuration,
            overflowed: events.overflowPending)
    }

    /// Rebuilds the status document when something changed (`StatusPublisher.refresh`).
    func refreshStatus(force: Bool = false) {
        takeFromMonitor()
        publisher.refresh(force: force, statusFacts)
    }

    /// The watch-limit note, as the watcher stands now.
    private func noteDegraded() {
        publisher.noteDegraded(unwatched: watcher.isDegraded ? watcher.unwatched.count : nil, interval: options.degradedInterval)
    }

    /// The `STATUS=` line: "Analyzing 1 204 of 5 310 …", "Watching 12 431 photos in 3 folders".
    func statusLine() -> String { publisher.serviceLine(statusFacts) }
}
