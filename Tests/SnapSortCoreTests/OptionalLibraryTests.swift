import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Testing

/// Tesseract, zbar, libheif and FFmpeg (with the 180-odd libraries they pull in) are opened on
/// first use, not at start: the dynamic loader's own trace (`LD_DEBUG=files`) shows which a run
/// loaded. FFmpeg by its name without the major version (`libavformat.so.59` on Debian 12).
@Suite struct OptionalLibraryTests {
    static let optional = ["libtesseract.so.5", "libzbar.so.0", "libheif.so.1", "libavformat.so."]

    /// The optional libraries a run of `snapsort args…` loaded, by the loader's trace on stderr.
    static func loaded(_ args: [String]) throws -> (status: Int32, libraries: Set<String>) {
        let r = try SnapsortBinary.run(args, env: ["LD_DEBUG": "files"])
        let lines = r.stderr.split(separator: "\n").filter { $0.contains("file=") }
        return (r.status, Set(optional.filter { lib in lines.contains { $0.contains("file=\(lib)") } }))
    }

    /// Commands that read no text, code, HEIC or video (a status bar runs `snapsort status` every
    /// few seconds; the agent watching a library of photos) load none of them; a scan that meets a
    /// page, a code, a HEIC file and a video loads each.
    @Test func theyLoadOnlyWhenAFileNeedsThem() throws {
        let dir = TempDir()
        dir.write("Pictures/IMG_20240501_101010.jpg", Fixtures.jpeg(seed: 1))
        let db = dir.at("lib.sqlite3")
        for args in [
            ["--db", db, "scan", "--quiet", "--no-models", dir.at("Pictures")], ["--db", db, "report", "--jsonl"],
            ["--db", db, "groups", "--json"], ["--db", db, "status", "--json"],
        ] {
            let run = try Self.loaded(args)
            #expect(run.status == 0, "\(args)")
            #expect(run.libraries.isEmpty, "\(args): \(run.libraries)")
        }
        dir.write("Pictures/IMG_20240501_101500.jpg", Fixtures.jpeg(try OCRTests.page(), quality: 92))
        let code = try MetricsFinderPatternTests.withCode(
            try MetricsFinderPatternTests.photo("astronaut.jpg"), side: 150, degrees: 0, cx: 300, cy: 330)
        dir.write("Pictures/IMG_20240501_102000.jpg", Fixtures.jpeg(code, quality: 92))
        dir.write("Pictures/VID_20240501_103000.mp4", try VideoFixtures.bytes("tiny.mp4"))
        var expected: Set<String> = ["libtesseract.so.5", "libzbar.so.0", "libavformat.so."]
        if HEIF.canEncode {
            dir.write("Pictures/IMG_0001.HEIC", try HEIF.encode(Fixtures.scene(width: 320, height: 240, seed: 4), quality: 70))
            expected.insert("libheif.so.1")
        }
        let scan = try Self.loaded(["--db", db, "scan", "--quiet", "--no-models", dir.at("Pictures")])
        #expect(scan.status == 0)
        #expect(scan.libraries == expected)
    }
}
