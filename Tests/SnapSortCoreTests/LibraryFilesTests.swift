import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// The files kept for a library, named in one place (`LibraryFiles`): the ones beside the
/// database stay beside it, the runtime ones in the runtime folder, no two alike, and two
/// libraries share only the default library's files.
@Suite struct LibraryFilesTests {
    static let env = Environment(variables: ["HOME": "/home/u", "XDG_RUNTIME_DIR": "/run/user/1000"], home: "/home/u")

    @Test func everyFileOfALibraryHasItsOwnName() {
        let a = LibraryFiles(database: "/data/photos/library.sqlite3")
        let beside = [
            a.agentLock, a.scanLock, a.trashLock, a.webToken, a.backup(stamp: "20261202-103000"), a.partialBackup(stamp: "20261202-103000"),
        ]
        for p in beside { #expect(p.hasPrefix(a.database + ".") && (p as NSString).deletingLastPathComponent == a.folder, "\(p)") }
        let runtime = [
            a.webInfo(Self.env), a.status(Self.env), LibraryFiles.sharedWebInfo(Self.env), LibraryFiles.sharedStatus(Self.env),
            LibraryFiles.opener(Self.env, port: 8123),
        ]
        for p in runtime { #expect((p as NSString).deletingLastPathComponent == "/run/user/1000/snapsort", "\(p)") }
        #expect(Set(beside + runtime).count == beside.count + runtime.count)
        // Another library: its own files everywhere but in the shared ones.
        let b = LibraryFiles(database: "/data/other.sqlite3")
        #expect(a.key != b.key && a.key.count == 16)
        #expect(Set([a.webInfo(Self.env), a.status(Self.env)]).isDisjoint(with: [b.webInfo(Self.env), b.status(Self.env)]))
        // Without a runtime folder, the state folder.
        let noRuntime = Environment(variables: ["HOME": "/home/u"], home: "/home/u")
        #expect(LibraryFiles.runtimeFolder(noRuntime) == noRuntime.stateHome + "/snapsort")
    }

    /// The backups `Backup.list` finds are the ones named by `backup(stamp:)`; a partial one is
    /// not among them, nor another library's.
    @Test func theBackupsListedAreTheOnesNamedSo() throws {
        let dir = TempDir()
        let files = LibraryFiles(database: dir.at("lib.sqlite3"))
        dir.write("lib.sqlite3.backup-20261201-010000", [1])
        dir.write("lib.sqlite3.backup-20261202-010000", [1])
        dir.write("lib.sqlite3.backup-20261203-010000.partial", [1])
        dir.write("other.sqlite3.backup-20261202-010000", [1])
        #expect(Backup.list(files.database) == [files.backup(stamp: "20261201-010000"), files.backup(stamp: "20261202-010000")])
        #expect(!Backup.list(files.database).contains(files.partialBackup(stamp: "20261203-010000")))
    }
}
