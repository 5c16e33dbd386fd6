/// Which folders and files the scanner (and the agent's watcher) skips.
///
/// Skipped: hidden folders and files (a leading dot: `.thumbnails`, `.Trash-1000`, `.git`),
/// subtrees holding `.nomedia` or `.snapsortignore`, thumbnail caches, Trash folders, Synology
/// `@eaDir`, Windows `$RECYCLE.BIN`, and any folder the configuration excludes. Symlinks are
/// never followed and never become items.
public struct ExcludeRules: Sendable {
    /// Marker files whose presence excludes the folder and everything under it.
    public static let markerFiles: Set<String> = [".nomedia", ".snapsortignore"]
    /// Folder names skipped wherever they appear (case-sensitive, as on disk).
    public static let folderNames: Set<String> = ["@eaDir", "$RECYCLE.BIN", "Trash", "thumbnails", "Thumbnails", "lost+found"]

    /// Absolute folders excluded by the configuration.
    public var excludedPaths: [String]

    public init(excludedPaths: [String] = []) {
        self.excludedPaths = excludedPaths.map { $0.hasSuffix("/") && $0.count > 1 ? String($0.dropLast()) : $0 }
    }

    /// Whether a folder named `name` at `path` is skipped (before listing it).
    public func skipsFolder(name: String, path: String) -> Bool {
        if name.hasPrefix(".") || ExcludeRules.folderNames.contains(name) || name.hasPrefix(".Trash") { return true }
        return excludedPaths.contains { path == $0 || path.hasPrefix($0 + "/") }
    }

    /// Whether a folder whose entries are `names` is excluded with its subtree.
    public func hasMarker(_ names: some Sequence<String>) -> Bool {
        names.contains { ExcludeRules.markerFiles.contains($0) }
    }

    /// Whether a file named `name` is a candidate item.
    public func isCandidateFile(name: String) -> Bool {
        !name.hasPrefix(".") && MediaFormat.fromName(name) != nil
    }
}
