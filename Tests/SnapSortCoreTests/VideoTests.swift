import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// The checked-in fixtures (see Tests/Fixtures/video/README.md).
enum VideoFixtures {
    static let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fixtures/video").standardized.path
    static func bytes(_ name: String) throws -> [UInt8] {
        try FileSystem.readFile(dir + "/" + name, limit: 1 << 20)
    }
}

@Suite struct VideoTests {
    struct Case: Sendable, CustomStringConvertible {
        var file: String, brand: String, duration: Double, codec: String
        var description: String { file }
    }

    @Test(arguments: [
        Case(file: "tiny.mp4", brand: "isom", duration: 2.0, codec: "avc1"),
        Case(file: "tiny.mov", brand: "qt  ", duration: 2.0, codec: "avc1"),
        Case(file: "tiny.m4v", brand: "M4V ", duration: 2.6, codec: "avc1"),
        Case(file: "tiny.3gp", brand: "3gp6", duration: 1.6, codec: "avc1"),
        Case(file: "tiny.mkv", brand: "matroska", duration: 2.0, codec: "V_MPEG4/ISO/AVC"),
        Case(file: "tiny.webm", brand: "webm", duration: 2.0, codec: "V_VP8"),
    ])
    func containersGiveExactDurationSizeAndBrand(_ c: Case) throws {
        let bytes = try VideoFixtures.bytes(c.file)
        let src = MemorySource(bytes)
        let info = try #require(c.file.hasSuffix(".mkv") || c.file.hasSuffix(".webm") ? EBML.parse(src) : BoxParser.parse(src))
        #expect(info.brand == c.brand)
        #expect(info.durationSeconds == c.duration)
        #expect(info.width == 64 && info.height == 48)
        #expect(info.videoCodec == c.codec)
        #expect(info.videoTracks == 1)
        #expect(info.warnings.isEmpty)
    }

    @Test func mp4CarriesCreationTimeEncoderAndHandler() throws {
        let info = try #require(BoxParser.parse(MemorySource(try VideoFixtures.bytes("tiny.mp4"))))
        #expect(info.creationTime == 1_714_558_830)  // 2024-05-01T10:20:30Z
        #expect(info.encoder?.hasPrefix("Lavf") == true)
        #expect(info.handlerNames == ["VideoHandler"])
    }

    @Test func quickTimeKeysGiveLocalCreationDateMakeAndModel() throws {
        let info = try #require(BoxParser.parse(MemorySource(try VideoFixtures.bytes("tiny.mov"))))
        #expect(info.creationDateText == "2024-05-01T12:20:30+0200")
        #expect(info.make == "Apple" && info.model == "iPhone 12" && info.encoder == "17.1")
        let t = try #require(VideoHandler.quickTimeDate(info.creationDateText!))
        #expect(t.text == "2024-05-01T12:20:30+02:00")
        #expect(t.timestamp == 1_714_558_830)
        #expect(t.source == .container)
    }

    @Test func aRotationMatrixSwapsTheDisplaySize() throws {
        var bytes = try VideoFixtures.bytes("tiny.mp4")
        // Patch the video track's tkhd matrix to 90° (a=0, b=1.0, c=-1.0, d=0).
        let tkhd = try #require(find(Array("tkhd".utf8), in: bytes))
        let matrix = tkhd + 4 + 4 + 20 + 8 + 8
        func put(_ v: Int32, at i: Int) { for k in 0..<4 { bytes[i + k] = UInt8(truncatingIfNeeded: UInt32(bitPattern: v) >> (24 - 8 * UInt32(k))) } }
        put(0, at: matrix); put(65536, at: matrix + 4); put(-65536, at: matrix + 12); put(0, at: matrix + 16)
        let info = try #require(BoxParser.parse(MemorySource(bytes)))
        #expect(info.rotation == 90)
        #expect(info.width == 48 && info.height == 64)
    }

    @Test(arguments: ["tiny.mp4", "tiny.mov", "tiny.mkv"])
    func truncatedAndCorruptVideosNeverCrashAndSayWhy(_ file: String) throws {
        let bytes = try VideoFixtures.bytes(file)
        for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 97)) {
            let src = MemorySource(Array(bytes.prefix(cut)))
            _ = file.hasSuffix(".mkv") ? EBML.parse(src) : BoxParser.parse(src)
        }
        // Sizes that lie: every 32-bit word set to 0xFFFFFFFF or 1 in turn.
        var rng = SplitMix(seed: 7)
        for _ in 0..<300 {
            var b = bytes
            let i = Int(rng.next() % UInt64(b.count - 4))
            let v: UInt8 = rng.next() % 2 == 0 ? 0xFF : 0x01
            for k in 0..<4 { b[i + k] = k == 3 ? v : (v == 0xFF ? 0xFF : 0) }
            _ = file.hasSuffix(".mkv") ? EBML.parse(MemorySource(b)) : BoxParser.parse(MemorySource(b))
        }
        // The analysis of a file cut short says why it is not a good video: a reason whose code
        // implies the status it got, and words for the person.
        let ext = (file as NSString).pathExtension
        var refused = 0
        for cut in stride(from: 0, to: bytes.count, by: max(1, bytes.count / 9)) {
            let r = try #require(try Analyzer().analyzeBytes(Array(bytes.prefix(cut)), name: "VID_\(cut).\(ext)"))
            #expect(r.kind == .video || cut == 0, "\(cut): \(r.kind)")
            guard r.status != .ok else { continue }
            refused += 1
            let reason = try #require(r.reason, "\(file) cut at \(cut): \(r.status) without a reason")
            #expect(reason.status == r.status && !reason.text.isEmpty, "\(file) cut at \(cut): \(r.status), \(reason)")
        }
        // Cut at 0 (empty) and at a tenth (no header yet) at least: something was refused, and said why.
        #expect(refused >= 2, "\(file): \(refused) cuts refused")
    }

    @Test func aMP4WithoutItsMoovIsDamagedNotAnError() throws {
        let t = try TestLibrary()
        let bytes = try VideoFixtures.bytes("tiny.mp4")
        let moov = try #require(find(Array("moov".utf8), in: bytes)) - 4
        let mdat = try #require(find(Array("mdat".utf8), in: bytes)) - 4
        // Keep what comes before moov (ffmpeg writes moov last): the file was cut short.
        t.dir.write("Pictures/VID_cut.mp4", Array(bytes.prefix(max(moov, mdat + 100))))
        try t.scan()
        let item = try #require(try t.library.items().first)
        #expect(item.kind == .video)
        #expect(item.status == .damaged)
        #expect(item.reason?.code == .truncated)
    }

    @Test func scannedVideosCarryDurationSizeCaptureTimeAndHashes() throws {
        let t = try TestLibrary()
        for f in ["tiny.mp4", "tiny.mov", "tiny.m4v", "tiny.3gp", "tiny.mkv", "tiny.webm"] {
            t.dir.write("Pictures/DCIM/" + f, try VideoFixtures.bytes(f))
        }
        let s = try t.scan()
        #expect(s.added == 6 && s.problems == 0)
        let items = try t.library.items()
        for item in items {
            #expect(item.kind == .video, "\(item.name)")
            #expect(item.status == .ok, "\(item.name) \(String(describing: item.reason))")
            #expect(item.durationSeconds != nil && item.width == 64 && item.height == 48, "\(item.name)")
            #expect(item.contentHash?.count == 16)
        }
        let mov = try #require(items.first { $0.name == "tiny.mov" })
        #expect(mov.takenAt == "2024-05-01T12:20:30+02:00" && mov.takenSource == "container")
        #expect(mov.make == "Apple" && mov.model == "iPhone 12")
        let mp4 = try #require(items.first { $0.name == "tiny.mp4" })
        #expect(mp4.takenSource == "container" && mp4.takenTimestamp == 1_714_558_830)
        let details = try #require(try t.library.db.row("SELECT details FROM files WHERE id=?", mp4.id)?.string(0))
        #expect(details.contains("\"brand\":\"isom\"") && details.contains("\"handler_names\":[\"VideoHandler\"]"))
        // Report rows of videos carry duration_s.
        let row = Report.json(mp4).serialized()
        #expect(row.contains("\"duration_s\":2"))
    }

    /// Migration 78 (the stored poster, analyzer 8): a library analyzed by version 7 has its
    /// videos read again at the next scan, and its photos kept as they were analyzed.
    @Test func migration78ReadsVideosAgainAndLeavesPhotosAsAnalyzed() throws {
        let lib = try TestLibrary()
        _ = lib.dir.write("Pictures/IMG_0001.jpg", Fixtures.jpeg(seed: 3, width: 64, height: 48, dateTimeOriginal: "2024:05:04 10:00:00"))
        try FileSystem.writeAtomically(lib.root + "/clip.mp4", try VideoFixtures.bytes("tiny.mp4"))
        try lib.scan()
        // The library as version 7 left it: no poster column, every row analyzed by 7.
        try lib.library.db.run("UPDATE files SET analyzer_version = 7, analyzed_at = 'then'")
        try lib.library.db.run("ALTER TABLE files DROP COLUMN video_poster")
        try lib.library.db.run("DELETE FROM schema_migrations WHERE version IN (78, 84, 94)")
        let again = try Library(path: lib.dbPath)
        #expect(again.schemaVersion == Schema.currentVersion)
        func row(_ kind: String) throws -> (version: Int64?, analyzed: String?, poster: Bool) {
            let r = try #require(try again.db.row("SELECT analyzer_version, analyzed_at, video_poster IS NOT NULL FROM files WHERE kind = ?", kind))
            return (r.int(0), r.string(1), r.int(2) == 1)
        }
        #expect(try row("photo").version == Int64(Analyzer.version))
        #expect(try row("video").version == 7)
        try lib.scan()
        #expect(try row("photo").analyzed == "then", "the photo is not read again")
        let video = try row("video")
        #expect(video.analyzed != "then" && video.version == Int64(Analyzer.version) && video.poster)
    }

    /// Migration 84 (videos sampled again, analyzer 9): a library analyzed by version 8 has its
    /// videos read again at the next scan, and its photos kept as they were analyzed.
    @Test func migration84ReadsVideosAgainAndLeavesPhotosAsAnalyzed() throws {
        let lib = try TestLibrary()
        _ = lib.dir.write("Pictures/IMG_0001.jpg", Fixtures.jpeg(seed: 3, width: 64, height: 48, dateTimeOriginal: "2024:05:04 10:00:00"))
        try FileSystem.writeAtomically(lib.root + "/clip.mp4", try VideoFixtures.bytes("tiny.mp4"))
        try lib.scan()
        // The library as version 8 left it: every row analyzed by 8, migration 84 not yet run.
        try lib.library.db.run("UPDATE files SET analyzer_version = 8, analyzed_at = 'then'")
        try lib.library.db.run("DELETE FROM schema_migrations WHERE version IN (84, 94)")
        let again = try Library(path: lib.dbPath)
        #expect(again.schemaVersion == Schema.currentVersion)
        func row(_ kind: String) throws -> (version: Int64?, analyzed: String?) {
            let r = try #require(try again.db.row("SELECT analyzer_version, analyzed_at FROM files WHERE kind = ?", kind))
            return (r.int(0), r.string(1))
        }
        #expect(try row("photo").version == Int64(Analyzer.version))
        #expect(try row("video").version == 8)
        try lib.scan()
        #expect(try row("photo").analyzed == "then", "the photo is not read again")
        let video = try row("video")
        #expect(video.analyzed != "then" && video.version == Int64(Analyzer.version))
    }

    @Test func aMovedVideoKeepsItsRowWithoutReanalysis() throws {
        let t = try TestLibrary()
        let a = t.dir.write("Pictures/a/VID_1.mp4", try VideoFixtures.bytes("tiny.mp4"))
        try t.scan()
        let before = try #require(try t.library.item(path: a))
        t.dir.folder("Pictures/b")
        try FileSystem.rename(a, t.dir.at("Pictures/b/VID_1.mp4"))
        let s = try t.scan()
        #expect(s.moved == 1 && s.analyzed == 0)
        #expect(try t.library.item(path: t.dir.at("Pictures/b/VID_1.mp4"))?.id == before.id)
    }

    @Test func streamingContentHashEqualsTheInMemoryOne() throws {
        var rng = SplitMix(seed: 3)
        for n in [0, 1, 31, 32, 33, 1000, (1 << 20) + 77] {
            let bytes = (0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            var s = ContentHash.Streaming()
            var i = 0
            var step = 1
            while i < n {  // uneven pieces
                let j = min(n, i + step)
                bytes[i..<j].withUnsafeBytes { s.update($0) }
                i = j
                step = step * 3 + 1
            }
            #expect(s.digest() == ContentHash.content(bytes), "n=\(n)")
            let d = TempDir()
            let p = d.write("f.bin", bytes)
            #expect(try Analyzer.contentHash(path: p) == ContentHash.content(bytes))
        }
    }
}

func find(_ needle: [UInt8], in hay: [UInt8]) -> Int? {
    guard hay.count >= needle.count else { return nil }
    for i in 0...(hay.count - needle.count) where hay[i] == needle[0] && Array(hay[i..<i + needle.count]) == needle { return i }
    return nil
}
