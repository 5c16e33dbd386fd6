import Foundation

/// An item's analysis status: the words of `files.status`.
///
/// (Not `FileStatus`: that is `SnapSortSystem`'s lstat of a path.)
public enum ItemStatus: String, Sendable, CaseIterable {
    /// Found, not analyzed yet.
    case pending
    /// Analyzed.
    case ok
    /// Read, but cut short or corrupt (a JPEG cut short): listed with the broken files.
    case damaged
    /// Could not be read at all (not media, an I/O error, a decode that failed).
    case unreadable
    /// A format or a size SnapSort does not analyze (AVI, animated WebP, a RAW without preview).
    case unsupported
    /// The file went: the row stays as a tombstone (docs/HACKING.md, Identity; `Library.live()`).
    case gone
}

/// Whether a library folder was there at its last scan: the words of `roots.state`.
enum RootState: String, Sendable, CaseIterable {
    /// Scanned: its files are as the library says.
    case online
    /// Not there (a drive not mounted, a folder moved away): its files are kept as they were.
    case offline
}
