import Foundation
import SnapSortCore
import Testing

/// `StatusTimestamp.string` writes what `ISO8601DateFormatter` writes by default, without making
/// one per call.
@Suite struct StatusTimestampTests {
    @Test func itWritesWhatTheFormatterWrites() {
        let f = ISO8601DateFormatter()
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        var dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_798_675_200 - 0.001), Date(timeIntervalSince1970: 951_782_400.5)]
        for _ in 0..<2000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // 1970 … 2100, with a fraction of a second.
            dates.append(Date(timeIntervalSince1970: Double(seed >> 11) / Double(1 << 53) * 4_102_444_800))
        }
        for d in dates {
            #expect(StatusTimestamp.string(d) == f.string(from: d), "\(d.timeIntervalSince1970)")
        }
        #expect(StatusTimestamp.string(Date(timeIntervalSince1970: 1_796_034_050.75)) == "2026-11-30T10:20:50Z")
        #expect(
            StatusTimestamp.date(StatusTimestamp.string(Date(timeIntervalSince1970: 1_796_034_050))) == Date(timeIntervalSince1970: 1_796_034_050))
    }
}
