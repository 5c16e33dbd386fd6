import Foundation
import Glibc
import SnapSortSystem
import SnapSortTestSupport
import Synchronization
import Testing

@testable import SnapSortCore

/// A small JPEG, different for each seed.
private func small(_ seed: UInt64) -> [UInt8] { Fixtures.jpeg(seed: seed, width: 64, height: 48) }

@Suite struct LibraryScannerTests {
    @Test func scansJPEGAndPNGAndASecondScanOnlyStats() throws {
        let t = try TestLibrary()
        t.dir.write(
            "Pictures/2024/IMG_1.jpg", Fixtures.jpeg(seed: 1, dateTimeOriginal: "2024:05:01 10:00:00", offset: "+02:00", make: "Canon", model: "EOS"))
        t.dir.write("Pictures/2024/shot.png", Fixtures.png(seed: 2))
        t.dir.write("Pictures/notes.txt", Array("hello".utf8))
        let first = try t.scan()
        #expect(first.added == 2)
        #expect(first.decodes == 2)
        let items = try t.library.items()
        #expect(items.count == 2)
        let jpg = try #require(items.first { $0.path.hasSuffix("IMG_1.jpg") })
        #expect(jpg.status == .ok)
        #expect(jpg.takenAt == "2024-05-01T10:00:00+02:00")
        #expect(jpg.takenSource == "exif")
        #expect(jpg.make == "Canon")
        #expect(jpg.width == 640 && jpg.height == 480)
        #expect(jpg.metrics != nil && jpg.dhash != nil && (jpg.signature?.count ?? 0) >= 256)
        let second = try t.scan()
        #expect(second.unchanged == 2)
        #expect(second.analyzed == 0 && second.decodes == 0)
    }

    /// A name that is not UTF-8 (a Latin-1 name from an old camera or a zip made on Windows) is
    /// found, analyzed and known under its own bytes: before, the listing's U+FFFD made the file
    /// unreachable, so it was never seen (no row, no message) and its folder "could not be read".
    @Test func namesThatAreNotUTF8AreAnalyzedUnderTheirOwnBytes() throws {
        let t = try TestLibrary()
        let folder = PathName.decode(Array("f".utf8) + [0xEA] + Array("te".utf8))
        let name = PathName.decode(Array("caf".utf8) + [0xE9] + Array(".jpg".utf8))
        t.dir.write("Pictures/\(name)", Fixtures.jpeg(seed: 31))
        t.dir.write("Pictures/\(folder)/IMG_1.jpg", Fixtures.jpeg(seed: 32))
        let first = try t.scan()
        #expect(first.added == 2 && first.unreadableFolders.isEmpty, "\(first)")
        for path in [t.root + "/" + name, t.root + "/" + folder + "/IMG_1.jpg"] {
            let item = try #require(try t.library.item(path: path))
            #expect(item.status == .ok && item.metrics != nil && FileSystem.exists(item.path))
        }
        // The report names them as Python's surrogateescape does: os.fsencode gives the bytes.
        let line = JSON.string(t.root + "/" + name).serialized()
        #expect(line.hasSuffix("/caf\\udce9.jpg\""), "\(line)")
        #expect(try t.scan().unchanged == 2)
    }

    /// Files are analyzed in path order, whatever order the directory lists them in: with one
    /// worker the rows (ids follow the commits) come in that order.
    @Test func filesAreAnalyzedInPathOrder() throws {
        let t = try TestLibrary()
        let names = (0..<24).map { String(format: "IMG_%04d.png", ($0 * 7) % 24) }  // created out of order
        for (i, n) in names.enumerated() {
            t.dir.write("Pictures/\(i % 2 == 0 ? "a" : "b")/\(n)", Fixtures.png(seed: UInt64(i), width: 32, height: 24))
        }
        _ = try t.scanner(workers: 1).scan([t.root])
        let paths = try t.library.db.rows("SELECT path FROM files ORDER BY id").map { $0.string(0)! }
        #expect(paths.count == 24)
        #expect(paths == paths.sorted())
    }

    /// A folder changed while it was listed gets no stamp; its parent, stamped and skipped next
    /// time, walked only its stamped subfolders: the folder was never walked again, its files
    /// were taken for gone and what it gained was never found (the agent after an inotify
    /// overflow during a copy).
    @Test func aSubfolderWithoutAStampIsWalkedUnderASkippedParent() throws {
        let t = try TestLibrary()
        t.dir.write("Pictures/old/x.jpg", small(11))
        t.dir.write("Pictures/Import/a.jpg", small(12))
        t.dir.write("Pictures/Import/b.jpg", small(13))
        // The root and `old` untouched for an hour; `Import` is being filled now.
        let past = Date().addingTimeInterval(-3600)
        for f in ["Pictures", "Pictures/old"] {
            try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: t.dir.at(f))
        }
        let scanner = t.scanner()
        scanner.skipUnchangedFolders = true
        #expect(try scanner.scan([t.root]).added == 3)
        t.dir.write("Pictures/Import/c.jpg", small(14))
        let next = try scanner.scan([t.root])
        #expect(next.gone == 0 && next.added == 1, "\(next)")
        #expect(try t.library.db.scalar("SELECT count(*) FROM files WHERE status != 'gone'") == 4)
        // Stamps written by a version without the rule (the root stamped, `Import` not) are
        // walked through as well: a folder that holds known files is walked.
        let stamp = { (dir: String) in Library.FolderStamp(try FileSystem.status(dir)) }
        try t.library.replaceFolderStamps(under: t.root, with: [t.root: try stamp(t.root), t.root + "/old": try stamp(t.root + "/old")])
        let again = try scanner.scan([t.root])
        #expect(again.gone == 0, "\(again)")
    }

    /// A folder changed within two seconds of its listing gets no stamp (it may change again in
    /// the same tick, like git's racy entries); "now" is the scanner's `pace` clock, never read
    /// from the wall behind it. Folders an hour old are untrusted on a clock one second past
    /// them, and trusted three seconds past them; read from the wall clock, the first scan would
    /// stamp `old` and the folder an hour ahead (and so the root) would stay unstamped.
    @Test func aFolderIsTrustedByTheScannersClock() throws {
        let t = try TestLibrary()
        t.dir.write("Pictures/old/a.jpg", small(1))
        t.dir.write("Pictures/ahead/b.jpg", small(2))
        let past = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) - 3600)
        let future = past.addingTimeInterval(7200)
        for (f, at) in [("Pictures", past), ("Pictures/old", past), ("Pictures/ahead", future)] {
            try FileManager.default.setAttributes([.modificationDate: at], ofItemAtPath: t.dir.at(f))
        }
        func stamped(at now: Date) throws -> Set<String> {
            try t.library.replaceFolderStamps(under: t.root, with: [:])
            let scanner = t.scanner()
            scanner.pace = Clock.manual(now).0
            _ = try scanner.scan([t.root])
            return Set(try t.library.folderStamps(under: t.root).keys)
        }
        #expect(try stamped(at: past.addingTimeInterval(1)).isEmpty)
        // `old` is trusted; the root is not stamped while `ahead`, under it, is not (a stamp
        // vouches for the whole tree).
        #expect(try stamped(at: past.addingTimeInterval(3)) == [t.dir.at("Pictures/old")])
        #expect(try stamped(at: future.addingTimeInterval(3)) == [t.root, t.dir.at("Pictures/old"), t.dir.at("Pictures/ahead")])
        // The walk ahead of a scan (`snapsort scan`) asks the clock it is given as well.
        let ahead = try #require(PrewalkedRoots([t.root], rules: ExcludeRules(), clock: Clock.manual(past.addingTimeInterval(1)).0).listing(t.root))
        #expect(ahead.stamps.isEmpty)
    }

    @Test func skippingUnchangedFoldersFindsWhatAFullListingFinds() throws {
        let t = try TestLibrary()
        t.dir.write("Pictures/2023/a.jpg", small(1))
        t.dir.write("Pictures/2023/deep/b.jpg", small(2))
        t.dir.write("Pictures/2024/c.jpg", small(3))
        t.dir.write("Pictures/2024/d.jpg", small(4))
        // Folder times an hour old, so they are trusted (a folder changed within the last
        // seconds is always listed again).
        let past = Date().addingTimeInterval(-3600)
        for f in ["Pictures", "Pictures/2023", "Pictures/2023/deep", "Pictures/2024"] {
            try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: t.dir.at(f))
        }
        let scanner = t.scanner()
        scanner.skipUnchangedFolders = true
        let first = try scanner.scan([t.root])
        #expect(first.added == 4)
        #expect(scanner.foldersListed == 4 && scanner.foldersSkipped == 0)
        // Nothing changed: every folder is skipped, every file still stat'ed.
        let quiet = try scanner.scan([t.root])
        #expect(quiet.unchanged == 4)
        #expect(scanner.foldersListed == 0 && scanner.foldersSkipped == 4)
        // A write in place (no folder changes), a new file (its folder changes), a deletion
        // in a deep folder (that folder changes), a new subfolder.
        let fd = try FileDescriptor.open(t.dir.at("Pictures/2023/a.jpg"), O_WRONLY | O_TRUNC)
        try fd.writeAll(small(5))
        fd.close()
        t.dir.write("Pictures/2024/e.jpg", small(6))
        try FileSystem.remove(t.dir.at("Pictures/2023/deep/b.jpg"))
        t.dir.write("Pictures/2023/deep/new/f.jpg", small(7))
        let after = try scanner.scan([t.root])
        #expect(after.changed == 1)
        #expect(after.added == 2)
        #expect(after.gone == 1)
        #expect(scanner.foldersSkipped == 2)  // Pictures and 2023 (a.jpg was stat'ed there)
        // The same database a full listing leaves.
        let full = t.scanner()
        let check = try full.scan([t.root])
        #expect(check.unchanged == 5 && check.added == 0 && check.changed == 0 && check.gone == 0)
        #expect(full.foldersSkipped == 0)
    }

    /// `touch` (or a copy tool without -t) changes a file's times, not its bytes: the row takes
    /// the new identity without a decode; the same size with other bytes is analyzed again.
    @Test func aTouchedFileIsNotDecodedAgain() throws {
        let t = try TestLibrary()
        let path = t.dir.write("Pictures/a.jpg", Fixtures.jpeg(seed: 71, width: 96, height: 72))
        t.dir.write("Pictures/b.jpg", Fixtures.jpeg(seed: 72, width: 96, height: 72))
        try t.scan()
        let before = try #require(try t.library.item(path: path))
        var times = [timespec(tv_sec: 1_700_000_000, tv_nsec: 0), timespec(tv_sec: 1_700_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        let touched = try t.scan()
        #expect(touched.touched == 1 && touched.changed == 0 && touched.analyzed == 0 && touched.decodes == 0, "\(touched)")
        let after = try #require(try t.library.item(path: path))
        let analyzedAt = { try t.library.db.row("SELECT analyzed_at FROM files WHERE id=?", before.id)?.string(0) }
        let stamp = try analyzedAt()
        #expect(after.id == before.id)
        #expect(try t.scan().unchanged == 2)
        #expect(try analyzedAt() == stamp)
        // Same size, other bytes: a change.
        var bytes = try FileSystem.readFile(path, limit: 1 << 20)
        bytes[bytes.count / 2] ^= 0xFF
        try FileSystem.writeAtomically(path, bytes)
        let changed = try t.scan()
        #expect(changed.changed == 1 && changed.touched == 0 && changed.analyzed == 1, "\(changed)")
    }

    @Test func renameAndMoveKeepTheRowWithoutReanalysis() throws {
        let t = try TestLibrary()
        let a = t.dir.write("Pictures/a/IMG_1.jpg", Fixtures.jpeg(seed: 1))
        t.dir.write("Pictures/a/IMG_2.jpg", Fixtures.jpeg(seed: 2))
        try t.scan()
        let before = try #require(try t.library.item(path: a))
        t.dir.folder("Pictures/b/c")
        try FileSystem.rename(a, t.dir.at("Pictures/b/c/renamed.jpg"))
        let s = try t.scan()
        #expect(s.moved == 1)
        #expect(s.decodes == 0 && s.added == 0 && s.gone == 0)
        let after = try #require(try t.library.item(path: t.dir.at("Pictures/b/c/renamed.jpg")))
        #expect(after.id == before.id)
        #expect(after.metricsText == before.metricsText)
    }

    @Test func aMoveFromAnotherRootIsFollowedWhenOnlyTheDestinationIsScanned() throws {
        let t = try TestLibrary()
        let other = t.dir.folder("Elsewhere")
        let src = t.dir.write("Elsewhere/IMG_9.jpg", Fixtures.jpeg(seed: 9))
        try t.scan([other])
        let id = try #require(try t.library.item(path: src)).id
        try FileSystem.rename(src, t.dir.at("Pictures/IMG_9.jpg"))
        let s = try t.scan([t.root])
        #expect(s.moved == 1 && s.decodes == 0)
        #expect(try t.library.item(path: t.dir.at("Pictures/IMG_9.jpg"))?.id == id)
    }

    @Test func aCopyIsANewRowNotAMove() throws {
        let t = try TestLibrary()
        let bytes = Fixtures.jpeg(seed: 4)
        t.dir.write("Pictures/IMG_4.jpg", bytes)
        try t.scan()
        t.dir.write("Pictures/Backup/IMG_4.jpg", bytes)
        let s = try t.scan()
        #expect(s.added == 1 && s.moved == 0)
        #expect(try t.library.items().count == 2)
    }

    /// The safety issue's first finding, on a real ext4: a photo staged for the Trash is
    /// deleted, and a copy of its bytes made at once lands on its inode number (ext4 hands it
    /// out again). The scan took the copy for the photo moved ("1 moved") and the commit sent
    /// it, never seen by anyone, to the Trash. The copy is a new item now, undecided, and the
    /// commit moves nothing.
    @Test(.enabled(if: ScratchExt4.isAvailable, "mounting a scratch ext4 needs root and mkfs.ext4"))
    func aCopyOnTheInodeNumberOfADeletedPhotoTakesNoneOfItsDecisions() throws {
        let t = try TestLibrary()
        let disk = try ScratchExt4()
        let root = disk.mountPoint + "/R"
        try FileSystem.makeDirectories(root + "/a")
        try FileSystem.makeDirectories(root + "/b")
        let bytes = Fixtures.jpeg(seed: 31)
        let old = try ScratchExt4.create(root + "/a/x.jpg", bytes)
        try t.scan([root])
        let id = try #require(try t.library.item(path: root + "/a/x.jpg")).id
        try Review.decide(.trash, fileID: id, library: t.library, clock: .live)
        try FileSystem.remove(root + "/a/x.jpg")
        let imported = try #require(
            try ScratchExt4.createOnInode(old.inode, bytes, in: root + "/b", prefix: "imp"), "ext4 gave the inode number back")
        let s = try t.scan([root])
        #expect(s.moved == 0 && s.gone == 1)
        let item = try #require(try t.library.item(path: imported))
        #expect(item.id != id)
        #expect(try Review.decision(for: item.id, library: t.library) == nil)
        let env = TrashEnvironment(environment: Environment(variables: ["HOME": t.dir.path, "XDG_DATA_HOME": t.dir.at("share")]))
        let report = try Trash.commit(library: t.library, clock: .live, env: env)
        #expect(report.succeeded.isEmpty)
        #expect(FileSystem.exists(imported))
    }

    /// A photo renamed within its file system is the same file (inode and birth time): its row
    /// and decisions follow it, also from a tombstone (out of the library and back later).
    @Test func aRenameOutAndBackKeepsTheRowAndItsDecision() throws {
        let t = try TestLibrary()
        let p = t.dir.write("Pictures/IMG_7.jpg", Fixtures.jpeg(seed: 7))
        try t.scan()
        let id = try #require(try t.library.item(path: p)).id
        #expect(try t.library.db.scalar("SELECT btime_ns FROM files WHERE id = ?", id) != nil)
        try Review.decide(.trash, fileID: id, library: t.library, clock: .live)
        try FileSystem.rename(p, t.dir.at("away.jpg"))
        #expect(try t.scan().gone == 1)
        try FileSystem.rename(t.dir.at("away.jpg"), t.dir.at("Pictures/IMG_7 renamed.jpg"))
        let back = try t.scan()
        #expect(back.moved == 1)
        #expect(try Review.decision(for: id, library: t.library)?.decision == .trash)
    }

    /// A tombstone whose file was seen deleted (the agent's `IN_DELETE`) is never revived, even
    /// by a file with its identity where the file system keeps no birth time to tell.
    @Test func aTombstoneSeenDeletedIsNeverRevived() throws {
        let t = try TestLibrary()
        let p = t.dir.write("Pictures/IMG_8.jpg", Fixtures.jpeg(seed: 8))
        try t.scan()
        let id = try #require(try t.library.item(path: p)).id
        try FileSystem.rename(p, t.dir.at("away.jpg"))
        try t.library.markGone(ids: [id], at: Date(), deleted: true)
        try t.library.db.run("UPDATE files SET btime_ns = -1 WHERE id = ?", id)
        try FileSystem.rename(t.dir.at("away.jpg"), p)
        let s = try t.scan()
        #expect(s.moved == 0 && s.added == 1)
        #expect(try t.library.item(path: p)?.id != id)
    }

    /// Rows from before birth times were kept get theirs at the next scan, while their files
    /// are still theirs.
    @Test func aScanRecordsTheBirthTimesOfOlderRows() throws {
        let t = try TestLibrary()
        let p = t.dir.write("Pictures/IMG_9.jpg", Fixtures.jpeg(seed: 9))
        try t.scan()
        try t.library.db.run("UPDATE files SET btime_ns = NULL")
        #expect(try t.scan().unchanged == 1)
        let recorded = try #require(try t.library.db.scalar("SELECT btime_ns FROM files WHERE path = ?", p))
        #expect(recorded == FileIdentity.of(p)?.birthNanoseconds ?? -1)
    }

    @Test func aModifiedFileIsReanalyzedInItsRow() throws {
        let t = try TestLibrary()
        let p = t.dir.write("Pictures/IMG_1.jpg", Fixtures.jpeg(seed: 1))
        try t.scan()
        let before = try #require(try t.library.item(path: p))
        t.dir.write("Pictures/IMG_1.jpg", Fixtures.jpeg(seed: 5, width: 800, height: 600))
        let s = try t.scan()
        #expect(s.changed == 1 && s.decodes == 1)
        let after = try #require(try t.library.item(path: p))
        #expect(after.id == before.id)
        #expect(after.width == 800)
    }

    @Test func aDeletedFileDisappearsAndComesBackToItsRow() throws {
        let t = try TestLibrary()
        let bytes = Fixtures.jpeg(seed: 3)
        let p = t.dir.write("Pictures/IMG_3.jpg", bytes)
        try t.scan()
        let id = try #require(try t.library.item(path: p)).id
        // Gone from the library (into a Trash outside it: a rename, the same inode).
        try FileSystem.rename(p, t.dir.at("Trash-IMG_3.jpg"))
        let s = try t.scan()
        #expect(s.gone == 1)
        #expect(try t.library.items().isEmpty)
        // Restored (e.g. from the Trash by a file manager): same content, same row. (It was
        // written anew here, which is a copy, not the file: it passed only when the file
        // system gave the new file the freed inode.)
        try FileSystem.rename(t.dir.at("Trash-IMG_3.jpg"), p)
        let back = try t.scan()
        #expect(back.moved == 1 && back.decodes == 0)
        #expect(try t.library.item(path: p)?.id == id)
        #expect(try t.library.item(path: p)?.status == .ok)
    }

    @Test func anOfflineRootKeepsItsRows() throws {
        let t = try TestLibrary()
        let disk = t.dir.folder("media/usb")
        t.dir.write("media/usb/IMG_1.jpg", Fixtures.jpeg(seed: 1))
        try t.scan([disk])
        try FileSystem.rename(disk, t.dir.at("media/usb-unplugged"))
        let s = try t.scan([disk])
        #expect(s.offlineRoots == [disk])
        #expect(s.gone == 0)
        #expect(try t.library.items(under: [disk]).count == 1)
    }

    /// A disk unmounted while the scan walks it (the scanner had walked it, then found its
    /// rows' files gone): its rows were tombstoned. The root is offline now, its rows kept.
    @Test(.enabled(if: Tmpfs.canMount, "mounting needs root"))
    func aDiskUnmountedDuringTheScanKeepsItsRows() throws {
        let t = try TestLibrary()
        let disk = t.dir.folder("media/card")
        let other = t.dir.folder("media/other")
        try Tmpfs.mount(at: disk)
        var mounted = true
        defer { if mounted { try? Tmpfs.unmount(disk) } }
        try ScratchExt4.create(disk + "/IMG_1.jpg", Fixtures.jpeg(seed: 1))
        try ScratchExt4.create(other + "/IMG_2.jpg", Fixtures.jpeg(seed: 2))
        try t.scan([disk, other])
        let scanner = t.scanner()
        // The disk goes while the other root is walked, after its own walk listed nothing new.
        scanner.afterWalk = { root in
            if root == other, mounted {
                try? Tmpfs.unmount(disk)
                mounted = false
            }
        }
        try ScratchExt4.create(other + "/IMG_3.jpg", Fixtures.jpeg(seed: 3))
        try FileSystem.remove(disk + "/IMG_1.jpg")
        let s = try scanner.scan([disk, other])
        #expect(!mounted)
        #expect(s.offlineRoots == [disk])
        #expect(s.gone == 0 && s.added == 1)
        #expect(try t.library.items(under: [disk]).count == 1)
    }

    /// The scan's analysis workers decode untrusted files confined: on the very threads that
    /// decode, creating a file and opening a socket fail, and the photos are analyzed as ever.
    @Test func theAnalysisWorkersAreConfined() throws {
        let t = try TestLibrary()
        for i in 1...4 { t.dir.write("Pictures/IMG_\(i).jpg", Fixtures.jpeg(seed: UInt64(i))) }
        let seen = Mutex<[(confined: Bool, create: Int32, socket: Int32)]>([])
        let target = t.dir.at("dropped")
        let scanner = t.scanner(workers: 2)
        scanner.workerStarted = { confined in
            let fd = open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
            let createErrno = fd < 0 ? errno : 0
            if fd >= 0 { close(fd) }
            let s = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            let socketErrno = s < 0 ? errno : 0
            if s >= 0 { close(s) }
            seen.withLock { $0.append((confined, createErrno, socketErrno)) }
        }
        let summary = try scanner.scan([t.root])
        #expect(summary.added == 4 && summary.decodes == 4)
        #expect(try t.library.items().allSatisfy { $0.status == .ok })
        let workers = seen.withLock { $0 }
        #expect(workers.count == 2)
        #expect(workers.allSatisfy { $0.confined && $0.create == EPERM && $0.socket == EPERM }, "\(workers)")
        #expect(!FileSystem.exists(target))
    }

    @Test func scanningOneFolderNeverTouchesAnother() throws {
        let t = try TestLibrary()
        let a = t.dir.write("Pictures/A/IMG_1.jpg", Fixtures.jpeg(seed: 1))
        t.dir.write("Pictures/B/IMG_2.jpg", Fixtures.jpeg(seed: 2))
        try t.scan()
        unlink(a)
        let s = try t.scan([t.dir.at("Pictures/B")])
        #expect(s.gone == 0)
        #expect(try t.library.items().count == 2)
    }

    /// The CLI walks the roots while the library opens (`PrewalkedRoots`); that walk finds what
    /// the scan's own walk finds, changes included, and skips what it skips.
    @Test func aWalkAheadFindsWhatTheScansOwnWalkFinds() throws {
        let t = try TestLibrary()
        t.dir.write("Pictures/2023/a.jpg", small(1))
        t.dir.write("Pictures/2023/deep/b.png", Fixtures.png(seed: 2, width: 32, height: 24))
        t.dir.write("Pictures/2024/c.jpg", small(3))
        t.dir.write("Pictures/.hidden/d.jpg", small(4))
        t.dir.write("Pictures/skip/.nomedia", [])
        t.dir.write("Pictures/skip/e.jpg", small(5))
        t.dir.write("Pictures/notes.txt", Array("hi".utf8))
        symlink(t.dir.at("Pictures/2024/c.jpg"), t.dir.at("Pictures/link.jpg"))
        let ahead = try #require(PrewalkedRoots([t.root], rules: ExcludeRules(), clock: .live).listing(t.root))
        let own = FolderWalk.listing(t.root, rules: ExcludeRules(), now: Date())
        #expect(ahead.files.map(\.path).sorted() == own.files.map(\.path).sorted())
        #expect(ahead.files.map(\.path).sorted() == ["2023/a.jpg", "2023/deep/b.png", "2024/c.jpg"].map { t.root + "/" + $0 })
        #expect(ahead.files.allSatisfy { $0.status == (try? FileSystem.lstatus($0.path)) })

        let first = try t.scanner().scan([t.root], prewalked: PrewalkedRoots([t.root], rules: ExcludeRules(), clock: .live))
        #expect(first.added == 3)
        // A change in place, a deletion, a new file: the next walk ahead sees each.
        let fd = try FileDescriptor.open(t.dir.at("Pictures/2023/a.jpg"), O_WRONLY | O_TRUNC)
        try fd.writeAll(small(6))
        fd.close()
        try FileSystem.remove(t.dir.at("Pictures/2024/c.jpg"))
        t.dir.write("Pictures/2024/f.jpg", small(7))
        let second = try t.scanner().scan([t.root], prewalked: PrewalkedRoots([t.root], rules: ExcludeRules(), clock: .live))
        #expect(second.changed == 1 && second.gone == 1 && second.added == 1 && second.unchanged == 1)
        // A root walked ahead but given twice is walked again the second time, not skipped.
        let twice = try t.scanner().scan([t.root, t.root], prewalked: PrewalkedRoots([t.root], rules: ExcludeRules(), clock: .live))
        #expect(twice.unchanged == 6 && twice.gone == 0)
    }

    /// A file deleted after the walk listed it and before a worker opened it leaves no row and
    /// is no problem of the scan: it is not counted added, analyzed or unreadable (the summary
    /// said "1 added, 1 problem" for a file the library never held).
    @Test func aFileDeletedBetweenTheWalkAndTheAnalysisIsNotCounted() throws {
        let t = try TestLibrary()
        t.dir.write("Pictures/a.jpg", small(1))
        t.dir.write("Pictures/b.jpg", small(2))
        t.dir.write("Pictures/c.jpg", small(3))
        let ahead = PrewalkedRoots([t.root], rules: ExcludeRules(), clock: .live)
        ahead.waitUntilWalked()
        try FileSystem.remove(t.dir.at("Pictures/b.jpg"))
        let first = try t.scanner().scan([t.root], prewalked: ahead)
        #expect(first.added == 2 && first.analyzed == 2 && first.decodes == 2 && first.problems == 0, "\(first)")
        #expect(try t.library.items().map(\.path).sorted() == [t.root + "/a.jpg", t.root + "/c.jpg"])
        // One that was known and changed, then deleted before its analysis: the row stays for
        // the next scan to see gone, and this scan counts no change and no problem.
        let fd = try FileDescriptor.open(t.dir.at("Pictures/a.jpg"), O_WRONLY | O_TRUNC)
        try fd.writeAll(small(4))
        fd.close()
        let again = PrewalkedRoots([t.root], rules: ExcludeRules(), clock: .live)
        again.waitUntilWalked()
        try FileSystem.remove(t.dir.at("Pictures/a.jpg"))
        let second = try t.scanner().scan([t.root], prewalked: again)
        #expect(second.changed == 0 && second.analyzed == 0 && second.problems == 0 && second.unchanged == 1, "\(second)")
        let third = try t.scan()
        #expect(third.gone == 1 && third.unchanged == 1, "\(third)")
    }

    /// The rows a rescan compares come from the covering path index alone (100 000 rows of
    /// ~2 KB are not read), and unchanged folder stamps are not written again.
    @Test func aRescanReadsThePathIndexAndWritesNothing() throws {
        let t = try TestLibrary()
        let plan = try t.library.db.rows("EXPLAIN QUERY PLAN " + Library.liveRowsSQL, "/a/", "/a0", "/a").compactMap { $0.string(3) }
        #expect(plan.contains { $0.contains("COVERING INDEX files_path_identity (path>? AND path<?)") }, "\(plan)")
        t.dir.write("Pictures/2023/a.jpg", Fixtures.jpeg(seed: 1, width: 64, height: 48))
        t.dir.write("Pictures/2024/b.jpg", Fixtures.jpeg(seed: 2, width: 64, height: 48))
        let past = Date().addingTimeInterval(-3600)
        for f in ["Pictures", "Pictures/2023", "Pictures/2024"] {
            try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: t.dir.at(f))
        }
        try t.scan()
        #expect(try t.library.folderStamps(under: t.root).count == 3)
        let before = t.library.db.totalChanges
        let again = try t.scan()
        #expect(again.unchanged == 2)
        #expect(t.library.db.totalChanges == before + 1)  // the root's last scan time, nothing else
        // A folder that went and one that changed: only those rows are written.
        try FileSystem.remove(t.dir.at("Pictures/2024/b.jpg"))
        #expect(rmdir(t.dir.at("Pictures/2024")) == 0)
        let stamps = try t.library.folderStamps(under: t.root)
        var next = stamps
        next[t.dir.at("Pictures/2024")] = nil
        next[t.root]?.mtimeNanoseconds += 1
        let mark = t.library.db.totalChanges
        try t.library.replaceFolderStamps(under: t.root, with: next)
        #expect(t.library.db.totalChanges - mark == 2)
        #expect(try t.library.folderStamps(under: t.root) == next)
    }

    /// The walk reads the library folder by folder: what it holds at once is one folder's rows
    /// and files, not the library's (at a million rows, every row and a listing of every file
    /// held at once were ~640 MB). Rows of folders it never comes to (removed, now left out)
    /// are still found gone, and a rename across folders still keeps its row.
    @Test func theWalkHoldsOneFolderAtATime() throws {
        let t = try TestLibrary()
        for f in 0..<4 {
            for i in 0..<3 { t.dir.write("Pictures/f\(f)/IMG_\(i).png", Fixtures.png(seed: UInt64(10 * f + i), width: 32, height: 24)) }
        }
        t.dir.write("Pictures/f1/deep/er/IMG_9.png", Fixtures.png(seed: 99, width: 32, height: 24))
        let past = Date().addingTimeInterval(-3600)
        for f in ["Pictures", "Pictures/f0", "Pictures/f1", "Pictures/f2", "Pictures/f3", "Pictures/f1/deep", "Pictures/f1/deep/er"] {
            try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: t.dir.at(f))
        }
        let scanner = t.scanner()
        #expect(try scanner.scan([t.root]).added == 13)
        // A full listing (the CLI's, with and without its walk ahead) and the agent's walk
        // that skips unchanged folders: each holds one folder of three rows and three files.
        for skip in [false, true] {
            scanner.skipUnchangedFolders = skip
            let again = try scanner.scan([t.root])
            #expect(again.unchanged == 13 && again.gone == 0, "\(again)")
            #expect(scanner.mostHeldAtOnce == 6, "skip \(skip)")
        }
        scanner.skipUnchangedFolders = false
        let ahead = try scanner.scan([t.root], prewalked: PrewalkedRoots([t.root], rules: ExcludeRules(), clock: .live))
        #expect(ahead.unchanged == 13 && scanner.mostHeldAtOnce == 6, "\(ahead)")
        // A folder removed whole (the walk never comes to it), one left out by a marker, and a
        // photo renamed into another folder.
        try FileManager.default.removeItem(atPath: t.dir.at("Pictures/f1"))
        t.dir.write("Pictures/f2/.nomedia", [])
        #expect(rename(t.dir.at("Pictures/f3/IMG_0.png"), t.dir.at("Pictures/f0/moved.png")) == 0)
        let s = try scanner.scan([t.root])
        #expect(s.gone == 7 && s.moved == 1 && s.unchanged == 5 && s.added == 0, "\(s)")
        #expect(scanner.mostHeldAtOnce <= 7)
        #expect(try t.library.items().map(\.name).sorted() == ["IMG_0.png", "IMG_1.png", "IMG_1.png", "IMG_2.png", "IMG_2.png", "moved.png"])
    }

    /// A folder's own rows come from one range of the covering path index, its subfolders'
    /// ranges skipped at their first row: names that sort among a subfolder's (`a.b`, `a0`,
    /// `a.jpg` beside `a/`) are told apart.
    @Test func aFoldersRowsAreItsOwnFiles() throws {
        let t = try TestLibrary()
        for (i, name) in ["a.jpg", "a/x.jpg", "a/b/y.jpg", "a.b/z.jpg", "a0/w.jpg", "b.jpg"].enumerated() {
            t.dir.write("Pictures/" + name, Fixtures.jpeg(seed: UInt64(i), width: 32, height: 24))
        }
        try t.scan()
        let top = try t.library.liveRows(in: t.root)
        #expect(top.rows.map(\.path) == ["a.jpg", "b.jpg"].map { t.root + "/" + $0 })
        #expect(top.subfolders == ["a.b", "a", "a0"].map { t.root + "/" + $0 })
        let a = try t.library.liveRows(in: t.root + "/a")
        #expect(a.rows.map(\.path) == [t.root + "/a/x.jpg"] && a.subfolders == [t.root + "/a/b"])
        #expect(try t.library.liveRows(below: t.root + "/a").map(\.path).sorted() == [t.root + "/a/b/y.jpg", t.root + "/a/x.jpg"])
        let plan = try t.library.db.rows("EXPLAIN QUERY PLAN " + Library.liveRangeSQL, "/a/", "/a0").compactMap { $0.string(3) }
        #expect(plan == ["SEARCH files USING COVERING INDEX files_path_identity (path>? AND path<?)"], "\(plan)")
    }

    @Test func anUnreadableFolderKeepsItsRowsAndIsReported() throws {
        guard getuid() != 0 else { return }  // root reads everything; covered where not root
        let t = try TestLibrary()
        let locked = t.dir.folder("Pictures/locked")
        t.dir.write("Pictures/locked/IMG_1.jpg", Fixtures.jpeg(seed: 1))
        try t.scan()
        chmod(locked, 0)
        defer { chmod(locked, 0o755) }
        let s = try t.scan()
        #expect(s.unreadableFolders == [locked])
        #expect(s.gone == 0)
    }

    /// A folder that can be listed but not entered (no x permission) keeps its rows, and so do
    /// the folders under it, which the walk cannot list: the walk reads rows folder by folder,
    /// and a folder's rows are kept when any folder above it could not be read.
    @Test func aFolderThatCannotBeEnteredKeepsItsRowsAndThoseBelow() throws {
        guard getuid() != 0 else { return }  // root reads everything; covered where not root
        let t = try TestLibrary()
        let locked = t.dir.folder("Pictures/locked")
        t.dir.write("Pictures/locked/IMG_1.jpg", small(1))
        t.dir.write("Pictures/locked/deep/IMG_2.jpg", small(2))
        t.dir.write("Pictures/open/IMG_3.jpg", small(3))
        let scanner = t.scanner()
        #expect(try scanner.scan([t.root]).added == 3)
        chmod(locked, 0o644)
        defer { chmod(locked, 0o755) }
        let s = try scanner.scan([t.root])
        #expect(s.gone == 0 && s.unchanged == 1 && s.unreadableFolders.contains(locked), "\(s)")
        #expect(try t.library.items().count == 3)
    }

    @Test func skipsHiddenIgnoredTrashAndSymlinks() throws {
        let t = try TestLibrary()
        t.dir.write("Pictures/ok/IMG_1.jpg", Fixtures.jpeg(seed: 1))
        t.dir.write("Pictures/.hidden/IMG_2.jpg", Fixtures.jpeg(seed: 2))
        t.dir.write("Pictures/private/.nomedia", [])
        t.dir.write("Pictures/private/deep/IMG_3.jpg", Fixtures.jpeg(seed: 3))
        t.dir.write("Pictures/skip/.snapsortignore", [])
        t.dir.write("Pictures/skip/IMG_4.jpg", Fixtures.jpeg(seed: 4))
        t.dir.write("Pictures/@eaDir/IMG_5.jpg", Fixtures.jpeg(seed: 5))
        t.dir.write("Pictures/.Trash-1000/files/IMG_6.jpg", Fixtures.jpeg(seed: 6))
        t.dir.write("Pictures/.thumbnails/normal/x.png", Fixtures.png(seed: 7))
        t.dir.write("Outside/IMG_8.jpg", Fixtures.jpeg(seed: 8))
        symlink(t.dir.at("Outside/IMG_8.jpg"), t.dir.at("Pictures/ok/link.jpg"))
        symlink(t.dir.at("Outside"), t.dir.at("Pictures/linkdir"))
        try t.scan()
        #expect(try t.library.items().map(\.name) == ["IMG_1.jpg"])
    }

    /// A file named on its own (`scan FILE`, a `root` that is a file) is filtered as a folder's
    /// walk filters it: a thesis or /etc/passwd never becomes an "unreadable" item offered for
    /// the Trash (review 7, F10); a photo named on its own is added.
    @Test func aFileNamedOnItsOwnThatIsNoPhotoIsNotAdded() throws {
        let t = try TestLibrary()
        let text = t.dir.write("Documents/thesis.txt", Array("my thesis".utf8))
        let photo = t.dir.write("Documents/IMG_1.jpg", Fixtures.jpeg(seed: 1))
        let s = try t.scan([text, photo])
        #expect(s.notMedia == [text] && s.added == 1, "\(s)")
        #expect(try t.library.items().map(\.name) == ["IMG_1.jpg"])
        let cli = try SnapsortBinary.run(["--db", t.dbPath, "scan", "--no-models", text])
        #expect(cli.status == 0 && cli.stderr.contains("thesis.txt: not a photo or video by its name; not added"), "\(cli.stderr)")
        #expect(try t.library.items().count == 1)
    }

    /// Hostile files: each ends with the right status and a reason while the scan goes on.
    @Test(arguments: [
        ("truncated.jpg", "damaged", "truncated"),
        ("empty.jpg", "unreadable", "empty"),
        ("page.jpg", "unreadable", "not_media"),
        ("bomb.jpg", "unreadable", "too_large"),
        ("bomb.png", "unreadable", "too_large"),
        ("garbage.png", "unreadable", "decode_error"),
        ("actually_png.jpg", "ok", "wrong_extension"),
        ("anim.gif", "unsupported", "unsupported_format"),
    ])
    func hostileFiles(name: String, status: String, code: String) throws {
        let t = try TestLibrary()
        let good = Fixtures.jpeg(seed: 1)
        let bytes: [UInt8]
        switch name {
        case "truncated.jpg": bytes = Array(good.prefix(good.count / 2))
        case "empty.jpg": bytes = []
        case "page.jpg": bytes = Array("<!DOCTYPE html><html><body>Not found</body></html>".utf8)
        case "bomb.jpg": bytes = Fixtures.jpegBombHeader()
        case "bomb.png": bytes = Fixtures.pngBombHeader()
        case "garbage.png": bytes = Array(Fixtures.png(seed: 3).prefix(40)) + [UInt8](repeating: 7, count: 200)
        case "actually_png.jpg": bytes = Fixtures.png(seed: 3)
        default: bytes = Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 64)
        }
        t.dir.write("Pictures/" + name, bytes)
        t.dir.write("Pictures/IMG_good.jpg", good)
        let s = try t.scan()
        #expect(s.added == 2)
        let item = try #require(try t.library.item(path: t.dir.at("Pictures/" + name)))
        #expect(item.status.rawValue == status)
        #expect(item.reason?.code.rawValue == code)
        #expect(item.reason?.text.isEmpty == false)
        #expect(try t.library.item(path: t.dir.at("Pictures/IMG_good.jpg"))?.status == .ok)
    }

    /// A JPEG that lost only its end marker holds the whole picture: it is not damaged (and not
    /// offered for cleanup as such); one cut inside its image data is.
    @Test func aJPEGWithoutItsEndMarkerIsWhole() throws {
        let t = try TestLibrary()
        let good = Fixtures.jpeg(seed: 21, width: 320, height: 240)
        #expect(good.suffix(2) == [0xFF, 0xD9])
        t.dir.write("Pictures/whole.jpg", good)
        t.dir.write("Pictures/no-eoi.jpg", Array(good.dropLast(2)))
        t.dir.write("Pictures/no-eoi-1.jpg", Array(good.dropLast(1)))
        t.dir.write("Pictures/cut.jpg", Array(good.dropLast(400)))
        try t.scan()
        let whole = try #require(try t.library.item(path: t.root + "/whole.jpg"))
        for name in ["no-eoi.jpg", "no-eoi-1.jpg"] {
            let item = try #require(try t.library.item(path: t.root + "/" + name))
            #expect(item.status == .ok && item.reason == nil, "\(name): \(String(describing: item.reason))")
            #expect(item.phash == whole.phash)
        }
        #expect(try t.library.item(path: t.root + "/cut.jpg")?.status == .damaged)
    }

    @Test func aBadExifOffsetKeepsThePhotoReadable() throws {
        let t = try TestLibrary()
        // An APP1 Exif segment whose IFD0 offset points far outside the block.
        var tiff: [UInt8] = Array("II".utf8) + [42, 0] + [0xF0, 0xFF, 0xFF, 0x7F] + [UInt8](repeating: 0, count: 32)
        tiff[8] = 1
        let bmp = Fixtures.scene(width: 200, height: 150, seed: 4)
        let jpg = try JPEG.encode(bmp, quality: 85, exif: tiff)
        t.dir.write("Pictures/IMG_badexif.jpg", jpg)
        try t.scan()
        let item = try #require(try t.library.item(path: t.dir.at("Pictures/IMG_badexif.jpg")))
        #expect(item.status == .ok)
        #expect(item.reason?.code == .badExif)
        #expect(item.width == 200)
        // A well-formed EXIF whose IFD0 holds no entry is empty, not damaged (the demo's own
        // orange.jpg carried a warning). Review 7, F4.
        let empty: [UInt8] = Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0]
        t.dir.write("Pictures/IMG_emptyexif.jpg", try JPEG.encode(bmp, quality: 85, exif: empty))
        try t.scan()
        let plain = try #require(try t.library.item(path: t.dir.at("Pictures/IMG_emptyexif.jpg")))
        #expect(plain.status == .ok && plain.reason == nil, "\(String(describing: plain.reason))")
    }

    @Test func exifOrientationRotatesSizeAndMetrics() throws {
        let t = try TestLibrary()
        t.dir.write("Pictures/IMG_rot.jpg", Fixtures.jpeg(seed: 6, width: 400, height: 300, dateTimeOriginal: "2023:01:02 03:04:05", orientation: 6))
        try t.scan()
        let item = try #require(try t.library.items().first)
        #expect(item.width == 300 && item.height == 400)
        #expect(item.metrics?.workingWidth == 300)
        #expect(item.takenAt == "2023-01-02T03:04:05")
    }

    @Test func analyzerVersionBumpReanalyzes() throws {
        let t = try TestLibrary()
        t.dir.write("Pictures/IMG_1.jpg", Fixtures.jpeg(seed: 1))
        try t.scan()
        try t.library.db.run("UPDATE files SET analyzer_version = 0")
        let s = try t.scan()
        #expect(s.reanalyzed == 1 && s.decodes == 1)
        #expect(try t.library.db.scalar("SELECT analyzer_version FROM files") == Int64(Analyzer.version))
    }

    @Test func manyFilesAcrossWorkersAllLand() throws {
        let t = try TestLibrary()
        for i in 0..<60 { t.dir.write("Pictures/d\(i % 7)/IMG_\(i).jpg", Fixtures.jpeg(seed: UInt64(i), width: 160, height: 120)) }
        let s = try t.scanner(workers: 3).scan([t.root])
        #expect(s.added == 60 && s.analyzed == 60)
        #expect(try t.library.db.scalar("SELECT count(DISTINCT content_hash) FROM files") == 60)
    }
}
