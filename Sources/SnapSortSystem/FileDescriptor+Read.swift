import Glibc

extension FileDescriptor {
    /// Opens a file for reading without following a final symlink (the scanner never follows
    /// symlinks), for handlers that read a file in pieces with `pread`.
    public static func openForReading(_ path: String) throws -> FileDescriptor {
        try open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    }
}
