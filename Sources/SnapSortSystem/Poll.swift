import Glibc

/// `poll(2)` over a few descriptors: the agent's only way to wait, so an idle agent sleeps in
/// the kernel until an event, a due timer or the watchdog.
public enum Poll {
    /// Waits until one of `fds` is readable or `timeoutMs` passes (-1: forever).
    /// Returns the readable descriptors (empty on timeout). `EINTR` returns early and empty.
    public static func readable(_ fds: [Int32], timeoutMs: Int32) throws -> [Int32] {
        var set = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        guard try wait(&set, timeoutMs: timeoutMs) else { return [] }
        return set.filter { $0.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 }.map(\.fd)
    }

    /// `readable`, also waiting for a priority event on `priority` (a `MountTable`'s
    /// descriptor, which is always readable and reports a change as `POLLPRI`; see proc(5)).
    /// Those are returned when `POLLPRI` or `POLLERR` is set.
    public static func readable(_ fds: [Int32], priority: [Int32], timeoutMs: Int32) throws -> [Int32] {
        guard !priority.isEmpty else { return try readable(fds, timeoutMs: timeoutMs) }
        var set =
            fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) } + priority.map { pollfd(fd: $0, events: Int16(POLLPRI), revents: 0) }
        guard try wait(&set, timeoutMs: timeoutMs) else { return [] }
        let plain = set[..<fds.count].filter { $0.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 }.map(\.fd)
        return plain + set[fds.count...].filter { $0.revents & Int16(POLLPRI | POLLERR) != 0 }.map(\.fd)
    }

    /// `readable`, also watching `output` (a pipe or terminal we write to) for its reader going
    /// away: `hungUp` when it did (the kernel reports `POLLERR`/`POLLHUP` without being asked).
    public static func readable(_ fds: [Int32], orHangUpOf output: Int32, timeoutMs: Int32) throws -> (readable: [Int32], hungUp: Bool) {
        var set = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) } + [pollfd(fd: output, events: 0, revents: 0)]
        guard try wait(&set, timeoutMs: timeoutMs) else { return ([], false) }
        let hungUp = set.last!.revents & Int16(POLLHUP | POLLERR) != 0
        return (set.dropLast().filter { $0.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 }.map(\.fd), hungUp)
    }

    /// `poll(2)` over `set`; false when a signal interrupted it (`EINTR` returns early: the
    /// caller's loop looks at what is due, never waits the whole timeout again).
    private static func wait(_ set: inout [pollfd], timeoutMs: Int32) throws -> Bool {
        let r = try valueOrErrno("poll", expecting: [EINTR]) {
            set.withUnsafeMutableBufferPointer { Glibc.poll($0.baseAddress, nfds_t($0.count), timeoutMs) }
        }
        if case .failure = r { return false }
        return true
    }
}
