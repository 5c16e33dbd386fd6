import Glibc

/// An exclusive advisory lock on a file (`flock(2)`), released when the process ends in any
/// way — kill -9 included — so a stale lock never blocks the next start.
public final class FileLock: @unchecked Sendable {
    public let path: String
    private let fd: FileDescriptor

    private init(path: String, fd: FileDescriptor) {
        self.path = path
        self.fd = fd
    }

    /// Takes the lock without waiting; nil when another process holds it.
    public static func tryLock(_ path: String) throws -> FileLock? {
        let fd = try FileDescriptor.open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode: 0o600)
        let taken = try valueOrErrno("flock \(path)", expecting: [EWOULDBLOCK]) { flock(fd.raw, LOCK_EX | LOCK_NB) }
        if case .failure = taken { return nil }
        return FileLock(path: path, fd: fd)
    }

    /// Takes the lock, waiting for as long as another process holds it.
    public static func lock(_ path: String) throws -> FileLock {
        let fd = try FileDescriptor.open(path, O_RDWR | O_CREAT | O_CLOEXEC, mode: 0o600)
        _ = try valueOrErrno("flock \(path)") { flock(fd.raw, LOCK_EX) }
        return FileLock(path: path, fd: fd)
    }

    /// Whether some process holds the lock at `path` (without creating the file).
    public static func isHeld(_ path: String) -> Bool {
        let raw = PathName.withCString(path) { Glibc.open($0, O_RDONLY | O_CLOEXEC) }
        guard raw >= 0 else { return false }
        defer { Glibc.close(raw) }
        if flock(raw, LOCK_SH | LOCK_NB) == 0 {
            _ = flock(raw, LOCK_UN)
            return false
        }
        return errno == EWOULDBLOCK
    }

    /// Replaces the lock file's content (what the holder wants others to know: the agent's
    /// status file). Readers use `contents`; the lock is on the descriptor, not the bytes.
    public func setContents(_ text: String) throws {
        _ = ftruncate(fd.raw, 0)
        let bytes = Array(text.utf8)
        let n = try valueOrErrno("write \(path)") { bytes.withUnsafeBytes { pwrite(fd.raw, $0.baseAddress, $0.count, 0) } }
        try errnoUnless(n == bytes.count, "write \(path)", EIO)
    }

    /// The content a holder wrote (`setContents`), nil when unreadable.
    public static func contents(_ path: String, limit: Int = 64 * 1024) -> String? {
        (try? FileSystem.readFile(path, limit: limit)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Releases the lock.
    public func unlock() {
        _ = flock(fd.raw, LOCK_UN)
        fd.close()
    }
}
