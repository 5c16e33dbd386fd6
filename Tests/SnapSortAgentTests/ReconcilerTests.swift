import Foundation
import Testing

@testable import SnapSortAgent

/// What a reconcile scans of the dirty paths (`Reconciler.pathsToReconcile`); the reconciles
/// themselves run in `AgentWatchTests`, through the loop.
@Suite struct ReconcilerTests {
    /// What a reconcile scans of what is dirty: a path inside a folder scanned is covered by
    /// it, a root is scanned even when missing (the scanner says it is offline), a missing
    /// folder or file is a removal, and nothing at or under a root waiting for its disk.
    @Test(arguments: [
        (
            folders: ["/r/a", "/r/a/b", "/r/gone"], files: ["/r/a/b/1.jpg", "/r/c/2.jpg", "/r/gone/3.jpg", "/r/c/no.jpg"],
            paths: ["/r/a", "/r/c/2.jpg"], missing: ["/r/gone", "/r/c/no.jpg", "/r/gone/3.jpg"]
        ),
        (folders: ["/r", "/r/a"], files: ["/r/a/1.jpg", "/s/1.jpg"], paths: ["/r", "/s/1.jpg"], missing: []),
        (folders: ["/off", "/r"], files: ["/off/1.jpg", "/r/1.jpg", "/m/x/1.jpg"], paths: ["/r"], missing: []),
        (folders: ["/", "/r"], files: ["/r/1.jpg"], paths: ["/"], missing: []),
        (folders: ["/ra", "/r"], files: ["/ra/1.jpg", "/rab/1.jpg"], paths: ["/r", "/ra", "/rab/1.jpg"], missing: []),
    ])
    func aReconcileScansWhatIsDirtyOnceAndTheMissingAreRemovals(
        folders: [String], files: [String], paths: [String], missing: [String]
    ) {
        let there: Set<String> = ["/", "/r", "/ra", "/r/a", "/r/a/b", "/r/c", "/s", "/rab", "/m/x"]
        let result = Reconciler.pathsToReconcile(
            folders: Set(folders), files: Set(files), roots: ["/r", "/off"], waiting: ["/off", "/m"],
            isFolder: { there.contains($0) }, isFile: { !$0.hasSuffix("no.jpg") && !$0.hasPrefix("/r/gone") })
        #expect(result.paths == paths)
        #expect(result.missing == missing)
    }

    /// A backlog of 30 000 files written into one folder, and 30 000 under a new folder: each
    /// file is looked up by its folders (it was compared with every path taken so far, 22 s
    /// with the status saying "watching", pending 0).
    @Test func aBacklogOfThirtyThousandFilesIsSortedOutByFolder() {
        let loose = (0..<30_000).map { "/r/Inbox/IMG_\($0).jpg" }
        let inNew = (0..<30_000).map { "/r/New/IMG_\($0).jpg" }
        let result = Reconciler.pathsToReconcile(
            folders: ["/r/New"], files: Set(loose + inNew), roots: ["/r"], waiting: [],
            isFolder: { $0 == "/r/New" }, isFile: { _ in true })
        #expect(result.paths == ["/r/New"] + loose.sorted())
        #expect(result.missing.isEmpty)
    }
}
