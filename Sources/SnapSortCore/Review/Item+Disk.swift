import SnapSortSystem

/// Whether the file on disk is still the one the library analyzed.
public enum DiskState: Sendable, Equatable {
    /// Same size and modification time as when it was scanned.
    case present
    /// Nothing at the path any more.
    case gone
    /// Something else is there now: another size or time, or no longer a regular file.
    case changed
}

extension Item {
    /// What is at the item's path now, by `lstat` (the scanner's own test; no rescan). A
    /// review shows this instead of a card for a file that is not there.
    public func diskState() -> DiskState {
        guard let st = FileSystem.lstatusIfExists(path) else { return .gone }
        return st.isRegular && st.size == bytes && st.mtimeNanoseconds == mtimeNanoseconds ? .present : .changed
    }
}
