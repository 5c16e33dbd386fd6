import Foundation

/// What the Trash holds for a library, as `snapsort trash list` and the page's Trash show it:
/// what is staged (with what goes with each at the commit), the sets the commit leaves nothing
/// of, and what SnapSort moved to a Trash that is still there. One value, read once; each front
/// end writes its own words and keys from it (the CLI's `--json` keys and the page's API are
/// contracts of their own).
public struct TrashOverview: Sendable {
    /// A staged photo and the sidecars that go with it at the commit.
    public struct Staged: Sendable {
        public var item: StagedItem
        public var sidecars: [(path: String, bytes: Int64)]
    }

    /// What is staged, oldest decision first.
    public var staged: [Staged]
    /// Files SnapSort moved to a Trash that are still there (sidecars included), oldest first.
    public var inTrash: [TrashedFile]
    /// Bytes still sitting in a Trash (`Trash.inTrashBytes`): emptying the Trash frees them.
    public var inTrashBytes: Int64

    /// The staged items alone.
    public var stagedItems: [StagedItem] { staged.map(\.item) }
    /// Bytes of the staged photos.
    public var stagedBytes: Int64 { staged.reduce(0) { $0 + $1.item.bytes } }
    /// Every sidecar that goes with a staged photo.
    public var sidecars: [(path: String, bytes: Int64)] { staged.flatMap(\.sidecars) }
    /// Bytes of the sidecars that go with the staged photos.
    public var sidecarBytes: Int64 { sidecars.reduce(0) { $0 + $1.bytes } }
    /// The sets the staged photos leave whole (`LastCopies.sets`).
    public var lastCopySets: [LastCopySet] { LastCopies.sets(stagedItems) }
    /// The words the commit's question adds about last copies (`LastCopies.warning`).
    public var lastCopiesWarning: String? { LastCopies.warning(stagedItems) }
    /// What a commit of everything staged would do, and its question (`CommitPlan`).
    public var commitPlan: CommitPlan { CommitPlan(staged) }

    /// Reads the overview. Call `Trash.noticeRestores` first: restores outside SnapSort, and a
    /// killed commit's file in flight, settle before listing.
    public static func load(library: Library) throws -> TrashOverview {
        let items = try Trash.staged(library: library)
        let staged = try items.map { Staged(item: $0, sidecars: try Trash.travellingSidecars(of: $0, library: library)) }
        return TrashOverview(
            staged: staged, inTrash: try Trash.inSystemTrash(library: library), inTrashBytes: try Trash.inTrashBytes(library: library))
    }
}
