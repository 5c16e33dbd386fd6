import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Testing

/// `snapsort scan` on a library whose disk fills up (issue 40 item 2): it said "nothing was
/// changed" although the batches it had committed stay; it says what it kept.
@Suite struct ScanCommandTests {
    @Test(.enabled(if: Tmpfs.canMount, "mounting needs root"))
    func aDiskFullScanSaysWhatItKept() throws {
        let f = CLIFolder()
        for i in 0..<400 { f.dir.write("Pictures/IMG_\(i).jpg", Fixtures.jpeg(seed: UInt64(i), width: 96, height: 72)) }
        let disk = f.dir.folder("disk")
        try Tmpfs.mount(at: disk)
        defer { try? Tmpfs.unmount(disk) }
        let db = disk + "/lib.sqlite3"
        func run(_ args: [String]) throws -> SnapsortBinary.Result { try InProcess.run(["--db", db] + args, env: f.env) }
        #expect(try run(["scan", "--quiet", "--no-models", f.dir.folder("empty")]).status == 0)
        // All but ~1 MB of the 16 MB taken: the first batches fit, the rest do not.
        let used = try FileSystem.status(db).size
        let filler = [UInt8](repeating: 7, count: 16 * 1024 * 1024 - Int(used) - 1024 * 1024)
        try? FileSystem.writeAtomically(disk + "/filler", filler)
        let r = try run(["scan", "--quiet", "--no-models", f.dir.at("Pictures")])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(!r.stderr.contains("nothing was changed"), "\(r.stderr)")
        let counts = try Library(path: db, readOnly: true).itemCounts()
        #expect(counts.total > 0 && counts.total < 400, "\(counts)")
        #expect(
            r.stderr.contains("is full; the scan stopped and kept what it had recorded (\(counts.total) new items"), "\(counts): \(r.stderr)")
    }
}
