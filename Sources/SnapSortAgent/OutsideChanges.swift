import Foundation
import SnapSortCore
import SnapSortSystem

/// The agent's part that notices what other processes change beside it: the database written
/// by the CLI or the review page (its data version looked at 0.1 s after the write),
/// `snapsort.conf` written (read again 0.2 s after, or at the next step after a SIGHUP), and the
/// library file itself removed or replaced. One inotify on the database's folder and the
/// configuration's folder; the loop reacts to what is due.
final class OutsideChanges {
    private let inotify: Inotify
    private let library: Library
    private let options: AgentOptions
    /// The status file the agent writes (named in its lock at start).
    private let statusPath: String
    private var logger: Logger { options.logger }
    /// The library file the agent opened: removed or replaced under it (a user starting over
    /// with `rm -rf ~/.local/state/snapsort`), the agent would go on writing to an unlinked
    /// file, process nothing and look alive to systemd's watchdog.
    private let libraryFile: FileStatus
    private var dataVersion: Int64
    /// When the database is looked at for another connection's commits (nil: nothing written).
    private(set) var databaseCheckAt: Date?
    /// When `snapsort.conf` is read again (nil: not written).
    private(set) var configurationCheckAt: Date?
    /// A reload asked for (SIGHUP, `Agent.requestReload`): the configuration is read at the
    /// next step.
    var reloadRequested = false
    /// The configuration read last.
    private(set) var configuration: Configuration

    /// Watches the database's folder (to notice the CLI's writes) and the configuration's folder.
    init(library: Library, configuration: Configuration, statusPath: String, options: AgentOptions) throws {
        self.library = library
        self.statusPath = statusPath
        self.options = options
        self.configuration = configuration
        inotify = try Inotify()
        dataVersion = try library.dataVersion()
        libraryFile = try FileSystem.status(options.dbPath)
        let mask =
            Inotify.modify | Inotify.closeWrite | Inotify.movedTo | Inotify.create | Inotify.delete | Inotify.movedFrom | Inotify.deleteSelf
            | Inotify.onlyDir
        // The configuration folder may not exist yet (a fresh install): create it, so a
        // snapsort.conf written later is noticed without a SIGHUP.
        try? FileSystem.makeDirectories(Agent.folder(of: Configuration.path(options.env)), mode: 0o700)
        for dir in [Agent.folder(of: options.dbPath), Agent.folder(of: Configuration.path(options.env))] {
            _ = try? inotify.addWatch(dir, mask: mask)
        }
    }

    /// The descriptor the loop polls.
    var fd: Int32 { inotify.fd }

    /// When something is next looked at.
    var deadlines: [Date] { [databaseCheckAt, configurationCheckAt].compactMap { $0 } }

    /// Reads the events waiting and ingests them; see `ingest`.
    func read(at t: Date) -> String? {
        guard let events = try? inotify.read() else { return nil }
        return ingest(events, at: t)
    }

    /// Feeds the events of the two folders: a write to the database or the configuration is
    /// looked at shortly (an overflow: the database at once). Returns why the agent must stop
    /// when the library file was removed or replaced, nil otherwise.
    func ingest(_ events: [Inotify.Event], at t: Date) -> String? {
        let dbName = String(options.dbPath.split(separator: "/").last ?? "")
        var gone: String?
        for e in events {
            if e.has(Inotify.overflow) {
                databaseCheckAt = t
                continue
            }
            if e.name == dbName && (e.has(Inotify.delete) || e.has(Inotify.movedFrom) || e.has(Inotify.movedTo)) || e.has(Inotify.deleteSelf) {
                gone = libraryGone() ?? gone
            } else if e.name == dbName || e.name == dbName + "-wal" {
                // `: > library.sqlite3` under the agent: truncating is a write of the file.
                if e.name == dbName { gone = libraryGone() ?? gone }
                if databaseCheckAt == nil { databaseCheckAt = t.addingTimeInterval(0.1) }
            } else if e.name == "snapsort.conf", e.has(Inotify.closeWrite) || e.has(Inotify.movedTo) || e.has(Inotify.create) {
                configurationCheckAt = t.addingTimeInterval(0.2)
            }
        }
        return gone
    }

    /// Why the library file at the database's path is not the one opened, nil while it is: it
    /// was removed, replaced, or emptied (0 bytes: a library in WAL mode always has its header;
    /// started again, the agent waits for the person, `LibraryWait`).
    func libraryGone() -> String? {
        let st = FileSystem.lstatusIfExists(options.dbPath)
        if let st, st.device == libraryFile.device, st.inode == libraryFile.inode, st.size == 0 {
            return "the library \(options.dbPath) was emptied (0 bytes) while the agent ran"
        }
        guard st?.device != libraryFile.device || st?.inode != libraryFile.inode else { return nil }
        let why = st == nil ? "was removed" : "was replaced by another file"
        return "the library \(options.dbPath) \(why) while the agent ran"
    }

    /// Whether another connection committed to the database since the last look, once the look
    /// is due. The data version changes only for commits by other connections.
    func takeDatabaseChange(at t: Date) -> Bool {
        guard let at = databaseCheckAt, at <= t else { return false }
        databaseCheckAt = nil
        guard let v = try? library.dataVersion(), v != dataVersion else { return false }
        dataVersion = v
        return true
    }

    /// The agent wrote through another connection (a backup): not a change from outside.
    func agentWroteElsewhere() { dataVersion = (try? library.dataVersion()) ?? dataVersion }

    /// Whether the configuration is due to be read again (`reload`): asked for, or written.
    func reloadDue(at t: Date) -> Bool { reloadRequested || (configurationCheckAt.map { $0 <= t } ?? false) }

    /// Reads the configuration again (its problems logged); the new one when it differs from
    /// the last, nil when it does not.
    func reload() -> (old: Configuration, new: Configuration)? {
        reloadRequested = false
        configurationCheckAt = nil
        let (config, problems) = Configuration.load(options.env)
        for p in problems { logger.warning(p.description) }
        guard config != configuration else { return nil }
        if config.statusFile != configuration.statusFile && options.statusPath == nil {
            // Bars follow the file the agent named in its lock at start: it stays where it is.
            logger.notice(
                "status_file changed in snapsort.conf: the agent keeps writing its status to \(statusPath) until it is restarted",
                ["status.file": statusPath])
        }
        defer { configuration = config }
        return (configuration, config)
    }
}
