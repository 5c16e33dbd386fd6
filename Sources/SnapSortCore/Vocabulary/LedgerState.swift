import Foundation

/// Where a file staged for the Trash is in the commit's journal: the words of
/// `trash_ledger.state` (`Trash`).
public enum LedgerState: String, Sendable, CaseIterable {
    /// Written before the move: a crash between the two is finished or undone at the next start.
    case planned
    /// In the freedesktop Trash (its `.trashinfo` written, the file moved).
    case trashed
    /// Not moved, and why (`trash_ledger.reason`): it changed, it is the last copy, …
    case skipped
    /// Not moved because the move could not be done safely (another device's Trash); still in place.
    case abandoned
    /// Put back from the Trash (by SnapSort or by the file manager).
    case restored
    /// No longer in the Trash: emptied or deleted there.
    case purged

    /// The states that say what became of a moved file last (a restore, a purge or still there).
    static let afterTheMove: [LedgerState] = [.trashed, .purged, .restored]
}

/// What one `review_events` row records: the words of `review_events.kind` (`Stats`).
public enum ReviewEventKind: String, Sendable, CaseIterable {
    /// A decision given (or taken back: `undone`).
    case decision
    /// A file moved to the Trash by a commit: its bytes count as moved to the Trash (the word is
    /// older than the meaning; `purged` is what counts as cleared).
    case cleared
    /// A file back from the Trash (its bytes, negative, leave "moved to the Trash").
    case restored
    /// A file SnapSort moved to a Trash left the disk there (the Trash emptied, the file deleted
    /// from it): its bytes count as cleared (issue 43, item 4). Recorded when it is noticed.
    case purged
}

/// How the second analysis tier went for one file: the words of `vision.status`
/// (`VisionAnalyzer`).
enum VisionStatus: String, Sendable, CaseIterable {
    /// The models ran; the row's findings hold.
    case ok
    /// Not looked at: a format the helper does not read, or a picture too small to score.
    case skipped
    /// The helper crashed or refused the photo: not retried until the file or the models change.
    case failed
}
