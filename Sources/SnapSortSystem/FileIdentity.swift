import CSysShim
import Glibc

/// Which file a path names, as far as the kernel can tell: device, inode and birth time.
///
/// Inode numbers are handed out again at once on ext4, xfs and tmpfs, so (device, inode) names
/// a file only while it exists. The birth time (`statx`'s `stx_btime`) is set when the inode is
/// made: a rename keeps it, a copy — also one that lands on a reused inode number — gets a new
/// one. File systems that do not record it (NFS, some FUSE) give nil.
/// See: man 2 statx.
public struct FileIdentity: Sendable, Equatable {
    public var device: UInt64
    public var inode: UInt64
    /// Nanoseconds since 1970; nil where the file system does not record it.
    public var birthNanoseconds: Int64?

    public init(device: UInt64, inode: UInt64, birthNanoseconds: Int64?) {
        self.device = device
        self.inode = inode
        self.birthNanoseconds = birthNanoseconds
    }

    /// The identity of the file at `path` (a symlink itself, never its target); nil when
    /// nothing is there or it cannot be reached.
    public static func of(_ path: String) -> FileIdentity? {
        var dev: UInt64 = 0
        var ino: UInt64 = 0
        var birth: Int64 = -1
        let rc = PathName.withCString(path) { ss_statx_identity(AT_FDCWD, $0, 0, &dev, &ino, &birth) }
        guard rc == 0 else { return nil }
        return FileIdentity(device: dev, inode: ino, birthNanoseconds: birth < 0 ? nil : birth)
    }

    /// Whether `other` is the same file: the same device and inode, and the same birth time
    /// where both know one. Where either does not, (device, inode) is all the kernel gives.
    public func isSameFile(as other: FileIdentity) -> Bool {
        guard device == other.device, inode == other.inode else { return false }
        if let a = birthNanoseconds, let b = other.birthNanoseconds { return a == b }
        return true
    }
}
