import Foundation
import Glibc
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortAgent

/// Removable roots on real mounts: a root that is itself a mount point (an SD card, a USB disk,
/// a NAS share) unmounted and mounted again while the agent runs.
@Suite(.serialized) struct AgentMountTests {
    /// An agent (not started) whose root `Pictures` is `card` put in, holding `a.jpg`; `otherRoot`:
    /// a second root, `Other`, beside it. Offline roots are looked for hourly: the mount table
    /// alone brings one back. `mounted`: whether the card went in.
    private static func agent(on card: Card, photo: [UInt8], otherRoot: Bool = false) throws -> (h: AgentHarness, mounted: Bool) {
        var mounted = false
        let h = try AgentHarness(
            setup: { dir in
                mounted = (try? card.insert(at: dir.folder("Pictures"))) != nil
                dir.write("Pictures/a.jpg", photo)
                if otherRoot { dir.folder("Other") }
            },
            tweak: { o in
                if otherRoot { o.roots = [o.env.home + "/Pictures", o.env.home + "/Other"] }
                o.offlineCheckInterval = 3600
            })
        return (h, mounted)
    }

    /// A root that is a mount point, unmounted: offline (named in the status file, its rows
    /// kept), and the bare folder it was mounted on is not watched (a photo put there never
    /// comes in). Mounted again, with a new photo: watched and reconciled without a restart or a
    /// SIGHUP, by the mount table's event alone (the periodic look for offline roots is an hour
    /// away). `bind`: the disk is a bind mount of a tmpfs that stays mounted elsewhere, so its
    /// files are there again (and keep their rows) and its unmount sends no `IN_UNMOUNT`; else a
    /// fresh tmpfs each time (a card wiped elsewhere: its old photo is gone).
    @Test(.enabled(if: Tmpfs.canMount, "mounting a tmpfs needs root (CAP_SYS_ADMIN)"), arguments: [false, true])
    func aRootThatIsAMountPointIsOfflineWhileUnmountedAndComesBackWhenMounted(bind: Bool) throws {
        let card = try Card(bind: bind)
        defer { card.remove() }
        let (h, inserted) = try Self.agent(on: card, photo: photo(41), otherRoot: true)
        var mounted = inserted
        defer { if mounted { try? Tmpfs.unmount(h.root) } }
        #expect(mounted)
        h.start()
        defer { h.stop() }
        let lib = try h.reader()
        func offline() -> [String]? { h.status()?["agent"]?["offline_roots"]?.arrayValue?.compactMap(\.stringValue) }
        #expect(try waitUntil { try h.live(lib)["\(h.root)/a.jpg"]?.status == "ok" })
        let id = try h.live(lib)["\(h.root)/a.jpg"]?.id

        try Tmpfs.unmount(h.root)
        mounted = false
        #expect(waitUntil { offline() == [h.root] }, "\(h.logs.messages)")
        // A photo in the bare mount point, then one in the other root: events come in order,
        // so once the second is in, the first was seen (if its folder were watched).
        h.dir.write("Pictures/bare.jpg", photo(42))
        h.dir.write("Other/marker.jpg", photo(43))
        #expect(try waitUntil { try h.live(lib)["\(h.dir.path)/Other/marker.jpg"]?.status == "ok" })
        #expect(h.waitIdle())
        #expect(try h.live(lib)["\(h.root)/a.jpg"]?.id == id, "\(h.logs.messages)")
        #expect(try lib.db.scalar("SELECT count(*) FROM files WHERE path LIKE '%bare.jpg'") == 0)
        #expect(h.status()?["agent"]?["state"]?.stringValue == "watching")

        try card.insert(at: h.root)
        mounted = true
        h.dir.write("Pictures/b.jpg", photo(44))
        #expect(try waitUntil { try h.live(lib)["\(h.root)/b.jpg"]?.status == "ok" }, "\(h.logs.messages)")
        #expect(waitUntil { offline() == [] })
        #expect(h.waitIdle())
        // Watched again: a photo written now arrives by its own event.
        h.dir.write("Pictures/c.jpg", photo(45))
        #expect(try waitUntil { try h.live(lib)["\(h.root)/c.jpg"]?.status == "ok" }, "\(h.logs.messages)")
        let expected = ((bind ? ["a", "b", "c"] : ["b", "c"]).map { "\(h.root)/\($0).jpg" } + ["\(h.dir.path)/Other/marker.jpg"]).sorted()
        #expect(try waitUntil { try h.live(lib).keys.sorted() == expected }, "\((try? h.live(lib).keys.sorted()) ?? [])")
        if bind { #expect(try h.live(lib)["\(h.root)/a.jpg"]?.id == id) }
        #expect(try lib.db.scalar("SELECT count(*) FROM files WHERE path LIKE '%bare.jpg'") == 0)
    }

    /// The agent started while the disk is out: the root is the bare mount point (empty, on
    /// another device than its rows were). It is offline, not watched as that folder, and comes
    /// in when the disk is mounted.
    @Test(.enabled(if: Tmpfs.canMount, "mounting a tmpfs needs root (CAP_SYS_ADMIN)"))
    func aRootWhoseDiskIsOutAtStartIsOfflineUntilMounted() throws {
        let card = TempDir("snapsort-card")
        try Tmpfs.mount(at: card.folder("disk"))
        defer { try? Tmpfs.unmount(card.path + "/disk") }
        var h: AgentHarness? = try AgentHarness(
            setup: { dir in
                try? Tmpfs.bind(card.path + "/disk", at: dir.folder("Pictures"))
                dir.write("Pictures/a.jpg", photo(51))
            }, tweak: { $0.offlineCheckInterval = 3600 })
        let dir = h!.dir
        let root = h!.root
        h!.start()
        let lib = try h!.reader()
        #expect(try waitUntil { try h!.live(lib)["\(root)/a.jpg"]?.status == "ok" })
        #expect(h!.stop())
        h = nil
        try Tmpfs.unmount(root)
        var mounted = false

        let again = try AgentHarness(reuse: dir, tweak: { $0.offlineCheckInterval = 3600 })
        defer { if mounted { try? Tmpfs.unmount(root) } }
        again.start()
        defer { again.stop() }
        func offline() -> [String]? { again.status()?["agent"]?["offline_roots"]?.arrayValue?.compactMap(\.stringValue) }
        #expect(waitUntil { offline() == [root] }, "\(again.logs.messages)")
        #expect(again.waitIdle())
        #expect(try again.live(lib)["\(root)/a.jpg"]?.status == "ok")
        try Tmpfs.bind(card.path + "/disk", at: root)
        mounted = true
        card.write("disk/b.jpg", photo(52))
        #expect(try waitUntil { try again.live(lib)["\(root)/b.jpg"]?.status == "ok" }, "\(again.logs.messages)")
        #expect(waitUntil { offline() == [] })
        #expect(try again.live(lib)["\(root)/a.jpg"]?.status == "ok")
    }

    /// The disk taken out and put back before the agent looked (here: while its loop had not
    /// started): its path leads to a mount of its own again, not to the bare mount point, so it
    /// is watched and reconciled as it is now, never offline. The kernel reuses mount ids and
    /// device numbers: the same disk, or a fresh tmpfs, may look unchanged but for its
    /// watches, which the kernel dropped (`bind` false).
    @Test(.enabled(if: Tmpfs.canMount, "mounting a tmpfs needs root (CAP_SYS_ADMIN)"), arguments: [false, true])
    func aDiskPutBackBeforeTheAgentLookedIsWatchedAsItIsNow(bind: Bool) throws {
        let card = try Card(bind: bind)
        defer { card.remove() }
        let (h, mounted) = try Self.agent(on: card, photo: photo(61))
        defer { if mounted { try? Tmpfs.unmount(h.root) } }
        #expect(mounted)
        try Tmpfs.unmount(h.root)
        try card.insert(at: h.root)
        h.dir.write("Pictures/b.jpg", photo(62))
        h.start()
        defer { h.stop() }
        let lib = try h.reader()
        #expect(try waitUntil { try h.live(lib)["\(h.root)/b.jpg"]?.status == "ok" }, "\(h.logs.messages)")
        #expect(h.waitIdle())
        #expect(h.status()?["agent"]?["offline_roots"]?.arrayValue?.isEmpty == true)
        // Watched on the disk, not on the bare folder under it: a photo written now arrives.
        h.dir.write("Pictures/c.jpg", photo(63))
        #expect(try waitUntil { try h.live(lib)["\(h.root)/c.jpg"]?.status == "ok" }, "\(h.logs.messages)")
        let expected = (bind ? ["a", "b", "c"] : ["b", "c"]).map { "\(h.root)/\($0).jpg" }
        #expect(try waitUntil { try h.live(lib).keys.sorted() == expected }, "\(h.logs.messages)")
    }
}

/// A removable disk for a root: a fresh tmpfs each time it is put in, or (`bind`) a bind mount
/// of a tmpfs that stays mounted elsewhere, so its files are there again each time.
private struct Card {
    let bind: Bool
    let dir = TempDir("snapsort-card")

    init(bind: Bool) throws {
        self.bind = bind
        if bind { try Tmpfs.mount(at: dir.folder("disk")) }
    }

    /// Puts the disk in: mounted at `root`.
    func insert(at root: String) throws {
        if bind { try Tmpfs.bind(dir.path + "/disk", at: root) } else { try Tmpfs.mount(at: root) }
    }

    /// The tmpfs kept mounted elsewhere, unmounted (the test's end).
    func remove() { if bind { try? Tmpfs.unmount(dir.path + "/disk") } }
}
