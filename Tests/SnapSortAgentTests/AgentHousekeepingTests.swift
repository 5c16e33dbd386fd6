import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortAgent

/// The agent's parts beside its loop, on real folders, a real library and real inotify, on the
/// manual clock: `OutsideChanges` (the CLI's writes, the configuration, the library file) and
/// `BackupSchedule`.
@Suite struct AgentHousekeepingTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// A library in `dir/state`, and options on it (its configuration under `dir/config`).
    static func library(_ dir: TempDir) throws -> (AgentOptions, Library) {
        let env = Environment(variables: ["HOME": dir.path, "XDG_CONFIG_HOME": dir.at("config")], home: dir.path)
        let options = AgentOptions(dbPath: dir.at("state/library.sqlite3"), env: env)
        try FileSystem.makeDirectories(dir.at("state"), mode: 0o700)
        return (options, try Library(path: options.dbPath))
    }

    /// Reads the events on `outside`'s descriptor, waiting up to 2 s for them.
    static func read(_ outside: OutsideChanges, at t: Date) -> String? {
        _ = try? Poll.readable([outside.fd], timeoutMs: 2000)
        return outside.read(at: t)
    }

    /// Another connection's commit is looked at 0.1 s after its write, on the injected time, and
    /// is a change once; the agent's own writes through another connection (a backup) are not.
    @Test func anotherConnectionsWriteIsAChangeOnceItIsDue() throws {
        let dir = TempDir("snapsort-outside")
        let (o, library) = try Self.library(dir)
        let outside = try OutsideChanges(library: library, configuration: Configuration(), statusPath: dir.at("run/status.json"), options: o)
        #expect(outside.deadlines.isEmpty)
        let cli = try Library(path: o.dbPath)
        try cli.setAgentState("test", "1", at: Self.start)
        #expect(Self.read(outside, at: Self.start) == nil)
        #expect(outside.databaseCheckAt == Self.start.addingTimeInterval(0.1))
        #expect(outside.deadlines == [Self.start.addingTimeInterval(0.1)])
        #expect(!outside.takeDatabaseChange(at: Self.start.addingTimeInterval(0.05)))
        #expect(outside.takeDatabaseChange(at: Self.start.addingTimeInterval(0.1)))
        #expect(outside.databaseCheckAt == nil)
        // Written by the agent elsewhere: said so, it is no change from outside.
        try cli.setAgentState("test", "2", at: Self.start)
        outside.agentWroteElsewhere()
        _ = Self.read(outside, at: Self.start.addingTimeInterval(1))
        #expect(!outside.takeDatabaseChange(at: Self.start.addingTimeInterval(2)))
    }

    /// `snapsort.conf` written is read again 0.2 s later; a reload asked for is due at once; a
    /// configuration that did not change is no news.
    @Test func theConfigurationIsReadAgainWhenWrittenOrAsked() throws {
        let dir = TempDir("snapsort-outside")
        let (o, library) = try Self.library(dir)
        let outside = try OutsideChanges(library: library, configuration: Configuration(), statusPath: dir.at("run/status.json"), options: o)
        #expect(!outside.reloadDue(at: Self.start))
        dir.write("config/snapsort/snapsort.conf", Array("session_goal = 40\n".utf8))
        #expect(Self.read(outside, at: Self.start) == nil)
        #expect(!outside.reloadDue(at: Self.start.addingTimeInterval(0.1)))
        #expect(outside.reloadDue(at: Self.start.addingTimeInterval(0.2)))
        let changed = try #require(outside.reload())
        #expect(changed.old == Configuration())
        #expect(changed.new != Configuration() && outside.configuration == changed.new)
        #expect(!outside.reloadDue(at: Self.start.addingTimeInterval(1)))
        outside.reloadRequested = true
        #expect(outside.reloadDue(at: Self.start))
        #expect(outside.reload() == nil)
        #expect(!outside.reloadRequested)
    }

    /// The library file removed or replaced under the agent is a reason to stop.
    @Test func theLibraryFileRemovedOrReplacedIsAReasonToStop() throws {
        let dir = TempDir("snapsort-outside")
        let (o, library) = try Self.library(dir)
        let outside = try OutsideChanges(library: library, configuration: Configuration(), statusPath: dir.at("run/status.json"), options: o)
        #expect(outside.libraryGone() == nil)
        // `: > library.sqlite3` (issue 40): the same file, emptied.
        try FileDescriptor.open(o.dbPath, O_WRONLY | O_TRUNC | O_CLOEXEC).close()
        #expect(Self.read(outside, at: Self.start)?.hasSuffix("was emptied (0 bytes) while the agent ran") == true)
        #expect(rename(o.dbPath, o.dbPath + ".old") == 0)
        #expect(Self.read(outside, at: Self.start)?.hasSuffix("was removed while the agent ran") == true)
        dir.write("state/library.sqlite3", Array("not a library".utf8))
        #expect(outside.libraryGone()?.hasSuffix("was replaced by another file while the agent ran") == true)
    }

    /// A backup is written at start, then once every `backupInterval` on the injected time; an
    /// agent started again on the same library waits for the last backup to be old enough.
    @Test func backupsAreWrittenOncePerIntervalAcrossRestarts() throws {
        let dir = TempDir("snapsort-backup")
        let (base, library) = try Self.library(dir)
        var o = base
        o.backupInterval = 3600
        o.backupsKept = 2
        let backups = BackupSchedule(library: library, options: o, start: Self.start)
        #expect(backups.nextCheck == Self.start)
        #expect(try backups.runIfDue(at: Self.start))
        #expect(Backup.list(o.dbPath).count == 1)
        #expect(backups.nextCheck == Self.start.addingTimeInterval(3600))
        #expect(try !backups.runIfDue(at: Self.start.addingTimeInterval(1800)))
        #expect(Backup.list(o.dbPath).count == 1)
        // Started again half an hour later: the last backup is half an interval old.
        let restarted = BackupSchedule(library: library, options: o, start: Self.start.addingTimeInterval(1800))
        #expect(try !restarted.runIfDue(at: Self.start.addingTimeInterval(1800)))
        #expect(restarted.nextCheck == Self.start.addingTimeInterval(3600))
        #expect(try restarted.runIfDue(at: Self.start.addingTimeInterval(3600)))
        #expect(try restarted.runIfDue(at: Self.start.addingTimeInterval(7200)))
        // Two kept by generation, and the first of the week (and month) beside them (`Backup.retained`).
        #expect(Backup.list(o.dbPath).map(Backup.date) == [0, 3600, 7200].map { Self.start.addingTimeInterval($0) })
        #expect(restarted.nextCheck == Self.start.addingTimeInterval(10_800))
    }
}
