import Foundation
import SnapSortSystem

/// The per-photo measurements, versioned with `Analyzer.version`.
///
/// All are computed on luma (BT.601) after EXIF orientation, at a *working size*: the decoded
/// image area-averaged to at most 1024 px on its long side (JPEGs are DCT-scaled first to the
/// smallest scale that still gives ≥ 960 px, so a 12 MP photo decodes at 1/4).
/// - `lapVar`: variance of the 4-neighbour Laplacian over the whole frame.
/// - `lapTileMax`, `lapTileMedian`: the same over a 4×4 grid of tiles, the sharpest tile and the
///   median tile (a sharp subject on a soft background has a high max and a low median).
/// - `reblur`, `reblurTile`: Crété-Roffet "re-blur" no-reference blur (0 sharp … 1 blurry): how
///   much local variation survives a 9-tap box blur, over the frame and over the sharpest tile.
/// - `edgeDensity`: fraction of pixels whose Sobel magnitude exceeds 48 (text, documents).
/// - `meanLuma`, `stdLuma`, `p01`…`p99`: the luma histogram (0–255).
/// - `darkFraction` (< 24), `blackFraction` (< 8), `brightFraction` (> 232), `clippedFraction` (≥ 250).
/// - `entropy`: Shannon entropy of the 256-bin luma histogram, in bits.
/// - `colorfulness`: Hasler & Süsstrunk (2003) on the working RGB; `saturation`: mean HSV S (0–1).
/// - `flatFraction`: share of pixels whose Laplacian is exactly 0 (< 0.5): flat UI areas of
///   screenshots and rendered pages; photos have sensor noise and texture everywhere.
/// - `finderPatterns`: how many QR finder-pattern centres (1:1:3:1:1 along a row, cross-checked
///   down the column and back along the row, on at least two rows) the binarized working image
///   holds; the cheap gate in front of zbar.
/// - `workingWidth`, `workingHeight`, `decodeScale` (the JPEG DCT numerator over 8, 8 = none).
/// - `noise`: the sensor noise, as the standard deviation (luma levels) of white noise that
///   gives the 10th percentile of the Laplacian variances over a 16×16 grid of tiles (white
///   noise of σ has a Laplacian variance of 20σ²): the flattest tenth of a frame holds little
///   but noise, so grain is not taken for detail.
/// - `lapFineMax`: the Laplacian variance of the sharpest tile of that 16×16 grid (a subject
///   that fills a 256th of the frame: a glass, a drop, an eye).
/// - `dir0`, `dir45`, `dir90`, `dir135`: the mean square of the second difference along each
///   direction (horizontal, rising diagonal, vertical, falling diagonal) over the frame. Motion
///   blur removes the fine detail along its direction only; white noise adds 6σ² to each.
/// - `channelBrightFraction` (> 232), `channelClippedFraction` (≥ 250): the same shares as
///   `brightFraction` and `clippedFraction` for the brightest of each pixel's R, G and B (the
///   luma's for a gray frame). A sensor clips each channel on its own: a green garden or a red
///   apple pushed two stops clips its green or red over most of the frame while its luma stays
///   under white (0 before analyzer version 10).
public struct Metrics: Codable, Sendable, Equatable {
    public var lapVar: Double
    public var lapTileMax: Double
    public var lapTileMedian: Double
    public var reblur: Double
    public var reblurTile: Double
    public var edgeDensity: Double
    public var meanLuma: Double
    public var stdLuma: Double
    public var p01: Double
    public var p05: Double
    public var p50: Double
    public var p95: Double
    public var p99: Double
    public var darkFraction: Double
    public var blackFraction: Double
    public var brightFraction: Double
    public var clippedFraction: Double
    public var entropy: Double
    public var colorfulness: Double
    public var saturation: Double
    public var finderPatterns: Int
    public var flatFraction: Double
    public var workingWidth: Int
    public var workingHeight: Int
    public var decodeScale: Int
    public var noise: Double = 0
    public var lapFineMax: Double = 0
    public var dir0: Double = 0
    public var dir45: Double = 0
    public var dir90: Double = 0
    public var dir135: Double = 0
    public var channelBrightFraction: Double = 0
    public var channelClippedFraction: Double = 0

    /// Metrics as a JSON object (the report's `metrics`).
    public var json: JSON {
        func r(_ d: Double, _ places: Double = 10000) -> JSON { .double((d * places).rounded() / places) }
        return .object([
            ("lap_var", r(lapVar, 100)), ("lap_tile_max", r(lapTileMax, 100)), ("lap_tile_median", r(lapTileMedian, 100)),
            ("reblur", r(reblur)), ("reblur_tile", r(reblurTile)), ("edge_density", r(edgeDensity)),
            ("mean_luma", r(meanLuma, 100)), ("std_luma", r(stdLuma, 100)),
            ("p01", r(p01)), ("p05", r(p05)), ("p50", r(p50)), ("p95", r(p95)), ("p99", r(p99)),
            ("dark_fraction", r(darkFraction)), ("black_fraction", r(blackFraction)),
            ("bright_fraction", r(brightFraction)), ("clipped_fraction", r(clippedFraction)),
            ("entropy", r(entropy)), ("colorfulness", r(colorfulness, 100)), ("saturation", r(saturation)),
            ("finder_patterns", .int(finderPatterns)), ("flat_fraction", r(flatFraction)),
            ("working_width", .int(workingWidth)), ("working_height", .int(workingHeight)), ("decode_scale", .int(decodeScale)),
            ("noise", r(noise)), ("lap_fine_max", r(lapFineMax, 100)),
            ("dir0", r(dir0)), ("dir45", r(dir45)), ("dir90", r(dir90)), ("dir135", r(dir135)),
            ("channel_bright_fraction", r(channelBrightFraction)), ("channel_clipped_fraction", r(channelClippedFraction)),
        ])
    }

    /// Encodes for the database.
    public func encoded() -> String { json.serialized() }

    /// Decodes what `encoded()` wrote.
    public static func decode(_ text: String) -> Metrics? {
        if let m = decodeFlat(text) { return m }
        guard let data = text.data(using: .utf8) else { return nil }
        return try? decoder.decode(Metrics.self, from: data)
    }

    private static let decoder: JSONDecoder = {
        let d = JSONDecoder()
        d.keyDecodingStrategy = .convertFromSnakeCase
        return d
    }()
}

/// The visual fingerprint of a photo.
public struct VisualSignature: Sendable, Equatable {
    /// 64-bit difference hash (9×8 luma, left < right).
    public var dhash: UInt64
    /// 64-bit DCT perceptual hash (32×32 luma, 8×8 low frequencies against their median).
    public var phash: UInt64
    /// 32×32 luma thumbnail (1024 bytes, the frame squeezed to a square) followed by an 8×8 RGB
    /// thumbnail (192 bytes). Similar Shots align two of these (shift and zoom) and correlate them.
    public var thumbnail: [UInt8]

    /// The side of the luma thumbnail.
    public static let lumaSide = 32

    public static func hamming(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }
}

/// A float image plane.
struct Plane {
    var width: Int
    var height: Int
    var data: [Float]

    init(width: Int, height: Int, data: [Float]) {
        self.width = width
        self.height = height
        self.data = data
    }

    /// Area-average downscale to exactly `tw`×`th` (each target pixel averages its source box).
    func resized(_ tw: Int, _ th: Int) -> Plane {
        if tw == width && th == height { return self }
        var out = [Float](repeating: 0, count: tw * th)
        let sx = Double(width) / Double(tw), sy = Double(height) / Double(th)
        // Column spans are the same for every row.
        var xs = [Int](repeating: 0, count: tw + 1)
        for x in 0...tw { xs[x] = min(width, Int((Double(x) * sx).rounded(.down))) }
        // The row sums through a raw pointer, so the per-column adds run several at a time.
        let rowSums = UnsafeMutablePointer<Float>.allocate(capacity: width)
        defer { rowSums.deallocate() }
        data.withUnsafeBufferPointer { srcBuf in
            out.withUnsafeMutableBufferPointer { dst in
                let src = srcBuf.baseAddress!
                for y in 0..<th {
                    let y0 = min(height - 1, Int((Double(y) * sy).rounded(.down)))
                    let y1 = max(y0 + 1, min(height, Int((Double(y + 1) * sy).rounded(.down))))
                    rowSums.initialize(repeating: 0, count: width)
                    for yy in y0..<y1 {
                        let row = src + yy * width
                        for i in 0..<width { rowSums[i] += row[i] }
                    }
                    let rows = Float(y1 - y0)
                    for x in 0..<tw {
                        let x0 = min(width - 1, xs[x]), x1 = max(x0 + 1, xs[x + 1])
                        var s: Float = 0
                        for i in x0..<x1 { s += rowSums[i] }
                        dst[y * tw + x] = s / (rows * Float(x1 - x0))
                    }
                }
            }
        }
        return Plane(width: tw, height: th, data: out)
    }

    /// Applies an EXIF orientation (1…8) so the plane is upright.
    func oriented(_ orientation: Int) -> Plane {
        guard (2...8).contains(orientation) else { return self }
        let w = width, h = height
        let swap = orientation >= 5
        let ow = swap ? h : w, oh = swap ? w : h
        var out = [Float](repeating: 0, count: w * h)
        for y in 0..<oh {
            for x in 0..<ow {
                // Source coordinates for destination (x, y); see the EXIF 2.3 orientation table.
                let sx: Int, sy: Int
                switch orientation {
                case 2: sx = w - 1 - x; sy = y
                case 3: sx = w - 1 - x; sy = h - 1 - y
                case 4: sx = x; sy = h - 1 - y
                case 5: sx = y; sy = x
                case 6: sx = y; sy = h - 1 - x
                case 7: sx = w - 1 - y; sy = h - 1 - x
                default: sx = w - 1 - y; sy = x  // 8
                }
                out[y * ow + x] = data[sy * w + sx]
            }
        }
        return Plane(width: ow, height: oh, data: out)
    }
}

/// Computes `Metrics` and `VisualSignature` from a decoded bitmap.
public enum MetricsComputer {
    public static let workingLongSide = 1024

    /// Measures `bitmap` (gray or RGB), rotating by `orientation` first.
    ///
    /// One pass over the decoded pixels builds the upright luma plane and, on the way, the colour
    /// statistics and the 8×8 colour thumbnail (a photo DCT-scaled to the working size, the usual
    /// case); a bitmap larger than the working size, or tiny, goes through area-averaged planes
    /// first. Every loop walks rows with unchecked pointers: this is the scan's hot path.
    /// `MetricsEquivalenceTests` holds the values to the plain definition (`MetricsReference`).
    public static func measure(_ bitmap: Bitmap, orientation: Int, decodeScale: Int) -> (Metrics, VisualSignature) {
        let long = max(bitmap.width, bitmap.height)
        var tw = bitmap.width, th = bitmap.height
        if long > workingLongSide {
            let s = Double(workingLongSide) / Double(long)
            tw = max(1, Int((Double(bitmap.width) * s).rounded()))
            th = max(1, Int((Double(bitmap.height) * s).rounded()))
        }
        let work =
            tw == bitmap.width && th == bitmap.height && min(tw, th) >= 32
            ? Working.direct(bitmap, orientation: orientation)
            : Working.resampled(bitmap, width: tw, height: th, orientation: orientation)
        let luma = work.luma
        var m = Metrics(
            lapVar: 0, lapTileMax: 0, lapTileMedian: 0, reblur: 0, reblurTile: 0, edgeDensity: 0, meanLuma: 0, stdLuma: 0,
            p01: 0, p05: 0, p50: 0, p95: 0, p99: 0, darkFraction: 0, blackFraction: 0, brightFraction: 0, clippedFraction: 0,
            entropy: 0, colorfulness: 0, saturation: 0, finderPatterns: 0, flatFraction: 0, workingWidth: luma.width, workingHeight: luma.height,
            decodeScale: decodeScale)
        sharpness(luma, into: &m)
        histogram(luma, into: &m)
        if let c = work.color {
            m.colorfulness = c.colorfulness
            m.saturation = c.saturation
            m.channelBrightFraction = c.channelBright
            m.channelClippedFraction = c.channelClipped
        } else {
            m.channelBrightFraction = m.brightFraction
            m.channelClippedFraction = m.clippedFraction
        }
        m.finderPatterns = finderPatterns(luma)
        let sig = signature(luma: luma, color8: work.color8)
        return (m, sig)
    }

    /// A frame's colour statistics (`Metrics.colorfulness`, `saturation`, and the shares of
    /// pixels whose brightest channel is bright or clipped).
    struct Colour {
        var colorfulness: Double, saturation: Double, channelBright: Double, channelClipped: Double
    }

    /// The upright working image: luma, colour statistics, the 8×8 RGB thumbnail.
    struct Working {
        var luma: Plane
        var color: Colour?
        /// 8×8 pixels, R G B each (the luma for gray bitmaps), area averages of the upright frame.
        var color8: [Float]

        /// A bitmap already at the working size (and at least 32 px on each side): one pass.
        static func direct(_ b: Bitmap, orientation: Int) -> Working {
            let w = b.width, h = b.height, ch = b.channels
            let o = (1...8).contains(orientation) ? orientation : 1
            let swap = o >= 5
            let ow = swap ? h : w, oh = swap ? w : h
            // Where source pixel (sx, sy) lands: a0 + ax·sx + ay·sy (the EXIF 2.3 table, inverted).
            let (a0, ax, ay): (Int, Int, Int)
            switch o {
            case 2: (a0, ax, ay) = (w - 1, -1, w)
            case 3: (a0, ax, ay) = ((h - 1) * w + w - 1, -1, -w)
            case 4: (a0, ax, ay) = ((h - 1) * w, 1, -w)
            case 5: (a0, ax, ay) = (0, h, 1)
            case 6: (a0, ax, ay) = (h - 1, h, -1)
            case 7: (a0, ax, ay) = ((w - 1) * h + h - 1, -h, -1)
            case 8: (a0, ax, ay) = ((w - 1) * h, -h, 1)
            default: (a0, ax, ay) = (0, 1, w)
            }
            // The 8×8 cell of each upright column and row (the spans `Plane.resized` uses).
            func cells(_ n: Int) -> [Int] {
                let step = Double(n) / 8
                var out = [Int](repeating: 0, count: n)
                var k = 0
                for i in 0..<n {
                    while k < 7 && i >= min(n, Int((Double(k + 1) * step).rounded(.down))) { k += 1 }
                    out[i] = k
                }
                return out
            }
            let cx = cells(ow), cy = cells(oh)
            // The cell of source column sx and row sy as parts that add up: bin = colPart + rowPart.
            var colPart = [Int](repeating: 0, count: w), rowPart = [Int](repeating: 0, count: h)
            for sx in 0..<w {
                let dx = o == 1 || o == 4 ? sx : o == 2 || o == 3 ? w - 1 - sx : 0
                let dy = o == 5 || o == 6 ? sx : o == 7 || o == 8 ? w - 1 - sx : 0
                colPart[sx] = swap ? cy[dy] * 8 : cx[dx]
            }
            for sy in 0..<h {
                let dy = o == 1 || o == 2 ? sy : o == 3 || o == 4 ? h - 1 - sy : 0
                let dx = o == 5 || o == 8 ? sy : o == 6 || o == 7 ? h - 1 - sy : 0
                rowPart[sy] = swap ? cx[dx] : cy[dy] * 8
            }
            var cellSum = [Int](repeating: 0, count: 64 * 3)
            var cellN = [Int](repeating: 0, count: 64)
            var srg = 0, srg2 = 0, syb2x = 0, syb2x2 = 0
            var ssat = 0.0
            var brightCount = 0, clippedCount = 0
            var reciprocal = [Double](repeating: 0, count: 256)
            for v in 1..<256 { reciprocal[v] = 1 / Double(v) }
            // Source columns come in runs that fall in the same cell (in every orientation): the
            // cell sums of a run add up in registers and reach memory once per run.
            var runStart = [0]
            for sx in 1..<max(1, w) where colPart[sx] != colPart[sx - 1] { runStart.append(sx) }
            runStart.append(w)
            let row = UnsafeMutablePointer<Float>.allocate(capacity: w)
            defer { row.deallocate() }
            // Every upright pixel is written once below, so the plane is not zeroed first.
            let luma = [Float](unsafeUninitializedCapacity: w * h) { outBuf, initialized in
                b.pixels.withUnsafeBufferPointer { pxBuf in
                    cellSum.withUnsafeMutableBufferPointer { cs in
                        reciprocal.withUnsafeBufferPointer { reciprocal in
                            let px = pxBuf.baseAddress!, out = outBuf.baseAddress!
                            for sy in 0..<h {
                                let rowBase = a0 + ay * sy, rp = rowPart[sy]
                                let src = sy * w * ch
                                if ch == 4 {
                                    // libjpeg's RGBX: a pixel is one UInt32, so four pixels go at a time.
                                    // Each lane computes the one-pixel luma exactly; the saturation is a
                                    // Float quotient (within 2⁻²⁴ of the Double one) summed in Double.
                                    var rowSat = SIMD4<Double>()
                                    var vrg = SIMD4<Int32>(), vrg2 = SIMD4<Int32>(), vyb = SIMD4<Int32>(), vyb2 = SIMD4<Int32>()
                                    var vbright = SIMD4<Int32>(), vclipped = SIMD4<Int32>()
                                    let pixels = UnsafeRawPointer(px + src)
                                    for k in 0..<(runStart.count - 1) {
                                        let end = runStart[k + 1]
                                        var vr = SIMD4<Int32>(), vg = SIMD4<Int32>(), vb = SIMD4<Int32>()
                                        var sx = runStart[k]
                                        while sx + 4 <= end {
                                            let v = unsafeBitCast(
                                                pixels.loadUnaligned(fromByteOffset: sx &* 4, as: SIMD4<UInt32>.self), to: SIMD4<Int32>.self)
                                            let r = v & 0xff, g = (v &>> 8) & 0xff, bl = (v &>> 16) & 0xff
                                            let fr = SIMD4<Float>(r), fg = SIMD4<Float>(g), fb = SIMD4<Float>(bl)
                                            let luma = 0.299 * fr + 0.587 * fg + 0.114 * fb
                                            store4(row, sx, luma)
                                            vr &+= r; vg &+= g; vb &+= bl
                                            let rg = r &- g, yb2 = r &+ g &- 2 &* bl
                                            vrg &+= rg; vrg2 &+= rg &* rg; vyb &+= yb2; vyb2 &+= yb2 &* yb2
                                            // Max and min of the channels as Floats (exact for bytes), which
                                            // SSE2 has instructions for; Int32 lanes have none.
                                            let mx = larger(larger(fr, fg), fb), mn = smaller(smaller(fr, fg), fb)
                                            let sat = (mx - mn) / larger(mx, SIMD4<Float>(repeating: 1))
                                            rowSat += SIMD4<Double>(sat)
                                            vbright &+= SIMD4<Int32>(repeating: 0).replacing(with: 1, where: mx .> 232)
                                            vclipped &+= SIMD4<Int32>(repeating: 0).replacing(with: 1, where: mx .>= 250)
                                            sx += 4
                                        }
                                        var sr = Int(vr.wrappedSum()), sg = Int(vg.wrappedSum()), sb = Int(vb.wrappedSum())
                                        while sx < end {
                                            let i = src + sx * 4
                                            let r = Int(px[i]), g = Int(px[i + 1]), bl = Int(px[i + 2])
                                            row[sx] = 0.299 * Float(r) + 0.587 * Float(g) + 0.114 * Float(bl)
                                            sr &+= r; sg &+= g; sb &+= bl
                                            let rg = r &- g, yb2 = r &+ g &- 2 &* bl
                                            srg &+= rg; srg2 &+= rg &* rg; syb2x &+= yb2; syb2x2 &+= yb2 &* yb2
                                            let mx = max(r, g, bl), mn = min(r, g, bl)
                                            rowSat[0] += Double(Float(mx - mn) / Float(max(mx, 1)))
                                            if mx > 232 { brightCount &+= 1 }
                                            if mx >= 250 { clippedCount &+= 1 }
                                            sx += 1
                                        }
                                        let cell = (colPart[runStart[k]] + rp) * 3
                                        cs[cell] &+= sr; cs[cell + 1] &+= sg; cs[cell + 2] &+= sb
                                    }
                                    srg &+= Int(vrg.wrappedSum()); srg2 &+= Int(vrg2.wrappedSum())
                                    syb2x &+= Int(vyb.wrappedSum()); syb2x2 &+= Int(vyb2.wrappedSum())
                                    brightCount &+= Int(vbright.wrappedSum()); clippedCount &+= Int(vclipped.wrappedSum())
                                    ssat += rowSat.sum()
                                    // The row upright: as is, reversed, or down a column.
                                    if ax == 1 {
                                        (out + rowBase).update(from: row, count: w)
                                    } else {
                                        for sx in 0..<w { out[rowBase + ax * sx] = row[sx] }
                                    }
                                } else if ch >= 3 {
                                    // One pixel: its luma stored upright, its channels and HSV saturation.
                                    @inline(__always) func pixel(_ sx: Int) -> (r: Int, g: Int, b: Int, sat: Double) {
                                        let i = src + sx * ch
                                        let r = Int(px[i]), g = Int(px[i + 1]), bl = Int(px[i + 2])
                                        out[rowBase + ax * sx] = 0.299 * Float(r) + 0.587 * Float(g) + 0.114 * Float(bl)
                                        let mx = max(r, g, bl), mn = min(r, g, bl)
                                        brightCount &+= mx > 232 ? 1 : 0
                                        clippedCount &+= mx >= 250 ? 1 : 0
                                        return (r, g, bl, Double(mx - mn) * reciprocal[mx])
                                    }
                                    var rowSat = 0.0
                                    for k in 0..<(runStart.count - 1) {
                                        let end = runStart[k + 1]
                                        var sr = 0, sg = 0, sb = 0
                                        // Two saturation sums, so one pixel's add need not wait for the other's.
                                        var sat0 = 0.0, sat1 = 0.0
                                        var sx = runStart[k]
                                        while sx < end {
                                            let p = pixel(sx)
                                            sr &+= p.r; sg &+= p.g; sb &+= p.b; sat0 += p.sat
                                            let rg = p.r &- p.g, yb2 = p.r &+ p.g &- 2 &* p.b
                                            srg &+= rg; srg2 &+= rg &* rg; syb2x &+= yb2; syb2x2 &+= yb2 &* yb2
                                            if sx + 1 < end {
                                                let q = pixel(sx + 1)
                                                sr &+= q.r; sg &+= q.g; sb &+= q.b; sat1 += q.sat
                                                let rg = q.r &- q.g, yb2 = q.r &+ q.g &- 2 &* q.b
                                                srg &+= rg; srg2 &+= rg &* rg; syb2x &+= yb2; syb2x2 &+= yb2 &* yb2
                                            }
                                            sx += 2
                                        }
                                        let cell = (colPart[runStart[k]] + rp) * 3
                                        cs[cell] &+= sr; cs[cell + 1] &+= sg; cs[cell + 2] &+= sb
                                        rowSat += sat0 + sat1
                                    }
                                    ssat += rowSat
                                } else {
                                    for k in 0..<(runStart.count - 1) {
                                        var sum = 0
                                        for sx in runStart[k]..<runStart[k + 1] {
                                            let v = px[src + sx * ch]
                                            out[rowBase + ax * sx] = Float(v)
                                            sum &+= Int(v)
                                        }
                                        cs[(colPart[runStart[k]] + rp) * 3] &+= sum
                                    }
                                }
                            }
                        }
                    }
                }
                initialized = w * h
            }
            // Cell sizes: the product of the spans.
            var spanX = [Int](repeating: 0, count: 8), spanY = [Int](repeating: 0, count: 8)
            for k in cx { spanX[k] += 1 }
            for k in cy { spanY[k] += 1 }
            for cyy in 0..<8 { for cxx in 0..<8 { cellN[cyy * 8 + cxx] = spanX[cxx] * spanY[cyy] } }
            var color8 = [Float](repeating: 0, count: 192)
            for cell in 0..<64 {
                let n = Double(max(1, cellN[cell]))
                for k in 0..<3 { color8[cell * 3 + k] = Float(Double(cellSum[cell * 3 + (ch >= 3 ? k : 0)]) / n) }
            }
            var color: Colour? = nil
            if ch >= 3 {
                let n = Double(w * h)
                let mrg = Double(srg) / n, myb = Double(syb2x) / 2 / n
                let sdrg = max(0, Double(srg2) / n - mrg * mrg).squareRoot()
                let sdyb = max(0, Double(syb2x2) / 4 / n - myb * myb).squareRoot()
                color = Colour(
                    colorfulness: (sdrg * sdrg + sdyb * sdyb).squareRoot() + 0.3 * (mrg * mrg + myb * myb).squareRoot(), saturation: ssat / n,
                    channelBright: Double(brightCount) / n, channelClipped: Double(clippedCount) / n)
            }
            return Working(luma: Plane(width: ow, height: oh, data: luma), color: color, color8: color8)
        }

        /// Any other bitmap: area-averaged Float planes at the working size, then upright.
        static func resampled(_ bitmap: Bitmap, width tw: Int, height th: Int, orientation: Int) -> Working {
            let n = bitmap.width * bitmap.height
            var planes: [Plane]
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
            planes = planes.map { $0.resized(tw, th).oriented(orientation) }
            let luma: Plane
            var color: Colour? = nil
            if planes.count == 3 {
                var y = [Float](repeating: 0, count: planes[0].data.count)
                for i in 0..<y.count { y[i] = 0.299 * planes[0].data[i] + 0.587 * planes[1].data[i] + 0.114 * planes[2].data[i] }
                luma = Plane(width: planes[0].width, height: planes[0].height, data: y)
                color = colorStatistics(planes)
            } else {
                luma = planes[0]
            }
            let c8 = (planes.count == 3 ? planes : [luma, luma, luma]).map { $0.resized(8, 8).data }
            var color8 = [Float](repeating: 0, count: 192)
            for i in 0..<64 { for c in 0..<3 { color8[i * 3 + c] = c8[c][i] } }
            return Working(luma: luma, color: color, color8: color8)
        }
    }

    /// The side of the fine tile grid (`Metrics.noise`, `Metrics.lapFineMax`): each of the 4×4
    /// tiles is split into 4×4 fine tiles.
    static let fineTiles = 16

    /// The first column of each fine tile column (and `w - 1` after the last): the 4×4 grid's
    /// columns start at ⌈t·w/4⌉ (x = 0 has no Laplacian, so the first starts at 1), and each is
    /// split in four at offsets rounded down to a multiple of 4, so only the last part of a tile
    /// column has an odd tail for the four-pixel loop.
    static func fineColumnBounds(_ w: Int) -> [Int] {
        let tiles = 4
        var coarse = [Int](repeating: w - 1, count: tiles + 1)
        coarse[0] = 1
        for t in 1..<tiles { coarse[t] = min(w - 1, max(1, (t * w + tiles - 1) / tiles)) }
        var fine = [Int](repeating: w - 1, count: fineTiles + 1)
        for t in 0..<tiles {
            let a = coarse[t], b = max(coarse[t], coarse[t + 1])
            for k in 0..<4 { fine[t * 4 + k] = a + (((b - a) * k / 4) & ~3) }
        }
        return fine
    }

    /// The fine tile row of luma row `y` (its 4×4 tile row is this over 4).
    @inline(__always)
    static func fineRow(_ y: Int, _ h: Int) -> Int { min(fineTiles - 1, y * fineTiles / h) }

    /// The Laplacian statistics (frame, 4×4 tiles, 16×16 fine tiles), the noise, the directional
    /// second differences, edge density and flat share, then the re-blur. Four pixels at a time
    /// (`SIMD4<Float>`): each lane computes exactly what the one-pixel definition computes, and
    /// only the sums are added in another order.
    static func sharpness(_ p: Plane, into m: inout Metrics) {
        let w = p.width, h = p.height
        guard w >= 8 && h >= 8 else { return }
        let tiles = 4, fine = fineTiles
        var fineSum = [Double](repeating: 0, count: fine * fine)
        var fineSq = [Double](repeating: 0, count: fine * fine)
        var fineN = [Double](repeating: 0, count: fine * fine)
        let bounds = fineColumnBounds(w)
        var sum = 0.0, sq = 0.0, count = 0.0, edges = 0, flat = 0
        var directional = SIMD4<Double>()
        p.data.withUnsafeBufferPointer { buf in
            let d = buf.baseAddress!
            for y in 1..<(h - 1) {
                let ty = fineRow(y, h)
                for tx in 0..<fine {
                    let xa = bounds[tx], xb = bounds[tx + 1]
                    guard xa < xb else { continue }
                    var vs = SIMD2<Double>(), vq = SIMD2<Double>()
                    var vFlat = SIMD4<Int32>(), vEdges = SIMD4<Int32>()
                    // Second differences along 0°, 45°, 90°, 135°, squared; Float is exact
                    // enough over one fine tile's row (at most a few dozen steps).
                    var e0 = SIMD4<Float>(), e45 = SIMD4<Float>(), e90 = SIMD4<Float>(), e135 = SIMD4<Float>()
                    var i = y * w + xa
                    let end = y * w + xb
                    while i + 4 <= end {
                        let c = load4(d, i), l4 = load4(d, i - 1), r4 = load4(d, i + 1)
                        let u4 = load4(d, i - w), b4 = load4(d, i + w)
                        let l = l4 + r4 + u4 + b4 - 4 * c
                        let lo = SIMD2<Double>(l.lowHalf), hi = SIMD2<Double>(l.highHalf)
                        vs += lo + hi
                        vq += lo * lo + hi * hi
                        vFlat &-= unsafeBitCast(magnitude(l) .< 0.5, to: SIMD4<Int32>.self)
                        let ul = load4(d, i - w - 1), ur = load4(d, i - w + 1)
                        let bl = load4(d, i + w - 1), br = load4(d, i + w + 1)
                        let gx = (ur + 2 * r4 + br) - (ul + 2 * l4 + bl)
                        let gy = (bl + 2 * b4 + br) - (ul + 2 * u4 + ur)
                        vEdges &-= unsafeBitCast(gx * gx + gy * gy .> 48 * 48 * 16, to: SIMD4<Int32>.self)
                        let twice = c + c
                        let d0 = l4 + r4 - twice, d90 = u4 + b4 - twice
                        let d45 = ur + bl - twice, d135 = ul + br - twice
                        e0 += d0 * d0; e90 += d90 * d90; e45 += d45 * d45; e135 += d135 * d135
                        i += 4
                    }
                    var rs = vs.sum(), rq = vq.sum()
                    var rowEdges = Int(vEdges.wrappedSum()), rowFlat = Int(vFlat.wrappedSum())
                    var rowDirectional = SIMD4<Double>(Double(e0.sum()), Double(e45.sum()), Double(e90.sum()), Double(e135.sum()))
                    while i < end {
                        let c = d[i]
                        let l = d[i - 1] + d[i + 1] + d[i - w] + d[i + w] - 4 * c
                        let lap = Double(l)
                        rs += lap; rq += lap * lap
                        rowFlat &+= abs(l) < 0.5 ? 1 : 0
                        let gx = (d[i - w + 1] + 2 * d[i + 1] + d[i + w + 1]) - (d[i - w - 1] + 2 * d[i - 1] + d[i + w - 1])
                        let gy = (d[i + w - 1] + 2 * d[i + w] + d[i + w + 1]) - (d[i - w - 1] + 2 * d[i - w] + d[i - w + 1])
                        rowEdges &+= gx * gx + gy * gy > 48 * 48 * 16 ? 1 : 0
                        let twice = c + c
                        let d0 = d[i - 1] + d[i + 1] - twice, d90 = d[i - w] + d[i + w] - twice
                        let d45 = d[i - w + 1] + d[i + w - 1] - twice, d135 = d[i - w - 1] + d[i + w + 1] - twice
                        rowDirectional += SIMD4(Double(d0 * d0), Double(d45 * d45), Double(d90 * d90), Double(d135 * d135))
                        i += 1
                    }
                    let t = ty * fine + tx
                    fineSum[t] += rs; fineSq[t] += rq; fineN[t] += Double(xb - xa)
                    sum += rs; sq += rq
                    edges += rowEdges; flat += rowFlat
                    directional += rowDirectional
                }
                count += Double(w - 2)
            }
        }
        m.lapVar = sq / count - (sum / count) * (sum / count)
        func variance(_ s: Double, _ q: Double, _ n: Double) -> Double { q / n - (s / n) * (s / n) }
        // The 4×4 tiles: each the sum of its 4×4 fine tiles.
        var tileSum = [Double](repeating: 0, count: tiles * tiles)
        var tileSq = [Double](repeating: 0, count: tiles * tiles)
        var tileN = [Double](repeating: 0, count: tiles * tiles)
        var fv: [Double] = []
        for t in 0..<(fine * fine) where fineN[t] > 0 {
            let c = (t / fine / 4) * tiles + (t % fine) / 4
            tileSum[c] += fineSum[t]; tileSq[c] += fineSq[t]; tileN[c] += fineN[t]
            fv.append(variance(fineSum[t], fineSq[t], fineN[t]))
        }
        var tv: [Double] = []
        for t in 0..<(tiles * tiles) where tileN[t] > 0 { tv.append(variance(tileSum[t], tileSq[t], tileN[t])) }
        tv.sort()
        fv.sort()
        m.lapTileMax = tv.last ?? 0
        m.lapTileMedian = tv.medianOfSorted ?? 0
        m.lapFineMax = fv.last ?? 0
        m.noise = fv.isEmpty ? 0 : (max(0, fv[(fv.count - 1) / 10]) / 20).squareRoot()
        m.dir0 = directional[0] / count; m.dir45 = directional[1] / count
        m.dir90 = directional[2] / count; m.dir135 = directional[3] / count
        m.edgeDensity = Double(edges) / count
        m.flatFraction = Double(flat) / count
        m.reblur = reblur(p, x0: 0, y0: 0, x1: w, y1: h)
        // The sharpest tile's re-blur.
        var best = 0, bestV = -1.0
        for t in 0..<(tiles * tiles) where tileN[t] > 0 {
            let v = variance(tileSum[t], tileSq[t], tileN[t])
            if v > bestV { bestV = v; best = t }
        }
        let bx = best % tiles, by = best / tiles
        m.reblurTile = reblur(p, x0: bx * w / tiles, y0: by * h / tiles, x1: (bx + 1) * w / tiles, y1: (by + 1) * h / tiles)
    }

    /// Crété-Roffet et al. 2007, "The blur effect: perception and estimation with a new
    /// no-reference perceptual blur metric": the share of neighbour differences a 9-tap box blur
    /// removes, per direction; the larger direction wins. 0 sharp … 1 blurry.
    /// The blurred image is never made: two neighbours' 9-tap sums share eight taps, so their
    /// difference is the two taps that differ (with the taps clamped to the region, as the
    /// definition clamps them): b(y) − b(y−1) = (p(y+4) − p(y−5)) / 9. One pass down the region,
    /// four pixels at a time, reading four values per pixel and direction instead of the
    /// eighteen of two 9-tap sums; the values equal the definition's to Float rounding (its
    /// nine-term sums round, this difference does not), the Double sums are added in another order.
    static func reblur(_ p: Plane, x0: Int, y0: Int, x1: Int, y1: Int) -> Double {
        let w = p.width
        let rw = x1 - x0, rh = y1 - y0
        guard rw > 10 && rh > 10 else { return 0 }
        var dfv = 0.0, dbv = 0.0, dfh = 0.0, dbh = 0.0
        let ninth: Float = 1.0 / 9  // a multiply instead of a division per pixel (within an ulp of it)
        // A row's differences and the parts of them the blur keeps, vertical and horizontal. They
        // are summed in Double at the end of the row, all four in one loop: converting in the
        // Float loops made the compiler split every vector into halves and compute them twice,
        // and four sums side by side do not wait on each other's adds.
        let diffV = UnsafeMutablePointer<Float>.allocate(capacity: rw)
        let keptV = UnsafeMutablePointer<Float>.allocate(capacity: rw)
        let diffH = UnsafeMutablePointer<Float>.allocate(capacity: rw)
        let keptH = UnsafeMutablePointer<Float>.allocate(capacity: rw)
        defer { diffV.deallocate(); keptV.deallocate(); diffH.deallocate(); keptH.deallocate() }
        // The four-at-a-time stretches: vertical x in 0..<vectorV, horizontal x - 1 in 0..<vectorH.
        let vectorV = rw & ~3, vectorH = (rw - 1) & ~3
        p.data.withUnsafeBufferPointer { buf in
            // Row y of the region (clamped to it), from column x0.
            let region = buf.baseAddress! + x0
            @inline(__always) func rowAt(_ y: Int) -> UnsafePointer<Float> { region + min(y1 - 1, max(y0, y)) &* w }
            for y in y0..<y1 {
                let row = rowAt(y)
                let first = y == y0
                var x = 0
                if !first {
                    // Vertical: the row against the one above, and the blur's change between them.
                    let up = row - w, below4 = rowAt(y + 4), above5 = rowAt(y - 5)
                    while x + 4 <= rw {
                        let df = magnitude(load4(row, x) - load4(up, x))
                        let db = magnitude(load4(below4, x) - load4(above5, x)) * ninth
                        store4(diffV, x, df)
                        store4(keptV, x, positive(df - db))
                        x &+= 4
                    }
                    while x < rw {
                        let df = abs(row[x] - up[x]), db = abs(below4[x] - above5[x]) * ninth
                        diffV[x] = df; keptV[x] = max(0, df - db)
                        x &+= 1
                    }
                }
                // Horizontal: each pixel against the one to its left; the blur's change between
                // them is row[x + 4] − row[x − 5], clamped to the region's columns.
                @inline(__always) func horizontal1(_ x: Int) {
                    let df = abs(row[x] - row[x - 1])
                    let db = abs(row[min(rw - 1, x + 4)] - row[max(0, x - 5)]) * ninth
                    diffH[x - 1] = df; keptH[x - 1] = max(0, df - db)
                }
                x = 1
                while x < 5 { horizontal1(x); x &+= 1 }
                while x + 4 <= rw - 4 {
                    let df = magnitude(load4(row, x) - load4(row, x &- 1))
                    let db = magnitude(load4(row, x &+ 4) - load4(row, x &- 5)) * ninth
                    store4(diffH, x &- 1, df)
                    store4(keptH, x &- 1, positive(df - db))
                    x &+= 4
                }
                while x < rw { horizontal1(x); x &+= 1 }
                // The sums: lane k of each stretch adds every fourth value from k (as SIMD4
                // Double sums in the loops above would), then the lanes, then the tail in order.
                var sums = LaneSums()
                var i = 0
                if !first {
                    while i + 4 <= vectorH {
                        sums.add(diffV, keptV, i, into: 0)
                        sums.add(diffH, keptH, i, into: 1)
                        i &+= 4
                    }
                    if i < vectorV { sums.add(diffV, keptV, i, into: 0) }
                    var rowF = sums.total(0), rowB = sums.total(1)
                    for x in vectorV..<rw { rowF += Double(diffV[x]); rowB += Double(keptV[x]) }
                    dfv += rowF; dbv += rowB
                } else {
                    while i + 4 <= vectorH { sums.add(diffH, keptH, i, into: 1); i &+= 4 }
                }
                var rowF = sums.total(2), rowB = sums.total(3)
                for x in vectorH..<(rw - 1) { rowF += Double(diffH[x]); rowB += Double(keptH[x]) }
                dfh += rowF; dbh += rowB
            }
        }
        let bv = dfv > 0 ? (dfv - dbv) / dfv : 1
        let bh = dfh > 0 ? (dfh - dbh) / dfh : 1
        return max(bv, bh)
    }

    /// Four Double sums of Float rows, lane by lane: `add` puts values i..<i+4 of two rows into
    /// sums 2·pair and 2·pair + 1; `total(k)` is sum k as `SIMD4<Double>.sum()` gives it.
    private struct LaneSums {
        var lo = (SIMD2<Double>(), SIMD2<Double>(), SIMD2<Double>(), SIMD2<Double>())
        var hi = (SIMD2<Double>(), SIMD2<Double>(), SIMD2<Double>(), SIMD2<Double>())

        @inline(__always)
        mutating func add(_ a: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>, _ i: Int, into pair: Int) {
            let ra = UnsafeRawPointer(a + i), rb = UnsafeRawPointer(b + i)
            let aLo = SIMD2<Double>(ra.loadUnaligned(as: SIMD2<Float>.self))
            let aHi = SIMD2<Double>(ra.loadUnaligned(fromByteOffset: 8, as: SIMD2<Float>.self))
            let bLo = SIMD2<Double>(rb.loadUnaligned(as: SIMD2<Float>.self))
            let bHi = SIMD2<Double>(rb.loadUnaligned(fromByteOffset: 8, as: SIMD2<Float>.self))
            if pair == 0 {
                lo.0 += aLo; hi.0 += aHi; lo.1 += bLo; hi.1 += bHi
            } else {
                lo.2 += aLo; hi.2 += aHi; lo.3 += bLo; hi.3 += bHi
            }
        }

        func total(_ k: Int) -> Double {
            switch k {
            case 0: return SIMD4(lowHalf: lo.0, highHalf: hi.0).sum()
            case 1: return SIMD4(lowHalf: lo.1, highHalf: hi.1).sum()
            case 2: return SIMD4(lowHalf: lo.2, highHalf: hi.2).sum()
            default: return SIMD4(lowHalf: lo.3, highHalf: hi.3).sum()
            }
        }
    }

    /// The luma histogram, mean and spread: four pixels at a time into four histograms (a run of
    /// equal pixels does not wait on one counter) and two pairs of Double sums.
    static func histogram(_ p: Plane, into m: inout Metrics) {
        var hist = [Int](repeating: 0, count: 256)
        var sum = 0.0, sq = 0.0
        let counts = UnsafeMutablePointer<Int>.allocate(capacity: 4 * 256)
        defer { counts.deallocate() }
        counts.initialize(repeating: 0, count: 4 * 256)
        // Round half up (the values are ≥ 0), clamp to the 256 bins.
        @inline(__always) func bin(_ v: Float) -> Int { Int(max(0, min(255, v + 0.5))) }
        p.data.withUnsafeBufferPointer { buf in
            guard let d = buf.baseAddress else { return }
            let n = buf.count
            var s0 = SIMD2<Double>(), s1 = SIMD2<Double>(), q0 = SIMD2<Double>(), q1 = SIMD2<Double>()
            var i = 0
            while i + 4 <= n {
                let v = load4(d, i)
                // bin(_:) four at a time: the same sum, clamp and truncation (values ≥ 0).
                let b = floorSmall(clamped255(v + 0.5))
                counts[Int(b[0])] &+= 1
                counts[256 &+ Int(b[1])] &+= 1
                counts[512 &+ Int(b[2])] &+= 1
                counts[768 &+ Int(b[3])] &+= 1
                let lo = SIMD2<Double>(v.lowHalf), hi = SIMD2<Double>(v.highHalf)
                s0 += lo; s1 += hi; q0 += lo * lo; q1 += hi * hi
                i += 4
            }
            sum = (s0 + s1).sum(); sq = (q0 + q1).sum()
            while i < n {
                counts[bin(d[i])] += 1
                let dv = Double(d[i])
                sum += dv; sq += dv * dv
                i += 1
            }
        }
        for b in 0..<256 { hist[b] = counts[b] + counts[256 + b] + counts[512 + b] + counts[768 + b] }
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

    /// Colourfulness (Hasler & Süsstrunk), mean HSV saturation and the brightest channel's
    /// bright and clipped shares of R, G, B planes (levels as the histogram bins them).
    static func colorStatistics(_ planes: [Plane]) -> Colour {
        let n = planes[0].data.count
        var srg = 0.0, srg2 = 0.0, syb = 0.0, syb2 = 0.0, ssat = 0.0
        var bright = 0, clipped = 0
        for i in 0..<n {
            let r = Double(planes[0].data[i]), g = Double(planes[1].data[i]), b = Double(planes[2].data[i])
            let rg = r - g, yb = 0.5 * (r + g) - b
            srg += rg; srg2 += rg * rg; syb += yb; syb2 += yb * yb
            let mx = max(r, g, b), mn = min(r, g, b)
            ssat += mx > 0 ? (mx - mn) / mx : 0
            let level = Int(min(255, max(0, mx.rounded())))
            if level > 232 { bright += 1 }
            if level >= 250 { clipped += 1 }
        }
        let dn = Double(n)
        let mrg = srg / dn, myb = syb / dn
        let sdrg = max(0, srg2 / dn - mrg * mrg).squareRoot(), sdyb = max(0, syb2 / dn - myb * myb).squareRoot()
        return Colour(
            colorfulness: (sdrg * sdrg + sdyb * sdyb).squareRoot() + 0.3 * (mrg * mrg + myb * myb).squareRoot(), saturation: ssat / dn,
            channelBright: Double(bright) / dn, channelClipped: Double(clipped) / dn)
    }

    /// dHash (9×8), pHash (32×32 DCT) and the thumbnails: the 32×32 luma and `color8`.
    static func signature(luma: Plane, color8: [Float]) -> VisualSignature {
        let d = luma.resized(9, 8)
        var dh: UInt64 = 0
        for y in 0..<8 { for x in 0..<8 { dh = (dh << 1) | (d.data[y * 9 + x] < d.data[y * 9 + x + 1] ? 1 : 0) } }
        let p32 = luma.resized(32, 32)
        let coeffs = dct8x8(p32.data)
        let median = coeffs.sorted()[32]
        var ph: UInt64 = 0
        for c in coeffs { ph = (ph << 1) | (c > median ? 1 : 0) }
        // VisualSignature.lumaSide is 32: the pHash's plane is the thumbnail.
        var thumb = p32.data.map { UInt8(max(0, min(255, $0.rounded()))) }
        thumb.reserveCapacity(thumb.count + 192)
        for v in color8 { thumb.append(UInt8(max(0, min(255, v.rounded())))) }
        return VisualSignature(dhash: dh, phash: ph, thumbnail: thumb)
    }

    /// Counts QR finder patterns the way a QR reader finds them (ISO/IEC 18004 §6.3.3 and
    /// §12, the reference decode algorithm; zxing's `FinderPatternFinder` works the same way):
    /// 1. binarize: a pixel is dark when it is below the mean of the 33×33 box around it minus 8,
    ///    or below 60 (so shadows and gradients do not hide a code);
    /// 2. along every row, find runs of dark, light, dark, light, dark in the ratio 1:1:3:1:1;
    /// 3. cross-check each one down the column through its centre (the same ratio, a total within
    ///    40 % of the row's) and then along the row through the refined centre;
    /// 4. merge confirmations of the same centre (closer than its module size, similar module size).
    /// 5. score how the centres confirmed on at least two rows are laid out
    ///    (`FinderPatternFinder.layoutScore`: 3 = a code's corner triangle, 2 = a pair a code's
    ///    width apart, 1 = a lone centre). A photo's texture makes plenty of 1:1:3:1:1 runs along
    ///    rows but rarely concentric squares that pass both cross-checks in a code's layout.
    static func finderPatterns(_ p: Plane) -> Int {
        let w = p.width, h = p.height
        guard w >= 21 && h >= 21 else { return 0 }
        // 1. Binarize against the local mean: column sums (of the pixels truncated to integers)
        //    over the 33 rows around the current one, slid down a row at a time, and their prefix
        //    sums along the row. Int32 is plenty (33·33·255 per box, ≤ 1024 columns) and lets
        //    the column updates and the comparison run four or more pixels at a time.
        let level = UnsafeMutablePointer<UInt8>.allocate(capacity: w * h)
        let colSum = UnsafeMutablePointer<Int32>.allocate(capacity: w)
        let prefix = UnsafeMutablePointer<Int32>.allocate(capacity: w + 1)
        defer { level.deallocate(); colSum.deallocate(); prefix.deallocate() }
        colSum.initialize(repeating: 0, count: w)
        prefix.initialize(repeating: 0, count: w + 1)
        // Every pixel is binarized below, so the buffer is not zeroed first.
        let dark = [Bool](unsafeUninitializedCapacity: w * h) { dkBuf, initialized in
            p.data.withUnsafeBufferPointer { buf in
                let d = buf.baseAddress!
                // UInt8(clamping: Int(v)), four pixels at a time.
                var i = 0
                while i + 4 <= w * h {
                    let v = floorSmall(clamped255(load4(d, i)))
                    UnsafeMutableRawPointer(level + i).storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: v), as: SIMD4<UInt8>.self)
                    i &+= 4
                }
                while i < w * h { level[i] = UInt8(clamping: Int(d[i])); i &+= 1 }
                let dk = UnsafeMutableRawPointer(dkBuf.baseAddress!)
                for r in 0..<min(h, 17) {
                    let src = level + r * w
                    for x in 0..<w { colSum[x] &+= Int32(src[x]) }
                }
                for y in 0..<h {
                    if y > 0 {
                        let entering = y + 16 < h ? level + (y + 16) * w : nil
                        let leaving = y - 17 >= 0 ? level + (y - 17) * w : nil
                        if let e = entering, let l = leaving {
                            // Four columns at a time (the compiler leaves this loop scalar).
                            var x = 0
                            while x + 4 <= w {
                                let sum = loadInt4(colSum, x) &+ widen4(e, x) &- widen4(l, x)
                                UnsafeMutableRawPointer(colSum + x).storeBytes(of: sum, as: SIMD4<Int32>.self)
                                x &+= 4
                            }
                            while x < w { colSum[x] = colSum[x] &+ Int32(e[x]) &- Int32(l[x]); x &+= 1 }
                        } else if let e = entering {
                            for x in 0..<w { colSum[x] &+= Int32(e[x]) }
                        } else if let l = leaving {
                            for x in 0..<w { colSum[x] &-= Int32(l[x]) }
                        }
                    }
                    for x in 0..<w { prefix[x + 1] = prefix[x] &+ colSum[x] }
                    let rows = min(h, y + 17) - max(0, y - 16)
                    let row = y * w
                    // v < mean - 8, as v·area < sum - 8·area (no division per pixel); the
                    // interior, where the box is whole, four pixels at a time.
                    func edge(_ x: Int) {
                        let x0 = max(0, x - 16), x1 = min(w, x + 17)
                        let area = Float(rows * (x1 - x0))
                        let v = d[row + x]
                        dk.storeBytes(of: v * area < Float(prefix[x1] &- prefix[x0]) - 8 * area || v < 60, toByteOffset: row + x, as: Bool.self)
                    }
                    let innerEnd = max(16, w - 16)
                    for x in 0..<min(16, w) { edge(x) }
                    let area = Float(rows * 33), margin = 8 * area
                    var x = 16
                    while x + 4 <= innerEnd {
                        let v = load4(d, row &+ x)
                        let box = SIMD4<Float>(loadInt4(prefix, x &+ 17) &- loadInt4(prefix, x &- 16))
                        let isDark = (v * area .< box - margin) .| (v .< 60)
                        let bits = unsafeBitCast(isDark, to: SIMD4<Int32>.self) & 1
                        dk.storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: bits), toByteOffset: row &+ x, as: SIMD4<UInt8>.self)
                        x += 4
                    }
                    while x < innerEnd {
                        let v = d[row + x]
                        dk.storeBytes(of: v * area < Float(prefix[x + 17] &- prefix[x - 16]) - margin || v < 60, toByteOffset: row + x, as: Bool.self)
                        x += 1
                    }
                    for x in innerEnd..<w { edge(x) }
                }
            }
            initialized = w * h
        }
        return dark.withUnsafeBufferPointer { dk in
            FinderPatternFinder(dark: dk, width: w, height: h).confirmedCentres()
        }
    }

    /// The 8×8 lowest frequencies of the 32×32 DCT-II (rows then columns).
    static func dct8x8(_ px: [Float]) -> [Double] {
        let n = 32
        var cosTable = [Double](repeating: 0, count: 8 * n)
        for u in 0..<8 { for x in 0..<n { cosTable[u * n + x] = cos(Double((2 * x + 1) * u) * Double.pi / Double(2 * n)) } }
        // Rows: 32 rows × 8 frequencies.
        var rows = [Double](repeating: 0, count: n * 8)
        for y in 0..<n { for u in 0..<8 { var s = 0.0; for x in 0..<n { s += Double(px[y * n + x]) * cosTable[u * n + x] }; rows[y * 8 + u] = s } }
        var out = [Double](repeating: 0, count: 64)
        for v in 0..<8 { for u in 0..<8 { var s = 0.0; for y in 0..<n { s += rows[y * 8 + u] * cosTable[v * n + y] }; out[v * 8 + u] = s } }
        return out
    }
}

/// Finds QR finder-pattern centres in a binarized image (see `MetricsComputer.finderPatterns`).
struct FinderPatternFinder {
    let dark: UnsafeBufferPointer<Bool>
    let width: Int
    let height: Int

    struct Centre {
        var x: Double
        var y: Double
        var module: Double
        var hits: Int
    }

    /// Whether five run lengths are 1:1:3:1:1 within the tolerance (each run within half its
    /// expected length of it, and never stricter than ¾ px).
    @inline(__always)
    static func isFinderRatio(_ a: Int, _ b: Int, _ c: Int, _ d: Int, _ e: Int) -> Bool {
        let total = a + b + c + d + e
        guard total >= 7 else { return false }
        let unit = Double(total) / 7
        let one = max(0.5 * unit, 0.75), three = max(1.5 * unit, 0.75)
        return abs(Double(a) - unit) <= one && abs(Double(b) - unit) <= one && abs(Double(c) - 3 * unit) <= three
            && abs(Double(d) - unit) <= one && abs(Double(e) - unit) <= one
    }

    static func isFinderRatio(_ r: [Int]) -> Bool { isFinderRatio(r[0], r[1], r[2], r[3], r[4]) }

    func isDark(_ x: Int, _ y: Int) -> Bool { dark[y * width + x] }

    /// The 1:1:3:1:1 runs through (x, y) along (dx, dy), starting inside the centre run: the five
    /// run lengths and the centre's offset from (x, y) along the line, or nil. Runs longer than
    /// `maxRun` stop the walk (zxing's `maxCount`).
    func crossCheck(x: Int, y: Int, dx: Int, dy: Int, maxRun: Int) -> (runs: [Int], centre: Double)? {
        guard isDark(x, y) else { return nil }
        var runs = [0, 0, 0, 0, 0]
        func inside(_ i: Int) -> Bool {
            let px = x + i * dx, py = y + i * dy
            return px >= 0 && py >= 0 && px < width && py < height
        }
        func d(_ i: Int) -> Bool { isDark(x + i * dx, y + i * dy) }
        // Backwards: centre, light, dark.
        var i = 0
        while inside(i) && d(i) { runs[2] += 1; i -= 1 }
        guard inside(i) else { return nil }
        while inside(i) && !d(i) && runs[1] <= maxRun { runs[1] += 1; i -= 1 }
        guard inside(i), runs[1] <= maxRun else { return nil }
        while inside(i) && d(i) && runs[0] <= maxRun { runs[0] += 1; i -= 1 }
        guard runs[0] <= maxRun else { return nil }
        // Forwards.
        var j = 1
        while inside(j) && d(j) { runs[2] += 1; j += 1 }
        guard inside(j) else { return nil }
        while inside(j) && !d(j) && runs[3] <= maxRun { runs[3] += 1; j += 1 }
        guard inside(j), runs[3] <= maxRun else { return nil }
        while inside(j) && d(j) && runs[4] <= maxRun { runs[4] += 1; j += 1 }
        guard runs[4] <= maxRun, FinderPatternFinder.isFinderRatio(runs) else { return nil }
        // The centre run spans (j - runs[4] - runs[3] - runs[2]) ..< (j - runs[4] - runs[3]).
        let centreEnd = Double(j - runs[4] - runs[3])
        return (runs, centreEnd - Double(runs[2]) / 2)
    }

    func confirmedCentres() -> Int {
        var centres: [Centre] = []
        // Run lengths and starts along a row; runs alternate, so run i is dark exactly when
        // the row starts dark and i is even, or starts light and i is odd.
        let runs = UnsafeMutableBufferPointer<Int>.allocate(capacity: width + 1)
        let starts = UnsafeMutableBufferPointer<Int>.allocate(capacity: width + 1)
        defer { runs.deallocate(); starts.deallocate() }
        for y in 0..<height {
            let row = y * width
            // A run starts at 0 and wherever a pixel differs from the one before it. Bools are
            // bytes 0 or 1, so eight pixels XOR their left neighbours in one word: a stretch
            // without an edge costs one compare, and each edge is one set bit.
            let line = UnsafeRawPointer(dark.baseAddress! + row)
            var n = 1
            starts[0] = 0
            var x = 1
            while x + 8 <= width {
                var edges = line.loadUnaligned(fromByteOffset: x, as: UInt64.self) ^ line.loadUnaligned(fromByteOffset: x - 1, as: UInt64.self)
                while edges != 0 {
                    starts[n] = x &+ edges.trailingZeroBitCount &>> 3
                    n &+= 1
                    edges &= edges &- 1
                }
                x &+= 8
            }
            while x < width {
                if dark[row + x] != dark[row + x - 1] { starts[n] = x; n &+= 1 }
                x &+= 1
            }
            starts[n] = width
            for i in 0..<n { runs[i] = starts[i + 1] &- starts[i] }
            guard n >= 5 else { continue }
            for i in stride(from: dark[row] ? 0 : 1, to: n - 4, by: 2) {
                guard FinderPatternFinder.isFinderRatio(runs[i], runs[i + 1], runs[i + 2], runs[i + 3], runs[i + 4]) else { continue }
                let r = [runs[i], runs[i + 1], runs[i + 2], runs[i + 3], runs[i + 4]]
                let total = r.reduce(0, +)
                let cx = starts[i + 2] + r[2] / 2
                // Down the column through the centre.
                guard let v = crossCheck(x: cx, y: y, dx: 0, dy: 1, maxRun: r[2]) else { continue }
                let vTotal = v.runs.reduce(0, +)
                guard 5 * abs(vTotal - total) < 2 * total else { continue }
                let cy = Int((Double(y) + v.centre).rounded(.down))
                guard cy >= 0, cy < height else { continue }
                // Along the row through the refined centre.
                guard let hc = crossCheck(x: cx, y: cy, dx: 1, dy: 0, maxRun: r[2]) else { continue }
                let hTotal = hc.runs.reduce(0, +)
                guard 5 * abs(hTotal - total) < 2 * total else { continue }
                let fx = Double(cx) + hc.centre, fy = Double(y) + v.centre
                let module = Double(hTotal + vTotal) / 14
                if let k = centres.firstIndex(where: {
                    abs($0.x - fx) <= $0.module * 1.5 && abs($0.y - fy) <= $0.module * 1.5 && abs($0.module - module) <= max(1, 0.5 * $0.module)
                }) {
                    let c = centres[k], n = Double(c.hits)
                    centres[k] = Centre(
                        x: (c.x * n + fx) / (n + 1), y: (c.y * n + fy) / (n + 1), module: (c.module * n + module) / (n + 1), hits: c.hits + 1)
                } else if centres.count < 4096 {  // a bound on pathological textures
                    centres.append(Centre(x: fx, y: fy, module: module, hits: 1))
                }
            }
        }
        return FinderPatternFinder.layoutScore(centres.filter { $0.hits >= 2 })
    }

    /// How far confirmed centres look like a QR code's three finders: 3 when three of them form
    /// the code's corner triangle (module sizes within 40 % of each other, two sides equal within
    /// 30 % and the third √2 times as long within 25 %: perspective and rotation stay within
    /// that), 2 when two of them sit a code's width apart (14 to 180 modules: versions 1 to 40)
    /// with the same module size, 1 when there is any centre, else 0. Concentric rings (a cup, a
    /// wheel, an eye) pass the cross-checks but rarely come in such pairs or triangles.
    static func layoutScore(_ c: [Centre]) -> Int {
        guard !c.isEmpty else { return 0 }
        let c = Array(c.sorted { $0.hits > $1.hits }.prefix(64))
        func sameModule(_ a: Centre, _ b: Centre) -> Bool { max(a.module, b.module) <= 1.4 * min(a.module, b.module) }
        func dist(_ a: Centre, _ b: Centre) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }
        func apart(_ a: Centre, _ b: Centre) -> Bool {
            let modules = dist(a, b) / ((a.module + b.module) / 2)
            return modules >= 14 * 0.8 && modules <= 180 * 1.5
        }
        var best = 1
        for i in 0..<c.count {
            for j in (i + 1)..<c.count where sameModule(c[i], c[j]) && apart(c[i], c[j]) {
                best = 2
                for k in (j + 1)..<c.count where sameModule(c[i], c[k]) && sameModule(c[j], c[k]) {
                    let sides = [dist(c[i], c[j]), dist(c[j], c[k]), dist(c[i], c[k])].sorted()
                    if sides[1] <= 1.3 * sides[0] && abs(sides[2] / (sides[1] * 2.0.squareRoot()) - 1) <= 0.25 { return 3 }
                }
            }
        }
        return best
    }
}

/// ⌊v⌋ per lane, for 0 ≤ v < 2²²: v + 2²³ rounds to the nearest integer, which its low bits
/// hold, and that is one too many where it rounded up. (Swift's SIMD Float-to-Int conversion
/// goes lane by lane through a generic, checked path.)
@inline(__always)
private func floorSmall(_ v: SIMD4<Float>) -> SIMD4<Int32> {
    let magic = SIMD4<Float>(repeating: 8_388_608)
    let shifted = v + magic
    let roundedUp = unsafeBitCast((shifted - magic) .> v, to: SIMD4<Int32>.self)  // -1 where true
    return (unsafeBitCast(shifted, to: SIMD4<Int32>.self) &- 0x4B00_0000) &+ roundedUp
}

/// max(0, min(255, v)) per lane, as the scalar `min` and `max` pick (NaN becomes 255).
@inline(__always)
private func clamped255(_ v: SIMD4<Float>) -> SIMD4<Float> {
    let below = unsafeBitCast(v .< 255, to: SIMD4<UInt32>.self)
    let top = unsafeBitCast(SIMD4<Float>(repeating: 255), to: SIMD4<UInt32>.self)
    let m = (unsafeBitCast(v, to: SIMD4<UInt32>.self) & below) | (top & ~below)
    let nonNegative = unsafeBitCast(unsafeBitCast(m, to: SIMD4<Float>.self) .>= 0, to: SIMD4<UInt32>.self)
    return unsafeBitCast(m & nonNegative, to: SIMD4<Float>.self)
}

/// `max` per lane. Written lane by lane, the compiler makes it one `maxps`; `pointwiseMax` is
/// a call into the standard library, and a mask select was lowered lane by lane.
@inline(__always)
private func larger(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
    SIMD4(max(a[0], b[0]), max(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
}

/// `min` per lane (see `larger`).
@inline(__always)
private func smaller(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
    SIMD4(min(a[0], b[0]), min(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))
}

/// Four Floats from `p + i` (any alignment).
@inline(__always)
private func load4(_ p: UnsafePointer<Float>, _ i: Int) -> SIMD4<Float> {
    UnsafeRawPointer(p + i).loadUnaligned(as: SIMD4<Float>.self)
}

@inline(__always)
private func load4(_ p: UnsafeMutablePointer<Float>, _ i: Int) -> SIMD4<Float> {
    UnsafeRawPointer(p + i).loadUnaligned(as: SIMD4<Float>.self)
}

/// max(0, v) per lane (negative lanes become +0).
@inline(__always)
private func positive(_ v: SIMD4<Float>) -> SIMD4<Float> {
    unsafeBitCast(unsafeBitCast(v, to: SIMD4<UInt32>.self) & unsafeBitCast(v .> 0, to: SIMD4<UInt32>.self), to: SIMD4<Float>.self)
}

/// Four Int32s from `p + i` (any alignment).
@inline(__always)
private func loadInt4(_ p: UnsafeMutablePointer<Int32>, _ i: Int) -> SIMD4<Int32> {
    UnsafeRawPointer(p + i).loadUnaligned(as: SIMD4<Int32>.self)
}

/// Four bytes from `p + i` as Int32s.
@inline(__always)
private func widen4(_ p: UnsafeMutablePointer<UInt8>, _ i: Int) -> SIMD4<Int32> {
    SIMD4<Int32>(truncatingIfNeeded: UnsafeRawPointer(p + i).loadUnaligned(as: SIMD4<UInt8>.self))
}

/// Stores four Floats at `p + i` (any alignment).
@inline(__always)
private func store4(_ p: UnsafeMutablePointer<Float>, _ i: Int, _ v: SIMD4<Float>) {
    UnsafeMutableRawPointer(p + i).storeBytes(of: v, as: SIMD4<Float>.self)
}

/// |v| per lane (the sign bit cleared, as `abs` does).
@inline(__always)
private func magnitude(_ v: SIMD4<Float>) -> SIMD4<Float> {
    unsafeBitCast(unsafeBitCast(v, to: SIMD4<UInt32>.self) & 0x7fff_ffff, to: SIMD4<Float>.self)
}
