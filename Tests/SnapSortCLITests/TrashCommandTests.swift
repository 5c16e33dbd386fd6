import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Testing

/// `trash` (moved from SnapSortCoreTests' TrashTests: it ran the binary).
@Suite("CLI: trash")
struct TrashCommandTests {
    @Test("CLI: commit without --yes and without a terminal exits 2 and moves nothing")
    func commitNeedsConfirmation() throws {
        let lib = try TestLibrary.scanned(["a.jpg"])
        let item = try #require(try lib.library.item(path: lib.root + "/a.jpg"))
        try Review.decide(.trash, fileID: item.id, library: lib.library, clock: .live)
        let env = ["SNAPSORT_DB": lib.dbPath, "XDG_DATA_HOME": lib.dir.at("share")]
        let r = try InProcess.run(["trash", "commit"], env: env)
        #expect(r.status == 2)
        #expect(FileSystem.exists(lib.root + "/a.jpg"))
        let list = try InProcess.run(["trash", "list", "--json"], env: env)
        #expect(list.status == 0 && JSON.parse(list.stdout)?["staged_count"]?.intValue == 1)
        let json = try InProcess.run(["stats", "--json"], env: env)
        #expect(json.status == 0 && JSON.parse(json.stdout)?["reviewed_total"]?.intValue == 1)
    }
}
