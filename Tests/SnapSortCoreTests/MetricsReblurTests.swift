import Foundation
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// The running-sum re-blur against the plain definition (9 taps summed per pixel).
@Suite struct MetricsReblurTests {
    static func reference(_ p: Plane, x0: Int, y0: Int, x1: Int, y1: Int) -> Double {
        let w = p.width, d = p.data
        guard x1 - x0 > 10 && y1 - y0 > 10 else { return 0 }
        var dfv = 0.0, dbv = 0.0, dfh = 0.0, dbh = 0.0
        for x in x0..<x1 {
            var prevF: Float = 0, prevB: Float = 0
            for y in y0..<y1 {
                var s: Float = 0
                for k in -4...4 { s += d[min(y1 - 1, max(y0, y + k)) * w + x] }
                let b = s / 9, f = d[y * w + x]
                if y > y0 {
                    let df = abs(f - prevF), db = abs(b - prevB)
                    dfv += Double(df); dbv += Double(max(0, df - db))
                }
                prevF = f; prevB = b
            }
        }
        for y in y0..<y1 {
            var prevF: Float = 0, prevB: Float = 0
            for x in x0..<x1 {
                var s: Float = 0
                for k in -4...4 { s += d[y * w + min(x1 - 1, max(x0, x + k))] }
                let b = s / 9, f = d[y * w + x]
                if x > x0 {
                    let df = abs(f - prevF), db = abs(b - prevB)
                    dfh += Double(df); dbh += Double(max(0, df - db))
                }
                prevF = f; prevB = b
            }
        }
        return max(dfv > 0 ? (dfv - dbv) / dfv : 1, dfh > 0 ? (dfh - dbh) / dfh : 1)
    }

    @Test("equals the per-pixel definition on whole frames and tiles", arguments: [(64, 48, UInt64(1)), (97, 131, 2), (300, 200, 3)])
    func matchesTheDefinition(width: Int, height: Int, seed: UInt64) {
        var rng = SplitMix(seed: seed)
        // Texture plus smooth areas, like a photo; values in 0…255.
        var data = [Float](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let smooth = Float(x * 255 / width)
                let noise = Float(rng.next() % 64)
                data[y * width + x] = (x / 16 + y / 16) % 2 == 0 ? smooth : min(255, smooth / 2 + noise)
            }
        }
        let p = Plane(width: width, height: height, data: data)
        let regions = [(0, 0, width, height), (width / 4, height / 3, width * 3 / 4, height), (3, 5, 3 + 11, 5 + 11)]
        for (x0, y0, x1, y1) in regions {
            let fast = MetricsComputer.reblur(p, x0: x0, y0: y0, x1: x1, y1: y1)
            let slow = Self.reference(p, x0: x0, y0: y0, x1: x1, y1: y1)
            #expect(abs(fast - slow) < 1e-4, "\(width)×\(height) region \(x0),\(y0)-\(x1),\(y1): \(fast) vs \(slow)")
        }
    }
}
