import Foundation
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
    /// The steps of `LibraryUpdate` each reconcile runs after its scan (the content checks and
    /// the regroup; the models' pair verification). `snapsort agent` runs all (`--no-models`:
    /// no models); the agent's own tests, the fast metrics alone unless they test a step.
    public var steps: LibraryUpdate.Steps = .all
    /// The regroup step (`LibraryUpdate.standardRegroup`). It calls the checkpoint it is given
    /// between its parts: the agent serves its loop there, and the checkpoint throws
    /// `Grouper.Cancelled` on SIGTERM, a pause or a hold; the agent then runs it again when
    /// analysis may run. Tests put in a slow or endless one.
    public var regroup: LibraryUpdate.Regroup = LibraryUpdate.standardRegroup
    /// Makes the services that run in the agent's loop (the review page, the reminders); called
    /// once at the start of `run()`, after the signals are blocked.
    public var services: @Sendable (AgentServiceContext) -> [AgentService] = { _ in [] }
    /// Whether the tray icon shows while the agent waits on a refused or damaged library
    /// (`LibraryWait`: no services run then, so the tray is not among `services`). `snapsort
    /// agent` sets it unless `--no-tray`; `tray = no` in snapsort.conf turns it off too.
    public var tray = false

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

/// A flag the analysis threads read to stop early.
final class CancelFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}

/// The agent's counters, shared by its parts and readable from any thread.
final class CounterBox: Sendable {
    private let value = Mutex(AgentCounters())
    func update(_ body: (inout AgentCounters) -> Void) { value.withLock { body(&$0) } }
    var current: AgentCounters { value.withLock { $0 } }

    /// The status file written with `state`.
    func statusWritten(_ state: AgentState) {
        update {
            $0.statusWrites += 1
            if $0.statesWritten.last != state.rawValue { $0.statesWritten.append(state.rawValue) }
            // The newest only: an agent runs for months.
            if $0.statesWritten.count > 64 { $0.statesWritten.removeFirst($0.statesWritten.count - 64) }
        }
    }
}
