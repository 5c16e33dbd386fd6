import Foundation
import SnapSortSystem

extension Metrics {
    /// The keys `encoded()` writes, in its order.
    static let flatKeys: [String] = [
        "lap_var", "lap_tile_max", "lap_tile_median", "reblur", "reblur_tile", "edge_density", "mean_luma", "std_luma",
        "p01", "p05", "p50", "p95", "p99", "dark_fraction", "black_fraction", "bright_fraction", "clipped_fraction",
        "entropy", "colorfulness", "saturation", "finder_patterns", "flat_fraction", "working_width", "working_height",
        "decode_scale", "noise", "lap_fine_max", "dir0", "dir45", "dir90", "dir135",
        "channel_bright_fraction", "channel_clipped_fraction",
    ]

    /// How many of `flatKeys` analyzer version 5 wrote (the rest read as 0 until a rescan
    /// measures them again).
    static let flatKeysVersion5 = 25
    /// …and versions 6 to 9 (the channels' shares read as 0).
    static let flatKeysVersion9 = 31

    /// Reads the flat object of numbers `encoded()` writes, keys in its order, without
    /// `JSONDecoder` (~50 µs a row; every regroup reads the metrics of the whole library, 100 000
    /// rows and more): the bytes are walked once and each number is read by `strtod`
    /// (`CNumber.double`). The keys of analyzer versions 5 and 9 alone are read too (the later
    /// ones 0).
    /// Nil when the text is anything else (`decode` then asks `JSONDecoder`).
    static func decodeFlat(_ text: String) -> Metrics? {
        var v = [Double](repeating: 0, count: flatKeys.count)
        let ok = text.withCString { start -> Bool in
            var p = start
            guard p.pointee == UInt8(ascii: "{") else { return false }
            p += 1
            for (k, key) in flatKeys.enumerated() {
                if (k == flatKeysVersion5 || k == flatKeysVersion9) && p[0] == UInt8(ascii: "}") { break }
                if k > 0 {
                    guard p.pointee == UInt8(ascii: ",") else { return false }
                    p += 1
                }
                // "key":
                guard p.pointee == UInt8(ascii: "\"") else { return false }
                p += 1
                for byte in key.utf8 {
                    guard p.pointee == CChar(bitPattern: byte) else { return false }
                    p += 1
                }
                guard p[0] == UInt8(ascii: "\""), p[1] == UInt8(ascii: ":") else { return false }
                p += 2
                // A JSON number: strtod also reads hex, inf and nan, which JSON does not write.
                let c = p.pointee
                guard c == UInt8(ascii: "-") || (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) else { return false }
                var end: UnsafeMutablePointer<CChar>?
                let value = CNumber.double(p, end: &end)
                guard let end, end > p, value.isFinite else { return false }
                for q in p..<UnsafePointer(end) where !"-+.eE0123456789".utf8.contains(UInt8(bitPattern: q.pointee)) { return false }
                v[k] = value
                p = UnsafePointer(end)
            }
            return p[0] == UInt8(ascii: "}") && p[1] == 0
        }
        guard ok else { return nil }
        func int(_ d: Double) -> Int? { d == d.rounded() && abs(d) < 1e15 ? Int(d) : nil }
        guard let finder = int(v[20]), let width = int(v[22]), let height = int(v[23]), let scale = int(v[24]) else { return nil }
        return Metrics(
            lapVar: v[0], lapTileMax: v[1], lapTileMedian: v[2], reblur: v[3], reblurTile: v[4], edgeDensity: v[5],
            meanLuma: v[6], stdLuma: v[7], p01: v[8], p05: v[9], p50: v[10], p95: v[11], p99: v[12],
            darkFraction: v[13], blackFraction: v[14], brightFraction: v[15], clippedFraction: v[16],
            entropy: v[17], colorfulness: v[18], saturation: v[19], finderPatterns: finder, flatFraction: v[21],
            workingWidth: width, workingHeight: height, decodeScale: scale, noise: v[25], lapFineMax: v[26],
            dir0: v[27], dir45: v[28], dir90: v[29], dir135: v[30], channelBrightFraction: v[31], channelClippedFraction: v[32])
    }
}
