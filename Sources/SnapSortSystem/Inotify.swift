import Glibc

/// An inotify instance (see man 7 inotify): watches folders and reads their events.
public final class Inotify: @unchecked Sendable {
    /// The inotify descriptor, non-blocking, for `poll`.
    public let fd: Int32

    /// One event, decoded from `struct inotify_event`.
    public struct Event: Sendable, Equatable {
        public var wd: Int32
        public var mask: UInt32
        public var cookie: UInt32
        /// The entry's name inside the watched folder; empty for events about the folder itself.
        public var name: String

        public init(wd: Int32, mask: UInt32, cookie: UInt32, name: String) {
            self.wd = wd
            self.mask = mask
            self.cookie = cookie
            self.name = name
        }

        public func has(_ m: UInt32) -> Bool { mask & m != 0 }
        public var isDirectory: Bool { has(Inotify.isDir) }
    }

    // The event bits, as UInt32 (Glibc exposes them as Int32 macros). See man 7 inotify.
    public static let closeWrite = UInt32(IN_CLOSE_WRITE)
    public static let movedFrom = UInt32(IN_MOVED_FROM)
    public static let movedTo = UInt32(IN_MOVED_TO)
    public static let create = UInt32(IN_CREATE)
    public static let delete = UInt32(IN_DELETE)
    public static let deleteSelf = UInt32(IN_DELETE_SELF)
    public static let moveSelf = UInt32(IN_MOVE_SELF)
    public static let modify = UInt32(IN_MODIFY)
    public static let attrib = UInt32(IN_ATTRIB)
    public static let overflow = UInt32(IN_Q_OVERFLOW)
    public static let ignored = UInt32(IN_IGNORED)
    public static let unmount = UInt32(IN_UNMOUNT)
    public static let isDir = UInt32(IN_ISDIR)
    public static let onlyDir = UInt32(IN_ONLYDIR)
    public static let dontFollow = UInt32(IN_DONT_FOLLOW)
    public static let exclUnlink = UInt32(IN_EXCL_UNLINK)

    /// A new, non-blocking, close-on-exec instance.
    /// EMFILE, whose text ("Too many open files") points at `ulimit -n`, is most often the
    /// per-user count of inotify instances (`fs.inotify.max_user_instances`, 128 by default, taken
    /// by file managers, editors and sync clients): the error says so and how to raise it.
    public init() throws {
        let made = try valueOrErrno("inotify_init1", expecting: [EMFILE]) { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
        guard case .success(let r) = made else {
            let limit = Inotify.limit("max_user_instances").map(String.init) ?? "?"
            throw SystemError(
                .errno(EMFILE),
                "no inotify instance left: other programs hold this user's \(limit) (fs.inotify.max_user_instances); raise it with 'sudo sysctl fs.inotify.max_user_instances=1024' (or the open-file limit, ulimit -n, is reached)",
                operation: "inotify_init1")
        }
        fd = r
    }

    deinit { Glibc.close(fd) }

    /// Adds (or updates) a watch; returns the watch descriptor. `ENOSPC` means the per-user
    /// watch limit (`/proc/sys/fs/inotify/max_user_watches`) is reached.
    public func addWatch(_ path: String, mask: UInt32) throws -> Int32 {
        try valueOrErrno("inotify_add_watch") { PathName.withCString(path) { inotify_add_watch(fd, $0, mask) } }
    }

    /// Removes a watch; a watch the kernel already dropped (`EINVAL`) is not an error.
    public func removeWatch(_ wd: Int32) {
        _ = inotify_rm_watch(fd, wd)
    }

    /// Reads every queued event without blocking (an empty array when none are queued).
    public func read() throws -> [Event] {
        var out: [Event] = []
        // Big enough for many events; see man 7 inotify for the minimum (one event + NAME_MAX + 1).
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<inotify_event>.alignment)
        defer { buffer.deallocate() }
        while true {
            let fd = self.fd
            guard case .success(let n) = try valueOrErrno("read inotify", expecting: [EAGAIN, EWOULDBLOCK], { Glibc.read(fd, buffer, size) })
            else { return out }
            if n == 0 { return out }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= n {
                let p = buffer + offset
                let wd = p.load(fromByteOffset: 0, as: Int32.self)
                let mask = p.load(fromByteOffset: 4, as: UInt32.self)
                let cookie = p.load(fromByteOffset: 8, as: UInt32.self)
                let len = Int(p.load(fromByteOffset: 12, as: UInt32.self))
                var name = ""
                if len > 0 {
                    let bytes = UnsafeRawBufferPointer(start: p + header, count: len)
                    let end = bytes.firstIndex(of: 0) ?? len
                    name = PathName.decode(bytes[0..<end])
                }
                out.append(Event(wd: wd, mask: mask, cookie: cookie, name: name))
                offset += header + len
            }
        }
    }

    /// The per-user watch limit, from `/proc/sys/fs/inotify/max_user_watches`.
    public static func maxUserWatches() -> Int? { limit("max_user_watches") }

    /// One of the kernel's inotify limits (`/proc/sys/fs/inotify/NAME`), nil when unreadable.
    static func limit(_ name: String) -> Int? {
        guard let bytes = try? FileSystem.readFile("/proc/sys/fs/inotify/" + name, limit: 64) else { return nil }
        return Int(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: " \n"))
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
