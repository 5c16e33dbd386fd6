import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Testing

/// `decide` and `undo` (moved from SnapSortCoreTests' ReviewTests: they ran the binary).
@Suite("CLI: decide and undo")
struct DecideCommandTests {
    @Test("CLI: decide and undo; an unknown FILE exits 1 and records nothing")
    func cli() throws {
        let lib = try TestLibrary.scanned(["a.jpg", "b.jpg"])
        let env = ["SNAPSORT_DB": lib.dbPath, "XDG_DATA_HOME": lib.dir.at("share")]
        let bad = try InProcess.run(["decide", "trash", lib.root + "/a.jpg", lib.root + "/nope.jpg"], env: env)
        #expect(bad.status == 1 && bad.stderr.contains("nope.jpg: no such file"), "\(bad.stderr)")
        #expect(try lib.library.db.scalar("SELECT count(*) FROM decisions") == 0)
        // Each refusal says why: a folder, a file the library does not know yet.
        let folder = try InProcess.run(["decide", "keep", lib.root], env: env)
        #expect(folder.status == 1 && folder.stderr.contains("is a folder; decisions are on files"), "\(folder.stderr)")
        lib.dir.write("Pictures/new.jpg", Fixtures.jpeg(seed: 5, width: 32, height: 32))
        let unknown = try InProcess.run(["decide", "keep", lib.root + "/new.jpg"], env: env)
        #expect(unknown.status == 1 && unknown.stderr.contains("new.jpg: not in the library (run 'snapsort scan' first)"), "\(unknown.stderr)")
        let ok = try InProcess.run(["decide", "trash", lib.root + "/a.jpg", lib.root + "/b.jpg"], env: env)
        #expect(ok.status == 0)
        #expect(try Trash.staged(library: lib.library).count == 2)
        let u = try InProcess.run(["undo"], env: env)
        #expect(u.status == 0 && u.stdout.contains("b.jpg"))
        #expect(try Trash.staged(library: lib.library).map(\.path) == [lib.root + "/a.jpg"])
        // More steps than there are: what could be undone is, and it says it ran out.
        let more = try InProcess.run(["undo", "--steps", "5"], env: env)
        #expect(more.status == 0 && more.stdout.contains("a.jpg"))
        #expect(more.stderr.contains("undid 1 of 5 steps: nothing more to undo"), "\(more.stderr)")
        #expect(try InProcess.run(["undo"], env: env).status == 1)
        let usage = try InProcess.run(["decide", "maybe", lib.root + "/a.jpg"], env: env)
        #expect(usage.status == 2)
        // A deferred card rests for its week: the later deck says so (review 7, F6).
        #expect(try InProcess.run(["decide", "later", lib.root + "/a.jpg"], env: env).status == 0)
        let decks = try InProcess.run(["decks"], env: env).stdout
        #expect(decks.contains("0 back from later, 1 resting until their week is up"), "\(decks)")
    }
}
