import Foundation
import SnapSortSystem

@testable import SnapSortCore

/// The metrics as first written (analyzer version 5; the fine grid and directions of 6): three full-size Float planes, per-pixel
/// Double arithmetic. The optimized `MetricsComputer.measure` must give the same values
/// (`MetricsEquivalenceTests`); this copy is the definition it is held to.
enum MetricsReference {
    static let workingLongSide = MetricsComputer.workingLongSide
    static func reblur(_ p: Plane, x0: Int, y0: Int, x1: Int, y1: Int) -> Double {
        MetricsReblurTests.reference(p, x0: x0, y0: y0, x1: x1, y1: y1)
    }
    static func finderPatterns(_ p: Plane) -> Int { MetricsComputer.finderPatterns(p) }
    static func dct8x8(_ px: [Float]) -> [Double] { MetricsComputer.dct8x8(px) }

    /// Measures `bitmap` (gray or RGB), rotating by `orientation` first.
    static func measure(_ bitmap: Bitmap, orientation: Int, decodeScale: Int) -> (Metrics, VisualSignature) {
        var planes: [Plane] = []
        let n = bitmap.width * bitmap.height
        if bitmap.channels >= 3 {
            var r = [Float](repeating: 0, count: n), g = r, b = r
            bitmap.pixels.withUnsafeBufferPointer { p in
                for i in 0..<n {
                    r[i] = Float(p[i * bitmap.channels]); g[i] = Float(p[i * bitmap.channels + 1]); b[i] = Float(p[i * bitmap.channels + 2])
                }
            }
            planes = [r, g, b].map { Plane(width: bitmap.width, height: bitmap.height, data: $0) }
        } else {
            planes = [Plane(width: bitmap.width, height: bitmap.height, data: bitmap.pixels.map(Float.init))]
        }
        // Working size.
        let long = max(bitmap.width, bitmap.height)
        var tw = bitmap.width, th = bitmap.height
        if long > workingLongSide {
            let s = Double(workingLongSide) / Double(long)
            tw = max(1, Int((Double(bitmap.width) * s).rounded()))
            th = max(1, Int((Double(bitmap.height) * s).rounded()))
        }
        planes = planes.map { $0.resized(tw, th).oriented(orientation) }
        let luma: Plane
        if planes.count == 3 {
            var y = [Float](repeating: 0, count: planes[0].data.count)
            for i in 0..<y.count { y[i] = 0.299 * planes[0].data[i] + 0.587 * planes[1].data[i] + 0.114 * planes[2].data[i] }
            luma = Plane(width: planes[0].width, height: planes[0].height, data: y)
        } else {
            luma = planes[0]
        }
        var m = Metrics(
            lapVar: 0, lapTileMax: 0, lapTileMedian: 0, reblur: 0, reblurTile: 0, edgeDensity: 0, meanLuma: 0, stdLuma: 0,
            p01: 0, p05: 0, p50: 0, p95: 0, p99: 0, darkFraction: 0, blackFraction: 0, brightFraction: 0, clippedFraction: 0,
            entropy: 0, colorfulness: 0, saturation: 0, finderPatterns: 0, flatFraction: 0, workingWidth: luma.width, workingHeight: luma.height,
            decodeScale: decodeScale)
        sharpness(luma, into: &m)
        histogram(luma, into: &m)
        if planes.count == 3 {
            color(planes, into: &m)
        } else {
            m.channelBrightFraction = m.brightFraction
            m.channelClippedFraction = m.clippedFraction
        }
        m.finderPatterns = finderPatterns(luma)
        let sig = signature(luma: luma, color: planes.count == 3 ? planes : [luma, luma, luma])
        return (m, sig)
    }

    static func sharpness(_ p: Plane, into m: inout Metrics) {
        let w = p.width, h = p.height
        guard w >= 8 && h >= 8 else { return }
        let tiles = 4
        var tileSum = [Double](repeating: 0, count: tiles * tiles)
        var tileSq = [Double](repeating: 0, count: tiles * tiles)
        var tileN = [Double](repeating: 0, count: tiles * tiles)
        // The fine grid (analyzer version 6): 16×16 tiles, columns as `fineColumnBounds` splits them.
        let fine = MetricsComputer.fineTiles
        let fineBounds = MetricsComputer.fineColumnBounds(w)
        var fineSum = [Double](repeating: 0, count: fine * fine)
        var fineSq = [Double](repeating: 0, count: fine * fine)
        var fineN = [Double](repeating: 0, count: fine * fine)
        var dir = [0.0, 0.0, 0.0, 0.0]
        var sum = 0.0, sq = 0.0, count = 0.0, edges = 0, flat = 0
        p.data.withUnsafeBufferPointer { d in
            for y in 1..<(h - 1) {
                let ty = min(tiles - 1, y * tiles / h)
                let fy = min(fine - 1, y * fine / h)
                var rs = 0.0, rq = 0.0
                for x in 1..<(w - 1) {
                    let i = y * w + x
                    let c = d[i]
                    let lap = Double(d[i - 1] + d[i + 1] + d[i - w] + d[i + w] - 4 * c)
                    rs += lap; rq += lap * lap
                    if abs(lap) < 0.5 { flat += 1 }
                    let t = ty * tiles + min(tiles - 1, x * tiles / w)
                    tileSum[t] += lap; tileSq[t] += lap * lap; tileN[t] += 1
                    let fx = (0..<fine).last { fineBounds[$0] <= x } ?? 0
                    fineSum[fy * fine + fx] += lap; fineSq[fy * fine + fx] += lap * lap; fineN[fy * fine + fx] += 1
                    for (k, (a, b)) in [(d[i - 1], d[i + 1]), (d[i - w + 1], d[i + w - 1]), (d[i - w], d[i + w]), (d[i - w - 1], d[i + w + 1])]
                        .enumerated()
                    {
                        let second = Double(a + b - 2 * c)
                        dir[k] += second * second
                    }
                    let gx = (d[i - w + 1] + 2 * d[i + 1] + d[i + w + 1]) - (d[i - w - 1] + 2 * d[i - 1] + d[i + w - 1])
                    let gy = (d[i + w - 1] + 2 * d[i + w] + d[i + w + 1]) - (d[i - w - 1] + 2 * d[i - w] + d[i - w + 1])
                    if gx * gx + gy * gy > 48 * 48 * 16 { edges += 1 }
                }
                sum += rs; sq += rq; count += Double(w - 2)
            }
        }
        m.lapVar = sq / count - (sum / count) * (sum / count)
        var tv: [Double] = []
        for t in 0..<(tiles * tiles) where tileN[t] > 0 {
            tv.append(tileSq[t] / tileN[t] - (tileSum[t] / tileN[t]) * (tileSum[t] / tileN[t]))
        }
        tv.sort()
        m.lapTileMax = tv.last ?? 0
        m.lapTileMedian = tv.isEmpty ? 0 : (tv[(tv.count - 1) / 2] + tv[tv.count / 2]) / 2
        var fv: [Double] = []
        for t in 0..<(fine * fine) where fineN[t] > 0 {
            fv.append(fineSq[t] / fineN[t] - (fineSum[t] / fineN[t]) * (fineSum[t] / fineN[t]))
        }
        fv.sort()
        m.lapFineMax = fv.last ?? 0
        m.noise = fv.isEmpty ? 0 : (max(0, fv[(fv.count - 1) / 10]) / 20).squareRoot()
        (m.dir0, m.dir45, m.dir90, m.dir135) = (dir[0] / count, dir[1] / count, dir[2] / count, dir[3] / count)
        m.edgeDensity = Double(edges) / count
        m.flatFraction = Double(flat) / count
        m.reblur = reblur(p, x0: 0, y0: 0, x1: w, y1: h)
        // The sharpest tile's re-blur.
        var best = 0, bestV = -1.0
        for t in 0..<(tiles * tiles) where tileN[t] > 0 {
            let v = tileSq[t] / tileN[t] - (tileSum[t] / tileN[t]) * (tileSum[t] / tileN[t])
            if v > bestV { bestV = v; best = t }
        }
        let bx = best % tiles, by = best / tiles
        m.reblurTile = reblur(p, x0: bx * w / tiles, y0: by * h / tiles, x1: (bx + 1) * w / tiles, y1: (by + 1) * h / tiles)
    }

    static func histogram(_ p: Plane, into m: inout Metrics) {
        var hist = [Int](repeating: 0, count: 256)
        var sum = 0.0, sq = 0.0
        for v in p.data {
            let b = Int(max(0, min(255, v.rounded())))
            hist[b] += 1
            sum += Double(v); sq += Double(v) * Double(v)
        }
        let n = Double(p.data.count)
        guard n > 0 else { return }
        m.meanLuma = sum / n
        m.stdLuma = (max(0, sq / n - m.meanLuma * m.meanLuma)).squareRoot()
        func pct(_ q: Double) -> Double {
            let target = q * n
            var acc = 0
            for (i, c) in hist.enumerated() { acc += c; if Double(acc) >= target { return Double(i) } }
            return 255
        }
        m.p01 = pct(0.01); m.p05 = pct(0.05); m.p50 = pct(0.5); m.p95 = pct(0.95); m.p99 = pct(0.99)
        m.darkFraction = Double(hist[0..<24].reduce(0, +)) / n
        m.blackFraction = Double(hist[0..<8].reduce(0, +)) / n
        m.brightFraction = Double(hist[233...].reduce(0, +)) / n
        m.clippedFraction = Double(hist[250...].reduce(0, +)) / n
        var e = 0.0
        for c in hist where c > 0 { let q = Double(c) / n; e -= q * log2(q) }
        m.entropy = e
    }

    static func color(_ planes: [Plane], into m: inout Metrics) {
        let n = planes[0].data.count
        var srg = 0.0, srg2 = 0.0, syb = 0.0, syb2 = 0.0, ssat = 0.0
        for i in 0..<n {
            let r = Double(planes[0].data[i]), g = Double(planes[1].data[i]), b = Double(planes[2].data[i])
            let rg = r - g, yb = 0.5 * (r + g) - b
            srg += rg; srg2 += rg * rg; syb += yb; syb2 += yb * yb
            let mx = max(r, g, b), mn = min(r, g, b)
            ssat += mx > 0 ? (mx - mn) / mx : 0
        }
        let dn = Double(n)
        let mrg = srg / dn, myb = syb / dn
        let sdrg = max(0, srg2 / dn - mrg * mrg).squareRoot(), sdyb = max(0, syb2 / dn - myb * myb).squareRoot()
        m.colorfulness = (sdrg * sdrg + sdyb * sdyb).squareRoot() + 0.3 * (mrg * mrg + myb * myb).squareRoot()
        m.saturation = ssat / dn
        // The brightest channel of each pixel, binned as the luma histogram bins.
        let top = (0..<n).map { i in Int(max(0, min(255, max(planes[0].data[i], planes[1].data[i], planes[2].data[i]) + 0.5))) }
        m.channelBrightFraction = Double(top.filter { $0 > 232 }.count) / dn
        m.channelClippedFraction = Double(top.filter { $0 >= 250 }.count) / dn
    }

    static func signature(luma: Plane, color: [Plane]) -> VisualSignature {
        let d = luma.resized(9, 8)
        var dh: UInt64 = 0
        for y in 0..<8 { for x in 0..<8 { dh = (dh << 1) | (d.data[y * 9 + x] < d.data[y * 9 + x + 1] ? 1 : 0) } }
        let p32 = luma.resized(32, 32)
        let coeffs = dct8x8(p32.data)
        let median = coeffs.sorted()[32]
        var ph: UInt64 = 0
        for c in coeffs { ph = (ph << 1) | (c > median ? 1 : 0) }
        var thumb = luma.resized(VisualSignature.lumaSide, VisualSignature.lumaSide).data.map { UInt8(max(0, min(255, $0.rounded()))) }
        let c8 = color.prefix(3).map { $0.resized(8, 8).data }
        for i in 0..<64 { for c in 0..<3 { thumb.append(UInt8(max(0, min(255, c8[c][i].rounded())))) } }
        return VisualSignature(dhash: dh, phash: ph, thumbnail: thumb)
    }

}
