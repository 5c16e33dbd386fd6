import Foundation
import SnapSortSystem

/// An item staged for the Trash (decided `trash`, not committed): still in place and in the
/// library.
public struct StagedItem: Sendable, Equatable {
    public var fileID: Int64
    public var path: String
    public var bytes: Int64
    public var decidedAt: Double
    /// The file changed (or went) since it was reviewed: a commit leaves it in place until it
    /// is decided again.
    public var changedSinceReview = false
    /// …because it is not there: moved away outside SnapSort's sight, or on a drive that is not
    /// mounted (a commit leaves it staged; it is moved once it is back as it was).
    public var missing = false
    /// Why the file cannot be looked at now (its folder unsearchable: "Permission denied"), or
    /// nil. Such a file is neither missing nor changed: a commit leaves it staged.
    public var unreachable: String?
    /// Nothing that stays in the library holds its pixels once the staged items are gone
    /// (`LastCopies`): true for an item in no set, and for the members of a set staged whole.
    public var lastCopy = true
    /// The duplicate or Similar Shots set it leaves whole with the others staged (`s<key>`).
    public var lastCopySet: String?
    /// Whether `lastCopySet` is a duplicate set (copies of one picture).
    public var lastCopyOfDuplicates = false
    /// `lastCopySet` as a person knows it: its keeper's file name and date (`Library.setName`).
    public var lastCopySetName: String? = nil
}

/// A file SnapSort moved to a system Trash (a ledger row).
public struct TrashedFile: Sendable, Equatable {
    public var ledgerID: Int64
    public var fileID: Int64?
    public var originalPath: String
    public var trashPath: String
    public var bytes: Int64
    public var trashedAt: Double
    public var isSidecar: Bool
    /// The Trash folder (holding `files/` and `info/`), the name in it, and the `.trashinfo`
    /// text SnapSort wrote (to tell its file from another trashed later under a freed name).
    var trashDirectory: String
    var name: String
    var info: String?

    var infoPath: String { trashDirectory + "/info/" + name + ".trashinfo" }
}

/// What happened to one file in a commit or restore.
public struct TrashOutcome: Sendable, Equatable {
    public enum Result: Sendable, Equatable {
        /// Moved into the Trash at this path.
        case trashed(String)
        /// Put back at its original path.
        case restored
        /// Un-staged: the item is undecided again (it never left its place).
        case unstaged
        /// Left where it is, with the reason.
        case skipped(String)
    }
    public var path: String
    public var bytes: Int64
    public var result: Result
    public var isSidecar: Bool

    public var succeeded: Bool { if case .skipped = result { return false } else { return true } }

    public init(path: String, bytes: Int64, result: Result, isSidecar: Bool) {
        self.path = path
        self.bytes = bytes
        self.result = result
        self.isSidecar = isSidecar
    }
}

/// What a commit or restore did, file by file.
public struct TrashReport: Sendable, Equatable {
    public var outcomes: [TrashOutcome] = []
    /// Commits interrupted earlier and finished (or rolled back) by this run.
    public var resumed = 0
    public var milestones: [String] = []

    public var succeeded: [TrashOutcome] { outcomes.filter(\.succeeded) }
    public var skipped: [TrashOutcome] { outcomes.filter { !$0.succeeded } }
    public var bytes: Int64 { succeeded.reduce(0) { $0 + $1.bytes } }
}

/// The trash the user controls: staging, the commit to the freedesktop.org Trash, restore.
///
/// Only `commit` and `restore` move a user's file, always with `rename(2)` that never replaces
/// an existing file and never copies across file systems. The commit is journaled in
/// `trash_ledger` before each step, so a commit killed half-way is finished by the next one:
/// every staged file ends trashed once or still in place, and the ledger says which.
public enum Trash {}
