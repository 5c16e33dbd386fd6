import Glibc
import SnapSortSystem
import SnapSortTestSupport
import Testing

/// `MountTable` on the real `/proc/self/mountinfo`, with real tmpfs mounts.
@Suite(.serialized) struct MountTableTests {
    /// The table is always readable: polled for `POLLPRI` alone, an unchanged table does not
    /// wake the loop (polled for `POLLIN`, the agent would spin).
    @Test func anUnchangedTableIsNoEvent() throws {
        let table = try MountTable()
        #expect(!table.entries.isEmpty)
        #expect(table.mount(containing: "/") != nil)
        #expect(try Poll.readable([], priority: [table.fd], timeoutMs: 0).isEmpty)
        #expect(try !table.reload())
    }

    /// A tmpfs mounted and unmounted: each is one `POLLPRI` event, after which the table read
    /// again has (and then no longer has) the mount point, and the event is not reported twice.
    @Test(.enabled(if: Tmpfs.canMount, "mounting a tmpfs needs root (CAP_SYS_ADMIN)"))
    func aMountAndAnUnmountAreEvents() throws {
        let dir = TempDir("snapsort-mounts")
        let point = dir.folder("card")
        let table = try MountTable()
        #expect(!table.isMountPoint(point))
        try Tmpfs.mount(at: point)
        var mounted = true
        defer { if mounted { try? Tmpfs.unmount(point) } }
        #expect(try Poll.readable([], priority: [table.fd], timeoutMs: 10_000) == [table.fd])
        #expect(try table.reload())
        #expect(table.isMountPoint(point))
        #expect(table.mount(containing: point + "/DCIM")?.fileSystemType == "tmpfs")
        #expect(try Poll.readable([], priority: [table.fd], timeoutMs: 0).isEmpty)
        try Tmpfs.unmount(point)
        mounted = false
        #expect(try Poll.readable([], priority: [table.fd], timeoutMs: 10_000) == [table.fd])
        #expect(try table.reload())
        #expect(!table.isMountPoint(point))
    }
}
