import Foundation
import Glibc
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Synchronization
import Testing

@testable import SnapSortAgent

/// The agent on real inotify events in temp folders. Waits are on conditions with deadlines.
@Suite(.serialized) struct AgentWatchTests {
    @Test func aSlowCopyIsAnalyzedOnceWhenComplete() throws {
        let h = try AgentHarness()
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        let lib = try h.reader()
        let path = h.root + "/slow.jpg"
        let writer = SlowWriter(path, photo(1, size: 320))
        writer.write(500)
        // Another file completing proves the agent has processed events after the first chunk.
        h.dir.write("Pictures/marker.jpg", photo(2))
        #expect(try waitUntil { try h.live(lib)["\(h.root)/marker.jpg"]?.status == "ok" })
        #expect(try h.live(lib)[path] == nil)
        writer.write(2000)
        writer.finish()
        #expect(try waitUntil { try h.live(lib)[path]?.status == "ok" })
        #expect(h.waitIdle())
        let analyzed = try lib.db.scalar("SELECT count(*) FROM files WHERE path = ?", path)
        #expect(analyzed == 1)
    }

    @Test func aModifiedFileIsReanalyzedInItsRow() throws {
        let h = try AgentHarness()
        h.dir.write("Pictures/a.jpg", photo(3))
        h.start()
        defer { h.stop() }
        let lib = try h.reader()
        #expect(try waitUntil { try h.live(lib)["\(h.root)/a.jpg"]?.status == "ok" })
        let id = try h.live(lib)["\(h.root)/a.jpg"]!.id
        let before = try lib.db.scalar("SELECT dhash FROM files WHERE id = ?", id)
        h.dir.write("Pictures/a.jpg", photo(4))
        #expect(try waitUntil { try lib.db.scalar("SELECT dhash FROM files WHERE id = ?", id) != before })
        #expect(try h.live(lib)["\(h.root)/a.jpg"]?.id == id)
    }

    /// A rating given in darktable (it writes `NAME.jpg.xmp`) or Lightroom (`NAME.xmp`) while
    /// the agent runs reaches the photo's row; removing the sidecar takes it back.
    @Test func aSidecarsRatingReachesItsPhoto() throws {
        let h = try AgentHarness()
        h.dir.write("Pictures/a.jpg", photo(6))
        h.dir.write("Pictures/b.jpg", photo(7))
        h.start()
        defer { h.stop() }
        let lib = try h.reader()
        func rating(_ name: String) throws -> Int64? { try lib.db.scalar("SELECT rating FROM files WHERE path = ?", "\(h.root)/\(name)") }
        #expect(try waitUntil { try h.live(lib)["\(h.root)/b.jpg"]?.status == "ok" && h.live(lib)["\(h.root)/a.jpg"]?.status == "ok" })
        #expect(h.waitIdle())
        func xmp(_ stars: Int) -> [UInt8] {
            Array(
                """
                <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
                <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="\(stars)"/></rdf:RDF></x:xmpmeta>
                """.utf8)
        }
        h.dir.write("Pictures/a.jpg.xmp", xmp(5))
        h.dir.write("Pictures/b.xmp", xmp(3))
        #expect(try waitUntil { try rating("a.jpg") == 5 && rating("b.jpg") == 3 })
        #expect(unlink("\(h.root)/a.jpg.xmp") == 0)
        #expect(try waitUntil { try rating("a.jpg") == nil })
        #expect(try rating("b.jpg") == 3)
    }

    /// A photo copied in under a name that is not UTF-8, then renamed, is analyzed under its
    /// own bytes and keeps its row through the rename (inotify's names are decoded as the
    /// listing's are).
    @Test func aNameThatIsNotUTF8IsWatchedLikeAnyOther() throws {
        let h = try AgentHarness()
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        let lib = try h.reader()
        let name = PathName.decode(Array("No".utf8) + [0xEB] + Array("l.jpg".utf8))
        h.dir.write("Pictures/\(name)", photo(11))
        #expect(try waitUntil { try h.live(lib)["\(h.root)/\(name)"]?.status == "ok" })
        let id = try h.live(lib)["\(h.root)/\(name)"]!.id
        let renamed = PathName.decode([0xC9] + Array("t\u{E9}.jpg".utf8))
        try FileSystem.rename("\(h.root)/\(name)", "\(h.root)/\(renamed)")
        #expect(try waitUntil { try h.live(lib)["\(h.root)/\(renamed)"]?.id == id })
        #expect(try h.live(lib)["\(h.root)/\(name)"] == nil)
    }

    /// A file that could not be read (here: its row says so, as after a read denied by its
    /// permissions) is read again when its permissions change, though its content did not.
    @Test func aFileWhosePermissionsChangeIsReadAgainWhenItCouldNotBeRead() throws {
        let h = try AgentHarness()
        h.dir.write("Pictures/a.jpg", photo(5))
        h.start()
        defer { h.stop() }
        let lib = try h.reader()
        let path = "\(h.root)/a.jpg"
        #expect(try waitUntil { try h.live(lib)[path]?.status == "ok" })
        #expect(h.waitIdle())
        try lib.db.run("UPDATE files SET status = 'unreadable', reason_code = 'permission', reason = 'permission denied' WHERE path = ?", path)
        chmod(path, 0o600)
        #expect(try waitUntil { try h.live(lib)[path]?.status == "ok" })
        #expect(try lib.db.scalar("SELECT count(*) FROM files WHERE path = ? AND reason_code IS NULL", path) == 1)
    }

    /// While another process scans the library (`snapsort scan` holds the scan lock), the
    /// agent puts its reconcile off and runs it once the lock is free.
    @Test func theAgentWaitsForAScanByAnotherProcess() throws {
        let h = try AgentHarness()
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        let lib = try h.reader()
        let other = try #require(try FileLock.tryLock(lib.scanLockPath))
        h.dir.write("Pictures/b.jpg", photo(6))
        #expect(waitUntil { h.agent.counters.deferredReconciles >= 2 })
        #expect(try h.live(lib)["\(h.root)/b.jpg"] == nil)
        other.unlock()
        #expect(try waitUntil { try h.live(lib)["\(h.root)/b.jpg"]?.status == "ok" })
    }

    /// A reconcile that fails (the library locked by a long writer past the busy timeout)
    /// drops nothing: its photos come in at the retry, and the bar's error goes (review 7: they
    /// waited for the hourly reconcile, and the error stayed for good). Here the photos arrive
    /// while the agent is down, so only its start-up reconcile (which fails) covers them.
    @Test func photosThatArriveWhileTheLibraryIsLockedComeInAtTheRetry() throws {
        let first = try AgentHarness()
        first.start()
        #expect(first.waitIdle())
        #expect(first.stop())
        for i in 0..<3 { first.dir.write("Pictures/Locked/IMG_\(i).jpg", photo(UInt64(40 + i))) }
        let writer = try first.reader()
        try writer.db.execute("BEGIN EXCLUSIVE")
        let h = try AgentHarness(reuse: first.dir, tweak: { $0.reconcileRetry = 0.5 })
        h.start()
        defer { h.stop() }
        #expect(waitUntil(timeout: 30) { h.status()?["agent"]?["last_error"]?.stringValue?.contains("reconcile failed") == true })
        try writer.db.execute("COMMIT")
        let lib = try h.reader()
        #expect(try waitUntil(timeout: 30) { try (0..<3).allSatisfy { try h.live(lib)["\(h.root)/Locked/IMG_\($0).jpg"]?.status == "ok" } })
        #expect(waitUntil { h.status()?["agent"]?["last_error"]?.stringValue == nil }, "\(String(describing: h.status()?["agent"]))")
    }

    /// An `exclude` added to snapsort.conf while the agent runs applies at once, as after a
    /// restart: the folder's photos leave the library and new ones there stay out; removed, the
    /// folder's photos come back (review 7: the running agent kept watching and adding them).
    @Test func anExcludeChangedWhileRunningAppliesAtOnce() throws {
        let h = try AgentHarness(setup: { d in
            d.write("Pictures/Private/a.jpg", photo(51))
            d.write("Pictures/b.jpg", photo(52))
        })
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        let lib = try h.reader()
        let a = "\(h.root)/Private/a.jpg", c = "\(h.root)/Private/c.jpg", d = "\(h.root)/d.jpg"
        #expect(try h.live(lib)[a] != nil)
        let conf = h.dir.at("config/snapsort/snapsort.conf")
        try FileSystem.makeDirectories(h.dir.at("config/snapsort"))
        try FileSystem.writeAtomically(conf, Array("exclude = \(h.root)/Private\n".utf8))
        #expect(try waitUntil { try h.live(lib)[a] == nil })
        h.dir.write("Pictures/Private/c.jpg", photo(53))
        h.dir.write("Pictures/d.jpg", photo(54))
        #expect(try waitUntil { try h.live(lib)[d]?.status == "ok" })
        #expect(h.waitIdle())
        #expect(try h.live(lib)[c] == nil)
        try FileSystem.writeAtomically(conf, Array("# no excludes\n".utf8))
        #expect(try waitUntil { try h.live(lib)[a] != nil && h.live(lib)[c] != nil })
    }

    /// `status_file` changed while the agent runs: it keeps its file (bars follow the one it
    /// named at start) and says so, instead of "configuration reloaded" alone (review 7).
    @Test func aChangedStatusFileIsSaidToNeedARestart() throws {
        let h = try AgentHarness(tweak: { $0.statusPath = nil })
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        try FileSystem.makeDirectories(h.dir.at("config/snapsort"))
        try FileSystem.writeAtomically(h.dir.at("config/snapsort/snapsort.conf"), Array("status_file = \(h.dir.at("bar.json"))\n".utf8))
        #expect(waitUntil { h.logs.messages.contains { $0.contains("status_file changed in snapsort.conf") } }, "\(h.logs.messages)")
    }

    @Test func renamesWithinAndAcrossFoldersKeepIdentityAndMetricsWithZeroDecodes() throws {
        let h = try AgentHarness()
        h.dir.write("Pictures/2024/a.jpg", photo(5))
        h.dir.folder("Pictures/2025")
        h.start()
        defer { h.stop() }
        let lib = try h.reader()
        let a = h.root + "/2024/a.jpg"
        #expect(try waitUntil { try h.live(lib)[a]?.status == "ok" })
        #expect(h.waitIdle())
        let id = try h.live(lib)[a]!.id
        let metrics = try lib.db.row("SELECT metrics, dhash FROM files WHERE id = ?", id)!.values
        let decodes = h.agent.counters.decodes

        try FileSystem.rename(a, h.root + "/2024/b.jpg")
        #expect(try waitUntil { try h.live(lib)[h.root + "/2024/b.jpg"]?.id == id })
        try FileSystem.rename(h.root + "/2024/b.jpg", h.root + "/2025/c.jpg")
        #expect(try waitUntil { try h.live(lib)[h.root + "/2025/c.jpg"]?.id == id })
        // A folder renamed: its rows follow.
        try FileSystem.rename(h.root + "/2025", h.root + "/Holidays")
        #expect(try waitUntil { try h.live(lib)[h.root + "/Holidays/c.jpg"]?.id == id })
        #expect(h.waitIdle())
        #expect(try lib.db.row("SELECT metrics, dhash FROM files WHERE id = ?", id)!.values == metrics)
        #expect(h.agent.counters.decodes == decodes)
        #expect(try h.live(lib).count == 1)
        // A file inside the renamed folder is still watched under its new path.
        h.dir.write("Pictures/Holidays/new.jpg", photo(6))
        #expect(try waitUntil { try h.live(lib)[h.root + "/Holidays/new.jpg"]?.status == "ok" })
    }

    @Test func aFolderMovedInIsScannedAndMovedOutIsGone() throws {
        let h = try AgentHarness()
        h.dir.write("outside/trip/x.jpg", photo(7))
        h.dir.write("outside/trip/deeper/y.png", Fixtures.png(seed: 8, width: 64, height: 48))
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        let lib = try h.reader()
        try FileSystem.rename(h.dir.at("outside/trip"), h.root + "/trip")
        #expect(try waitUntil { try h.live(lib).count == 2 })
        // Its subfolders are watched too.
        h.dir.write("Pictures/trip/deeper/z.jpg", photo(9))
        #expect(try waitUntil { try h.live(lib).count == 3 })
        try FileSystem.rename(h.root + "/trip", h.dir.at("outside/trip2"))
        #expect(try waitUntil { try h.live(lib).isEmpty })
        #expect(try lib.db.scalar("SELECT count(*) FROM files WHERE status = 'gone'") == 3)
    }

    /// `mkdir -p filed/2024 && mv Camera filed/2024/Camera`: the new folder's reconcile may find
    /// the moved files before the move's own event is applied (the agent watched the new folder
    /// in time for the move's second half). The move then finds their rows under the new name
    /// already: they are current, not stale rows in its way (every one was set gone, with its
    /// decision out of sight).
    @Test func aFolderMoveAppliedAfterAReconcileFoundItKeepsTheRows() throws {
        let t = try TestLibrary()
        for i in 0..<3 { t.dir.write("Pictures/Camera/p\(i).jpg", photo(UInt64(40 + i))) }
        try t.scan()
        let kept = try #require(try t.library.item(path: t.root + "/Camera/p0.jpg")).id
        try Review.decide(.keep, fileID: kept, library: t.library, clock: .live)
        try FileSystem.makeDirectories(t.root + "/filed")
        try FileSystem.rename(t.root + "/Camera", t.root + "/filed/Camera")
        // The reconcile of the new folder comes first: the rows follow their files.
        let s = try LibraryScanner(library: t.library, workers: 1).scan([t.root + "/filed"])
        #expect(s.moved == 3)
        // Then the move's event.
        try t.library.followFolderMove(from: t.root + "/Camera", to: t.root + "/filed/Camera", now: Date())
        let live = try t.library.db.rows("SELECT path FROM files WHERE status != 'gone'").compactMap { $0.string(0) }
        #expect(live.sorted() == (0..<3).map { t.root + "/filed/Camera/p\($0).jpg" }, "\(live)")
        #expect(try Review.decision(for: kept, library: t.library)?.decision == .keep)
        // A row under the old name whose new path a current row holds is that file's old row.
        // (Here the file was edited on the way: the reconcile gave it a new row.)
        t.dir.write("Pictures/Old/q.jpg", photo(50))
        try t.scan()
        try FileSystem.rename(t.root + "/Old", t.root + "/New")
        t.dir.write("Pictures/New/q.jpg", photo(51))
        #expect(try LibraryScanner(library: t.library, workers: 1).scan([t.root + "/New"]).added == 1)
        try t.library.followFolderMove(from: t.root + "/Old", to: t.root + "/New", now: Date())
        #expect(try t.library.liveRow(path: t.root + "/New/q.jpg") != nil)
        #expect(try t.library.liveRows(under: t.root + "/Old").isEmpty)
    }

    /// An importer writes into a folder and renames it at once: the file, reported under the
    /// folder's old name, is found under the new one.
    @Test func aFileWrittenJustBeforeItsFolderIsRenamedIsFound() throws {
        let h = try AgentHarness()
        h.dir.folder("Pictures/RaceA")
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        let lib = try h.reader()
        try FileSystem.writeAtomically(h.root + "/RaceA/r1.jpg", photo(60))
        try FileSystem.rename(h.root + "/RaceA", h.root + "/RaceB")
        #expect(try waitUntil { try h.live(lib)[h.root + "/RaceB/r1.jpg"]?.status == "ok" })
    }

    /// A folder moved out of the library and back under its own name is the same folder
    /// (inode, mtime): its files come back with their rows and decisions at once, not at the
    /// next hourly reconcile (its listing stamp used to say "unchanged").
    @Test func aFolderMovedOutAndBackUnderItsNameComesBackAtOnce() throws {
        let h = try AgentHarness(setup: { d in
            d.write("Pictures/DCIM/trip/x.jpg", photo(31))
            d.write("Pictures/DCIM/trip/deeper/y.jpg", photo(32))
            d.write("Pictures/other.jpg", photo(33))
        })
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        let lib = try h.reader()
        let before = try h.live(lib)
        #expect(before.count == 3)
        let x = try #require(before[h.root + "/DCIM/trip/x.jpg"])
        try Review.decide(.keep, fileID: x.id, library: lib, clock: .live)
        // Renamed in the library (the rows follow), then out, then back under its first name.
        try FileSystem.rename(h.root + "/DCIM/trip", h.root + "/DCIM/trip-renamed")
        #expect(try waitUntil { try h.live(lib)[h.root + "/DCIM/trip-renamed/x.jpg"] != nil })
        #expect(h.waitIdle())
        try FileSystem.rename(h.root + "/DCIM/trip-renamed", h.dir.at("away"))
        #expect(try waitUntil { try h.live(lib).count == 1 })
        #expect(h.waitIdle())
        // No listing stamp is left under either name: whichever comes back is listed.
        let stamps = try lib.folderStamps(under: h.root).keys.filter { $0.hasPrefix(h.root + "/DCIM/trip") }
        #expect(stamps.isEmpty, "\(stamps)")
        try FileSystem.rename(h.dir.at("away"), h.root + "/DCIM/trip")
        #expect(try waitUntil { try h.live(lib).count == 3 })
        #expect(try h.live(lib)[h.root + "/DCIM/trip/x.jpg"]?.id == x.id)
        #expect(try Review.decision(for: x.id, library: lib)?.decision == .keep)
    }

    /// A root whose name is no UTF-8 (a Latin-1 "Café") going offline: the status file stays
    /// UTF-8 and names it with U+FFFD, so `snapsort status` and the bars read the agent as
    /// watching, not stopped (review 8).
    @Test func anOfflineRootWithANameThatIsNoUTF8KeepsTheStatusReadable() throws {
        let latin = PathName.decode(Array("Caf".utf8) + [0xE9])
        var root = ""
        let h = try AgentHarness(
            setup: { d in
                root = d.path + "/" + latin; try? FileSystem.makeDirectories(root, mode: 0o755)
            },
            tweak: { o in
                o.offlineCheckInterval = 0.1
                o.roots = [root]
            })
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        try FileSystem.rename(root, h.dir.at("away"))
        let bytes = { (try? FileSystem.readFile(h.statusPath, limit: 1 << 20)) ?? [] }
        #expect(waitUntil { h.status()?["agent"]?["offline_roots"]?.arrayValue?.first?.stringValue == h.dir.path + "/Caf\u{FFFD}" })
        #expect(String(bytes: bytes(), encoding: .utf8) != nil)
        #expect(h.status()?["agent"]?["state"]?.stringValue == "watching")
    }

    /// A root moved away is offline: its rows are kept and the status file names it. Moved
    /// back, or made again, it is watched again without a restart or a SIGHUP.
    @Test func aRootThatComesBackIsWatchedAgain() throws {
        let h = try AgentHarness(tweak: { $0.offlineCheckInterval = 0.1 })
        h.dir.write("Pictures/a.jpg", photo(11))
        h.start()
        defer { h.stop() }
        let lib = try h.reader()
        #expect(try waitUntil { try h.live(lib)["\(h.root)/a.jpg"]?.status == "ok" })
        func offline() -> [String]? { h.status()?["agent"]?["offline_roots"]?.arrayValue?.compactMap(\.stringValue) }
        try FileSystem.rename(h.root, h.dir.at("away"))
        #expect(waitUntil { offline() == [h.root] })
        #expect(h.waitIdle())
        let rows = try lib.db.rows("SELECT path, status FROM files").map { "\($0.string(0) ?? "") \($0.string(1) ?? "")" }
        #expect(try h.live(lib)["\(h.root)/a.jpg"]?.status == "ok", "\(rows) \(h.logs.messages)")
        try FileSystem.rename(h.dir.at("away"), h.root)
        h.dir.write("Pictures/b.jpg", photo(12))
        #expect(try waitUntil { try h.live(lib)["\(h.root)/b.jpg"]?.status == "ok" })
        #expect(waitUntil { offline() == [] })
        // Deleted (here: moved where the agent does not look) and made again, empty.
        try FileSystem.rename(h.root, h.dir.at("away2"))
        #expect(waitUntil { offline() == [h.root] })
        try FileSystem.makeDirectories(h.root, mode: 0o755)
        h.dir.write("Pictures/c.jpg", photo(13))
        #expect(try waitUntil { try h.live(lib)["\(h.root)/c.jpg"]?.status == "ok" })
        #expect(try waitUntil { try h.live(lib).count == 1 })
        #expect(waitUntil { offline() == [] })
    }

    /// A folder above a root renamed: the root's watches go on reporting, under the old path,
    /// files that are now elsewhere. The root is offline instead (its rows kept, no row for a
    /// path where no file is) and comes back when the folder above is renamed back.
    @Test func aRootWhoseParentIsRenamedGoesOfflineAndComesBack() throws {
        let h = try AgentHarness(
            setup: { $0.write("Photos/Family/a.jpg", photo(21)) },
            tweak: { o in
                o.roots = [o.env.home + "/Photos/Family"]
                o.offlineCheckInterval = 0.1
            })
        let root = h.dir.at("Photos/Family")
        h.start()
        defer { h.stop() }
        let lib = try h.reader()
        #expect(try waitUntil { try h.live(lib)["\(root)/a.jpg"]?.status == "ok" })
        func offline() -> [String]? { h.status()?["agent"]?["offline_roots"]?.arrayValue?.compactMap(\.stringValue) }
        try FileSystem.rename(h.dir.at("Photos"), h.dir.at("Old photos"))
        h.dir.write("Old photos/Family/b.jpg", photo(22))
        #expect(waitUntil { offline() == [root] }, "\(h.logs.messages)")
        #expect(h.waitIdle())
        #expect(try h.live(lib).keys.sorted() == ["\(root)/a.jpg"], "\(h.logs.messages)")
        #expect(try lib.db.scalar("SELECT count(*) FROM files WHERE path LIKE '%b.jpg'") == 0)
        try FileSystem.rename(h.dir.at("Old photos"), h.dir.at("Photos"))
        #expect(try waitUntil { try h.live(lib)["\(root)/b.jpg"]?.status == "ok" })
        #expect(waitUntil { offline() == [] })
        #expect(try h.live(lib)["\(root)/a.jpg"]?.status == "ok")
    }

    /// A folder above a root renamed and the root's path made again: the new folder is the
    /// root now (watched and reconciled), not the one the old watches still report on.
    @Test func aRootWhosePathLeadsToANewFolderWatchesThatOne() throws {
        let h = try AgentHarness(
            setup: { $0.write("Photos/Family/a.jpg", photo(23)) },
            tweak: { o in o.roots = [o.env.home + "/Photos/Family"] })
        let root = h.dir.at("Photos/Family")
        h.start()
        defer { h.stop() }
        let lib = try h.reader()
        #expect(try waitUntil { try h.live(lib)["\(root)/a.jpg"]?.status == "ok" })
        try FileSystem.rename(h.dir.at("Photos"), h.dir.at("Old photos"))
        h.dir.write("Photos/Family/c.jpg", photo(24))
        h.dir.write("Old photos/Family/b.jpg", photo(25))  // an event from the old watches
        #expect(try waitUntil { try h.live(lib)["\(root)/c.jpg"]?.status == "ok" }, "\(h.logs.messages)")
        #expect(try waitUntil { try h.live(lib).keys.sorted() == ["\(root)/c.jpg"] }, "\(h.logs.messages)")
        // Watched: a photo added to the new folder arrives.
        h.dir.write("Photos/Family/d.jpg", photo(26))
        #expect(try waitUntil { try h.live(lib)["\(root)/d.jpg"]?.status == "ok" })
        #expect(try lib.db.scalar("SELECT count(*) FROM files WHERE path LIKE '%b.jpg'") == 0)
    }

    @Test func aRestartListsOnlyFoldersThatChangedWhileItWasDown() throws {
        let past = Date().addingTimeInterval(-3600)
        var h: AgentHarness? = try AgentHarness(setup: { dir in
            dir.write("Pictures/2023/a.jpg", photo(41))
            dir.write("Pictures/2024/b.jpg", photo(42))
        })
        for f in ["", "/2023", "/2024"] { try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: h!.root + f) }
        h!.start()
        #expect(h!.waitIdle())
        #expect(h!.stop())
        let dir = h!.dir
        h = nil
        // While it is down: a new photo in 2024 (that folder changes), 2023 untouched.
        dir.write("Pictures/2024/c.jpg", photo(43))
        let again = try AgentHarness(reuse: dir)
        again.start()
        defer { again.stop() }
        #expect(again.waitIdle())
        let lib = try again.reader()
        #expect(try again.live(lib).count == 3)
        #expect(again.agent.counters.foldersSkipped == 2)  // Pictures and 2023
        #expect(again.agent.counters.foldersListed == 1)  // 2024
    }

    @Test func aPhotoRestoredFromTheTrashByTheFileManagerIsNoticed() throws {
        let h = try AgentHarness(setup: { dir in dir.write("Pictures/keepme.jpg", photo(51)) })
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        let lib = try h.reader()
        let id = try #require(try h.live(lib)[h.root + "/keepme.jpg"]?.id)
        try Review.decide(.trash, fileID: id, library: lib, clock: .live)
        let trashEnv = TrashEnvironment(
            environment: Environment(variables: ["HOME": h.dir.path, "XDG_DATA_HOME": h.dir.at("share")], home: h.dir.path))
        let report = try Trash.commit(library: lib, clock: .live, env: trashEnv)
        #expect(report.succeeded.count == 1)
        let inTrash = h.dir.at("share/Trash/files/keepme.jpg")
        #expect(FileSystem.exists(inTrash))
        #expect(try waitUntil { try h.live(lib)[h.root + "/keepme.jpg"] == nil })
        // The file manager's Restore: the file moves back, its .trashinfo goes away.
        try FileSystem.rename(inTrash, h.root + "/keepme.jpg")
        try FileSystem.remove(h.dir.at("share/Trash/info/keepme.jpg.trashinfo"))
        #expect(try waitUntil { try h.live(lib)[h.root + "/keepme.jpg"]?.id == id })
        #expect(try waitUntil { try Review.decision(for: id, library: lib) == nil })
        #expect(try lib.db.scalar("SELECT count(*) FROM trash_ledger WHERE state = 'restored'") == 1)
    }

    @Test func onlyTheRootIsRecordedAsARootWhenSubfoldersAreReconciled() throws {
        let h = try AgentHarness()
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        let lib = try h.reader()
        h.dir.write("outside/trip/x.jpg", photo(21))
        try FileSystem.rename(h.dir.at("outside/trip"), h.root + "/trip")
        #expect(try waitUntil { try h.live(lib).count == 1 })
        #expect(h.waitIdle())
        let roots = try lib.db.rows("SELECT path FROM roots").compactMap { $0.string(0) }
        #expect(roots == [h.root])
    }

    /// `snapsort forget DIR` of a folder under a watched root: its files were on disk and its
    /// folder watched and unchanged, so nothing brought them back (for an hour). The agent
    /// lists what was forgotten again, as `snapsort scan` would, and only that.
    @Test func aFolderForgottenUnderAWatchedRootComesBackAsAScanWouldBringIt() throws {
        let h = try AgentHarness(setup: { dir in
            for i in 0..<4 { dir.write("Pictures/Old/\(i).jpg", photo(UInt64(60 + i))) }
            dir.write("Pictures/Keep/k.jpg", photo(70))
        })
        h.start()
        defer { h.stop() }
        let lib = try h.reader()
        #expect(try waitUntil { try h.live(lib).count == 5 })
        #expect(h.waitIdle())
        let before = try h.live(lib)
        let r = try SnapsortBinary.run(
            ["--db", h.dbPath, "forget", h.root + "/Old"], env: ["HOME": h.dir.path, "XDG_CONFIG_HOME": h.dir.at("config")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("forgot 4 items"), "\(r.stderr)")
        #expect(try waitUntil { try h.live(lib).count == 5 }, "\(h.logs.messages)")
        #expect(try waitUntil { try h.live(lib).values.allSatisfy { $0.status == "ok" } })
        #expect(h.waitIdle())
        let after = try h.live(lib)
        #expect(after.keys.sorted() == before.keys.sorted())
        // The other folder's photo is left as it was.
        #expect(after["\(h.root)/Keep/k.jpg"]?.id == before["\(h.root)/Keep/k.jpg"]?.id)
        #expect(try lib.agentState(Library.forgottenPathsKey) == nil)
    }

    /// `snapsort forget DIR` while no agent runs, then the agent: the start-up reconcile lists
    /// the forgotten folder's parent again (its stamp went with the rows) and every photo comes
    /// back, not only those of folders that changed (issue 40: 70 rows for 120 files).
    @Test func aFolderForgottenWhileTheAgentIsStoppedComesBackWhenItStarts() throws {
        let first = try AgentHarness(setup: { dir in
            for i in 0..<4 { dir.write("Pictures/Old/\(i).jpg", photo(UInt64(80 + i))) }
            dir.write("Pictures/Keep/k.jpg", photo(90))
        })
        first.start()
        let lib = try first.reader()
        #expect(try waitUntil { try first.live(lib).count == 5 })
        #expect(first.waitIdle())
        #expect(first.stop())
        let r = try SnapsortBinary.run(
            ["--db", first.dbPath, "forget", first.root + "/Old"], env: ["HOME": first.dir.path, "XDG_CONFIG_HOME": first.dir.at("config")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try first.live(lib).count == 1)
        let again = try AgentHarness(reuse: first.dir)
        again.start()
        defer { again.stop() }
        #expect(try waitUntil { try again.live(lib).count == 5 }, "\(again.logs.messages)")
        #expect(again.waitIdle())
    }

    @Test func aDeletedFileBecomesATombstone() throws {
        let h = try AgentHarness()
        let p = h.dir.write("Pictures/d.jpg", photo(10))
        h.start()
        defer { h.stop() }
        let lib = try h.reader()
        #expect(try waitUntil { try h.live(lib)[p] != nil })
        unlink(p)
        #expect(try waitUntil { try h.live(lib)[p] == nil })
        #expect(try lib.db.scalar("SELECT count(*) FROM files WHERE path = ? AND status = 'gone'", p) == 1)
        // Seen deleted (`IN_DELETE`), not moved away: nothing revives it.
        #expect(try lib.db.scalar("SELECT deleted FROM files WHERE path = ?", p) == 1)
    }

    /// The flood of the safety issue: a photo staged for the Trash is deleted, and a file with
    /// its bytes arrives later on its inode number (ext4 hands it out again at once). The agent
    /// took it for the photo and carried the decision over; it is a new item now, undecided.
    @Test(.enabled(if: ScratchExt4.isAvailable, "mounting a scratch ext4 needs root and mkfs.ext4"))
    func aFileOnTheInodeNumberOfADeletedPhotoIsANewItem() throws {
        let disk = try ScratchExt4()
        let root = disk.mountPoint + "/R"
        try FileSystem.makeDirectories(root + "/a")
        try FileSystem.makeDirectories(root + "/b")
        let bytes = photo(62)
        let x = root + "/a/x.jpg"
        let old = try ScratchExt4.create(x, bytes)
        let h = try AgentHarness(tweak: { $0.roots = [root] })
        h.start()
        defer { h.stop() }
        let lib = try h.reader()
        #expect(try waitUntil { try h.live(lib)[x] != nil })
        let id = try #require(try h.live(lib)[x]?.id)
        try Review.decide(.trash, fileID: id, library: lib, clock: .live)
        unlink(x)
        #expect(try waitUntil { try h.live(lib)[x] == nil })
        let imported = try #require(
            try ScratchExt4.createOnInode(old.inode, bytes, in: root + "/b", prefix: "flood"), "ext4 gave the inode number back")
        #expect(try waitUntil { try h.live(lib)[imported] != nil })
        #expect(h.waitIdle())
        let item = try #require(try h.live(lib)[imported])
        #expect(item.id != id)
        #expect(try Review.decision(for: item.id, library: lib) == nil)
        let tombstone = try #require(try lib.db.row("SELECT status, deleted FROM files WHERE id = ?", id))
        #expect(tombstone.string(0) == "gone" && tombstone.int(1) == 1)
    }

    @Test func aBurstOfThousandsOfFilesEndsComplete() throws {
        let h = try AgentHarness()
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        let n = 2000
        let photos = (0..<n).map { photo(UInt64(5000 + $0), size: 32) }
        for i in 0..<n { h.dir.write("Pictures/burst/\(i / 500)/f\(i).jpg", photos[i]) }
        let lib = try h.reader()
        #expect(try waitUntil(timeout: 120) { try lib.db.scalar("SELECT count(*) FROM files WHERE status = 'ok'") == Int64(n) })
        #expect(waitUntil { h.status()?["agent"]?["total"]?.intValue == n && h.status()?["agent"]?["state"]?.stringValue == "watching" })
    }

    /// A flood overflows the queue again and again before the reconcile runs: said once (the
    /// trees walked for their watches once), not once an overflow (review 7: 28 lines a second).
    @Test func overflowsBeforeTheReconcileAreHandledOnce() throws {
        let h = try AgentHarness()
        for _ in 0..<5 { h.agent.ingest(Inotify.Event(wd: -1, mask: Inotify.overflow, cookie: 0, name: ""), at: Date()) }
        #expect(h.agent.counters.overflows == 5)
        #expect(h.logs.messages.filter { $0.contains("queue overflowed") }.count == 1, "\(h.logs.messages)")
    }

    @Test func aQueueOverflowEndsWithTheDatabaseOfAFreshScan() throws {
        let h = try AgentHarness(setup: { d in for i in 0..<8 { d.folder("Pictures/flood/\(i)") } })
        h.dir.write("Pictures/keep.jpg", photo(12))
        // Flood the queue before the loop reads it: each empty file is IN_CREATE + IN_CLOSE_WRITE.
        let limit =
            Int(
                String(decoding: try FileSystem.readFile("/proc/sys/fs/inotify/max_queued_events", limit: 64), as: UTF8.self)
                    .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 16384
        let count = limit / 2 + 500
        for i in 0..<count { h.dir.write("Pictures/flood/\(i % 8)/e\(i).jpg", []) }
        h.start()
        defer { h.stop() }
        #expect(waitUntil(timeout: 60) { h.agent.counters.overflows >= 1 })
        let lib = try h.reader()
        #expect(try waitUntil(timeout: 120) { try lib.db.scalar("SELECT count(*) FROM files WHERE status != 'gone'") == Int64(count + 1) })
        #expect(h.waitIdle(timeout: 60))
        let fresh = try TestLibrary()
        _ = try LibraryScanner(library: fresh.library, workers: 2).scan([h.root])
        let a = try h.live(lib).mapValues(\.status)
        let b = try h.live(fresh.library).mapValues(\.status)
        #expect(a == b)
    }

    /// A watching agent stops reading for a while (SIGSTOP, a frozen session) while a flood of
    /// files lands: the kernel's queue overflows (`IN_Q_OVERFLOW`, read as the real event). From
    /// the first document after the gap the status says `reconciling`, with the backlog as
    /// `pending`, and never "watching" until every file is analyzed: it said "watching, pending
    /// 0" for 16–26 s while 20 000–30 000 files waited (issue 40). The bars' default `quietWork`.
    @Test func aLostQueueSaysReconcilingWithItsBacklogAtOnce() throws {
        let stall = LoopStall()
        let h = try AgentHarness(
            setup: { d in for i in 0..<8 { d.folder("Pictures/flood/\(i)") } },
            tweak: {
                $0.quietWork = AgentOptions(dbPath: "/", env: Environment(variables: [:], home: "/")).quietWork
                $0.services = { _ in [stall] }
            })
        h.dir.write("Pictures/keep.jpg", photo(12))
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        let limit =
            Int(
                String(decoding: try FileSystem.readFile("/proc/sys/fs/inotify/max_queued_events", limit: 64), as: UTF8.self)
                    .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 16384
        // Each empty file is IN_CREATE + IN_CLOSE_WRITE.
        let count = limit / 2 + 500
        stall.stall()
        let before = stall.documents.withLock { $0.count }
        for i in 0..<count { h.dir.write("Pictures/flood/\(i % 8)/e\(i).jpg", []) }
        stall.resume.signal()
        #expect(waitUntil(timeout: 60) { h.agent.counters.overflows >= 1 })
        let lib = try h.reader()
        #expect(try waitUntil(timeout: 120) { try lib.db.scalar("SELECT count(*) FROM files WHERE status != 'gone'") == Int64(count + 1) })
        #expect(h.waitIdle(timeout: 60))
        let after = stall.documents.withLock { Array($0[before...]) }
        let said = after.map { "\($0.state) \($0.done)/\($0.total) pending \($0.pending)" }
        #expect(after.first?.state == .reconciling, "\(said.prefix(5))")
        // The backlog: every file the walk found to look at.
        #expect(after.contains { $0.state == .reconciling && $0.pending >= count }, "\(said)")
        // Watching only once every file is in.
        let watching = after.filter { $0.state == .watching }
        #expect(!watching.isEmpty && watching.allSatisfy { $0.pending == 0 && $0.total == count + 1 && $0.done == count + 1 }, "\(said)")
    }

    @Test func statusFileIsAlwaysValidJSONToAConcurrentReader() throws {
        let h = try AgentHarness()
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        let stop = Atomic<Bool>(false)
        let bad = Atomic<Int>(0)
        let reads = Atomic<Int>(0)
        let path = h.statusPath
        let reader = Thread {
            while !stop.load(ordering: .relaxed) {
                if let text = try? String(contentsOfFile: path, encoding: .utf8) {
                    if JSON.parse(text)?["schema_version"] == nil { bad.add(1, ordering: .relaxed) }
                    reads.add(1, ordering: .relaxed)
                }
            }
        }
        reader.start()
        let before = h.agent.counters.statusWrites
        for i in 0..<60 { h.dir.write("Pictures/s\(i).jpg", photo(UInt64(100 + i), size: 48)) }
        let lib = try h.reader()
        #expect(try waitUntil(timeout: 60) { try h.live(lib).count == 60 })
        #expect(waitUntil { h.status()?["agent"]?["total"]?.intValue == 60 && h.status()?["agent"]?["state"]?.stringValue == "watching" })
        stop.store(true, ordering: .relaxed)
        #expect(h.agent.counters.statusWrites > before)
        #expect(reads.load(ordering: .relaxed) > 0)
        #expect(bad.load(ordering: .relaxed) == 0)
        let s = try #require(h.status())
        for key in ["schema_version", "updated_at", "agent", "groups", "awaiting_review", "trash", "cleared", "streak", "goal", "next_reminder"] {
            #expect(s[key] != nil, "missing \(key)")
        }
        #expect(s["agent"]?["state"]?.stringValue == "watching")
        #expect(s["agent"]?["total"]?.intValue == 60)
    }

    @Test func pauseWrittenByTheCLIStopsAnalysisAndResumeCatchesUp() throws {
        let h = try AgentHarness()
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        let cli = try h.reader()
        try cli.pause(until: nil, now: Date())
        #expect(waitUntil { h.status()?["agent"]?["state"]?.stringValue == "paused" })
        #expect(h.status()?["agent"]?["pending"]?.intValue == 0)
        // Until resumed: no end to say (a timed pause says it, below).
        #expect(h.status()?["agent"]?["paused_until"] == .null)
        let p = h.dir.write("Pictures/while-paused.jpg", photo(13))
        h.dir.write("Pictures/while-paused-2.jpg", photo(14))
        #expect(waitUntil { h.agent.counters.events > 0 })
        // The status counts what waits for the resume.
        #expect(waitUntil { h.status()?["agent"]?["pending"]?.intValue == 2 }, "\(String(describing: h.status()?["agent"]))")
        #expect(StatusDocument(json: try #require(h.status())).map { StatusSummary($0).text } == "SnapSort paused (2 changes waiting)")
        #expect(try h.live(cli)[p] == nil)
        // A timed pause says when it ends.
        let until = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 3600).rounded())
        try cli.pause(until: until, now: Date())
        h.agent.wake()
        #expect(
            waitUntil { h.status()?["agent"]?["paused_until"]?.stringValue == StatusTimestamp.string(until) },
            "\(String(describing: h.status()?["agent"]))")
        try cli.resume(now: Date())
        #expect(try waitUntil { try h.live(cli)[p]?.status == "ok" })
        #expect(waitUntil { h.status()?["agent"]?["state"]?.stringValue == "watching" })
        #expect(h.status()?["agent"]?["pending"]?.intValue == 0)
    }

    /// A long regroup (a first scan of a big library: ~30 s at 100 000 photos) keeps the loop
    /// served from its checkpoints: the status says "grouping", a pause stops it and it runs
    /// again after the resume, and a stop request (SIGTERM's path) ends the agent at once. The
    /// regroup here never ends by itself: without the checkpoints the agent would hang in it.
    /// A status file that could not be written (a full tmpfs, an immutable file; a folder in its
    /// place here) is written at the agent's next wake once it can be, without waiting for
    /// another change: the bars kept the old counts for good (review 8).
    @Test func aStatusFileThatCouldNotBeWrittenIsWrittenAgain() throws {
        let h = try AgentHarness()
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        let before = try #require(h.status()?["agent"]?["total"]?.intValue)
        try FileSystem.remove(h.statusPath)
        try FileSystem.makeDirectories(h.statusPath)
        h.dir.write("Pictures/late.jpg", photo(41))
        let lib = try h.reader()
        #expect(try waitUntil { try h.live(lib)[h.root + "/late.jpg"]?.status == "ok" })
        #expect(h.waitIdle())
        #expect(h.logs.messages.contains { $0.contains("cannot write the status file") }, "\(h.logs.messages)")
        try FileManager.default.removeItem(atPath: h.statusPath)
        h.agent.wake()
        #expect(waitUntil { h.status()?["agent"]?["total"]?.intValue == before + 1 }, "\(String(describing: h.status()))")
    }

    /// A photo from a phone's sync is analyzed and grouped without the bars going watching →
    /// scanning → analyzing → grouping → watching; work that lasts (a regroup that does not end
    /// here) shows once it has lasted `quietWork` on the injected clock.
    @Test func aShortBurstOfWorkDoesNotFlickerTheBars() throws {
        let (clock, time) = Clock.manual(Date(timeIntervalSince1970: 1_800_000_000))
        let endless = Mutex(false)
        let looping = Mutex(false)
        let h = try AgentHarness(tweak: { o in
            o.clock = clock
            o.debounce = 0
            o.moveTimeout = 0
            o.quietWork = 2
            o.steps.groups = true
            o.regroup = { _, _, checkpoint in
                try checkpoint()
                if endless.withLock({ $0 }) { looping.withLock { $0 = true } }
                while endless.withLock({ $0 }) { try checkpoint(); usleep(2000) }
            }
        })
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        let lib = try h.reader()
        let before = h.agent.counters.statesWritten
        #expect(before.last == "watching", "\(before)")
        h.dir.write("Pictures/one.jpg", photo(31))
        #expect(try waitUntil(timeout: 60) { try h.live(lib)[h.root + "/one.jpg"]?.status == "ok" })
        #expect(h.waitIdle())
        #expect(waitUntil { h.status()?["agent"]?["done"]?.intValue == h.status()?["agent"]?["total"]?.intValue })
        let after = h.agent.counters.statesWritten
        #expect(Array(after.dropFirst(before.count)).allSatisfy { $0 == "watching" }, "\(after)")
        // Work that lasts: hidden for its first 2 s, then "grouping".
        endless.withLock { $0 = true }
        h.dir.write("Pictures/two.jpg", photo(32))
        #expect(try waitUntil(timeout: 60) { try h.live(lib)[h.root + "/two.jpg"]?.status == "ok" })
        // Inside the endless regroup, two files written one after the other, each seen read by
        // the loop served from inside the work (its events counted): the status was refreshed
        // after the first (no fixed wait) while the injected clock stood still.
        #expect(waitUntil(timeout: 60) { looping.withLock { $0 } })
        for n in 1...2 {
            let seen = h.agent.counters.events
            h.dir.write("Pictures/note-\(n).txt", Array("\(n)".utf8))
            #expect(waitUntil { h.agent.counters.events > seen })
        }
        #expect(h.status()?["agent"]?["state"]?.stringValue == "watching")
        time.advance(3)
        #expect(waitUntil { h.status()?["agent"]?["state"]?.stringValue == "grouping" })
        endless.withLock { $0 = false }
        #expect(waitUntil { h.status()?["agent"]?["state"]?.stringValue == "watching" })
    }

    @Test func aLongRegroupIsStoppedByAPauseOrAStopAndRunsAgainLater() throws {
        struct Runs { var started = 0, stopped = 0, finished = 0, endless = false }
        let runs = Mutex(Runs())
        let h = try AgentHarness(tweak: { o in
            o.steps.groups = true
            o.regroup = { _, _, checkpoint in
                let endless = runs.withLock {
                    $0.started += 1; return $0.endless
                }
                do {
                    while endless { try checkpoint(); usleep(2000) }
                    try checkpoint()
                } catch {
                    runs.withLock { $0.stopped += 1 }
                    throw error
                }
                runs.withLock { $0.finished += 1 }
            }
        })
        h.start()
        var stopped = false
        defer { if !stopped { h.stop() } }
        #expect(h.waitIdle())
        #expect(runs.withLock { $0.finished } == 1)
        runs.withLock { $0.endless = true }
        h.dir.write("Pictures/new.jpg", photo(21))
        #expect(waitUntil { h.status()?["agent"]?["state"]?.stringValue == "grouping" })
        // Events are still read while it groups.
        let events = h.agent.counters.events
        h.dir.write("Pictures/while-grouping.jpg", photo(22))
        #expect(waitUntil { h.agent.counters.events > events })
        // A pause from the CLI stops it; after the resume it runs again, to its end.
        let cli = try h.reader()
        try cli.pause(until: nil, now: Date())
        #expect(waitUntil { runs.withLock { $0.stopped } == 1 })
        #expect(waitUntil { h.status()?["agent"]?["state"]?.stringValue == "paused" })
        runs.withLock { $0.endless = false }
        let started = runs.withLock { $0.started }
        try cli.resume(now: Date())
        #expect(h.waitIdle())
        #expect(runs.withLock { $0.started } > started)
        #expect(try h.live(cli)[h.root + "/while-grouping.jpg"]?.status == "ok")
        // A stop request while it groups ends the agent.
        runs.withLock { $0.endless = true }
        h.dir.write("Pictures/last.jpg", photo(23))
        #expect(waitUntil { h.status()?["agent"]?["state"]?.stringValue == "grouping" })
        stopped = true
        #expect(h.stop())
        #expect(runs.withLock { $0.stopped } == 2)
        #expect(h.status()?["agent"]?["state"]?.stringValue == "stopped")
    }

    /// Files that arrive while a batch is analyzed are counted on from it ("6 of 6", then
    /// "9 of 9"), never from zero again ("3 of 3"): a bar's count does not go back.
    @Test func progressCountsOnAcrossBatchesUntilIdle() throws {
        let lines = Mutex<[String]>([])
        let hold = Mutex<String?>(nil)  // the root, while the next reconcile should bring a second batch
        let h = try AgentHarness(
            setup: { d in
                // Photos the library has already: its count is not the burst's.
                for i in 0..<10 { d.write("Pictures/old-\(i).jpg", photo(UInt64(80 + i))) }
            },
            tweak: { o in
                o.notifier = Notifier(
                    send: { m in
                        for l in m.split(separator: "\n") where l.hasPrefix("STATUS=") { lines.withLock { $0.append(String(l.dropFirst(7))) } }
                    }, watchdogInterval: nil)
                o.steps.groups = true
                o.regroup = { _, _, checkpoint in
                    guard
                        let root = hold.withLock({ r in
                            defer { r = nil }; return r
                        })
                    else { return }
                    // A second batch arrives before the first one's reconcile is over.
                    for i in 0..<3 { try FileSystem.writeAtomically(root + "/batch2-\(i).jpg", photo(UInt64(60 + i))) }
                    let until = Date().addingTimeInterval(1.5)
                    while Date() < until { try checkpoint(); usleep(20_000) }
                }
            })
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        lines.withLock { $0.removeAll() }
        hold.withLock { $0 = h.root }
        for i in 0..<6 { try FileSystem.writeAtomically(h.root + "/batch1-\(i).jpg", photo(UInt64(50 + i))) }
        #expect(try waitUntil { try h.live(try h.reader()).count == 19 })
        #expect(h.waitIdle())
        let counts = lines.withLock { $0 }.compactMap { line -> (Int, Int)? in
            let w = line.split(separator: " ")
            guard w.first == "Analyzing", w.count >= 4, let d = Int(w[1]), let t = Int(w[3]) else { return nil }
            return (d, t)
        }
        #expect(!counts.isEmpty)
        #expect(zip(counts, counts.dropFirst()).allSatisfy { $0.0 <= $1.0 && $0.1 <= $1.1 }, "\(counts)")
        #expect(counts.last.map { $0 == (9, 9) } == true, "\(counts)")
    }

    @Test func aSecondAgentOnTheSameDatabaseIsRefused() throws {
        let h = try AgentHarness()
        let env = Environment(variables: ["HOME": h.dir.path], home: h.dir.path)
        #expect(Agent.isRunning(dbPath: h.dbPath))
        #expect(throws: AgentError.self) { try Agent(AgentOptions(dbPath: h.dbPath, env: env)) }
    }

    @Test func theWatchLimitDegradesToPeriodicReconcileOnTheInjectedClock() throws {
        let (clock, time) = Clock.manual(Date(timeIntervalSince1970: 1_800_000_000))
        let h = try AgentHarness(
            setup: { d in
                for f in ["a", "b", "c", "d"] { d.folder("Pictures/\(f)") }
            },
            tweak: { o in
                o.clock = clock
                o.debounce = 0
                o.moveTimeout = 0
                o.watchBudget = 2
                o.degradedInterval = 600
            })
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        let s = try #require(h.status())
        #expect(s["agent"]?["degraded"]?.boolValue == true)
        #expect(s["agent"]?["last_error"]?.stringValue?.contains("fs.inotify.max_user_watches") == true)
        // The system's limit, with every folder still looked at: a warning, not the agent's error.
        #expect(s["agent"]?["last_error_severity"]?.stringValue == "warning")
        let unwatched = try #require(h.agent.watcher.unwatched.sorted().first)
        let p = unwatched + "/late.jpg"
        _ = FileManager.default.createFile(atPath: p, contents: Data(photo(14)))
        let lib = try h.reader()
        #expect(try h.live(lib)[p] == nil)
        time.advance(601)
        h.agent.wake()
        #expect(try waitUntil { try h.live(lib)[p]?.status == "ok" })
        // Watches freed (folders deleted): at the next check every folder is watched, and the
        // note goes (it stayed, with its first count, for good).
        for f in ["b", "c", "d"] { try FileManager.default.removeItem(atPath: h.root + "/" + f) }
        try FileManager.default.removeItem(atPath: unwatched)
        time.advance(601)
        h.agent.wake()
        #expect(waitUntil { h.status()?["agent"]?["degraded"]?.boolValue == false }, "\(String(describing: h.status()?["agent"]))")
        #expect(h.status()?["agent"]?["last_error"]?.stringValue == nil)
    }

    /// The limit raised and SIGHUP sent, as the message advises: every folder is watched again,
    /// and what landed in the unwatched ones meanwhile comes in at once (review 7: it waited for
    /// the hourly reconcile).
    @Test func aRaisedWatchLimitAndSIGHUPBringInWhatTheUnwatchedFoldersGot() throws {
        // The budget is never under 16 watches: 20 folders leave some unwatched.
        let limit = Atomic<Int>(Watcher.headroom + 16)
        let h = try AgentHarness(
            setup: { d in
                for f in 0..<20 { d.folder("Pictures/f\(f)") }
            },
            tweak: { o in
                o.watchLimit = { limit.load(ordering: .relaxed) }
                o.degradedInterval = 3600
            })
        h.start()
        defer { h.stop() }
        #expect(h.waitIdle())
        let unwatched = try #require(h.agent.watcher.unwatched.sorted().first)
        let p = unwatched + "/late.jpg"
        _ = FileManager.default.createFile(atPath: p, contents: Data(photo(15)))
        let lib = try h.reader()
        limit.store(Watcher.headroom + 100, ordering: .relaxed)
        h.agent.requestReload()
        #expect(try waitUntil { try h.live(lib)[p]?.status == "ok" })
        #expect(waitUntil { h.status()?["agent"]?["degraded"]?.boolValue == false })
    }

    /// The library file removed under the agent (a user starting over): the agent stops with
    /// exit code 1, saying why, so systemd starts it again on the library there now (it went on
    /// alive to the watchdog, processing nothing). Review 7, F5.
    @Test func anAgentWhoseLibraryIsRemovedStopsAndSaysWhy() throws {
        let h = try AgentHarness()
        h.start()
        #expect(h.waitIdle())
        for suffix in ["", "-wal", "-shm"] { unlink(h.dbPath + suffix) }
        #expect(waitUntil { h.exitCode != nil })
        #expect(h.exitCode == 1)
        #expect(h.logs.messages.contains { $0.contains("library.sqlite3 was removed while the agent ran") }, "\(h.logs.messages)")
    }

    /// The three newest are kept, and the first of their week and month (`Backup.retained`).
    @Test func backupsAreTakenAndTheNewestKept() throws {
        let h = try AgentHarness()
        let lib = try h.reader()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for day in 0..<5 { try Backup.run(lib, keep: 3, now: start.addingTimeInterval(Double(day) * 86_400)) }
        let kept = Backup.list(h.dbPath)
        #expect(kept.map { $0.suffix(15) } == ["20270115-080000", "20270117-080000", "20270118-080000", "20270119-080000"])
        #expect(kept.last?.hasSuffix("20270119-080000") == true)
        #expect(try kept.allSatisfy { try FileSystem.lstatus($0).mode & 0o777 == 0o600 })
        let copy = try Library(path: kept.last!, readOnly: true)
        #expect(try copy.db.quickCheck() == nil)
        h.start()
        defer { h.stop() }
        #expect(waitUntil { h.agent.counters.backups == 1 })
        // Today's (older than those of 2027): the first of its week and month; the three newest.
        #expect(Backup.list(h.dbPath).count == 4)
    }

    /// A damaged library is never copied over the good backups: the copy is checked before it
    /// takes a backup's name, and the agent refuses to start on it.
    @Test func aDamagedLibraryKeepsItsBackupsAndStopsTheAgent() throws {
        let dir = TempDir("snapsort-damage")
        let path = dir.at("lib.sqlite3")
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        do {
            let lib = try Library(path: path)
            try lib.setAgentState("something", "kept", at: Date())
            for day in 0..<3 { try Backup.run(lib, keep: 3, now: start.addingTimeInterval(Double(day) * 86_400)) }
        }
        let good = Backup.list(path)
        #expect(good.count == 3)
        try DatabaseDamage.breakTable(path, "agent_state")
        let lib = try Library(path: path)
        #expect(throws: LibraryError.self) { try Backup.run(lib, keep: 3, now: start.addingTimeInterval(5 * 86_400)) }
        #expect(Backup.list(path) == good)
        #expect(try FileSystem.listDirectory(dir.path).allSatisfy { !$0.name.hasSuffix(".partial") })
        let env = Environment(variables: ["HOME": dir.path, "XDG_RUNTIME_DIR": dir.at("run")], home: dir.path)
        do {
            _ = try Agent(AgentOptions(dbPath: path, env: env))
            Issue.record("the agent started on a damaged library")
        } catch {
            #expect("\(error)".contains("is damaged"), "\(error)")
        }
    }
}

/// A service that stops the agent's loop when asked, as SIGSTOP does (nothing reads the inotify
/// queue meanwhile), and keeps the agent part of every status document the loop publishes.
final class LoopStall: AgentService, @unchecked Sendable {
    let name = "stall"
    private let pipe: (read: Int32, write: Int32)
    private let stalled = DispatchSemaphore(value: 0)
    /// Signalled by the test: the loop goes on.
    let resume = DispatchSemaphore(value: 0)
    let documents = Mutex<[StatusDocument.Agent]>([])

    init() {
        var fds: [Int32] = [-1, -1]
        precondition(Glibc.pipe(&fds) == 0)
        pipe = (fds[0], fds[1])
    }
    deinit {
        close(pipe.read)
        close(pipe.write)
    }

    var descriptors: [Int32] { [pipe.read] }
    func fire(now: Date, readable: [Int32]) {
        guard readable.contains(pipe.read) else { return }
        var b: UInt8 = 0
        _ = Glibc.read(pipe.read, &b, 1)
        stalled.signal()
        resume.wait()
    }
    func statusChanged(_ document: StatusDocument, now: Date) { documents.withLock { $0.append(document.agent) } }

    /// Returns once the loop is stopped (inside `fire`).
    func stall() {
        var b: UInt8 = 1
        _ = Glibc.write(pipe.write, &b, 1)
        stalled.wait()
    }
}
