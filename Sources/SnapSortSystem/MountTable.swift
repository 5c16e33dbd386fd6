import Glibc

/// `/proc/self/mountinfo` held open, so that a mount or an unmount in this process's mount
/// namespace is an event for `poll`.
///
/// See proc(5), /proc/pid/mountinfo: the file is pollable; after a change `poll` marks it with
/// `POLLPRI` (and `POLLERR`). It is always readable, so it is polled for `POLLPRI` alone
/// (`Poll.readable(_:priority:timeoutMs:)`), and the table is read again from its start on each
/// event. The kernel clears the event in the `poll` that reports it (`mounts_poll` in
/// fs/proc_namespace.c), so a change made while the table is read is reported by the next one.
public final class MountTable: @unchecked Sendable {
    private let file: FileDescriptor
    /// The table as last read (`reload`).
    public private(set) var entries: [MountInfo] = []

    /// Opens and reads the table. `path` is for tests; the agent uses its own namespace's table.
    public init(path: String = "/proc/self/mountinfo") throws {
        file = try FileDescriptor.open(path, O_RDONLY | O_CLOEXEC)
        try reload()
    }

    /// The descriptor to poll for `POLLPRI`.
    public var fd: Int32 { file.raw }

    /// Reads the table again from its start. Returns whether it differs from the last read.
    @discardableResult
    public func reload() throws -> Bool {
        _ = try valueOrErrno("lseek") { lseek(file.raw, 0, SEEK_SET) }
        // A seq_file: its size is 0 to fstat, so read until the end (16 MB: some 100 000 mounts).
        let bytes = try file.readAll(expected: 0, limit: 16 << 20)
        let table = Mounts.parse(String(decoding: bytes, as: UTF8.self))
        defer { entries = table }
        return table != entries
    }

    /// The mount holding `path` in the table as last read (see `Mounts.mount(containing:in:)`).
    public func mount(containing path: String) -> MountInfo? { Mounts.mount(containing: path, in: entries) }

    /// Whether `path` is itself a mount point in the table as last read.
    public func isMountPoint(_ path: String) -> Bool { entries.contains { $0.mountPoint == path } }
}
