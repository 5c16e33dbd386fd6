import Foundation
import Glibc
import SnapSortCore
import SnapSortSystem
import Synchronization

/// How an agent runs; every side effect is injectable for tests.
public struct AgentOptions: Sendable {
    public var dbPath: String
    public var env: Environment
    /// Folders to watch instead of the configured roots (command-line arguments).
    public var roots: [String] = []
    public var clock: Clock = .live
    public var logger: Logger = .silent
    public var notifier: Notifier = .silent
    public var providers: StatusProviders = .standard
    /// Overrides the status file path of the configuration.
    public var statusPath: String?
    /// How long a written file must stay quiet before it is analyzed.
    public var debounce: TimeInterval = 0.25
    /// How long an `IN_MOVED_FROM` waits for its `IN_MOVED_TO`.
    public var moveTimeout: TimeInterval = 0.5
    /// The most inotify watches to take (default: the system limit minus headroom).
    public var watchBudget: Int?
    /// Where the system's watch limit is read when `watchBudget` is nil (tests raise their own).
    public var watchLimit: @Sendable () -> Int? = { Inotify.maxUserWatches() }
    /// Analysis threads.
    public var workers = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
    /// How often unwatched folders are reconciled when the watch limit is hit.
    public var degradedInterval: TimeInterval = 600
    /// Work from idle shorter than this is not shown in the status (the bars stay "watching"
    /// while a photo or two is analyzed); longer work shows once it has lasted this long.
    public var quietWork: TimeInterval = 2
    /// How long a failed reconcile (a library locked by a long writer, a full disk) waits
    /// before its paths are tried again.
    public var reconcileRetry: TimeInterval = 15
    /// How often a root that is not there is looked for (a drive being mounted makes no inotify
    /// event, so the agent asks; a few `lstat`s).
    public var offlineCheckInterval: TimeInterval = 5
    /// How often the database is backed up, and how many backups are kept.
    public var backupInterval: TimeInterval = 86_400
    public var backupsKept = 3
    /// Whether SIGTERM, SIGINT and SIGHUP are handled (blocked and read from a signalfd).
    public var handleSignals = true
    /// Adds format handlers and settings to the agent's scanner (the CLI's `Extensions.configure`).
    public var configureScanner: @Sendable (LibraryScanner) -> Void = { _ in }
    /// Runs after each reconcile with the paths it covered (the CLI's `Extensions.afterScan`:
    /// the regroup). It calls the checkpoint it is given between its steps: the agent serves its
    /// loop there, and the checkpoint throws `Grouper.Cancelled` on SIGTERM, a pause or a hold;
    /// the agent then runs it again (with no paths) when analysis may run.
    public var afterReconcile: @Sendable (Library, [String], _ checkpoint: @escaping () throws -> Void) throws -> Void = { _, _, _ in }
    /// Makes the services that run in the agent's loop (the review page, the reminders); called
    /// once at the start of `run()`, after the signals are blocked.
    public var services: @Sendable (AgentServiceContext) -> [AgentService] = { _ in [] }

    public init(dbPath: String, env: Environment) {
        self.dbPath = dbPath
        self.env = env
    }
}

/// An error that stops the agent, with a message for one log line.
public struct AgentError: Error, CustomStringConvertible, Sendable {
    public enum Code: Sendable { case alreadyRunning, setup }
    public let code: Code
    public let description: String
    public init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }
}

/// Counters for tests and benchmarks.
public struct AgentCounters: Sendable, Equatable {
    public var events = 0
    public var overflows = 0
    public var reconciles = 0
    public var moves = 0
    public var removals = 0
    public var decodes = 0
    public var statusWrites = 0
    /// The states the status file said, one per write (consecutive repeats once; the newest 64).
    public var statesWritten: [String] = []
    public var backups = 0
    public var configReloads = 0
    public var databaseChanges = 0
    /// Folders listed, and skipped as unchanged, by reconciles.
    public var foldersListed = 0
    public var foldersSkipped = 0
    /// Reconciles put off because another process was scanning the library.
    public var deferredReconciles = 0
}

/// The long-running service: watches the roots, keeps the library current, publishes the
/// status file. Single-threaded: one loop blocks in `poll` on the inotify, signal and wakeup
/// descriptors with a timeout that is the next due timer; analysis threads run only inside a
/// reconcile, whose progress callback keeps serving events, signals and the watchdog.
public final class Agent: @unchecked Sendable {
    public let options: AgentOptions
    public let library: Library
    public private(set) var configuration: Configuration
    public private(set) var roots: [String] = []
    public let statusPath: String
    let watcher: Watcher
    private let meta: Inotify
    /// The mount table, polled for changes: a root's file system unmounted or mounted again
    /// makes no inotify event on the folder it is mounted on (nil when it cannot be opened; a
    /// root's return is then noticed by `offlineCheckInterval` alone).
    private let mounts: MountTable?
    private var metaWatches: [Int32: String] = [:]
    private let wakeup: WakeupFD
    private var signals: SignalFD?
    private let lock: FileLock
    private var tracker: ChangeTracker
    private var logger: Logger { options.logger }
    private var now: Date { options.clock.now() }

    // Work waiting for a reconcile.
    private var dirtyFiles: Set<String> = []
    private var dirtyFolders: Set<String> = []
    /// Folders whose watch is being renamed: cookie → old path (applied as soon as the TO arrives).
    private var folderMoves: [UInt32: String] = [:]
    /// The periodic safety reconcile lists every folder (file systems whose folder mtimes lie,
    /// network mounts); the others (at start, after an overflow) skip unchanged folders.
    private var fullListing = false

    // State.
    private var state = "starting"
    private var progress: (done: Int, total: Int)?
    private var lastError: String?
    private var pausedUntil: Date?
    private let stopFlag = Atomic<Bool>(false)
    private var stopping = false
    private var reloadRequested = false
    private var cancelScan = CancelFlag()
    /// Files analyzed by the reconciles since the agent was last idle (`progress` adds to it).
    private var burst: (done: Int, total: Int)?
    /// A regroup (`afterReconcile`) was stopped before it finished: it runs again when nothing
    /// else is queued and analysis may run.
    private var groupingPending = false
    private var statusDirty = true
    /// The local midnight after the status file was last rebuilt (`refreshStatus`).
    private var statusDayEnds = Date.distantPast
    /// When the loop next checks that the status file is still there.
    private var nextStatusFileCheck = Date.distantPast
    static let statusFileCheckInterval: TimeInterval = 10
    /// Whether the last write of the status file succeeded (one that fails is not retried every check).
    private var statusFileWritten = false
    private var lastStatusContent = ""
    private var lastPublishedContent = ""
    private var lastStatusLine = ""
    private var dataVersion: Int64 = 0
    private var lastWrittenState = ""

    // Timers (on the injected clock), and the watchdog (on the monotonic clock).
    private var nextReconcile: Date
    private var nextDegradedCheck: Date
    private var nextBackupCheck: Date
    private var databaseCheckAt: Date?
    private var configCheckAt: Date?
    private var lastWatchdog = ContinuousClock.now

    // Services in the loop, and when each last fired (a deadline that stays in the past after
    // firing must not spin the loop).
    private var services: [AgentService] = []
    private var servicesFiredAt: [Date?] = []

    private let countersBox = Mutex(AgentCounters())
    /// What the agent did so far (readable from any thread).
    public var counters: AgentCounters { countersBox.withLock { $0 } }
    private let stateBox = Mutex("starting")
    /// The state in the status file last written ("watching" only when nothing is queued;
    /// "busy" otherwise), readable from any thread.
    public var currentState: String { stateBox.withLock { $0 } }

    /// Takes the database lock, opens the library, and sets the watches. Throws
    /// `AgentError.alreadyRunning` when another agent holds the database.
    public init(_ options: AgentOptions) throws {
        self.options = options
        let dir = Agent.folder(of: options.dbPath)
        try FileSystem.makeDirectories(dir, mode: 0o700)
        guard let lock = try FileLock.tryLock(Agent.lockPath(options.dbPath)) else {
            throw AgentError(.alreadyRunning, "another snapsort agent is already running for \(options.dbPath)")
        }
        self.lock = lock
        if options.handleSignals { signals = try SignalFD([SIGTERM, SIGINT, SIGHUP]) }
        library = try Library(path: options.dbPath, checkIntegrity: true)
        let (config, problems) = Configuration.load(options.env)
        configuration = config
        for p in problems { options.logger.warning(p.description) }
        statusPath = options.statusPath ?? config.statusFilePath(options.env, database: options.dbPath)
        // Where this agent writes its status, for `snapsort status` (an agent started with
        // --status-file elsewhere was reported as stopped).
        try? lock.setContents("pid=\(getpid())\nstatus_file=\(statusPath)\n")
        tracker = ChangeTracker(debounce: options.debounce, moveTimeout: options.moveTimeout)
        watcher = try Watcher(
            rules: ExcludeRules(excludedPaths: config.excludes), budget: options.watchBudget, limit: options.watchLimit, logger: options.logger)
        meta = try Inotify()
        wakeup = try WakeupFD()
        do { mounts = try MountTable() } catch {
            options.logger.warning("cannot watch the mount table; a root's disk mounted again is noticed within a few seconds", ["error": "\(error)"])
            mounts = nil
        }
        let start = options.clock.now()
        nextReconcile = start.addingTimeInterval(TimeInterval(config.reconcileIntervalMinutes * 60))
        nextDegradedCheck = start.addingTimeInterval(options.degradedInterval)
        nextBackupCheck = start
        roots = config.effectiveRoots(arguments: options.roots, env: options.env)
        pausedUntil = try library.pausedUntil(now: start)
        dataVersion = try library.db.scalar("PRAGMA data_version") ?? 0
        libraryFile = try FileSystem.status(options.dbPath)
        watchMeta()
        for r in roots { watchRoot(r) }
        // What changed while the agent was down (forgotten paths included: every root is listed).
        dirtyFolders = Set(roots)
        _ = try? library.takeForgottenPaths()
        for r in roots where !Agent.isFolder(r) { rootWentOffline(r, at: start) }
    }

    /// Roots that are not there now: moved away, deleted, a drive not mounted. Looked for every
    /// `offlineCheckInterval`; watched and reconciled again once back.
    private var offlineRoots: Set<String> = []
    private var nextOfflineCheck = Date.distantFuture

    static func isFolder(_ path: String) -> Bool { FileSystem.lstatusIfExists(path)?.isDirectory == true }

    private func rootWentOffline(_ root: String, at t: Date) {
        offlineRoots.insert(root)
        nextOfflineCheck = min(nextOfflineCheck, t.addingTimeInterval(options.offlineCheckInterval))
        statusDirty = true
    }

    /// Each watched root's folder (device, inode) when its watch was set: the root's path must
    /// still lead there. A folder above a root renamed (`~/Photos` → `~/Old photos` for the
    /// root `~/Photos/Family`) sends the root no event of its own, and its watches went on
    /// reporting the new files under the old path, where no file is.
    /// `mount` is the mount holding it (`MountInfo.id` and `parentID`; nil without a mount
    /// table): a root that is itself a mount point (an SD card, a USB disk, a NAS share)
    /// unmounted leads to the bare folder it was mounted on, in the mount below, which is not
    /// the library's.
    private var rootIdentity: [String: (device: UInt64, inode: UInt64, mount: (id: Int, parentID: Int)?)] = [:]

    /// Roots offline because the file system holding them went (unmounted) while their path
    /// still leads to a folder (the bare mount point): where the path led then. Such a root is
    /// back when its path leads to another file system or mount (`isBack`).
    private var awayMounts: [String: (device: UInt64, mountID: Int?)] = [:]

    private func watchRoot(_ r: String) {
        watcher.watchTree(r)
        if let st = FileSystem.lstatusIfExists(r), st.isDirectory, watcher.isWatched(r) {
            rootIdentity[r] = (st.device, st.inode, mountHolding(r).map { ($0.id, $0.parentID) })
        } else {
            rootIdentity.removeValue(forKey: r)
        }
    }

    /// The mount holding the root `r` in the table as last read (its path resolved: the table
    /// names mount points by their real paths).
    private func mountHolding(_ r: String) -> MountInfo? {
        guard let mounts else { return nil }
        return mounts.mount(containing: (try? FileSystem.realPath(r)) ?? r)
    }

    /// Reads the mount table again (after `poll` said it changed, or before judging a root by
    /// it); one that cannot be read keeps the last table.
    private func reloadMounts() {
        do { try mounts?.reload() } catch { logger.debug("cannot read the mount table", ["error": "\(error)"]) }
    }

    /// The mount table changed (see proc(5): `/proc/self/mountinfo` is pollable), or a root's
    /// path leads to another device: each watched root whose file system went is offline (its
    /// watches dropped, its rows kept), one with another file system mounted on it or above it
    /// is watched and reconciled as it is now, and offline roots whose mount is back are
    /// watched and reconciled again.
    private func checkRootMounts(at t: Date) {
        reloadMounts()
        for r in roots where !offlineRoots.contains(r) {
            guard let id = rootIdentity[r] else { continue }
            guard let st = FileSystem.lstatusIfExists(r), st.isDirectory else {
                logger.notice("a root is not there any more (its disk unmounted?); it is offline until it comes back", ["root": r])
                takeOffline(r, at: t)
                continue
            }
            let current = mountHolding(r)
            if st.device == id.device && current?.id == id.mount?.id { continue }
            // Away: its mount left the table and the path leads to the mount below it (the bare
            // mount point). Otherwise something was mounted on the root or a folder above it, or
            // the disk was put back in before the agent looked (another mount of its own): the
            // path leads to that now. Without a mount table, another device is taken for away.
            let away: Bool
            if let m = id.mount, let mounts {
                away = !mounts.entries.contains { $0.id == m.id } && current?.id == m.parentID
            } else {
                away = st.device != id.device
            }
            if away {
                logger.notice("a root's disk was unmounted; it is offline until it is mounted again", ["root": r])
                takeOffline(r, at: t, away: (st.device, current?.id))
            } else {
                logger.notice("a root's path leads to another file system now (mounted on it or above it); watching that one", ["root": r])
                watcher.unwatch(r)
                watchRoot(r)
                dirtyFolders.insert(r)
            }
        }
        if !offlineRoots.isEmpty { checkOfflineRoots(at: t) }
    }

    /// Roots whose watch the kernel dropped (`IN_IGNORED` after `IN_UNMOUNT`) while they are
    /// online. A disk unmounted and mounted again before the agent looked, on the same device
    /// number and mount id (both are reused), seems unchanged to `checkRootMounts`, yet every
    /// watch on it is gone: it is watched and reconciled again, or offline when away.
    private func checkDroppedRoots(at t: Date) {
        let dropped = roots.filter { !offlineRoots.contains($0) && rootIdentity[$0] != nil && !watcher.isWatched($0) }
        guard !dropped.isEmpty else { return }
        checkRootMounts(at: t)
        for r in dropped where !offlineRoots.contains(r) && !watcher.isWatched(r) {
            logger.notice("a root's watches were dropped (its disk unmounted and mounted again?); watching it again", ["root": r])
            watcher.unwatch(r)
            watchRoot(r)
            dirtyFolders.insert(r)
        }
    }

    /// A root goes offline: its watches dropped, its rows kept (an event queued before is no
    /// removal, see `removed`), until `checkOfflineRoots` finds it back. `away`: where its path
    /// leads now, when that is a folder (the bare mount point).
    private func takeOffline(_ r: String, at t: Date, away: (device: UInt64, mountID: Int?)? = nil) {
        watcher.unwatch(r)
        rootIdentity.removeValue(forKey: r)
        if let away { awayMounts[r] = away } else { awayMounts.removeValue(forKey: r) }
        rootWentOffline(r, at: t)
    }

    /// Whether the offline root `r` leads to a folder of its own again: a folder at all, and,
    /// when its disk was unmounted, another device or mount than the bare mount point's.
    private func isBack(_ r: String) -> Bool {
        guard let st = FileSystem.lstatusIfExists(r), st.isDirectory else { return false }
        guard let away = awayMounts[r] else { return true }
        return st.device != away.device || mountHolding(r)?.id != away.mountID
    }

    /// The roots among `dirs` (folders that sent events) whose path no longer leads to the
    /// folder watched. Their events are not taken (they name paths where those files are not):
    /// a root whose path leads nowhere is offline, as if it had moved itself, until it leads to
    /// a folder again (`checkOfflineRoots`); one whose path leads to another folder (made
    /// anew there, or a file system whose inode numbers are not stable) is watched and
    /// reconciled as it is now.
    private func checkRootPaths(_ dirs: Set<String>, at t: Date) {
        for r in roots where !offlineRoots.contains(r) {
            guard let id = rootIdentity[r], dirs.contains(where: { $0 == r || $0.hasPrefix(r == "/" ? "/" : r + "/") }) else { continue }
            let st = FileSystem.lstatusIfExists(r)
            if let st, st.isDirectory, st.device == id.device, st.inode == id.inode { continue }
            if let st, st.isDirectory, st.device != id.device {
                // Another device: its disk unmounted (`IN_UNMOUNT`), or one mounted above it.
                checkRootMounts(at: t)
                continue
            }
            watcher.unwatch(r)
            rootIdentity.removeValue(forKey: r)
            if st?.isDirectory == true {
                logger.notice("a root's path leads to another folder now (a folder above it renamed or replaced); watching that one", ["root": r])
                watchRoot(r)
                dirtyFolders.insert(r)
            } else {
                logger.notice(
                    "a root's path no longer leads to the folder watched (a folder above it renamed?); it is offline until it leads to a folder again",
                    ["root": r])
                rootWentOffline(r, at: t)
            }
        }
    }

    /// Watches and reconciles the offline roots that are back.
    private func checkOfflineRoots(at t: Date) {
        offlineRoots.formIntersection(roots)
        awayMounts = awayMounts.filter { offlineRoots.contains($0.key) }
        if !awayMounts.isEmpty { reloadMounts() }
        for r in offlineRoots.sorted() where isBack(r) {
            offlineRoots.remove(r)
            awayMounts.removeValue(forKey: r)
            logger.notice("a root is back; watching it again", ["root": r])
            watchRoot(r)
            dirtyFolders.insert(r)
            statusDirty = true
        }
        nextOfflineCheck = offlineRoots.isEmpty ? .distantFuture : t.addingTimeInterval(options.offlineCheckInterval)
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

    private let reloadFromOutside = Atomic<Bool>(false)

    /// The library file the agent opened: removed or replaced under it (a user starting over
    /// with `rm -rf ~/.local/state/snapsort`), the agent would go on writing to an unlinked
    /// file, process nothing and look alive to systemd's watchdog.
    private var libraryFile: FileStatus
    /// Why the agent stopped on its own (its exit code is then 1, and systemd restarts it).
    private var stoppedBecause: String?

    private func checkLibraryFileIsThere() {
        let now = FileSystem.lstatusIfExists(options.dbPath)
        guard now?.device != libraryFile.device || now?.inode != libraryFile.inode else { return }
        let why = now == nil ? "was removed" : "was replaced by another file"
        stoppedBecause = "the library \(options.dbPath) \(why) while the agent ran"
        logger.error("\(stoppedBecause!); stopping (started again, the agent opens the library that is there now)")
        stopping = true
        cancelScan.set()
    }

    // MARK: The loop

    /// Runs until SIGTERM, SIGINT or `requestStop()`. Returns the exit code (0).
    public func run() throws -> Int32 {
        publish(state: "starting")
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
        publish(state: "stopping")
        options.notifier.send("STOPPING=1\nSTATUS=Stopping")
        for s in services { s.stop() }
        state = "stopped"
        publish(state: "stopped")
        writeStatus(stoppedDocument())
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
                dirtyFolders.formUnion(watcher.unwatched)
                watcher.refreshBudget()
                watcher.retryUnwatched()
                noteDegraded()
            }
            reloadRequested = false
            configCheckAt = nil
            reloadConfiguration()
            // The roots' mounts looked at again (a SIGHUP after mounting a disk by hand).
            checkRootMounts(at: t)
        }
        if let at = databaseCheckAt, at <= t {
            databaseCheckAt = nil
            checkDatabase()
        }
        if let p = pausedUntil, p <= t {
            pausedUntil = nil
            logger.notice("pause ended")
            statusDirty = true
        }
        apply(tracker.due(at: t))
        if t >= nextOfflineCheck { checkOfflineRoots(at: t) }
        if t >= nextReconcile {
            nextReconcile = t.addingTimeInterval(TimeInterval(configuration.reconcileIntervalMinutes * 60))
            watcher.retryUnwatched()
            for r in roots { watchRoot(r) }
            dirtyFolders.formUnion(roots)
            fullListing = true
        }
        // Every folder watched again (the unwatched ones deleted, watches freed): the note goes.
        if degradedNote != nil && !watcher.isDegraded { noteDegraded() }
        if watcher.isDegraded && t >= nextDegradedCheck {
            nextDegradedCheck = t.addingTimeInterval(options.degradedInterval)
            dirtyFolders.formUnion(watcher.unwatched)
            watcher.refreshBudget()
            watcher.retryUnwatched()
            noteDegraded()
        }
        if hasWork && pausedUntil == nil && holdReason == nil && (scanLockRetryAt ?? .distantPast) <= t {
            reconcile()
        } else if groupingPending && !hasWork && pausedUntil == nil && holdReason == nil && (scanLockRetryAt ?? .distantPast) <= t {
            groupAgain()
        }
        // A SIGTERM served inside the reconcile: stop now, not after a backup.
        if stopping { return }
        if !hasWork && pausedUntil == nil && holdReason == nil && now >= nextBackupCheck {
            backupIfDue()
        }
        if t >= nextStatusFileCheck {
            // The status file removed under us (its folder's `rm -rf`, a tmpfs cleaner): every bar
            // said "stopped" until the document next changed.
            nextStatusFileCheck = t.addingTimeInterval(Agent.statusFileCheckInterval)
            if statusFileWritten && !FileSystem.exists(statusPath) {
                logger.notice("the status file was gone; written again", ["status.file": statusPath])
                statusDirty = true
                lastStatusContent = ""
            }
        }
        refreshStatus()
        // Idle (for tests and benches) means: the status file says so and nothing is queued.
        let idle = lastWrittenState == "watching" && !hasWork && !groupingPending && tracker.isEmpty
        if idle { burst = nil }
        let shown = idle ? "watching" : lastWrittenState == "watching" ? "busy" : lastWrittenState
        stateBox.withLock { $0 = shown }
    }

    private var hasWork: Bool { !dirtyFiles.isEmpty || !dirtyFolders.isEmpty }
    /// While another process scans the library (`Library.scanLockPath`), when to try again.
    private var scanLockRetryAt: Date?
    /// An overflow was handled and its reconcile has not started yet.
    private var overflowPending = false
    /// Whether the last reconcile failed (its paths wait for `options.reconcileRetry`).
    private var reconcileFailing = false

    /// Whether tier-2 services may run now: not paused, not held, not inside a reconcile.
    private var analysisMayRun: Bool { pausedUntil == nil && holdReason == nil && !reconciling }
    private var reconciling = false

    /// Why a service holds analysis now (on battery), nil when none does.
    private var holdReason: String? { services.lazy.compactMap(\.holdReason).first }

    /// Milliseconds until the next due timer (-1: none; the loop then waits for an event).
    private func nextTimeoutMs() -> Int32 {
        let t = now
        var deadlines: [Date] = [nextReconcile, statusDayEnds, nextStatusFileCheck]
        if let d = tracker.nextDeadline { deadlines.append(d) }
        if watcher.isDegraded { deadlines.append(nextDegradedCheck) }
        if !offlineRoots.isEmpty { deadlines.append(nextOfflineCheck) }
        if let d = databaseCheckAt { deadlines.append(d) }
        if let d = configCheckAt { deadlines.append(d) }
        if let p = pausedUntil, p != .distantFuture { deadlines.append(p) }
        let held = holdReason != nil
        if pausedUntil == nil && !hasWork && !held { deadlines.append(nextBackupCheck) }
        if (hasWork || groupingPending) && pausedUntil == nil && !held { deadlines.append(max(t, scanLockRetryAt ?? t)) }
        for (i, s) in services.enumerated() {
            if s.isAnalysis && !analysisMayRun { continue }
            guard var d = s.nextDeadline(now: t) else { continue }
            if let fired = servicesFiredAt[i], d <= fired { d = fired.addingTimeInterval(1) }
            deadlines.append(d)
        }
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
        for s in services { fds += s.descriptors }
        let ready: [Int32]
        do {
            ready = try Poll.readable(fds, priority: mounts.map { [$0.fd] } ?? [], timeoutMs: timeoutMs)
        } catch {
            noteError("poll failed", error)
            ready = []
        }
        if let s = signals, ready.contains(s.fd) {
            for sig in s.read() {
                switch sig {
                case SIGHUP:
                    logger.notice("SIGHUP: reloading the configuration")
                    reloadRequested = true
                default:
                    logger.notice("stopping on signal", ["signal": "\(sig)"])
                    stopping = true
                    cancelScan.set()
                }
            }
        }
        if ready.contains(wakeup.fd) { wakeup.drain() }
        if stopFlag.load(ordering: .sequentiallyConsistent) {
            stopping = true
            cancelScan.set()
        }
        // Before the watch events: a root's `IN_UNMOUNT` then finds the table current.
        if let m = mounts, ready.contains(m.fd) { checkRootMounts(at: now) }
        if ready.contains(watcher.inotify.fd) { readWatchEvents() }
        if ready.contains(meta.fd) { readMetaEvents() }
        runServices(ready)
        pingWatchdog()
    }

    // MARK: Services

    private func startServices() {
        let context = AgentServiceContext(
            library: library, configuration: configuration, dbPath: options.dbPath,
            env: options.env, clock: options.clock, logger: logger)
        services = options.services(context)
        servicesFiredAt = Array(repeating: nil, count: services.count)
        let t = now
        for s in services {
            s.start(now: t)
            if let p = s.problem { logger.warning("\(s.name) not available", ["error": p]) }
        }
    }

    /// Fires each service whose deadline passed or whose descriptors are readable.
    private func runServices(_ ready: [Int32]) {
        guard !stopping else { return }
        let t = now
        for (i, s) in services.enumerated() {
            let mine = ready.filter { s.descriptors.contains($0) }
            if s.isAnalysis && !analysisMayRun && mine.isEmpty { continue }
            let due = s.nextDeadline(now: t).map { d in d <= t && servicesFiredAt[i].map { d > $0 || t.timeIntervalSince($0) >= 1 } ?? true } ?? false
            guard due || !mine.isEmpty else { continue }
            servicesFiredAt[i] = t
            let before = (s.problem, s.holdReason, s.nextDeadline(now: t))
            s.fire(now: t, readable: mine)
            // A service whose deadline moved (a reminder shown or snoozed: the next reminder)
            // or whose problem changed shows so in the document.
            if s.problem != before.0 || s.holdReason != before.1 || s.nextDeadline(now: t) != before.2 { statusDirty = true }
            if s.holdReason != nil && before.1 == nil { cancelScan.set() }
        }
    }

    private func pingWatchdog() {
        guard let w = options.notifier.watchdogInterval, secondsSince(lastWatchdog) >= w / 3 else { return }
        lastWatchdog = ContinuousClock.now
        options.notifier.send("WATCHDOG=1")
    }

    // MARK: Events

    private func readWatchEvents() {
        let events: [Inotify.Event]
        do { events = try watcher.inotify.read() } catch {
            noteError("cannot read inotify events", error)
            return
        }
        countersBox.withLock { $0.events += events.count }
        let t = now
        checkRootPaths(Set(events.compactMap { watcher.pathByWatch[$0.wd] }), at: t)
        for e in events { ingest(e, at: t) }
        if events.contains(where: { $0.has(Inotify.ignored) }) { checkDroppedRoots(at: t) }
    }

    /// Feeds one inotify event to the tracker (see man 7 inotify for the event kinds).
    func ingest(_ e: Inotify.Event, at t: Date) {
        if e.has(Inotify.overflow) {
            // The kernel queue overflowed: events were lost. A reconcile of everything replaces them.
            countersBox.withLock { $0.overflows += 1 }
            tracker.reset()
            folderMoves.removeAll()
            // A flood overflows again and again before the reconcile runs: said, and the trees
            // walked for their watches, once until then (28 lines a second, each a walk).
            guard !overflowPending else { return }
            overflowPending = true
            logger.warning("inotify queue overflowed; reconciling every root")
            for r in roots { watchRoot(r) }
            dirtyFolders.formUnion(roots)
            return
        }
        if e.has(Inotify.ignored) {
            watcher.dropped(e.wd)
            return
        }
        guard let dir = watcher.pathByWatch[e.wd] else { return }
        if e.name.isEmpty {
            // The watched folder itself moved away or was deleted.
            if e.has(Inotify.moveSelf) || e.has(Inotify.deleteSelf) {
                if roots.contains(dir) {
                    logger.notice("a root moved or was deleted; it is offline until it comes back", ["root": dir])
                    watcher.unwatch(dir)
                    dirtyFolders.insert(dir)
                    rootWentOffline(dir, at: t)
                }
            }
            return
        }
        let path = dir == "/" ? "/" + e.name : dir + "/" + e.name
        let isDir = e.isDirectory
        if !isDir, XMPSidecar.isSidecarName(e.name),
            e.has(Inotify.closeWrite) || e.has(Inotify.movedTo) || e.has(Inotify.movedFrom) || e.has(Inotify.delete) || e.has(Inotify.attrib)
        {
            // An XMP sidecar written, renamed or removed (a rating given in darktable or digiKam):
            // its photos are looked at again, and analyzed again if their sidecar changed.
            for photo in sidecarOwners(dir: dir, sidecar: e.name) { tracker.written(photo, at: t) }
            return
        }
        let excluded = isDir ? watcher.rules.skipsFolder(name: e.name, path: path) : !watcher.rules.isCandidateFile(name: e.name)
        if e.has(Inotify.movedFrom) {
            if isDir { folderMoves[e.cookie] = path }
            if !excluded { tracker.movedFrom(path, cookie: e.cookie, isDirectory: isDir, at: t) }
        } else if e.has(Inotify.movedTo) {
            if isDir, let from = folderMoves.removeValue(forKey: e.cookie) {
                // Re-path the watches now, so later events in this batch report the new path.
                if excluded { watcher.unwatch(from) } else { watcher.renamed(from: from, to: path) }
            }
            tracker.movedTo(excluded ? nil : path, cookie: e.cookie, isDirectory: isDir, at: t)
        } else if e.has(Inotify.closeWrite) {
            if !excluded { tracker.written(path, at: t) }
        } else if e.has(Inotify.attrib) {
            // Permissions, owner or times changed: a file is looked at again (unchanged ones
            // cost a stat; one that could not be read is read again), a folder listed again.
            if !excluded { if isDir { tracker.folderCreated(path) } else { tracker.written(path, at: t) } }
        } else if e.has(Inotify.create) {
            if isDir && !excluded { tracker.folderCreated(path) }
        } else if e.has(Inotify.delete) {
            if !excluded || isDir { tracker.deleted(path, isDirectory: isDir) }
        }
    }

    /// The candidate files of `dir` whose sidecar `sidecar` may be (`XMPSidecar.names`):
    /// `IMG_1.jpg` for `IMG_1.jpg.xmp` without listing the folder, and for `IMG_1.xmp` every
    /// `IMG_1.*` the folder holds.
    private func sidecarOwners(dir: String, sidecar: String) -> [String] {
        let base = String(sidecar.dropLast(4))
        func full(_ name: String) -> String { dir == "/" ? "/" + name : dir + "/" + name }
        if watcher.rules.isCandidateFile(name: base) { return [full(base)] }
        guard let entries = try? FileSystem.listDirectory(dir) else { return [] }
        return entries.compactMap { e in
            guard e.name != sidecar, watcher.rules.isCandidateFile(name: e.name),
                XMPSidecar.names(for: e.name).contains(sidecar)
            else { return nil }
            return full(e.name)
        }
    }

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
    /// the status. `PRAGMA data_version` changes only for commits by other connections.
    private func checkDatabase() {
        guard let v = try? library.db.scalar("PRAGMA data_version"), v != dataVersion else { return }
        dataVersion = v
        countersBox.withLock { $0.databaseChanges += 1 }
        for s in services { s.databaseChanged(now: now) }
        let was = pausedUntil
        pausedUntil = (try? library.pausedUntil(now: now)) ?? nil
        if was == nil && pausedUntil != nil { logger.notice("analysis paused") }
        if was != nil && pausedUntil == nil { logger.notice("analysis resumed") }
        if pausedUntil != nil { cancelScan.set() }
        relistForgotten()
        statusDirty = true
    }

    /// Folders and files `snapsort forget` dropped from the library: those under a watched root
    /// are listed again, as a `snapsort scan` would (their folders are watched and unchanged,
    /// so nothing else would bring their files back until the hourly reconcile).
    private func relistForgotten() {
        let forgotten: [String]
        do { forgotten = try library.takeForgottenPaths() } catch {
            logger.debug("cannot read the forgotten paths", ["error": "\(error)"])
            return
        }
        for f in forgotten {
            for r in roots where !offlineRoots.contains(r) {
                if r == f || r.hasPrefix(f == "/" ? "/" : f + "/") {
                    dirtyFolders.insert(r)
                } else if f.hasPrefix(r == "/" ? "/" : r + "/"), !watcher.isExcluded(f, roots: roots) {
                    guard let st = FileSystem.lstatusIfExists(f) else { continue }
                    if st.isDirectory {
                        let name = String(f[f.index(after: f.lastIndex(of: "/")!)...])
                        if !watcher.rules.skipsFolder(name: name, path: f) { dirtyFolders.insert(f) }
                    } else if st.isRegular {
                        dirtyFiles.insert(f)
                    }
                }
            }
        }
    }

    // MARK: Changes

    /// Applies due changes: moves and removals go straight to the database; writes and new
    /// folders wait for the next reconcile.
    func apply(_ changes: [Change]) {
        guard !changes.isEmpty else { return }
        let t = now
        for c in changes {
            do {
                switch c {
                case .file(let p):
                    if let st = FileSystem.lstatusIfExists(p), st.isRegular {
                        // While paused the status counts what waits (`pending`).
                        if dirtyFiles.insert(p).inserted && !analysisMayRun { statusDirty = true }
                    } else {
                        try removed(p)
                    }
                case .folder(let p):
                    guard FileSystem.lstatusIfExists(p)?.isDirectory == true else { continue }
                    watcher.watchTree(p)
                    if dirtyFolders.insert(p).inserted && !analysisMayRun { statusDirty = true }
                case .moved(let from, let to, let isDir):
                    countersBox.withLock { $0.moves += 1 }
                    if isDir {
                        try library.followFolderMove(from: from, to: to, now: t)
                        if !watcher.isWatched(to) { watcher.watchTree(to) }
                        // Listed again (a stat a file; nothing is decoded that moved along): a
                        // file written just before the rename was reported under the old name,
                        // which is not there any more (an importer filling a folder, then
                        // renaming it), and the moved rows' folder stamps were forgotten.
                        dirtyFolders.insert(to)
                    } else if try !library.followFileMove(from: from, to: to, now: t) {
                        dirtyFiles.insert(to)
                        try removed(from)
                    }
                    statusDirty = true
                case .removed(let p, let isDir):
                    if isDir { watcher.unwatch(p) }
                    try removed(p)
                case .deleted(let p, let isDir):
                    if isDir { watcher.unwatch(p) }
                    try removed(p, deleted: true)
                }
            } catch {
                noteError("cannot apply a change", error)
            }
        }
    }

    /// `deleted`: seen deleted, not moved away (see `Change.deleted`).
    private func removed(_ path: String, deleted: Bool = false) throws {
        // Under a root that is not there (moved away, unmounted), a missing file is offline
        // like its root, not deleted: an event queued before the root went is no removal.
        // With nested roots, any of them missing keeps it.
        // A root whose disk was unmounted is a folder still (the bare mount point): offline too.
        if roots.contains(where: { path.hasPrefix($0 + "/") && (offlineRoots.contains($0) || !Agent.isFolder($0)) }) { return }
        let n = try library.markMissingGone(at: path, now: now, deleted: deleted)
        if n > 0 {
            countersBox.withLock { $0.removals += n }
            statusDirty = true
        }
    }

    /// Reconciles what is dirty (disk against database) and analyzes what is new or changed.
    private func reconcile() {
        // A path under a dirty folder is covered by it; a missing path that is not a root is a
        // removal (the scanner would take it for an offline root).
        // Paths under a root whose disk is unmounted wait for it (the bare mount point is not
        // the library's folder); it is reconciled whole when it comes back.
        let (paths, missing) = Agent.pathsToReconcile(
            folders: dirtyFolders, files: dirtyFiles, roots: Set(roots), waiting: Set(awayMounts.keys),
            isFolder: Agent.isFolder, isFile: { FileSystem.lstatusIfExists($0)?.isRegular == true })
        for p in missing { try? removed(p) }
        guard !paths.isEmpty else {
            dirtyFiles.removeAll()
            dirtyFolders.removeAll()
            return
        }
        // One scan of a library at a time: a `snapsort scan` running now is waited for (what is
        // dirty stays dirty), checked again each second.
        guard let scanLock = takeScanLock() else {
            countersBox.withLock { $0.deferredReconciles += 1 }
            return
        }
        defer { scanLock.unlock() }
        dirtyFiles.removeAll()
        dirtyFolders.removeAll()
        overflowPending = false
        cancelScan = CancelFlag()
        let cancel = cancelScan
        let scanner = LibraryScanner(library: library, rules: watcher.rules, clock: options.clock, logger: logger, workers: options.workers)
        scanner.isCancelled = { cancel.isSet }
        scanner.roots = Set(roots)
        scanner.skipUnchangedFolders = !fullListing
        options.configureScanner(scanner)
        // Files arriving in batches (a copy of 500 files) are analyzed by several reconciles: the
        // count goes on from the earlier ones until the agent is idle, so a bar never goes back
        // (it went 173 of 214, then 9 of 265).
        let base = burst ?? (0, 0)
        var analyzedHere = 0
        progress = base
        reconciling = true
        defer {
            reconciling = false
            burst = (base.done + analyzedHere, base.total + analyzedHere)
        }
        publish(state: "scanning")
        refreshStatus()
        do {
            let summary = try scanner.scan(paths) { p in
                if p.phase == .analyzing {
                    analyzedHere = p.done
                    self.progress = (base.done + p.done, base.total + p.total)
                    self.publish(state: "analyzing")
                }
                self.serveFromInsideWork()
            }
            if reconcileFailing {
                // The library answers again: what was kept dirty is in, and the bar's error goes.
                reconcileFailing = false
                logger.notice("reconcile works again")
                if lastError?.hasPrefix("reconcile failed") == true { lastError = nil }
                statusDirty = true
            }
            countersBox.withLock {
                $0.reconciles += 1
                $0.decodes += summary.decodes
                $0.foldersListed += scanner.foldersListed
                $0.foldersSkipped += scanner.foldersSkipped
            }
            if !summary.cancelled { fullListing = false }
            // A root the scanner found unmounted (an empty folder on another device than its
            // rows were on: the agent started while the disk was out) is offline until its
            // disk is mounted again, not watched as the bare mount point.
            for r in summary.offlineRoots where roots.contains(r) && !offlineRoots.contains(r) {
                let st = FileSystem.lstatusIfExists(r)
                if let st, st.isDirectory {
                    logger.notice("a root looks unmounted; it is offline until its disk is mounted again", ["root": r])
                    takeOffline(r, at: now, away: (st.device, mountHolding(r)?.id))
                } else {
                    takeOffline(r, at: now)
                }
            }
            if summary.cancelled {
                // Nothing is lost: what was not analyzed is found again on the next reconcile.
                dirtyFolders.formUnion(paths.filter { FileSystem.lstatusIfExists($0)?.isDirectory == true })
                dirtyFiles.formUnion(paths.filter { FileSystem.lstatusIfExists($0)?.isRegular == true })
            }
            if summary.added + summary.changed + summary.moved + summary.gone + summary.reanalyzed + summary.touched > 0 {
                logger.info(
                    "reconciled",
                    [
                        "scan.added": "\(summary.added)", "scan.changed": "\(summary.changed)", "scan.moved": "\(summary.moved)",
                        "scan.gone": "\(summary.gone)", "scan.analyzed": "\(summary.analyzed)", "scan.touched": "\(summary.touched)",
                    ])
            }
            if !summary.cancelled {
                // A photo put back from the Trash by the file manager came back as a move of its
                // tombstone: its trash decision is cleared and the restore counted.
                // Not while a commit or restore runs (the page's, a terminal's): the loop never
                // waits on one; the next reconcile notices.
                let restored = try Trash.noticeRestores(library: library, clock: options.clock, waitForLock: false)
                if restored > 0 { logger.info("restores from the Trash noticed", ["trash.restored": "\(restored)"]) }
                // The new photos are in the library: say so now (done/total from the library);
                // grouping (OCR, QR codes) follows and the state turns "watching" after it.
                if summary.analyzed > 0 {
                    burst = (base.done + analyzedHere, base.total + analyzedHere)
                    progress = nil
                    statusDirty = true
                    refreshStatus()
                }
                group(paths)
                if summary.analyzed + summary.moved + summary.gone > 0 { for s in services { s.reconciled(now: now) } }
            }
        } catch {
            // A library locked by a long writer (a backup, an sqlite3 shell) or a disk full for a
            // moment: nothing is dropped. What was dirty stays dirty and is tried again in 15 s
            // (the events of a phone's sync were lost until the hourly reconcile).
            if !reconcileFailing { noteError("reconcile failed", error) }
            reconcileFailing = true
            dirtyFolders.formUnion(paths.filter { FileSystem.lstatusIfExists($0)?.isDirectory == true })
            dirtyFiles.formUnion(paths.filter { FileSystem.lstatusIfExists($0)?.isRegular == true })
            scanLockRetryAt = now.addingTimeInterval(options.reconcileRetry)
        }
        // The walk, the rows and the analysis buffers are freed now, but the heap keeps up to
        // 256 MB of free memory for a scan's next photo (`Memory.keepLargeBlocksInTheHeap`): at
        // 100 000 photos an agent waited at 105 MB after a reconcile that changed nothing, 44 MB
        // once trimmed.
        Memory.releaseFreeMemory()
        progress = nil
        publish(state: pausedUntil != nil || holdReason != nil ? "paused" : "watching")
        statusDirty = true
    }

    /// What a reconcile scans of the dirty `folders` and `files`: each that is there and not
    /// inside another one scanned (roots always: the scanner says when one is offline), the
    /// folders then the files, each in path order; and the paths no longer there (removals). Paths at or under a `waiting` root
    /// are neither.
    ///
    /// A path is looked up by its folders above (a set), not against every path taken: a backlog
    /// of 30 000 files written into one folder was compared pairwise — half a billion prefix
    /// tests, 22 s in which the status said "watching", pending 0.
    static func pathsToReconcile(
        folders: Set<String>, files: Set<String>, roots: Set<String>, waiting: Set<String>,
        isFolder: (String) -> Bool, isFile: (String) -> Bool
    ) -> (paths: [String], missing: [String]) {
        var taken: Set<String> = []
        var paths: [String] = []
        var missing: [String] = []
        func covered(_ p: String, by set: Set<String>) -> Bool {
            if set.contains(p) { return true }
            var i = p.endIndex
            while let slash = p[..<i].lastIndex(of: "/") {
                let above = slash == p.startIndex ? "/" : String(p[..<slash])
                if set.contains(above) { return true }
                if slash == p.startIndex { break }
                i = slash
            }
            return false
        }
        // Sorted, a folder comes before the folders inside it.
        for f in folders.sorted() where !covered(f, by: taken) && !covered(f, by: waiting) {
            if roots.contains(f) || isFolder(f) {
                taken.insert(f)
                paths.append(f)
            } else {
                missing.append(f)
            }
        }
        for f in files.sorted() where !covered(f, by: taken) && !covered(f, by: waiting) {
            if isFile(f) { paths.append(f) } else { missing.append(f) }
        }
        return (paths, missing)
    }

    /// Regroups after a reconcile (`afterReconcile`), serving the loop a few times a second
    /// from the regroup's checkpoints: a SIGTERM is honoured within a fraction of a second (a
    /// full regroup of 100 000 photos takes ~30 s), events are queued, the watchdog is pinged and
    /// the status says "grouping". Stopped by a stop, a pause or a hold, it runs again later.
    private func group(_ paths: [String]) {
        groupingPending = false
        let cancel = cancelScan
        let before = state
        var served = ContinuousClock.now
        // Said once the regroup has work (its first checkpoint): a reconcile that changed
        // nothing does not flash "grouping" in the bars.
        var announced = false
        defer { if announced { publish(state: before) } }
        do {
            try options.afterReconcile(library, paths) { [self] in
                if !announced {
                    announced = true
                    // Done and total from the library (a reconcile that analyzed nothing left
                    // its progress at 0 of 0).
                    progress = nil
                    publish(state: "grouping")
                    refreshStatus()
                }
                if ContinuousClock.now - served >= .milliseconds(200) {
                    served = ContinuousClock.now
                    serveFromInsideWork()
                }
                if cancel.isSet { throw Grouper.Cancelled() }
            }
        } catch is Grouper.Cancelled {
            groupingPending = true
            logger.info("grouping stopped before the end; it runs again when the agent may work")
        } catch {
            noteError("grouping failed", error)
        }
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

    /// The lock of one scan of the library at a time, or nil while another process holds it
    /// (tried again in a second) or it cannot be taken (in a minute).
    private func takeScanLock() -> FileLock? {
        do {
            guard let held = try FileLock.tryLock(library.scanLockPath) else {
                if scanLockRetryAt == nil { logger.info("another process is scanning the library; waiting for it") }
                scanLockRetryAt = now.addingTimeInterval(1)
                return nil
            }
            scanLockRetryAt = nil
            return held
        } catch {
            noteError("cannot take the scan lock", error)
            scanLockRetryAt = now.addingTimeInterval(60)
            return nil
        }
    }

    /// A regroup stopped earlier (`groupingPending`), run on its own under the scan lock.
    private func groupAgain() {
        guard let scanLock = takeScanLock() else { return }
        defer { scanLock.unlock() }
        cancelScan = CancelFlag()
        reconciling = true
        defer { reconciling = false }
        group([])
        Memory.releaseFreeMemory()
        publish(state: pausedUntil != nil || holdReason != nil ? "paused" : "watching")
        statusDirty = true
    }

    // MARK: Configuration

    private func reloadConfiguration() {
        let (config, problems) = Configuration.load(options.env)
        for p in problems { logger.warning(p.description) }
        countersBox.withLock { $0.configReloads += 1 }
        guard config != configuration else { return }
        let oldExcludes = configuration.excludes
        if config.statusFile != configuration.statusFile && options.statusPath == nil {
            // Bars follow the file the agent named in its lock at start: it stays where it is.
            logger.notice(
                "status_file changed in snapsort.conf: the agent keeps writing its status to \(statusPath) until it is restarted",
                ["status.file": statusPath])
        }
        configuration = config
        for s in services { s.configurationChanged(config, now: now) }
        watcher.rules = ExcludeRules(excludedPaths: config.excludes)
        let newRoots = config.effectiveRoots(arguments: options.roots, env: options.env)
        if config.excludes != oldExcludes {
            // As a restart would: a newly excluded folder is no longer watched and its photos
            // leave the library at the reconcile below; a folder no longer excluded is watched
            // and its photos come in (a reload only changed the rules, and the excluded folder
            // kept being watched, its new photos added).
            for e in config.excludes where !oldExcludes.contains(e) { watcher.unwatch(e) }
            for r in roots where newRoots.contains(r) { watchRoot(r) }
            dirtyFolders.formUnion(newRoots.filter { r in roots.contains(r) })
        }
        for r in roots where !newRoots.contains(r) { watcher.unwatch(r) }
        for r in newRoots where !roots.contains(r) {
            watchRoot(r)
            dirtyFolders.insert(r)
            if !Agent.isFolder(r) { rootWentOffline(r, at: now) }
        }
        roots = newRoots
        offlineRoots.formIntersection(roots)
        nextReconcile = min(nextReconcile, now.addingTimeInterval(TimeInterval(config.reconcileIntervalMinutes * 60)))
        logger.notice("configuration reloaded", ["roots": "\(roots.count)"])
        statusDirty = true
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
            dataVersion = (try? library.db.scalar("PRAGMA data_version")) ?? dataVersion
            countersBox.withLock { $0.backups += 1 }
            // The copies there are now (at most `backupsKept`), not the most there may be.
            logger.info("database backed up", ["backup.path": copy, "backups.kept": "\(Backup.list(options.dbPath).count)"])
        } catch {
            noteError("database backup failed", error)
        }
        nextBackupCheck = t.addingTimeInterval(options.backupInterval)
    }

    // MARK: Status

    private func publish(state s: String) {
        if state != s { statusDirty = true }
        if Agent.workStates.contains(s) {
            if busySince == nil {
                busySince = now
                idleBeforeWork = state == "watching" || state == "paused" ? (pausedUntil != nil || holdReason != nil ? "paused" : "watching") : nil
            }
        } else {
            busySince = nil
            idleBeforeWork = nil
        }
        state = s
    }

    static let workStates: Set<String> = ["scanning", "analyzing", "grouping"]
    /// When the agent left idle for work, and the idle state it left (nil: it was starting).
    private var busySince: Date?
    private var idleBeforeWork: String?

    private func noteError(_ message: String, _ error: Error) {
        logger.error(message, ["error": "\(error)"])
        lastError = "\(message): \(error)"
        statusDirty = true
    }

    /// The watch-limit note: its count kept current, and gone once every folder is watched
    /// (after the limit was raised and a SIGHUP, or watches freed).
    private func noteDegraded() {
        let wasNoted = lastError == degradedNote
        guard watcher.isDegraded else {
            if wasNoted {
                lastError = nil
                logger.notice("every folder is watched again")
            }
            degradedNote = nil
            statusDirty = true
            return
        }
        let msg =
            "inotify watch limit reached: \(watcher.unwatched.count) folder(s) are checked every \(Int(options.degradedInterval / 60)) min instead of watched; raise the limit with 'sudo sysctl fs.inotify.max_user_watches=524288' and send the agent SIGHUP (systemctl --user reload snapsort)"
        if msg != degradedNote { logger.warning(msg) }
        if lastError == nil || wasNoted { lastError = msg }
        degradedNote = msg
        statusDirty = true
    }
    private var degradedNote: String?

    private func agentPart() -> StatusDocument.Agent {
        let counts = (try? library.itemCounts()) ?? (total: 0, analyzed: 0)
        var shown = (state == "watching" || state == "starting") && (pausedUntil != nil || holdReason != nil) ? "paused" : state
        // A short burst of work from idle (a photo or two from a phone's sync) is not shown:
        // the bars went watching → scanning → analyzing → grouping → watching for each photo.
        // Work that lasts shows once it has lasted `quietWork`.
        if let since = busySince, let idle = idleBeforeWork, now.timeIntervalSince(since) < options.quietWork {
            shown = idle
            statusDirty = true  // looked at again while the work goes on
        }
        // While analyzing, the burst's count (see `reconcile`): between two of its batches the
        // library's count showed ("Analyzing 19 of 19", "212 of 212", "20 of 425"), and a
        // bar's count went back and forth.
        let busy = shown == "analyzing" || shown == "scanning"
        let (done, total) = progress.map { ($0.done, $0.total) } ?? (busy ? burst : nil) ?? (counts.analyzed, counts.total)
        let servicesProblem = services.lazy.compactMap { s in s.problem.map { "\(s.name): \($0)" } }.first
        return StatusDocument.Agent(
            state: shown, pid: Int(getpid()), done: done, total: total, degraded: watcher.isDegraded,
            // Names for people (a byte that is no UTF-8 as U+FFFD): written raw, the document
            // was no UTF-8 and `snapsort status` and every bar read the agent as stopped.
            lastError: (lastError ?? servicesProblem).map(PathName.display),
            // The watch limit is the system's, and every folder is still looked at (some every
            // few minutes): a warning, as a missing notification server is, not a red error.
            lastErrorSeverity: lastError != nil && lastError != degradedNote ? "error" : "warning",
            offlineRoots: offlineRoots.sorted().map(PathName.display), pending: dirtyFiles.count + dirtyFolders.count,
            // A timed pause's end (an open-ended one, until resumed, has none).
            pausedUntil: pausedUntil.flatMap { $0 < Date.distantFuture ? $0 : nil })
    }

    private func stoppedDocument() -> StatusDocument {
        var a = agentPart()
        a.state = "stopped"
        a.pid = nil
        let counts = (try? library.itemCounts()) ?? (total: 0, analyzed: 0)
        a.done = counts.analyzed
        a.total = counts.total
        return options.providers.document(agent: a, inputs: StatusInputs(library: library, configuration: configuration, now: now))
    }

    /// Rebuilds the document and rewrites the status file when its content changed; at local
    /// midnight too, when today's numbers (goal, cleared today) turn over.
    func refreshStatus(force: Bool = false) {
        guard statusDirty || force || progress != nil || now >= statusDayEnds else { return }
        statusDirty = false
        statusDayEnds = Agent.nextLocalMidnight(after: now)
        let doc = options.providers.document(
            agent: agentPart(), inputs: StatusInputs(library: library, configuration: configuration, now: now)
        ) { name, error in logger.warning("status provider failed", ["status.field": name, "error": "\(error)"]) }
        if doc.content != lastStatusContent || force {
            writeStatus(doc)
        }
        // The services that show the facts (the tray) hear of a change once, whether or not
        // the file could be written.
        if doc.content != lastPublishedContent {
            lastPublishedContent = doc.content
            for s in services { s.statusChanged(doc, now: now) }
        }
        let line = statusLine(doc)
        if line != lastStatusLine {
            lastStatusLine = line
            options.notifier.send("STATUS=\(line)")
        }
    }

    private func writeStatus(_ doc: StatusDocument) {
        do {
            try FileSystem.makeDirectories(Agent.folder(of: statusPath), mode: 0o700)
            try FileSystem.writeAtomically(statusPath, Array((doc.json.serialized(pretty: true) + "\n").utf8))
            countersBox.withLock {
                $0.statusWrites += 1
                if $0.statesWritten.last != doc.agent.state { $0.statesWritten.append(doc.agent.state) }
                // The newest only: an agent runs for months.
                if $0.statesWritten.count > 64 { $0.statesWritten.removeFirst($0.statesWritten.count - 64) }
            }
            lastWrittenState = doc.agent.state
            // Only a document on disk counts as written: one that failed (a full tmpfs, an
            // immutable file) is written again at the agent's next wake, where the bars kept
            // the old counts for good (review 8).
            lastStatusContent = doc.content
            if !statusFileWritten && statusWriteFailing { logger.notice("the status file is written again") }
            statusWriteFailing = false
            statusFileWritten = true
        } catch {
            statusFileWritten = false
            statusDirty = true
            if !statusWriteFailing { logger.error("cannot write the status file; trying again", ["error": "\(error)"]) }
            statusWriteFailing = true
        }
    }
    private var statusWriteFailing = false

    /// The `STATUS=` line: "Analyzing 1 204 of 5 310 …", "Watching 12 431 photos in 3 folders".
    func statusLine(_ doc: StatusDocument? = nil) -> String {
        let a = doc?.agent ?? agentPart()
        let n = StatusSummary.number
        var s: String
        switch a.state {
        case "analyzing": s = "Analyzing \(n(a.done)) of \(n(a.total)) …"
        case "scanning": s = "Checking folders …"
        case "grouping": s = "Grouping \(n(a.total)) photos …"
        case "starting": s = "Starting …"
        case "paused":
            s =
                (holdReason.map { "Paused \($0)" } ?? "Paused")
                + "; watching \(n(a.total)) photos in \(roots.count) library folder\(roots.count == 1 ? "" : "s")"
            if a.pending > 0 { s += "; \(n(a.pending)) change\(a.pending == 1 ? "" : "s") waiting" }
        default: s = "Watching \(n(a.total)) photos in \(roots.count) library folder\(roots.count == 1 ? "" : "s")"
        }
        if a.degraded { s += " (watch limit reached: some folders checked periodically)" }
        if !a.offlineRoots.isEmpty { s += " (\(a.offlineRoots.count) folder\(a.offlineRoots.count == 1 ? "" : "s") offline)" }
        return s
    }
}

/// A flag the analysis threads read to stop early.
final class CancelFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}
