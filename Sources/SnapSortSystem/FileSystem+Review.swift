import CReviewShim
import Glibc

extension FileSystem {
    /// Moves `from` to `to` without ever replacing an existing `to` (renameat2 with
    /// `RENAME_NOREPLACE`; see man 2 rename). Fails with `EEXIST` when `to` exists and `EXDEV`
    /// across mounts — never copies. A file system without the flag (`EINVAL`) falls back to
    /// `link(2)` + `unlink(2)`, which also refuses an existing target.
    public static func renameNoReplace(_ from: String, _ to: String) throws {
        let renamed = try valueOrErrno("rename", expecting: [EINVAL, ENOSYS]) {
            PathName.withCString(from) { f in PathName.withCString(to) { ss_rename_noreplace(f, $0) } }
        }
        if case .success = renamed { return }
        _ = try valueOrErrno("link") { PathName.withCString(from) { f in PathName.withCString(to) { link(f, $0) } } }
        _ = try valueOrErrno("unlink") { PathName.withCString(from) { unlink($0) } }
    }

    /// Creates `path` with its whole content, failing with `EEXIST` if it exists: the bytes go
    /// to a hidden temp file in the same folder (fsynced), which is then renamed to `path`
    /// without replacing (`RENAME_NOREPLACE`, else `link`). So `path` never exists half
    /// written, even after `kill -9` — a `.trashinfo` is either complete or absent. File
    /// systems without hard links or the flag (FAT) fall back to `O_EXCL` and a direct write.
    /// A temp file left by a crash is named by `exclusiveTempPrefix(for:)`.
    public static func createExclusive(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) throws {
        let temp = exclusiveTempPrefix(for: path) + "\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        try writeNew(temp, bytes, mode: mode)
        do {
            try renameNoReplace(temp, path)
        } catch let e as SystemError where e.code == .errno(EPERM) || e.code == .errno(EOPNOTSUPP) || e.code == .errno(ENOSYS) {
            PathName.withCString(temp) { _ = unlink($0) }
            try writeNew(path, bytes, mode: mode)
        } catch {
            PathName.withCString(temp) { _ = unlink($0) }
            throw error
        }
        syncDirectory(of: path)
    }

    /// The start of the temp names `createExclusive` uses for `path`: `DIR/.NAME.snapsort-`.
    public static func exclusiveTempPrefix(for path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return ".\(path).snapsort-" }
        return "\(path[...slash]).\(path[path.index(after: slash)...]).snapsort-"
    }

    /// `O_EXCL` create, write, fsync; removed again on failure.
    private static func writeNew(_ path: String, _ bytes: [UInt8], mode: mode_t) throws {
        let fd = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode: mode)
        do {
            try fd.writeAll(bytes)
            _ = try valueOrErrno("fsync") { fsync(fd.raw) }
            fd.close()
        } catch {
            fd.close()
            PathName.withCString(path) { _ = unlink($0) }
            throw error
        }
    }

    /// fsyncs the folder holding `path` so a rename or creation in it is durable.
    public static func syncDirectory(of path: String) {
        guard let slash = path.lastIndex(of: "/") else { return }
        let dir = slash == path.startIndex ? "/" : String(path[..<slash])
        let fd = PathName.withCString(dir) { Glibc.open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { return }
        _ = fsync(fd)
        _ = Glibc.close(fd)
    }

    /// Opens `path` read-only and `fsync(2)`s it: its bytes are on disk before a rename
    /// publishes it under its final name.
    public static func syncFile(_ path: String) throws {
        let fd = try FileDescriptor.open(path, O_RDONLY | O_CLOEXEC)
        defer { fd.close() }
        _ = try valueOrErrno("fsync") { fsync(fd.raw) }
    }

    /// Whether this process may write `path` (`access(2)` with `W_OK`: its real user's rights).
    public static func isWritable(_ path: String) -> Bool {
        PathName.withCString(path) { access($0, W_OK) } == 0
    }

    /// `unlink(2)`.
    public static func remove(_ path: String) throws {
        _ = try valueOrErrno("unlink") { PathName.withCString(path) { unlink($0) } }
    }

    /// `mkdir(2)` of one folder; false when it already exists.
    @discardableResult
    public static func makeDirectory(_ path: String, mode: mode_t) throws -> Bool {
        let made = try valueOrErrno("mkdir", expecting: [EEXIST]) { PathName.withCString(path) { mkdir($0, mode) } }
        if case .failure = made { return false }
        return true
    }

    /// `realpath(3)`: the absolute path with every symlink resolved.
    public static func realPath(_ path: String) throws -> String {
        let p = try pointerOrErrno("realpath") { PathName.withCString(path) { realpath($0, nil) } }
        defer { free(p) }
        return PathName.decode(cString: p)
    }

    /// The working directory (`getcwd(3)`), "." when it cannot be named (removed, too long).
    public static var currentDirectory: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "." }
        return PathName.decode(buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) })
    }

    /// Reads a small file of unknown size (e.g. under /proc, where `st_size` is 0).
    public static func readProcFile(_ path: String, limit: Int = 16 << 20) throws -> [UInt8] {
        let fd = try FileDescriptor.open(path, O_RDONLY | O_CLOEXEC)
        defer { fd.close() }
        return try fd.readAll(expected: 0, limit: limit)
    }

    /// The effective user id.
    public static var effectiveUserID: UInt32 { geteuid() }

    /// Whether the mode has the sticky bit (see man 7 inode).
    public static func isSticky(_ mode: UInt32) -> Bool { mode & UInt32(S_ISVTX) != 0 }
}
