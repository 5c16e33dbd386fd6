import Foundation
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
        #expect(Metrics.decode(String(text[..<cut.lowerBound]) + "}") == expected)
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
