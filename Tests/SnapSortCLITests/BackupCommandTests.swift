import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Testing

/// Issue 40: an emptied library is refused by every command (never initialised over), and
/// `snapsort backup list` / `restore` bring the work back. In-process, on a real library.
@Suite struct BackupCommandTests {
    /// A scanned folder whose three photos are kept, and a backup of it made at 2027-01-15 08:00 UTC.
    static func decidedFolder() throws -> CLIFolder {
        let f = CLIFolder(photos: ["a.jpg": 1, "b.jpg": 2, "c.jpg": 3])
        #expect(try f.scan().status == 0)
        #expect(try f.run(["decide", "keep", f.photo("a.jpg"), f.photo("b.jpg"), f.photo("c.jpg")]).status == 0)
        try Backup.run(try Library(path: f.db), keep: 3, now: Date(timeIntervalSince1970: 1_800_000_000))
        return f
    }

    static let backupName = "lib.sqlite3.backup-20270115-080000"

    /// `: > lib.sqlite3` (truncated in place, as the shell does).
    static func empty(_ path: String) throws {
        let fd = try FileDescriptor.open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        fd.close()
    }

    static func decisions(_ db: String) throws -> Int64? {
        try Database(path: db, readOnly: true).scalar("SELECT count(*) FROM decisions")
    }

    /// Every command that opens the library stops on the emptied file with exit 1, naming the
    /// backup and the restore command, and leaves it empty; `backup restore` then brings the
    /// decisions back and keeps the emptied file aside.
    @Test func anEmptiedLibraryIsRefusedUntilABackupIsRestored() throws {
        let f = try Self.decidedFolder()
        try Self.empty(f.db)
        let commands = [
            ["scan", "--quiet", "--no-models", f.dir.at("Pictures")], ["stats"], ["groups"], ["report", "--jsonl"],
            ["decide", "keep", f.photo("a.jpg")], ["trash", "list"], ["info", f.photo("a.jpg")],
        ]
        for args in commands {
            let r = try f.run(args)
            #expect(r.status == 1, "\(args): \(r.status) \(r.stdout) \(r.stderr)")
            #expect(r.stderr.contains("is empty (0 bytes"), "\(args): \(r.stderr)")
            #expect(r.stderr.contains(Self.backupName) && r.stderr.contains("'snapsort backup restore'"), "\(args): \(r.stderr)")
            #expect(try FileSystem.status(f.db).size == 0, "\(args) wrote to the emptied library")
        }
        let restore = try f.run(["backup", "restore"])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.stdout.contains("Restored \(Self.backupName)") && restore.stdout.contains("3 decisions"), "\(restore.stdout)")
        let aside = try #require(FileSystem.listDirectory(f.dir.path).map(\.name).first { $0.hasPrefix("lib.sqlite3.before-restore-") })
        #expect(restore.stdout.contains(f.dir.at(aside)), "\(restore.stdout)")
        #expect(try FileSystem.status(f.dir.at(aside)).size == 0)
        #expect(try Self.decisions(f.db) == 3)
        #expect(try f.run(["stats"]).status == 0)
    }

    /// `backup list`: newest first, when made, files, decisions, whole or not, and the one
    /// restore takes; `--json` with the same facts.
    @Test func backupListSaysWhatEachBackupHolds() throws {
        let f = try Self.decidedFolder()
        let none = try CLIFolder().run(["backup", "list"])
        #expect(none.status == 0 && none.stdout.contains("No backup beside"), "\(none.stdout)")
        // A damaged one (its first page only), newer.
        f.dir.write("lib.sqlite3.backup-20270116-080000", Array(try FileSystem.readFile(f.dir.at(Self.backupName), limit: 1 << 26).prefix(4096)))
        let list = try f.run(["backup", "list"])
        #expect(list.status == 0, "\(list.stderr)")
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(list.stdout)")
        #expect(lines[1].contains("lib.sqlite3.backup-20270116-080000") && !lines[1].hasPrefix("*"), "\(lines)")
        #expect(!lines[1].contains("whole"), "\(lines[1])")
        #expect(lines[2].hasPrefix("* \(Self.backupName)") && lines[2].contains("3 files, 3 decisions") && lines[2].hasSuffix("whole"), "\(lines[2])")
        let json = try f.run(["backup", "list", "--json"])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let backups = try #require(doc["backups"] as? [[String: Any]])
        #expect(backups.count == 2)
        #expect(backups[1]["name"] as? String == Self.backupName)
        #expect(backups[1]["decisions"] as? Int == 3 && backups[1]["files"] as? Int == 3)
        #expect(backups[1]["integrity"] as? String == "ok" && backups[1]["restore_default"] as? Bool == true)
        #expect(backups[1]["made_at"] as? String == "2027-01-15T08:00:00Z")
        #expect((backups[0]["integrity"] as? String)?.isEmpty == false && backups[0]["integrity"] as? String != "ok")
    }

    /// While an agent holds the library, `backup restore` says so and changes nothing (it stops
    /// nothing unasked); a name that is no backup is an error too.
    @Test func restoreIsRefusedWhileAnAgentRuns() throws {
        let f = try Self.decidedFolder()
        let before = try FileSystem.readFile(f.db, limit: 1 << 26)
        let lock = try #require(try FileLock.tryLock(LibraryFiles(database: f.db).agentLock))
        try lock.setContents("pid=4242\n")
        let r = try f.run(["backup", "restore"])
        lock.unlock()
        #expect(r.status == 1 && r.stderr.contains("an agent is running") && r.stderr.contains("pid=4242"), "\(r.stderr)")
        #expect(try FileSystem.readFile(f.db, limit: 1 << 26) == before)
        #expect(try !FileSystem.listDirectory(f.dir.path).contains { $0.name.contains("before-restore") })
        let unknown = try f.run(["backup", "restore", "lib.sqlite3.backup-nope"])
        #expect(unknown.status == 1 && unknown.stderr.contains("is not one of the backups"), "\(unknown.stderr)")
        #expect(try f.run(["backup", "restore", Self.backupName]).status == 0)
    }
}
