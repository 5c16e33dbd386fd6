import Foundation
import Glibc
import SnapSortSystem
import SnapSortTestSupport
import Synchronization
import Testing

@testable import SnapSortCore

/// A trash test setup: a scanned library and a home trash in a temp XDG_DATA_HOME.
struct TrashSetup {
    let lib: TestLibrary
    let env: TrashEnvironment
    let clock: Clock
    var dataHome: String { lib.dir.at("share") }
    var homeTrash: String { dataHome + "/Trash" }

    init(_ names: [String], tz: TimeZone = ReviewFixture.utc) throws {
        lib = try ReviewFixture.scanned(names)
        let e = Environment(variables: ["HOME": lib.dir.path, "XDG_DATA_HOME": lib.dir.at("share")])
        env = TrashEnvironment(environment: e, timeZone: tz)
        clock = Clock.manual(ReviewFixture.date("2026-11-29 13:45:07")).0
    }

    func stage(_ name: String, root: String? = nil) throws -> Int64 {
        let item = try #require(try lib.library.item(path: (root ?? lib.root) + "/" + name))
        try Review.decide(.trash, fileID: item.id, library: lib.library, clock: clock)
        return item.id
    }

    func commit(_ env: TrashEnvironment? = nil) throws -> TrashReport {
        try Trash.commit(library: lib.library, clock: clock, env: env ?? self.env)
    }

    /// Runs a program; returns status and output.
    static func run(_ exe: String, _ args: [String], env: [String: String] = [:], cwd: String? = nil, stdin: String? = nil) throws
        -> (Int32, String)
    {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        var e = ProcessInfo.processInfo.environment
        for (k, v) in env { e[k] = v }
        p.environment = e
        if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        let out = Pipe(), inp = Pipe()
        p.standardOutput = out
        p.standardError = out
        p.standardInput = inp
        try p.run()
        if let stdin { inp.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? inp.fileHandleForWriting.close()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

/// A tmpfs mounted for one test (we run as root); unmounted when released.
final class TmpfsMount {
    let path: String
    private let holder: TempDir
    init?() {
        holder = TempDir("snapsort-tmpfs")
        path = holder.at("mnt")
        holder.folder("mnt")
        guard (try? TrashSetup.run("/bin/mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", path]))?.0 == 0 else { return nil }
    }
    deinit { _ = try? TrashSetup.run("/bin/umount", ["-l", path]) }
}

/// A bind mount of `source` at a new folder; unmounted when released.
final class BindMount {
    let path: String
    private let holder: TempDir
    init?(_ source: String) {
        holder = TempDir("snapsort-bind")
        path = holder.at("view")
        holder.folder("view")
        guard (try? TrashSetup.run("/bin/mount", ["--bind", source, path]))?.0 == 0 else { return nil }
    }
    deinit { _ = try? TrashSetup.run("/bin/umount", ["-l", path]) }
}

@Suite("Trash", .serialized)
struct TrashTests {
    @Test("mountinfo parsing: escapes, bind mounts told apart by mount point")
    func mountinfo() {
        let text = """
            27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
            90 27 254:0 /srv/photos /mnt/my\\040photos rw,relatime - ext4 /dev/vda rw
            91 27 0:50 / /media/usb ro,relatime - vfat /dev/sdb1 ro
            """
        let t = Mounts.parse(text)
        #expect(t.count == 3 && t[1].mountPoint == "/mnt/my photos" && t[1].root == "/srv/photos" && t[2].readOnly)
        #expect(t[0].device == t[1].device)
        #expect(Mounts.mount(containing: "/mnt/my photos/a.jpg", in: t)?.id == 90)
        #expect(Mounts.mount(containing: "/mnt/my photosX/a.jpg", in: t)?.id == 27)
        #expect(Mounts.mount(containing: "/media/usb", in: t)?.id == 91)
    }

    @Test("Path= is percent-encoded; DeletionDate is local time")
    func trashInfoFormat() {
        let text = TrashInfo.render(
            pathKey: "/home/u/Pictures/Été 2020/a#1.jpg", deletedAt: ReviewFixture.date("2026-03-29 01:30:05"),
            timeZone: TimeZone(identifier: "Europe/Berlin")!)
        #expect(text == "[Trash Info]\nPath=/home/u/Pictures/%C3%89t%C3%A9%202020/a%231.jpg\nDeletionDate=2026-03-29T03:30:05\n")
        #expect(TrashInfo.path(in: text) == "/home/u/Pictures/Été 2020/a#1.jpg")
    }

    /// The commit's last line: a verdict belongs to the file it was given to. A staged photo
    /// replaced at its path by another file with the same bytes (a new inode: a sync tool, a
    /// copy back from a backup) takes over the row, but the commit leaves it and it waits for a
    /// verdict again — it was never reviewed. Before, the same bytes at the row's inode passed.
    @Test("a staged photo replaced by another file of the same bytes is left, and waits again")
    func anotherFileUnderAStagedRowIsNotCommitted() throws {
        let s = try TrashSetup(["a.jpg", "b.jpg"])
        let clock = Clock.live
        let id = try s.stage("b.jpg")
        let path = s.lib.root + "/b.jpg"
        let bytes = try FileSystem.readFile(path, limit: 1 << 20)
        let before = try #require(FileIdentity.of(path))
        #expect(try Decks.awaitingReview(library: s.lib.library, clock: clock) == 1)
        try FileSystem.writeAtomically(path, bytes)
        #expect(FileIdentity.of(path)?.isSameFile(as: before) == false)
        let scan = try s.lib.scan()
        #expect(scan.touched == 1)
        #expect(try s.lib.library.item(path: path)?.id == id)
        #expect(try Trash.staged(library: s.lib.library).first?.changedSinceReview == true)
        #expect(try Decks.awaitingReview(library: s.lib.library, clock: clock) == 2)
        let report = try s.commit()
        #expect(report.succeeded.isEmpty)
        #expect(report.outcomes.first?.result == .skipped("changed since it was reviewed: review it again"))
        #expect(FileSystem.exists(path))
    }

    @Test("commit to the home trash: info first, rename, per-file report; trash-list reads it; restore refuses to overwrite")
    func homeTrash() throws {
        let s = try TrashSetup(["a b.jpg", "c.jpg"])
        let id = try s.stage("a b.jpg")
        let original = s.lib.root + "/a b.jpg"
        let report = try s.commit()
        #expect(
            report.outcomes == [
                TrashOutcome(
                    path: original, bytes: report.outcomes[0].bytes,
                    result: .trashed(s.homeTrash + "/files/a b.jpg"), isSidecar: false)
            ])
        #expect(!FileSystem.exists(original) && FileSystem.exists(s.homeTrash + "/files/a b.jpg"))
        let info = String(decoding: try FileSystem.readFile(s.homeTrash + "/info/a b.jpg.trashinfo", limit: 4096), as: UTF8.self)
        #expect(info == "[Trash Info]\nPath=\(TrashInfo.encode(original))\nDeletionDate=2026-11-29T13:45:07\n")
        #expect(try s.lib.library.item(id: id)?.status == .gone)
        #expect(try Trash.staged(library: s.lib.library).isEmpty)
        // Committing again trashes nothing twice.
        #expect(try s.commit().outcomes.isEmpty)
        let stats = try Stats.report(library: s.lib.library, clock: s.clock, timeZone: ReviewFixture.utc)
        // Moved to the Trash and waiting there; not cleared until the Trash is emptied (issue 43).
        #expect(stats.moved.total == report.bytes && stats.moved.today == report.bytes && stats.inTrashBytes == report.bytes)
        #expect(stats.cleared.total == 0)
        // Debian's trash-cli reads what we wrote.
        let (st, listed) = try TrashSetup.run("/usr/bin/trash-list", [], env: ["XDG_DATA_HOME": s.dataHome])
        #expect(st == 0 && listed.contains("2026-11-29 13:45:07 \(original)"), "\(listed)")
        // Never undone by undo.
        #expect(try Review.undo(library: s.lib.library, clock: s.clock) == nil)
        // Restore refuses to overwrite.
        s.lib.dir.write("Pictures/a b.jpg", [1, 2, 3])
        let refused = try Trash.restore(paths: [original], library: s.lib.library, clock: s.clock)
        #expect(refused.count == 1 && !refused[0].succeeded)
        #expect(try FileSystem.readFile(original, limit: 10) == [1, 2, 3])
        try FileSystem.remove(original)
        let restored = try Trash.restore(paths: [original], library: s.lib.library, clock: s.clock)
        #expect(restored.map(\.result) == [.restored])
        #expect(FileSystem.exists(original) && !FileSystem.exists(s.homeTrash + "/info/a b.jpg.trashinfo"))
        let item = try #require(try s.lib.library.item(path: original))
        #expect(item.id == id && item.status == .ok)
        #expect(try Review.decision(for: id, library: s.lib.library) == nil)
        let after = try Stats.report(library: s.lib.library, clock: s.clock, timeZone: ReviewFixture.utc)
        #expect(after.moved.total == 0 && after.cleared.total == 0 && after.inTrashBytes == 0)
    }

    @Test("a name that is not UTF-8 goes to the Trash under its bytes, Path= escapes them, and it comes back")
    func aLatin1NameGoesAndComesBack() throws {
        let latin1 = Array("caf".utf8) + [0xE9] + Array(".jpg".utf8)
        let name = PathName.decode(latin1)
        let s = try TrashSetup([name, "b.jpg"])
        let id = try s.stage(name)
        let original = s.lib.root + "/" + name
        let report = try s.commit()
        #expect(report.outcomes.map(\.result) == [.trashed(s.homeTrash + "/files/" + name)])
        #expect(try FileSystem.listDirectory(s.homeTrash + "/files").map { PathName.encode($0.name) } == [latin1])
        let info = String(decoding: try FileSystem.readFile(s.homeTrash + "/info/\(name).trashinfo", limit: 4096), as: UTF8.self)
        #expect(info.contains("Path=\(s.lib.root)/caf%E9.jpg\n"), "\(info)")
        #expect(TrashInfo.path(in: info) == original)
        let restored = try Trash.restore(paths: [original], library: s.lib.library, clock: s.clock)
        #expect(restored.map(\.result) == [.restored])
        #expect(try FileSystem.readFile(original, limit: 1 << 20).count > 0)
        #expect(try s.lib.library.item(path: original)?.id == id)
    }

    @Test("after the Trash was emptied, another file trashed under the freed name is never taken for ours")
    func anotherFileUnderAFreedName() throws {
        let s = try TrashSetup(["IMG_0001.jpg", "c.jpg"])
        _ = try s.stage("IMG_0001.jpg")
        let original = s.lib.root + "/IMG_0001.jpg"
        let photo = try FileSystem.readFile(original, limit: 1 << 20)
        #expect(try s.commit().succeeded.count == 1)
        // The user empties the Trash, then trashes another camera's IMG_0001.jpg (same size,
        // as it happens) from the file manager: it gets the freed name.
        try FileSystem.remove(s.homeTrash + "/files/IMG_0001.jpg")
        try FileSystem.remove(s.homeTrash + "/info/IMG_0001.jpg.trashinfo")
        var other = photo
        other[other.count / 2] ^= 0x55
        let otherInfo = "[Trash Info]\nPath=/home/someone/Other%20camera/IMG_0001.jpg\nDeletionDate=2026-11-30T10:00:00\n"
        try FileSystem.writeAtomically(s.homeTrash + "/files/IMG_0001.jpg", other)
        try FileSystem.writeAtomically(s.homeTrash + "/info/IMG_0001.jpg.trashinfo", Array(otherInfo.utf8))
        #expect(try Trash.inTrashBytes(library: s.lib.library) == 0)
        let r = try Trash.restore(paths: [original], library: s.lib.library, clock: s.clock)
        #expect(r.count == 1 && !r[0].succeeded, "\(r)")
        // The other file and its .trashinfo are where the file manager put them.
        #expect(!FileSystem.exists(original))
        #expect(try FileSystem.readFile(s.homeTrash + "/files/IMG_0001.jpg", limit: 1 << 20) == other)
        #expect(try FileSystem.readFile(s.homeTrash + "/info/IMG_0001.jpg.trashinfo", limit: 4096) == Array(otherInfo.utf8))
        #expect(try Trash.inSystemTrash(library: s.lib.library).isEmpty)
    }

    @Test("a Trash that is not there now (its drive not mounted) says nothing: the file is restored once it is back")
    func unreachableTrash() throws {
        let s = try TrashSetup(["a.jpg", "c.jpg"])
        _ = try s.stage("a.jpg")
        let original = s.lib.root + "/a.jpg"
        #expect(try s.commit().succeeded.count == 1)
        // The drive goes: its Trash folder with it.
        try FileSystem.rename(s.homeTrash, s.dataHome + "/away")
        #expect(try Trash.noticeRestores(library: s.lib.library, clock: s.clock) == 0)
        let r = try Trash.restore(paths: [original], library: s.lib.library, clock: s.clock)
        #expect(r.count == 1 && !r[0].succeeded)
        #expect(try Trash.inSystemTrash(library: s.lib.library).count == 1)
        // Back: it comes back.
        try FileSystem.rename(s.dataHome + "/away", s.homeTrash)
        let back = try Trash.restore(paths: [original], library: s.lib.library, clock: s.clock)
        #expect(back.map(\.result) == [.restored], "\(back)")
        #expect(FileSystem.exists(original))
    }

    @Test("a commit waits while another process commits or restores (the trash lock)")
    func commitsTakeTurns() throws {
        let s = try TrashSetup(["a.jpg", "c.jpg"])
        _ = try s.stage("a.jpg")
        let original = s.lib.root + "/a.jpg"
        let held = try FileLock.lock(s.lib.dbPath + ".trash.lock")  // another process's commit
        let dbPath = s.lib.dbPath, env = s.env, clock = s.clock
        let done = Mutex<TrashReport?>(nil)
        let t = Thread {
            let other = try! Library(path: dbPath)
            let r = try! Trash.commit(library: other, clock: clock, env: env)
            done.withLock { $0 = r }
        }
        // The agent's loop does not wait: it notices restores another time.
        #expect(try Trash.noticeRestores(library: Library(path: dbPath), clock: clock, waitForLock: false) == 0)
        t.start()
        // It waits: the kernel lists it blocked on the lock (`/proc/locks`, a "->" line for the
        // lock file's inode), and nothing has moved meanwhile; then the lock is let go.
        let inode = try FileSystem.status(s.lib.dbPath + ".trash.lock").inode
        #expect(waitUntil { blockedOnFlock(inode: inode) }, "the commit never waited on the trash lock")
        #expect(FileSystem.exists(original) && done.withLock { $0 } == nil)
        held.unlock()
        #expect(waitUntil { done.withLock { $0 } != nil })
        #expect(done.withLock { $0 }?.succeeded.map(\.path) == [original])
        #expect(!FileSystem.exists(original))
    }

    @Test("one file known by two paths (a symbolic link to its folder) is never trashed as its own copy; a hard link is")
    func oneFileByTwoPaths() throws {
        let s = try TrashSetup(["a.jpg", "c.jpg"])
        let alias = s.lib.dir.at("link")
        #expect(symlink(s.lib.root, alias) == 0)
        // Scanned once through the link as well (an older configuration, a bind mount).
        _ = try LibraryScanner(library: s.lib.library, workers: 1).scan([alias])
        let id = try s.stage("a.jpg", root: alias)
        let r = try s.commit()
        #expect(r.succeeded.isEmpty && r.skipped.first?.path == alias + "/a.jpg", "\(r.outcomes)")
        #expect(FileSystem.exists(s.lib.root + "/a.jpg"))
        #expect(try Review.decision(for: id, library: s.lib.library)?.decision == .trash)
        // A hard link is a second name: trashing one leaves the file under the other.
        #expect(link(s.lib.root + "/c.jpg", s.lib.root + "/c-again.jpg") == 0)
        _ = try LibraryScanner(library: s.lib.library, workers: 1).scan([s.lib.root])
        _ = try s.stage("c-again.jpg")
        #expect(try s.commit().succeeded.map(\.path) == [s.lib.root + "/c-again.jpg"])
        #expect(FileSystem.exists(s.lib.root + "/c.jpg"))
    }

    @Test("a Live Photo's short clip taken with it travels with the photo; a video of its own under the same name stays")
    func livePhotoClipOrAVideoOfItsOwn() throws {
        let s = try TrashSetup(["x.jpg"])
        let clip = try VideoFixtures.bytes("tiny.mov")  // 2 s, taken 2024-05-01T12:20:30+02:00
        s.lib.dir.write(
            "Pictures/IMG_1.JPG", Fixtures.jpeg(seed: 5, width: 64, height: 48, dateTimeOriginal: "2024:05:01 12:20:29", offset: "+02:00"))
        s.lib.dir.write("Pictures/IMG_1.MOV", clip)
        // The same clip said to last three minutes: a video of its own.
        var long = clip
        let mvhd = try #require(long.indices.dropLast(24).first { long[$0..<$0 + 4] == Array("mvhd".utf8)[...] })
        let duration = UInt32(180_000).bigEndian
        withUnsafeBytes(of: duration) { for (i, b) in $0.enumerated() { long[mvhd + 20 + i] = b } }
        s.lib.dir.write(
            "Pictures/IMG_2.JPG", Fixtures.jpeg(seed: 6, width: 64, height: 48, dateTimeOriginal: "2024:05:01 12:20:29", offset: "+02:00"))
        s.lib.dir.write("Pictures/IMG_2.MOV", long)
        try s.lib.scan()
        #expect(try s.lib.library.item(path: s.lib.root + "/IMG_2.MOV")?.durationSeconds == 180)
        // The clip is one item with its photo: no video card of its own, in no group; the long
        // video stays one.
        let photo = try #require(try s.lib.library.item(path: s.lib.root + "/IMG_1.JPG"))
        let clipItem = try #require(try s.lib.library.item(path: s.lib.root + "/IMG_1.MOV"))
        #expect(try s.lib.library.sidecars(of: photo.id).map(\.kind) == ["live"])
        #expect(try s.lib.library.sidecarOwner(of: clipItem.id) == photo.id)
        let videos = try Decks.build(.filter(.videos, year: nil), library: s.lib.library, clock: s.clock, timeZone: ReviewFixture.utc)
        #expect(videos.items.map(\.item.path) == [s.lib.root + "/IMG_2.MOV"])
        _ = try s.stage("IMG_1.JPG")
        _ = try s.stage("IMG_2.JPG")
        // Named before the commit (trash list, the prompt, the page).
        let going = try Trash.staged(library: s.lib.library).sorted { $0.path < $1.path }.map {
            try Trash.travellingSidecars(of: $0, library: s.lib.library).map(\.path)
        }
        #expect(going == [[s.lib.root + "/IMG_1.MOV"], []])
        let r = try s.commit()
        #expect(Set(r.succeeded.map(\.path)) == [s.lib.root + "/IMG_1.JPG", s.lib.root + "/IMG_1.MOV", s.lib.root + "/IMG_2.JPG"], "\(r.outcomes)")
        #expect(FileSystem.exists(s.lib.root + "/IMG_2.MOV"))
    }

    /// Copies with the same bytes and time as `path` (`cp -p`, a restore from a backup).
    static func copyKeepingTime(_ from: String, _ to: String) throws {
        let bytes = try FileSystem.readFile(from, limit: 1 << 26)
        let st = try FileSystem.lstatus(from)
        try FileSystem.makeDirectories(String(to[..<to.lastIndex(of: "/")!]), mode: 0o755)
        try FileSystem.writeAtomically(to, bytes)
        var times = [
            timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2),  // UTIME_OMIT: the access time stays
            timespec(tv_sec: Int(st.mtimeNanoseconds / 1_000_000_000), tv_nsec: Int(st.mtimeNanoseconds % 1_000_000_000)),
        ]
        #expect(utimensat(AT_FDCWD, to, &times, 0) == 0)
    }

    @Test(
        "a copy of a trashed photo is a new photo: after the Trash is emptied (cp -p from a backup) and while it is in the Trash; a rename back from the Trash is the photo"
    )
    func copiesOfTrashedPhotosAreNewPhotos() throws {
        let s = try TrashSetup(["a.jpg", "b.jpg"])
        let a = try s.stage("a.jpg"), b = try s.stage("b.jpg")
        _ = try s.commit()
        let trashedA = s.homeTrash + "/files/a.jpg", trashedB = s.homeTrash + "/files/b.jpg"
        // a.jpg: the user empties it from the Trash, then puts it back from a backup (same bytes, same time).
        try TrashTests.copyKeepingTime(trashedA, s.lib.dir.at("backup/a.jpg"))
        try FileSystem.remove(trashedA)
        try FileSystem.remove(s.homeTrash + "/info/a.jpg.trashinfo")
        #expect(try Trash.noticeRestores(library: s.lib.library, clock: s.clock) == 0)
        try TrashTests.copyKeepingTime(s.lib.dir.at("backup/a.jpg"), s.lib.root + "/FromBackup/a.jpg")
        // b.jpg is still in the Trash: a copy of it with its time elsewhere in the library.
        try TrashTests.copyKeepingTime(trashedB, s.lib.root + "/Copies/b.jpg")
        let scan = try s.lib.scan()
        #expect(scan.moved == 0 && scan.added == 2, "\(scan)")
        for path in [s.lib.root + "/FromBackup/a.jpg", s.lib.root + "/Copies/b.jpg"] {
            let item = try #require(try s.lib.library.item(path: path))
            #expect(item.id != a && item.id != b && item.status == .ok)
            #expect(try Review.decision(for: item.id, library: s.lib.library) == nil)
        }
        #expect(try Trash.staged(library: s.lib.library).isEmpty)
        #expect(try s.commit().outcomes.isEmpty)
        // The file manager puts b.jpg back (a rename): that is the photo, noticed as restored.
        try FileSystem.rename(trashedB, s.lib.root + "/b.jpg")
        #expect(try s.lib.scan().moved == 1)
        #expect(try Trash.noticeRestores(library: s.lib.library, clock: s.clock) == 1)
        #expect(try s.lib.library.item(path: s.lib.root + "/b.jpg")?.id == b)
    }

    @Test("a gone photo's row goes to the same file back (a rename) or a move that keeps its time, never to a plain copy")
    func aPlainCopyDoesNotTakeAGonePhotosDecision() throws {
        let s = try TrashSetup(["keep/k.jpg", "other.jpg"])
        let item = try #require(try s.lib.library.item(path: s.lib.root + "/keep/k.jpg"))
        try Review.decide(.keep, fileID: item.id, library: s.lib.library, clock: s.clock)
        // The folder leaves the library; a plain copy of the photo (new time) comes in meanwhile.
        try FileSystem.rename(s.lib.root + "/keep", s.lib.dir.at("away"))
        s.lib.dir.write("Pictures/copy/k.jpg", try FileSystem.readFile(s.lib.dir.at("away/k.jpg"), limit: 1 << 26))
        let first = try s.lib.scan()
        #expect(first.gone == 1 && first.moved == 0 && first.added == 1, "\(first)")
        let copy = try #require(try s.lib.library.item(path: s.lib.root + "/copy/k.jpg"))
        #expect(copy.id != item.id)
        #expect(try Review.decision(for: copy.id, library: s.lib.library) == nil)
        // The folder comes back: the photo (same inode) finds its row and its decision.
        try FileSystem.rename(s.lib.dir.at("away"), s.lib.root + "/keep")
        #expect(try s.lib.scan().moved == 1)
        #expect(try s.lib.library.item(path: s.lib.root + "/keep/k.jpg")?.id == item.id)
        #expect(try Review.decision(for: item.id, library: s.lib.library)?.decision == .keep)
    }

    @Test("a file changed after review is not trashed")
    func changedAfterReview() throws {
        let s = try TrashSetup(["a.jpg", "b.jpg"])
        _ = try s.stage("a.jpg")
        _ = try s.stage("b.jpg")
        #expect(try Trash.staged(library: s.lib.library).map(\.changedSinceReview) == [false, false])
        // Changed on disk, not rescanned; and changed then rescanned (the row moved on).
        s.lib.dir.write("Pictures/a.jpg", Fixtures.jpeg(seed: 99, width: 40, height: 30))
        s.lib.dir.write("Pictures/b.jpg", Fixtures.jpeg(seed: 98, width: 40, height: 30))
        try s.lib.scan([s.lib.root + "/b.jpg"])
        // The list says so before a commit does (what a commit will leave in place).
        #expect(try Trash.staged(library: s.lib.library).map(\.changedSinceReview) == [true, true])
        let report = try s.commit()
        #expect(report.outcomes.count == 2 && report.skipped.count == 2)
        #expect(FileSystem.exists(s.lib.root + "/a.jpg") && FileSystem.exists(s.lib.root + "/b.jpg"))
        #expect(try s.lib.library.db.scalar("SELECT count(*) FROM trash_ledger WHERE state='skipped'") == 2)
    }

    /// A `touch` (or a viewer, a backup tool setting times), rescanned or not, leaves the bytes
    /// the user decided on: the photo goes. Bytes of the same size that differ still stay.
    @Test("a staged file whose times alone moved is trashed; one whose bytes changed at the same size is not")
    func touchedAfterReview() throws {
        let s = try TrashSetup(["a.jpg", "b.jpg", "c.jpg"])
        for n in ["a.jpg", "b.jpg", "c.jpg"] { _ = try s.stage(n) }
        try FileSystem.setTimes(s.lib.root + "/a.jpg", secondsSince1970: 1_700_000_000)
        try FileSystem.setTimes(s.lib.root + "/b.jpg", secondsSince1970: 1_700_000_000)
        try s.lib.scan([s.lib.root + "/b.jpg"])
        // c: one byte flipped in place (same inode, same size), times set back as they were.
        let c = s.lib.root + "/c.jpg"
        let before = try FileSystem.lstatus(c)
        var bytes = try FileSystem.readFile(c, limit: 1 << 20)
        bytes[bytes.count / 2] ^= 0xFF
        let fd = try FileDescriptor.open(c, O_WRONLY | O_CLOEXEC)
        try fd.writeAll(bytes)
        fd.close()
        try FileSystem.setTimes(c, secondsSince1970: 1_700_000_000)
        #expect(try FileSystem.lstatus(c).inode == before.inode)
        #expect(try Trash.staged(library: s.lib.library).filter(\.changedSinceReview).map(\.path) == [c])
        let report = try s.commit()
        // (Staged in one second: their order follows the rows' ids, which the scan's workers gave.)
        #expect(report.succeeded.map(\.path).sorted() == [s.lib.root + "/a.jpg", s.lib.root + "/b.jpg"] && report.skipped.map(\.path) == [c])
        #expect(!FileSystem.exists(s.lib.root + "/a.jpg") && FileSystem.exists(c))
    }

    @Test("a staged file that is not there is listed as missing, not as changed, and stays staged")
    func missingStagedFile() throws {
        let s = try TrashSetup(["a.jpg", "b.jpg"])
        _ = try s.stage("a.jpg")
        _ = try s.stage("b.jpg")
        try FileSystem.rename(s.lib.root + "/a.jpg", s.lib.dir.at("elsewhere.jpg"))
        // (Decided in the same instant: ordered by path here, not by the rows' ids, which
        // follow the order the scan's workers finished.)
        let staged = try Trash.staged(library: s.lib.library).sorted { $0.path < $1.path }
        #expect(staged.map(\.missing) == [true, false] && staged.map(\.changedSinceReview) == [true, false])
        let report = try s.commit()
        #expect(report.skipped.count == 1 && report.outcomes.count == 2)
        // Back as it was, it goes at the next commit.
        try FileSystem.rename(s.lib.dir.at("elsewhere.jpg"), s.lib.root + "/a.jpg")
        #expect(try Trash.staged(library: s.lib.library).map(\.missing) == [false])
        #expect(try s.commit().skipped.isEmpty && !FileSystem.exists(s.lib.root + "/a.jpg"))
    }

    /// A photo rated a favourite in its XMP sidecar after it was staged (darktable, digiKam,
    /// Lightroom) stays at the commit, as one changed since review does; a rating older than
    /// the decision, or one that is no favourite, does not hold it (review 8).
    @Test func aPhotoRatedAFavouriteAfterItWasStagedStays() throws {
        let s = try TrashSetup(["a.jpg", "b.jpg", "c.jpg"])
        for n in ["a.jpg", "b.jpg", "c.jpg"] { _ = try s.stage(n) }
        let xmp = { (stars: Int) in
            Array(
                #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="\#(stars)"/></rdf:RDF></x:xmpmeta>"#
                    .utf8)
        }
        // After the decision (the setup's clock is 2026-11-29): a, five stars; c, one star.
        s.lib.dir.write("Pictures/a.jpg.xmp", xmp(5))
        s.lib.dir.write("Pictures/c.xmp", xmp(1))
        // b's five stars were there before it was staged.
        s.lib.dir.write("Pictures/b.jpg.xmp", xmp(5))
        try FileSystem.setTimes(s.lib.root + "/b.jpg.xmp", secondsSince1970: 1_700_000_000)
        let staged = Dictionary(uniqueKeysWithValues: try Trash.staged(library: s.lib.library).map { ($0.path, $0) })
        #expect(staged[s.lib.root + "/a.jpg"]?.changedSinceReview == true)
        #expect(staged[s.lib.root + "/b.jpg"]?.changedSinceReview == false && staged[s.lib.root + "/c.jpg"]?.changedSinceReview == false)
        let report = try s.commit()
        #expect(report.skipped.map(\.path) == [s.lib.root + "/a.jpg"])
        if case .skipped(let why) = report.skipped.first?.result { #expect(why.hasPrefix("rated 5 stars since it was staged"), "\(why)") }
        #expect(FileSystem.exists(s.lib.root + "/a.jpg") && !FileSystem.exists(s.lib.root + "/b.jpg") && !FileSystem.exists(s.lib.root + "/c.jpg"))
    }

    /// A folder that cannot be searched now (its permissions; here a symbolic-link loop, which
    /// root meets as a user meets EACCES) hides a staged photo without its being gone: it is
    /// said as such, not "missing", and a commit leaves it staged for when it is back.
    @Test func aStagedFileThatCannotBeReachedIsNotCalledMissing() throws {
        let s = try TrashSetup(["sub/a.jpg", "b.jpg"])
        _ = try s.stage("sub/a.jpg")
        _ = try s.stage("b.jpg")
        let sub = s.lib.root + "/sub"
        try FileSystem.rename(sub, s.lib.dir.at("away"))
        #expect(symlink(sub, sub) == 0)
        let staged = try Trash.staged(library: s.lib.library).sorted { $0.path < $1.path }
        #expect(staged.map(\.path) == [s.lib.root + "/b.jpg", sub + "/a.jpg"])
        #expect(staged[1].unreachable != nil && !staged[1].missing && !staged[1].changedSinceReview, "\(staged[1])")
        #expect(staged[0].unreachable == nil)
        let report = try s.commit()
        #expect(report.succeeded.map(\.path) == [s.lib.root + "/b.jpg"])
        #expect(report.skipped.map(\.path) == [sub + "/a.jpg"])
        if case .skipped(let why) = report.skipped.first?.result { #expect(why.hasPrefix("cannot be reached now"), "\(why)") }
        // Reachable again: it goes at the next commit.
        #expect(unlink(sub) == 0)
        try FileSystem.rename(s.lib.dir.at("away"), sub)
        #expect(try s.commit().succeeded.map(\.path) == [sub + "/a.jpg"])
    }

    @Test("a name clash in the Trash gets a new name; sidecars travel with their photo and come back with it")
    func clashAndSidecars() throws {
        let s = try TrashSetup(["IMG_1.jpg"])
        s.lib.dir.write("Pictures/IMG_1.xmp", Array("<xmp/>".utf8))
        s.lib.dir.write("Pictures/IMG_1.AAE", Array("<plist/>".utf8))
        s.lib.dir.write("share/Trash/files/IMG_1.jpg", [9])
        s.lib.dir.write("share/Trash/info/IMG_1.jpg.trashinfo", Array("[Trash Info]\nPath=/x/IMG_1.jpg\nDeletionDate=2020-01-01T00:00:00\n".utf8))
        _ = try s.stage("IMG_1.jpg")
        let report = try s.commit()
        #expect(
            report.outcomes.map(\.result) == [
                .trashed(s.homeTrash + "/files/IMG_1.2.jpg"), .trashed(s.homeTrash + "/files/IMG_1.AAE"),
                .trashed(s.homeTrash + "/files/IMG_1.xmp"),
            ])
        #expect(report.outcomes.map(\.isSidecar) == [false, true, true])
        #expect(try FileSystem.readFile(s.homeTrash + "/files/IMG_1.jpg", limit: 10) == [9])
        let back = try Trash.restoreAll(library: s.lib.library, clock: s.clock)
        #expect(back.count == 3 && back.allSatisfy(\.succeeded))
        for n in ["IMG_1.jpg", "IMG_1.xmp", "IMG_1.AAE"] { #expect(FileSystem.exists(s.lib.root + "/" + n)) }
    }

    /// `kill -9` between a photo's move and its sidecars' (5 of 43 kills in the safety review):
    /// the photo was in the Trash, its `.xmp` beside the original with no ledger entry, and the
    /// next commit said nothing of it. The next commit sends it after its photo.
    @Test("a commit killed after a photo's move sends its sidecars at the next commit")
    func killedBetweenAPhotoAndItsSidecars() throws {
        struct Crash: Error {}
        let s = try TrashSetup(["IMG_3.jpg"])
        s.lib.dir.write("Pictures/IMG_3.xmp", Array("<xmp/>".utf8))
        _ = try s.stage("IMG_3.jpg")
        var crashing = s.env
        crashing.afterRename = { path in if path.hasSuffix(".jpg") { throw Crash() } }
        #expect(throws: Crash.self) { try s.commit(crashing) }
        #expect(FileSystem.exists(s.lib.root + "/IMG_3.xmp"))
        let report = try s.commit()
        #expect(report.resumed == 1)
        #expect(
            report.outcomes.map(\.result) == [.trashed(s.homeTrash + "/files/IMG_3.jpg"), .trashed(s.homeTrash + "/files/IMG_3.xmp")],
            "\(report.outcomes)")
        #expect(!FileSystem.exists(s.lib.root + "/IMG_3.xmp"))
        #expect(try s.commit().outcomes.isEmpty)
        let back = try Trash.restoreAll(library: s.lib.library, clock: s.clock)
        #expect(back.count == 2 && back.allSatisfy(\.succeeded))
    }

    @Test("a photo that cannot come back keeps its sidecars in the Trash and is reported once, by name and by --all")
    func blockedPhotoKeepsItsSidecars() throws {
        let s = try TrashSetup(["IMG_2.jpg", "b.png"])
        s.lib.dir.write("Pictures/IMG_2.xmp", Array("<xmp/>".utf8))
        _ = try s.stage("IMG_2.jpg")
        _ = try s.stage("b.png")
        #expect(try s.commit().outcomes.count == 3)
        s.lib.dir.write("Pictures/IMG_2.jpg", Array("another file".utf8))
        s.lib.dir.write("Pictures/b.png", Array("another file".utf8))
        let byName = try Trash.restore(paths: [s.lib.root + "/IMG_2.jpg"], library: s.lib.library, clock: s.clock)
        #expect(byName.map(\.path) == [s.lib.root + "/IMG_2.jpg"])
        #expect(!byName[0].succeeded)
        #expect(!FileSystem.exists(s.lib.root + "/IMG_2.xmp"))
        #expect(FileSystem.exists(s.homeTrash + "/files/IMG_2.xmp"))
        let all = try Trash.restoreAll(library: s.lib.library, clock: s.clock)
        #expect(all.map(\.path).sorted() == [s.lib.root + "/IMG_2.jpg", s.lib.root + "/b.png"])
        #expect(all.allSatisfy { !$0.succeeded && !$0.isSidecar })
        #expect(!FileSystem.exists(s.lib.root + "/IMG_2.xmp"))
        // Once the photo's place is free, both come back.
        try FileSystem.remove(s.lib.root + "/IMG_2.jpg")
        let again = try Trash.restoreAll(library: s.lib.library, clock: s.clock)
        #expect(again.filter(\.succeeded).map(\.path).sorted() == [s.lib.root + "/IMG_2.jpg", s.lib.root + "/IMG_2.xmp"])
        #expect(try FileSystem.readFile(s.lib.root + "/IMG_2.xmp", limit: 100) == Array("<xmp/>".utf8))
    }

    @Test("a name too long for its .trashinfo is shortened in the Trash (whole characters, extension kept) and restored under its own")
    func longNames() throws {
        let long = String(repeating: "é", count: 100) + String(repeating: "a", count: 46) + ".jpg"  // 250 bytes
        #expect(long.utf8.count == 250)
        let s = try TrashSetup([long])
        _ = try s.stage(long)
        let out = try s.commit().outcomes
        #expect(out.count == 1)
        guard case .trashed(let inTrash)? = out.first?.result else { Issue.record("not trashed: \(out)"); return }
        let name = String(inTrash.split(separator: "/").last!)
        #expect(name.hasSuffix(".jpg") && long.hasPrefix(String(name.dropLast(4))))
        #expect((name + ".trashinfo").utf8.count <= 255)
        let info = String(decoding: try FileSystem.readFile(s.homeTrash + "/info/" + name + ".trashinfo", limit: 4096), as: UTF8.self)
        #expect(info.contains("Path=" + TrashInfo.encode(s.lib.root + "/" + long)))
        let back = try Trash.restoreAll(library: s.lib.library, clock: s.clock)
        #expect(back.map(\.result) == [.restored])
        #expect(FileSystem.exists(s.lib.root + "/" + long))
        #expect(Trash.fitted("IMG_1.jpg") == "IMG_1.jpg")
    }

    @Test("a restore, from staging or from the Trash, is one undo step, undone in order; undone, it stages again and moves nothing")
    func aRestoreIsAnUndoStep() throws {
        let s = try TrashSetup(["a.jpg", "b.jpg", "c.jpg", "d.jpg"])
        let lib = s.lib.library
        let a = try s.stage("a.jpg")
        #expect(try s.commit().succeeded.count == 1)
        let kept = try #require(try lib.item(path: s.lib.root + "/d.jpg")).id
        try Review.decide(.keep, fileID: kept, library: lib, clock: s.clock)
        let b = try s.stage("b.jpg"), c = try s.stage("c.jpg")
        // Two staged items taken back in one action, then the committed one put back.
        let unstaged = try Trash.restore(paths: [s.lib.root + "/b.jpg", s.lib.root + "/c.jpg"], library: lib, clock: s.clock)
        #expect(unstaged.map(\.result) == [.unstaged, .unstaged])
        let back = try Trash.restore(paths: [s.lib.root + "/a.jpg"], library: lib, clock: s.clock)
        #expect(back.map(\.result) == [.restored] && FileSystem.exists(s.lib.root + "/a.jpg"))
        #expect(try Review.decision(for: a, library: lib) == nil)
        #expect(try Review.undoDepth(library: lib) == 5)  // keep d, stage b, stage c, unstage b+c, restore a
        // The newest first: the restore from the Trash. The photo stays in its folder, staged
        // again; the next commit asks before moving it.
        let u1 = try #require(try Review.undo(library: lib, clock: s.clock))
        #expect(u1.restoredFrom == .trash && u1.fileID == a && u1.restored == .trash && u1.count == 1)
        #expect(FileSystem.exists(s.lib.root + "/a.jpg") && !FileSystem.exists(s.homeTrash + "/files/a.jpg"))
        #expect(try Trash.staged(library: lib).map(\.fileID) == [a])
        // Then the two un-staged together, staged again together.
        let u2 = try #require(try Review.undo(library: lib, clock: s.clock))
        #expect(u2.restoredFrom == .staging && u2.count == 2)
        #expect(Set(try Trash.staged(library: lib).map(\.fileID)) == [a, b, c])
        // Then the decisions before it, in order.
        #expect(try Review.undo(library: lib, clock: s.clock)?.fileID == c)
        #expect(try Review.undo(library: lib, clock: s.clock)?.fileID == b)
        #expect(try Review.undo(library: lib, clock: s.clock)?.undone == .keep)
        #expect(try Review.undo(library: lib, clock: s.clock) == nil)
        // The photo staged again by the undo goes at the next commit (it is the file reviewed).
        #expect(try s.commit().succeeded.map(\.path) == [s.lib.root + "/a.jpg"])
        #expect(FileSystem.exists(s.homeTrash + "/files/a.jpg"))
    }

    @Test("restore --all un-stages staged items (they become undecided)")
    func unstage() throws {
        let s = try TrashSetup(["a.jpg"])
        let id = try s.stage("a.jpg")
        let out = try Trash.restoreAll(library: s.lib.library, clock: s.clock)
        #expect(out.map(\.result) == [.unstaged])
        #expect(try Review.decision(for: id, library: s.lib.library) == nil && FileSystem.exists(s.lib.root + "/a.jpg"))
    }

    @Test("another file system: $topdir/.Trash-$uid, or $topdir/.Trash/$uid when sticky; Path= relative; trash-restore works")
    func topDirectoryTrash() throws {
        guard let mnt = TmpfsMount() else { Issue.record("cannot mount a tmpfs"); return }
        let s = try TrashSetup([])
        let uid = FileSystem.effectiveUserID
        try FileSystem.makeDirectories(mnt.path + "/photos/2020")
        for n in ["x.jpg", "y.jpg", "z.jpg"] {
            let d = Fixtures.jpeg(seed: UInt64(n.utf8.first!), width: 40, height: 30)
            _ = FileManager.default.createFile(atPath: mnt.path + "/photos/2020/" + n, contents: Data(d))
        }
        try s.lib.scan([mnt.path + "/photos"])
        let root = mnt.path + "/photos/2020"
        _ = try s.stage("x.jpg", root: root)
        var report = try s.commit()
        let fallback = mnt.path + "/.Trash-\(uid)"
        #expect(report.outcomes.map(\.result) == [.trashed(fallback + "/files/x.jpg")])
        let info = String(decoding: try FileSystem.readFile(fallback + "/info/x.jpg.trashinfo", limit: 4096), as: UTF8.self)
        #expect(info.contains("\nPath=photos/2020/x.jpg\n"))
        // A sticky, non-symlink .Trash is preferred …
        try FileSystem.makeDirectory(mnt.path + "/.Trash", mode: 0o777)
        chmod(mnt.path + "/.Trash", 0o1777)
        _ = try s.stage("y.jpg", root: root)
        report = try s.commit()
        #expect(report.outcomes.map(\.result) == [.trashed(mnt.path + "/.Trash/\(uid)/files/y.jpg")])
        // … but not without the sticky bit.
        chmod(mnt.path + "/.Trash", 0o777)
        _ = try s.stage("z.jpg", root: root)
        report = try s.commit()
        #expect(report.outcomes.map(\.result) == [.trashed(fallback + "/files/z.jpg")])
        // trash-cli finds and restores it (as a file manager would); SnapSort notices.
        let (ls, listed) = try TrashSetup.run("/usr/bin/trash-list", [], env: ["XDG_DATA_HOME": s.dataHome])
        #expect(ls == 0 && listed.contains(root + "/x.jpg"), "\(listed)")
        let (rs, out) = try TrashSetup.run("/usr/bin/trash-restore", [root + "/x.jpg"], env: ["XDG_DATA_HOME": s.dataHome], cwd: root, stdin: "0\n")
        #expect(rs == 0 && FileSystem.exists(root + "/x.jpg"), "\(out)")
        #expect(try Trash.noticeRestores(library: s.lib.library, clock: s.clock) == 1)
        let item = try #require(try s.lib.library.item(path: root + "/x.jpg"))
        #expect(try Review.decision(for: item.id, library: s.lib.library) == nil)
        let r = try Stats.report(library: s.lib.library, clock: s.clock, timeZone: ReviewFixture.utc)
        #expect(r.moved.total == r.inTrashBytes && r.inTrashBytes > 0)
        #expect(try Trash.inSystemTrash(library: s.lib.library).map(\.originalPath).sorted() == [root + "/y.jpg", root + "/z.jpg"])
        // Emptying the Trash is noticed: no more bytes "still in the Trash".
        try FileSystem.remove(fallback + "/files/z.jpg")
        try FileSystem.remove(mnt.path + "/.Trash/\(uid)/files/y.jpg")
        #expect(try Trash.noticeRestores(library: s.lib.library, clock: s.clock) == 0)
        #expect(try Trash.inTrashBytes(library: s.lib.library) == 0)
    }

    @Test("a bind mount shares st_dev yet is its own mount: its top-directory trash is used, never a copy")
    func bindMount() throws {
        let s = try TrashSetup(["b.jpg"])
        guard let bind = BindMount(s.lib.root) else { Issue.record("cannot bind-mount"); return }
        #expect(try FileSystem.status(bind.path).device == FileSystem.status(s.lib.root).device)
        try s.lib.scan([bind.path])
        // Known by both paths, the file is not trashed through one of them: the other would go too.
        _ = try s.stage("b.jpg", root: bind.path)
        #expect(try s.commit().succeeded.isEmpty)
        // Known only through the bind mount.
        _ = try s.lib.library.forget(under: s.lib.root, at: Date())
        _ = try s.stage("b.jpg", root: bind.path)
        let report = try s.commit()
        #expect(report.outcomes.map(\.result) == [.trashed(bind.path + "/.Trash-\(FileSystem.effectiveUserID)/files/b.jpg")])
    }

    @Test(
        "rename across devices (EXDEV) is never turned into a copy: the Trash at the device's own top (a btrfs subvolume), else the file stays and is reported"
    )
    func exdevLeavesInPlace() throws {
        guard let mnt = TmpfsMount() else { Issue.record("cannot mount a tmpfs"); return }
        let s = try TrashSetup([])
        _ = FileManager.default.createFile(atPath: mnt.path + "/e.jpg", contents: Data(Fixtures.jpeg(seed: 5, width: 40, height: 30)))
        try s.lib.scan([mnt.path])
        _ = try s.stage("e.jpg", root: mnt.path)
        // A mount table that hides the tmpfs and claims /tmp is one mount: the home trash and
        // then the top-directory trash /tmp/.Trash-$uid look right, yet rename() says EXDEV.
        var lying = s.env
        let hidden = mnt.path
        lying.mounts = {
            var t = try Mounts.current().filter { !$0.mountPoint.hasPrefix(hidden) }
            t += Mounts.parse("99999 1 0:0 / /tmp rw - ext4 fake rw")
            return t
        }
        let topTrash = "/tmp/.Trash-\(FileSystem.effectiveUserID)"
        let existed = FileSystem.exists(topTrash)
        defer { if !existed { for d in ["/files", "/info", ""] { rmdir(topTrash + d) } } }
        // The device's own top (the tmpfs root, as a btrfs subvolume's root would be) cannot
        // take a Trash here either: a file stands where its folder would go.
        let uid = FileSystem.effectiveUserID
        let blocker = mnt.path + "/.Trash-\(uid)"
        _ = FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8))
        let report = try s.commit(lying)
        #expect(report.skipped.count == 1 && report.succeeded.isEmpty)
        #expect(FileSystem.exists(mnt.path + "/e.jpg"))
        #expect(try FileSystem.listDirectory(s.homeTrash + "/info").isEmpty)
        #expect(try Trash.staged(library: s.lib.library).count == 1)
        // With the way free, it goes to the Trash at its device's top, never a copy; its Path=
        // is relative to that top, and it comes back.
        try FileSystem.remove(blocker)
        let second = try s.commit(lying)
        #expect(second.outcomes.map(\.result) == [.trashed(mnt.path + "/.Trash-\(uid)/files/e.jpg")], "\(second.outcomes)")
        let info = String(decoding: try FileSystem.readFile(mnt.path + "/.Trash-\(uid)/info/e.jpg.trashinfo", limit: 4096), as: UTF8.self)
        #expect(info.contains("\nPath=e.jpg\n"), "\(info)")
        #expect(try Trash.restore(paths: [mnt.path + "/e.jpg"], library: s.lib.library, clock: s.clock).map(\.result) == [.restored])
    }

    /// a.jpg and b.jpg staged, and a commit killed (as by `kill -9`) after the first one's
    /// `.trashinfo` was written, or after its move.
    static func commitKilled(afterRename: Bool) throws -> TrashSetup {
        struct Crash: Error {}
        let s = try TrashSetup(["a.jpg", "b.jpg"])
        _ = try s.stage("a.jpg")
        _ = try s.stage("b.jpg")
        var crashing = s.env
        if afterRename { crashing.afterRename = { _ in throw Crash() } } else { crashing.afterInfoWritten = { _ in throw Crash() } }
        #expect(throws: Crash.self) { try s.commit(crashing) }
        return s
    }

    @Test("a commit stopped after the .trashinfo or after the rename is finished once by the next commit", arguments: [false, true])
    func crashPoints(afterRename: Bool) throws {
        let s = try Self.commitKilled(afterRename: afterRename)
        #expect(try s.lib.library.db.scalar("SELECT count(*) FROM trash_ledger WHERE state='planned'") == 1)
        let report = try s.commit()
        #expect(report.resumed == 1)
        #expect(Set(report.succeeded.map(\.path)) == [s.lib.root + "/a.jpg", s.lib.root + "/b.jpg"])
        #expect(try FileSystem.listDirectory(s.homeTrash + "/files").map(\.name).sorted() == ["a.jpg", "b.jpg"])
        #expect(try FileSystem.listDirectory(s.homeTrash + "/info").map(\.name).sorted() == ["a.jpg.trashinfo", "b.jpg.trashinfo"])
        #expect(try s.lib.library.db.scalar("SELECT count(*) FROM trash_ledger WHERE state='trashed'") == 2)
        #expect(try Stats.report(library: s.lib.library, clock: s.clock, timeZone: ReviewFixture.utc).moved.total == report.bytes)
    }

    /// A commit killed with a photo in flight: the next command that lists or restores settles
    /// it first. Before, the photo was in no list until the next commit — `restore` said
    /// "unstaged" and exit 0 while it sat in the Trash, or that commit moved one still in place
    /// without asking, after the user had restored everything.
    @Test("a killed commit's photo in flight is settled by the next list or restore", arguments: [false, true])
    func inFlightIsSettledByListAndRestore(afterRename: Bool) throws {
        let s = try Self.commitKilled(afterRename: afterRename)
        // The one in flight is the first staged, in the order of the ids the scan gave.
        let a = try #require(try s.lib.library.db.row("SELECT original_path FROM trash_ledger WHERE state='planned'")?.string(0))
        let b = [s.lib.root + "/a.jpg", s.lib.root + "/b.jpg"].first { $0 != a }!
        #expect(try Trash.staged(library: s.lib.library).map(\.path) == [b])
        try Trash.noticeRestores(library: s.lib.library, clock: s.clock)
        #expect(try s.lib.library.db.scalar("SELECT count(*) FROM trash_ledger WHERE state='planned'") == 0)
        if afterRename {
            // In the Trash: listed there, and `restore` brings it back.
            #expect(try Trash.inSystemTrash(library: s.lib.library).map(\.originalPath) == [a])
            let back = try Trash.restore(paths: [a], library: s.lib.library, clock: s.clock)
            #expect(back.map(\.result) == [.restored] && FileSystem.exists(a))
            #expect(try FileSystem.listDirectory(s.homeTrash + "/info").isEmpty)
        } else {
            // Still in place: staged again, with no `.trashinfo` of ours left; `restore --all`
            // un-stages it, and a commit then moves nothing.
            #expect(try Trash.staged(library: s.lib.library).map(\.path).sorted() == [a, b].sorted())
            #expect(try FileSystem.listDirectory(s.homeTrash + "/info").isEmpty)
            _ = try Trash.restoreAll(library: s.lib.library, clock: s.clock)
            let report = try s.commit()
            #expect(report.outcomes.isEmpty && FileSystem.exists(a) && FileSystem.exists(b))
        }
    }

    /// A file manager restores the one file it is asked for; SnapSort brings its sidecars back
    /// with it when it notices (emptying the Trash lost them), and a `.trashinfo` a killed
    /// restore left behind (a photo listed in the Trash that is not there) is removed.
    @Test("a photo restored by the file manager brings its sidecars back; a stale .trashinfo of ours goes")
    func outsideRestoreBringsSidecars() throws {
        let s = try TrashSetup(["IMG_1.jpg", "IMG_2.jpg"])
        s.lib.dir.write("Pictures/IMG_1.xmp", Array("<xmp/>".utf8))
        _ = try s.stage("IMG_1.jpg")
        _ = try s.stage("IMG_2.jpg")
        #expect(try s.commit().succeeded.count == 3)
        // trash-restore: the file back, its .trashinfo removed.
        try FileSystem.rename(s.homeTrash + "/files/IMG_1.jpg", s.lib.root + "/IMG_1.jpg")
        try FileSystem.remove(s.homeTrash + "/info/IMG_1.jpg.trashinfo")
        // A restore killed after its move: the file back, the .trashinfo still there.
        try FileSystem.rename(s.homeTrash + "/files/IMG_2.jpg", s.lib.root + "/IMG_2.jpg")
        #expect(try Trash.noticeRestores(library: s.lib.library, clock: s.clock) == 2)
        #expect(FileSystem.exists(s.lib.root + "/IMG_1.xmp"))
        #expect(try FileSystem.listDirectory(s.homeTrash + "/files").isEmpty)
        #expect(try FileSystem.listDirectory(s.homeTrash + "/info").isEmpty)
        #expect(try Trash.inSystemTrash(library: s.lib.library).isEmpty)
    }

    /// The library's disk fills up after some files went to the Trash: the message says so
    /// (the general one says "nothing was changed").
    @Test("a commit stopped by a full library disk says how many files it had moved")
    func fullDiskMidCommitSaysWhatMoved() throws {
        let s = try TrashSetup(["a.jpg", "b.jpg", "c.jpg"])
        for n in ["a.jpg", "b.jpg", "c.jpg"] { _ = try s.stage(n) }
        var full = s.env
        let renames = Mutex(0)
        full.afterRename = { _ in
            let n = renames.withLock {
                $0 += 1; return $0
            }
            if n == 2 { throw SystemError(.sqlite(13), "database or disk is full", operation: "step") }
        }
        do {
            _ = try s.commit(full)
            Issue.record("the commit did not stop")
        } catch let e as LibraryError {
            #expect(e.message.hasPrefix("the commit stopped after moving 1 file to the Trash: the disk holding the library"), "\(e.message)")
        }
        try Trash.noticeRestores(library: s.lib.library, clock: s.clock)
        #expect(try Trash.inSystemTrash(library: s.lib.library).count == 2)
        #expect(try Trash.staged(library: s.lib.library).count == 1)
    }

    /// A folder replaced by a symbolic link after its photo was trashed: a restore would put
    /// the photo wherever the link points, outside its library; it is refused, with the reason,
    /// and goes once the folder is a folder again. A library reached through a link all along
    /// (`~/Pictures` → `/data/Pictures`) restores as ever.
    @Test("a restore never goes through a folder replaced by a symbolic link since")
    func restoreRefusesAFolderNowALink() throws {
        let s = try TrashSetup(["sub/p.jpg", "q.jpg"])
        let link = s.lib.dir.at("linked")
        #expect(symlink(s.lib.root, link) == 0)
        _ = try s.lib.library.forget(under: s.lib.root, at: Date())
        try s.lib.scan([link])
        _ = try s.stage("sub/p.jpg", root: link)
        _ = try s.stage("q.jpg", root: link)
        #expect(try s.commit().succeeded.count == 2)
        let back = try Trash.restore(paths: [link + "/q.jpg"], library: s.lib.library, clock: s.clock)
        #expect(back.map(\.result) == [.restored] && FileSystem.exists(s.lib.root + "/q.jpg"), "\(back)")
        let elsewhere = TempDir()
        try FileSystem.rename(s.lib.root + "/sub", s.lib.root + "/sub-moved")
        #expect(symlink(elsewhere.path, s.lib.root + "/sub") == 0)
        let refused = try Trash.restore(paths: [link + "/sub/p.jpg"], library: s.lib.library, clock: s.clock)
        guard case .skipped(let why) = refused.first?.result else {
            Issue.record("\(refused)")
            return
        }
        #expect(why.contains("now leads to"), "\(why)")
        #expect(try FileSystem.listDirectory(elsewhere.path).isEmpty)
        try FileSystem.remove(s.lib.root + "/sub")
        let again = try Trash.restore(paths: [link + "/sub/p.jpg"], library: s.lib.library, clock: s.clock)
        #expect(again.map(\.result) == [.restored] && FileSystem.exists(s.lib.root + "/sub/p.jpg"), "\(again)")
    }

    /// A photo's folder deleted after the photo went to the Trash comes back with it, each
    /// level with the permissions of the folder it is made in — not the process's umask (the
    /// agent's unit has `UMask=0077`, which made restored folders private).
    @Test("a restore makes its gone folders again with their parent folder's permissions")
    func restoredFoldersTakeTheirParentsPermissions() throws {
        let s = try TrashSetup(["trip/day 1/p.jpg", "q.jpg"])
        _ = try s.stage("trip/day 1/p.jpg")
        #expect(try s.commit().succeeded.count == 1)
        #expect(rmdir(s.lib.root + "/trip/day 1") == 0 && rmdir(s.lib.root + "/trip") == 0)
        try FileSystem.setMode(s.lib.root, 0o750)
        let back = try Trash.restore(paths: [s.lib.root + "/trip/day 1/p.jpg"], library: s.lib.library, clock: s.clock)
        #expect(back.map(\.result) == [.restored], "\(back)")
        for folder in ["/trip", "/trip/day 1"] {
            let mode = (try FileSystem.status(s.lib.root + folder).mode) & 0o7777
            #expect(mode == 0o750, "\(folder): \(String(mode, radix: 8))")
        }
    }

    @Test("a .trashinfo is created whole or not at all, never replacing one, leaving no temp file")
    func infoCreatedWhole() throws {
        let dir = TempDir()
        let info = dir.folder("info") + "/a.jpg.trashinfo"
        try FileSystem.createExclusive(info, Array("[Trash Info]\n".utf8))
        #expect(throws: SystemError.self) { try FileSystem.createExclusive(info, Array("other".utf8)) }
        #expect(String(decoding: try FileSystem.readFile(info, limit: 100), as: UTF8.self) == "[Trash Info]\n")
        #expect(try FileSystem.listDirectory(dir.at("info")).map(\.name) == ["a.jpg.trashinfo"])
        #expect(FileSystem.exclusiveTempPrefix(for: info) == dir.at("info") + "/.a.jpg.trashinfo.snapsort-")
    }

    @Test("kill -9 in the middle of a commit, then restart: every staged file trashed once or still in place")
    func killNine() throws {
        let names = (0..<120).map { String(format: "k%03d.jpg", $0) }
        let lib = try TestLibrary()
        let bytes = Fixtures.jpeg(seed: 1, width: 16, height: 16)
        for (i, n) in names.enumerated() { lib.dir.write("Pictures/" + n, bytes + [UInt8(i & 0xFF), UInt8(i >> 8)]) }
        try lib.scan()
        let (clock, _) = Clock.manual(Date())
        for n in names {
            try Review.decide(.trash, fileID: try #require(try lib.library.item(path: lib.root + "/" + n)).id, library: lib.library, clock: clock)
        }
        let env = ["SNAPSORT_DB": lib.dbPath, "XDG_DATA_HOME": lib.dir.at("share"), "HOME": lib.dir.path]
        let p = Process()
        p.executableURL = URL(fileURLWithPath: SnapsortBinary.path)
        p.arguments = ["trash", "commit", "--yes"]
        p.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        let watcher = try Library(path: lib.dbPath)
        let started = try waitUntil(timeout: 60, poll: 0.002) {
            (try watcher.db.scalar("SELECT count(*) FROM trash_ledger WHERE state='trashed'") ?? 0) >= 3
        }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        #expect(started)
        let trash = lib.dir.at("share/Trash")
        func check() throws -> (inTrash: Int, inPlace: Int) {
            var inTrash = 0, inPlace = 0
            for n in names {
                let here = FileSystem.exists(lib.root + "/" + n), there = FileSystem.exists(trash + "/files/" + n)
                #expect(here != there, "\(n) is in both places or lost")
                if there { inTrash += 1 } else if here { inPlace += 1 }
            }
            return (inTrash, inPlace)
        }
        let mid = try check()
        #expect(mid.inTrash + mid.inPlace == names.count)
        // The ledger says which: trashed rows are in the Trash; at most one is mid-flight.
        let trashedRows = try watcher.db.scalar("SELECT count(*) FROM trash_ledger WHERE state='trashed'") ?? 0
        let planned = try watcher.db.scalar("SELECT count(*) FROM trash_ledger WHERE state='planned'") ?? 0
        #expect(Int(trashedRows) <= mid.inTrash && Int(trashedRows + planned) >= mid.inTrash && planned <= 1)
        // Restart.
        let again = try SnapsortBinary.run(["trash", "commit", "--yes"], env: env)
        #expect(again.status == 0, "\(again.stderr)")
        let end = try check()
        #expect(end.inTrash == names.count && end.inPlace == 0)
        #expect(try FileSystem.listDirectory(trash + "/files").count == names.count)
        #expect(try FileSystem.listDirectory(trash + "/info").count == names.count)
        #expect(try watcher.db.scalar("SELECT count(*) FROM trash_ledger WHERE state='trashed'") == Int64(names.count))
        #expect(try watcher.db.scalar("SELECT count(DISTINCT file_id) FROM trash_ledger WHERE state='trashed'") == Int64(names.count))
    }
}

/// Whether a thread of this system waits for a `flock` on the file `inode` (`/proc/locks` lists
/// a blocked request as "N: -> FLOCK  ADVISORY  WRITE PID MAJ:MIN:INODE 0 EOF"; see man 5 proc).
func blockedOnFlock(inode: UInt64) -> Bool {
    guard let text = try? FileSystem.readFile("/proc/locks", limit: 1 << 20) else { return false }
    return String(decoding: text, as: UTF8.self).split(separator: "\n").contains { line in
        let w = line.split(separator: " ")
        return w.count > 6 && w[1] == "->" && w[2] == "FLOCK" && w[6].split(separator: ":").last == Substring(String(inode))
    }
}
