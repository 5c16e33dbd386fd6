import Foundation
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// The stored metrics are read by a small parser of their flat object (every regroup reads the
/// whole library's); it must read exactly what `JSONDecoder` reads, and leave anything else to it.
@Suite struct MetricsDecodeTests {
    static func viaJSONDecoder(_ text: String) -> Metrics? {
        let d = JSONDecoder()
        d.keyDecodingStrategy = .convertFromSnakeCase
        return try? d.decode(Metrics.self, from: Data(text.utf8))
    }

    @Test(arguments: GroupsRulesTests.realPhotos)
    func theFlatReaderReadsWhatJSONDecoderReads(_ name: String) throws {
        let text = try GroupsRulesTests.realMetrics(name).encoded()
        let flat = try #require(Metrics.decodeFlat(text))
        #expect(flat == Self.viaJSONDecoder(text))
        #expect(Metrics.decode(text) == flat)
    }

    /// Metrics stored by analyzer version 5 (before the noise, the fine grid and the directions)
    /// still read, the new measures 0 (the rules then leave them out) until a scan measures the
    /// file again.
    @Test func metricsOfAnalyzerVersion5StillRead() throws {
        let text = try GroupsRulesTests.realMetrics("coffee.jpg").encoded()
        let cut = try #require(text.range(of: ",\"noise\":"))
        var expected = try #require(Metrics.decode(text))
        #expect(expected.noise > 0 && expected.lapFineMax > 0 && expected.dir0 > 0)
        (expected.noise, expected.lapFineMax, expected.dir0, expected.dir45, expected.dir90, expected.dir135) = (0, 0, 0, 0, 0, 0)
        (expected.channelBrightFraction, expected.channelClippedFraction) = (0, 0)
        #expect(Metrics.decode(String(text[..<cut.lowerBound]) + "}") == expected)
    }

    /// Metrics stored by analyzer version 9 (before the channels' shares) still read, those
    /// shares 0 (the bright tone scale then reads the luma alone).
    @Test func metricsOfAnalyzerVersion9StillRead() throws {
        let text = try GroupsRulesTests.realMetrics("kite.jpg") { b in b = GroupsRulesTests.exposed(b, stops: 3) }.encoded()
        let cut = try #require(text.range(of: ",\"channel_bright_fraction\":"))
        var expected = try #require(Metrics.decode(text))
        #expect(expected.channelClippedFraction > 0.5 && expected.dir0 > 0)
        (expected.channelBrightFraction, expected.channelClippedFraction) = (0, 0)
        let old = String(text[..<cut.lowerBound]) + "}"
        #expect(Metrics.decodeFlat(old) == expected)
        #expect(Metrics.decode(old) == expected)
    }

    /// Migration 94 (the channels' shares, analyzer 10): of a library analyzed by version 9,
    /// only the photos whose median is bright — where the shares count — are read again at the
    /// next scan; the blue sky pushed three stops then is an Oops Shot, the darker photo is
    /// kept as it was analyzed. What the models found of a photo read again goes over to its
    /// new analysis (the same bytes, the same pixels: `Analyzer.samePixelsSince`), not that of
    /// a photo whose bytes changed meanwhile.
    @Test func migration94ReadsOnlyBrightPhotosAgain() throws {
        let t = try TestLibrary()
        let kite = try GroupsRulesTests.realPhoto("kite.jpg")
        t.dir.write("Pictures/IMG_0001.jpg", Fixtures.jpeg(GroupsRulesTests.exposed(kite, stops: 3), quality: 92))
        t.dir.write("Pictures/IMG_0002.jpg", Fixtures.jpeg(GroupsRulesTests.exposed(kite, stops: -1), quality: 92))
        t.dir.write("Pictures/IMG_0003.jpg", Fixtures.jpeg(GroupsRulesTests.exposed(kite, stops: 3), quality: 80))
        try t.scan()
        // As version 9 left it: no channels' shares, every row analyzed by 9, 94 not yet run;
        // the models had looked at every photo.
        try t.library.db.run(
            """
            UPDATE files SET analyzer_version = 9, analyzed_at = 'then',
                metrics = json_remove(metrics, '$.channel_bright_fraction', '$.channel_clipped_fraction')
            """)
        try t.library.db.run(
            "INSERT INTO vision(file_id, version, analyzed_at, status, faces, people_faces) SELECT id, 'test', 'then', 'ok', 0, 0 FROM files")
        t.dir.write("Pictures/IMG_0003.jpg", Fixtures.jpeg(GroupsRulesTests.exposed(kite, stops: 3), quality: 70))
        try t.library.db.run("DELETE FROM schema_migrations WHERE version = 94")
        try Grouper(library: t.library).regroupAll()
        #expect(try t.library.groupMembers(.oops).isEmpty, "by its luma alone the pushed sky is no Oops Shot")
        let again = try Library(path: t.dbPath)
        func row(_ name: String) throws -> (version: Int64?, analyzed: String?) {
            let r = try #require(try again.db.row("SELECT analyzer_version, analyzed_at FROM files WHERE path LIKE ?", "%" + name))
            return (r.int(0), r.string(1))
        }
        #expect(try row("IMG_0001.jpg").version == 9, "the bright photo waits to be read again")
        #expect(try row("IMG_0002.jpg").version == Int64(Analyzer.version))
        _ = try LibraryScanner(library: again, workers: 1).scan([t.root])
        #expect(try row("IMG_0001.jpg").analyzed != "then")
        #expect(try row("IMG_0002.jpg").analyzed == "then", "the darker photo is not read again")
        try Grouper(library: again).regroupAll()
        #expect(try again.groupMembers(.oops).map(\.item.path).contains { $0.hasSuffix("IMG_0001.jpg") })
        func modelsHold(_ name: String) throws -> Bool {
            try again.db.scalar(
                "SELECT count(*) FROM vision v JOIN files f ON f.id = v.file_id WHERE f.path LIKE ? AND v.analyzed_at IS f.analyzed_at", "%" + name)
                == 1
        }
        #expect(try modelsHold("IMG_0001.jpg"), "the same bytes: the models' results go over")
        #expect(try modelsHold("IMG_0002.jpg"))
        #expect(try !modelsHold("IMG_0003.jpg"), "new bytes: the models look again")
    }

    @Test func otherTextIsLeftToJSONDecoder() throws {
        let text = try GroupsRulesTests.realMetrics("coffee.jpg").encoded()
        // Reordered keys with spaces: not the flat form, still JSON.
        let spaced = text.replacingOccurrences(of: ",", with: ", ")
        #expect(Metrics.decodeFlat(spaced) == nil || Metrics.decodeFlat(spaced) == Self.viaJSONDecoder(text))
        #expect(Metrics.decode(spaced) == Self.viaJSONDecoder(text))
        // A missing key, a string value, truncation: not metrics at all.
        for bad in [
            text.replacingOccurrences(of: "\"p50\":", with: "\"q50\":"),
            text.replacingOccurrences(of: "\"decode_scale\":8", with: "\"decode_scale\":\"8\""),
            String(text.dropLast(5)), "", "null", "{}",
        ] {
            #expect(Metrics.decodeFlat(bad) == nil, "\(bad)")
            #expect(Metrics.decode(bad) == nil, "\(bad)")
        }
    }
}
