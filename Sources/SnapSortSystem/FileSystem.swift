import Glibc

/// What `stat` says about a file, in the units SnapSort stores.
public struct FileStatus: Sendable, Equatable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var mtimeNanoseconds: Int64
    public var mode: UInt32
    public var uid: UInt32
    /// `st_nlink`: the names the file has (hard links).
    public var linkCount: UInt64

    public var isDirectory: Bool { mode & S_IFMT == S_IFDIR }
    public var isRegular: Bool { mode & S_IFMT == S_IFREG }
    public var isSymlink: Bool { mode & S_IFMT == S_IFLNK }

    public init(device: UInt64, inode: UInt64, size: Int64, mtimeNanoseconds: Int64, mode: UInt32, uid: UInt32 = 0, linkCount: UInt64 = 1) {
        self.linkCount = linkCount
        self.device = device
        self.inode = inode
        self.size = size
        self.mtimeNanoseconds = mtimeNanoseconds
        self.mode = mode
        self.uid = uid
    }

    init(_ st: stat) {
        self.init(
            device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size),
            mtimeNanoseconds: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
            mode: st.st_mode, uid: st.st_uid, linkCount: UInt64(st.st_nlink))
    }
}

/// Thin wrappers over the POSIX file calls SnapSort uses.
public enum FileSystem {
    /// `lstat(2)`: never follows a symlink.
    public static func lstatus(_ path: String) throws -> FileStatus {
        var st = stat()
        _ = try valueOrErrno("lstat") { PathName.withCString(path) { lstat($0, &st) } }
        return FileStatus(st)
    }

    /// `stat(2)`: follows symlinks (for roots given by the user).
    public static func status(_ path: String) throws -> FileStatus {
        var st = stat()
        _ = try valueOrErrno("stat") { PathName.withCString(path) { stat($0, &st) } }
        return FileStatus(st)
    }

    /// `lstat` that answers nil for a missing file.
    public static func lstatusIfExists(_ path: String) -> FileStatus? {
        var st = stat()
        return PathName.withCString(path) { lstat($0, &st) } == 0 ? FileStatus(st) : nil
    }

    /// `lstat` that answers nil for a file that is not there (`ENOENT`, `ENOTDIR`) and throws
    /// when it cannot tell (`EACCES` on an unsearchable folder, `ELOOP`, an I/O error).
    public static func lstatusUnlessMissing(_ path: String) throws -> FileStatus? {
        do {
            return try lstatus(path)
        } catch let e as SystemError where e.code == .errno(ENOENT) || e.code == .errno(ENOTDIR) {
            return nil
        }
    }

    /// Reads a whole file, refusing one larger than `limit` bytes, and anything but a regular
    /// file: opened non-blocking, so a FIFO named like a photo or a status file is refused at
    /// once instead of waiting for a writer forever (reads of a regular file never block).
    public static func readFile(_ path: String, limit: Int) throws -> [UInt8] {
        let fd = try FileDescriptor.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        defer { fd.close() }
        let st = try fd.status()
        guard st.isRegular else { throw SystemError(.unsupported, "not a regular file", operation: "read") }
        guard st.size <= Int64(limit) else {
            throw SystemError(.limit, "file is \(st.size) bytes, over the \(limit) byte limit", operation: "read")
        }
        return try fd.readAll(expected: Int(st.size), limit: limit)
    }

    /// Reads up to `count` bytes at `offset` (opened non-blocking, as `readFile`).
    public static func readRange(_ path: String, offset: Int64, count: Int) throws -> [UInt8] {
        let fd = try FileDescriptor.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        defer { fd.close() }
        return try fd.pread(offset: offset, count: count)
    }

    /// Writes `bytes` to `path` crash-safely: a temp file in the same folder, fsync, rename.
    public static func writeAtomically(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o644) throws {
        let dir = (path as String).split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let tmp = "\(dir.isEmpty ? "." : dir)/.\(path.split(separator: "/").last ?? "tmp").\(getpid()).\(UInt32.random(in: 0 ... .max)).tmp"
        let fd = try FileDescriptor.open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: mode)
        do {
            try fd.writeAll(bytes)
            _ = try valueOrErrno("fsync") { fsync(fd.raw) }
            fd.close()
            _ = try valueOrErrno("rename") { PathName.withCString(tmp) { t in PathName.withCString(path) { Glibc.rename(t, $0) } } }
        } catch {
            fd.close()
            PathName.withCString(tmp) { _ = unlink($0) }
            throw error
        }
    }

    /// `mkdir -p` with a mode for the folders it creates.
    public static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            let made = try valueOrErrno("mkdir \(PathName.display(current))", expecting: [EEXIST]) {
                PathName.withCString(current) { mkdir($0, mode) }
            }
            if case .failure = made {
                // A file (or a link to one) where a folder should be.
                try errnoUnless((try? status(current))?.isDirectory == true, "mkdir \(PathName.display(current))", ENOTDIR)
            }
        }
    }

    /// `rename(2)`.
    public static func rename(_ from: String, _ to: String) throws {
        _ = try valueOrErrno("rename") { PathName.withCString(from) { f in PathName.withCString(to) { Glibc.rename(f, $0) } } }
    }

    /// `chmod(2)`.
    public static func setMode(_ path: String, _ mode: mode_t) throws {
        _ = try valueOrErrno("chmod") { PathName.withCString(path) { Glibc.chmod($0, mode) } }
    }

    /// Sets a file's access and modification times (without following a final symlink).
    public static func setTimes(_ path: String, secondsSince1970 s: Double) throws {
        let t = timespec(tv_sec: Int(s.rounded(.down)), tv_nsec: Int((s - s.rounded(.down)) * 1e9))
        var times = [t, t]
        _ = try valueOrErrno("utimensat") { PathName.withCString(path) { utimensat(AT_FDCWD, $0, &times, AT_SYMLINK_NOFOLLOW) } }
    }

    /// Whether a path exists (without following a final symlink).
    public static func exists(_ path: String) -> Bool { lstatusIfExists(path) != nil }

    /// The entries of one folder (no `.`/`..`), with their `d_type`.
    public static func listDirectory(_ path: String) throws -> [DirectoryEntry] {
        try OpenDirectory(path).entries()
    }

    /// The real user id.
    public static var userID: UInt32 { getuid() }
}

/// An open folder: its entries, and the status of a name in it found relative to the folder
/// (`fstatat`), so a walk does not resolve every file's whole path again (a rescan of 100 000
/// files spent a third of its system time in path lookups).
public final class OpenDirectory {
    private let dir: OpaquePointer

    public init(_ path: String) throws {
        dir = try pointerOrErrno("opendir") { PathName.withCString(path) { opendir($0) } }
    }

    deinit { closedir(dir) }

    /// The status of `name` in this folder, not following a final symlink; nil when it is not
    /// there (or cannot be reached).
    public func lstatus(_ name: String) -> FileStatus? { lstatusOrDenied(name).status }

    /// `lstatus`, and whether it failed for permission (`EACCES`: a folder that may be listed
    /// but not entered, without its `x` bit) rather than because the entry went.
    public func lstatusOrDenied(_ name: String) -> (status: FileStatus?, denied: Bool) {
        var st = stat()
        if PathName.withCString(name, { fstatat(dirfd(dir), $0, &st, AT_SYMLINK_NOFOLLOW) }) == 0 { return (FileStatus(st), false) }
        return (nil, errno == EACCES)
    }

    /// The entries (no `.`/`..`), with their `d_type`; read once.
    public func entries() throws -> [DirectoryEntry] {
        var out: [DirectoryEntry] = []
        let dir = self.dir
        while let ent = try pointerOrEnd("readdir", { readdir(dir) }) {
            let name = withUnsafeBytes(of: ent.pointee.d_name) { raw in
                PathName.decode(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name == "." || name == ".." { continue }
            let type: DirectoryEntry.Kind
            switch Int32(ent.pointee.d_type) {
            case Int32(DT_DIR): type = .directory
            case Int32(DT_REG): type = .regular
            case Int32(DT_LNK): type = .symlink
            case Int32(DT_UNKNOWN): type = .unknown
            default: type = .other
            }
            out.append(DirectoryEntry(name: name, kind: type))
        }
        return out
    }
}

/// One entry of a folder listing.
public struct DirectoryEntry: Sendable, Equatable {
    public enum Kind: Sendable { case directory, regular, symlink, other, unknown }
    public var name: String
    public var kind: Kind
}

/// An owned file descriptor.
public final class FileDescriptor: @unchecked Sendable {
    public private(set) var raw: Int32

    public init(raw: Int32) { self.raw = raw }

    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws -> FileDescriptor {
        let fd = try valueOrErrno("open") { PathName.withCString(path) { Glibc.open($0, flags, mode) } }
        return FileDescriptor(raw: fd)
    }

    public func status() throws -> FileStatus {
        var st = stat()
        _ = try valueOrErrno("fstat") { fstat(raw, &st) }
        return FileStatus(st)
    }

    /// Reads to the end of the file or `limit` bytes, whichever comes first. `expected` bytes
    /// (the size `fstat` gave) are read straight into the result, never zeroed first; only a
    /// file that grew since goes on in chunks (the end is found by one more `read` returning 0,
    /// into a small buffer, not by growing — and so copying — the whole result).
    public func readAll(expected: Int, limit: Int) throws -> [UInt8] {
        let first = min(max(expected, 0), limit)
        var out = try [UInt8](unsafeUninitializedCapacity: first) { buf, initialized in
            while initialized < first {
                let n = try valueOrErrno("read") { Glibc.read(raw, buf.baseAddress! + initialized, first - initialized) }
                if n == 0 { return }
                initialized += n
            }
        }
        guard out.count == first else { return out }  // the end came first
        var chunk = [UInt8](repeating: 0, count: 16384)
        while out.count < limit {
            let want = min(chunk.count, limit - out.count)
            let n = try chunk.withUnsafeMutableBytes { b in try valueOrErrno("read") { Glibc.read(raw, b.baseAddress!, want) } }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return out
    }

    public func pread(offset: Int64, count: Int) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = try out.withUnsafeMutableBytes { (buf) throws -> Int in
                try valueOrErrno("pread") { Glibc.pread(raw, buf.baseAddress! + filled, count - filled, off_t(offset) + off_t(filled)) }
            }
            if n == 0 { break }
            filled += n
        }
        out.removeSubrange(filled...)
        return out
    }

    public func writeAll(_ bytes: [UInt8]) throws {
        var done = 0
        while done < bytes.count {
            let n = try bytes.withUnsafeBytes { (buf) throws -> Int in
                try valueOrErrno("write") { Glibc.write(raw, buf.baseAddress! + done, buf.count - done) }
            }
            done += n
        }
    }

    public func close() {
        if raw >= 0 { _ = Glibc.close(raw); raw = -1 }
    }

    deinit { close() }
}

/// Buffered writes to a file descriptor (stdout/stderr) that survive a closed pipe:
/// `write` reports failure instead of trapping like `FileHandle.write`.
public final class OutputBuffer: @unchecked Sendable {
    public let fd: Int32
    private var buffer: [UInt8] = []
    public private(set) var broken = false
    public let threshold: Int

    public init(fd: Int32, threshold: Int = 64 * 1024) {
        self.fd = fd
        self.threshold = threshold
        buffer.reserveCapacity(threshold)
    }

    /// Appends a line; flushes when the buffer is full. Returns false once the reader is gone.
    @discardableResult
    public func line(_ s: String) -> Bool {
        buffer.append(contentsOf: s.utf8)
        buffer.append(10)
        return buffer.count >= threshold ? flush() : !broken
    }

    /// Writes everything buffered. Returns false when the reader is gone (EPIPE) or on error.
    @discardableResult
    public func flush() -> Bool {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard !broken else { return false }
        var done = 0
        while done < buffer.count {
            // A reader gone (EPIPE) or a closed descriptor: the output is broken, not the program.
            let fd = self.fd
            let wrote = try? valueOrErrno("write", expecting: [EBADF]) {
                buffer.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            }
            guard case .success(let n)? = wrote else {
                broken = true
                return false
            }
            done += n
        }
        return true
    }
}
