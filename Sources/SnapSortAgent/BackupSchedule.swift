import Foundation
import SnapSortCore
import SnapSortSystem

/// The agent's part that backs the database up (`Backup.run`) every `options.backupInterval`,
/// keeping `options.backupsKept` copies. The last backup's time is kept in the library
/// (`last_backup_at`): an agent started again backs up when the last copy is old enough, not
/// at each start.
final class BackupSchedule {
    private let library: Library
    private let options: AgentOptions
    private var logger: Logger { options.logger }
    /// When the schedule next looks whether a backup is due.
    private(set) var nextCheck: Date

    init(library: Library, options: AgentOptions, start: Date) {
        self.library = library
        self.options = options
        nextCheck = start
    }

    /// Backs the database up when the check is due and the last backup is `backupInterval` old.
    /// Returns whether a copy was written; one that fails throws, and is tried again after
    /// `backupInterval`.
    func runIfDue(at t: Date) throws -> Bool {
        guard t >= nextCheck else { return false }
        let last = (try? library.agentState("last_backup_at")).flatMap { $0 }.flatMap(StatusTimestamp.date)
        if let last, t.timeIntervalSince(last) < options.backupInterval {
            nextCheck = last.addingTimeInterval(options.backupInterval)
            return false
        }
        nextCheck = t.addingTimeInterval(options.backupInterval)
        let copy = try Backup.run(library, keep: options.backupsKept, now: t)
        try library.setAgentState("last_backup_at", StatusTimestamp.string(t), at: t)
        // The copies there are now (at most `backupsKept`), not the most there may be.
        logger.info("database backed up", ["backup.path": copy, "backups.kept": "\(Backup.list(options.dbPath).count)"])
        return true
    }
}
