import Foundation
import SnapSortCore
import SnapSortSystem
import Synchronization

/// The agent's wait while its library is refused (`LibraryError.refused`: an emptied file, one
/// with no SnapSort schema, one holding far less than its backup — `Library+Refusal`) or damaged
/// (`LibraryError.corrupt`: a page SQLite's `quick_check` finds broken). It never
/// initialises the file and never exits for it (systemd restarted an agent that exited 1 every
/// 5 s): it holds the agent's lock, says `error` in the status file with the refusal as
/// `last_error` (every bar's ⚠, and the tray's: its item shows ⚠ with the refusal and the
/// backup commands; the page and the reminders do not start), and looks at the file again every
/// `checkInterval` on the injected clock, until the person decides — the file moved aside (a
/// new library is then made) or a backup put back (`snapsort backup restore`, with the agent
/// stopped) — or a signal stops it.
public final class LibraryWait: @unchecked Sendable {
    /// How often the library file is looked at again.
    public static let checkInterval: TimeInterval = 5
    private let options: AgentOptions
    private let wakeup: WakeupFD
    private let stopFlag = Atomic<Bool>(false)
    private var logger: Logger { options.logger }
    /// Where the status is written (as the agent would write it).
    public let statusPath: String
    /// The tray's item while the agent waits (nil with `tray = no`).
    public let tray: TrayAgentService?

    public init(_ options: AgentOptions) throws {
        self.options = options
        wakeup = try WakeupFD()
        let (config, _) = Configuration.load(options.env)
        statusPath = options.statusPath ?? config.statusFilePath(options.env, database: options.dbPath)
        tray =
            options.tray && config.tray
            ? TrayAgentService(
                enabled: true, address: options.env["DBUS_SESSION_BUS_ADDRESS"], dbPath: options.dbPath,
                page: .live(options.env, database: options.dbPath, logger: options.logger), deck: { "" }, logger: options.logger,
                waitingForLibrary: true)
            : nil
    }

    /// Whether the agent must wait for this error of its library rather than start: the
    /// library is refused or damaged (the person decides: a backup put back, the file moved
    /// aside). Any other error (a folder that cannot be made, a newer schema) ends the agent.
    public static func waitsFor(_ e: LibraryError) -> Bool { e.code == .refused || e.code == .corrupt }

    /// Whether the library at `dbPath` is refused or damaged now: the error, else nil (the
    /// library opens; a missing file is then made, as an agent's start makes it).
    /// `checkIntegrity`: read every page, as the agent's start does (`Library.init`).
    public static func refusal(_ dbPath: String, checkIntegrity: Bool = false) throws -> LibraryError? {
        do {
            _ = try Library(path: dbPath, checkIntegrity: checkIntegrity)
            return nil
        } catch let e as LibraryError where waitsFor(e) {
            return e
        }
    }

    /// What the library's files are on disk (identity, size, change time of the file and its
    /// `-wal`): a damaged library is read whole again only when it changed.
    static func fingerprint(_ dbPath: String) -> [Int64] {
        [dbPath, dbPath + "-wal"].flatMap { path -> [Int64] in
            guard let s = FileSystem.lstatusIfExists(path) else { return [-1] }
            return [Int64(bitPattern: s.device), Int64(bitPattern: s.inode), s.size, s.mtimeNanoseconds]
        }
    }

    /// Asks the wait to end (from any thread); the same as SIGTERM.
    public func requestStop() {
        stopFlag.store(true, ordering: .sequentiallyConsistent)
        wakeup.wake()
    }

    /// Wakes the wait so it re-reads the clock (tests that advance a manual clock).
    public func wake() { wakeup.wake() }

    /// Waits while the library is refused or damaged. Returns true when it may be opened now (the agent
    /// starts), false when stopped by a signal or `requestStop`. Throws
    /// `AgentError.alreadyRunning` when another agent holds the library.
    public func run(_ first: LibraryError) throws -> Bool {
        try FileSystem.makeDirectories(Agent.folder(of: options.dbPath), mode: 0o700)
        guard let lock = try FileLock.tryLock(Agent.lockPath(options.dbPath)) else {
            throw AgentError(.alreadyRunning, "another snapsort agent is already running for \(options.dbPath)")
        }
        defer { lock.unlock() }
        try? lock.setContents("pid=\(ProcessInfo.processInfo.processIdentifier)\nstatus_file=\(statusPath)\n")
        let signals = options.handleSignals ? try SignalFD([SignalNumber.terminate, SignalNumber.interrupt, SignalNumber.hangUp]) : nil
        var refusal = first
        logger.error(refusal.message)
        tray?.start(now: options.clock.now())
        defer { tray?.stop() }
        publish(refusal, ready: true)
        var nextCheck = options.clock.now().addingTimeInterval(Self.checkInterval)
        var seen = Self.fingerprint(options.dbPath)
        while true {
            let wait = nextCheck.timeIntervalSince(options.clock.now())
            var fds = [wakeup.fd] + (tray?.descriptors ?? [])
            if let signals { fds.append(signals.fd) }
            var ms = max(0, wait * 1000)
            if let w = options.notifier.watchdogInterval { ms = min(ms, w / 3 * 1000) }
            if let at = tray?.nextDeadline(now: options.clock.now()) { ms = min(ms, max(0, at.timeIntervalSince(options.clock.now()) * 1000)) }
            let ready = (try? Poll.readable(fds, timeoutMs: Int32(min(ms.rounded(.up), Double(Int32.max))))) ?? []
            if let tray {
                // As the agent's loop fires a service: when its bus is readable or its retry is due.
                let mine = ready.filter { tray.descriptors.contains($0) }
                let t = options.clock.now()
                if !mine.isEmpty || tray.nextDeadline(now: t).map({ $0 <= t }) == true { tray.fire(now: t, readable: mine) }
            }
            if let signals, ready.contains(signals.fd), signals.read().contains(where: { $0 != SignalNumber.hangUp }) {
                stopFlag.store(true, ordering: .sequentiallyConsistent)
            }
            if ready.contains(wakeup.fd) { wakeup.drain() }
            if options.notifier.watchdogInterval != nil { options.notifier.send("WATCHDOG=1") }
            if stopFlag.load(ordering: .sequentiallyConsistent) {
                logger.notice("agent stopped while waiting for the library")
                options.notifier.send("STOPPING=1\nSTATUS=Stopping")
                return false
            }
            let t = options.clock.now()
            guard t >= nextCheck else { continue }
            nextCheck = t.addingTimeInterval(Self.checkInterval)
            // A damaged library is read whole to be checked (`quick_check`, seconds for a
            // large one on a cold cache): only once it changed, not every few seconds.
            let now = Self.fingerprint(options.dbPath)
            if refusal.code == .corrupt, now == seen { continue }
            seen = now
            do {
                guard let still = try Self.refusal(options.dbPath, checkIntegrity: refusal.code == .corrupt) else {
                    logger.notice("the library can be used again; starting")
                    return true
                }
                if still.message != refusal.message {
                    refusal = still
                    logger.error(refusal.message)
                    publish(refusal, ready: false)
                }
            } catch {
                // Another problem (a damaged file, an unreadable folder): the agent's start says it.
                return true
            }
        }
    }

    /// The status file (`error`, the refusal as `last_error`) and the service manager's line.
    private func publish(_ refusal: LibraryError, ready: Bool) {
        let agent = StatusDocument.Agent(
            state: .error, pid: Int(ProcessInfo.processInfo.processIdentifier), lastError: PathName.display(refusal.message),
            lastErrorSeverity: "error")
        let doc = StatusDocument(updatedAt: options.clock.now(), agent: agent)
        tray?.statusChanged(doc, now: options.clock.now())
        do {
            try FileSystem.makeDirectories(Agent.folder(of: statusPath), mode: 0o700)
            try FileSystem.writeAtomically(statusPath, Array((doc.json.serialized(pretty: true) + "\n").utf8))
        } catch {
            logger.error("cannot write the status file", ["error": "\(error)"])
        }
        let line = AgentState.serviceLine(agent, roots: 0, holdReason: nil)
        options.notifier.send((ready ? "READY=1\n" : "") + "STATUS=\(line)")
    }
}
