import Foundation
import Glibc
import SnapSortSystem

/// A fresh, small ext4 file system on a loop device, mounted in a temp folder: a real disk's
/// behaviour that a shared /tmp does not show at once — a deleted file's inode number goes to
/// the next file made. Needs root (as CI runs) and mkfs.ext4; unmounted when released.
public final class ScratchExt4: @unchecked Sendable {
    public let mountPoint: String
    private let dir: TempDir

    /// Whether this process may mount one (root, and e2fsprogs there).
    public static var isAvailable: Bool {
        getuid() == 0 && ["/sbin/mkfs.ext4", "/usr/sbin/mkfs.ext4"].contains(where: FileManager.default.isExecutableFile)
    }

    public init(megabytes: Int = 32) throws {
        dir = TempDir("snapsort-ext4")
        let image = dir.at("disk.img")
        mountPoint = dir.folder("mnt")
        let fd = try FileDescriptor.open(image, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC)
        let sized = Result { try valueOrErrno("ftruncate \(image)") { ftruncate(fd.raw, off_t(megabytes) << 20) } }
        fd.close()
        _ = try sized.get()
        try ScratchExt4.run("/sbin/mkfs.ext4", ["-q", "-F", image])
        try ScratchExt4.run("/bin/mount", ["-o", "loop", image, mountPoint])
    }

    /// Writes `bytes` to a new file at `path` (which must not exist): one inode, no temp file.
    @discardableResult
    public static func create(_ path: String, _ bytes: [UInt8]) throws -> FileStatus {
        let fd = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC)
        defer { fd.close() }
        try fd.writeAll(bytes)
        return try fd.status()
    }

    /// Writes `bytes` to new files `folder/PREFIX_1.jpg`, `_2`, … until one lands on inode
    /// number `inode` (a file just deleted gave it back); returns its path, nil after 200.
    public static func createOnInode(_ inode: UInt64, _ bytes: [UInt8], in folder: String, prefix: String) throws -> String? {
        for i in 1...200 {
            let p = "\(folder)/\(prefix)_\(i).jpg"
            if try create(p, bytes).inode == inode { return p }
        }
        return nil
    }

    private static func run(_ exe: String, _ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw SystemError(.unsupported, "\(exe) \(args.joined(separator: " ")) exited \(p.terminationStatus)", operation: "mount")
        }
    }

    deinit {
        // Lazily: a test that failed half-way may still hold a descriptor there.
        try? ScratchExt4.run("/bin/umount", ["-l", mountPoint])
    }
}
