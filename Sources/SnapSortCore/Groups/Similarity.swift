import Foundation
import SnapSortSystem

/// How alike two photos look, robust to what separates frames of one moment (a small shift,
/// a zoom, another exposure) and strict about what separates different moments.
///
/// Each photo carries a 32×32 luma thumbnail (`VisualSignature`). Two thumbnails are aligned by
/// an exhaustive search over zoom (0.84…1.19) and shift (up to ±31 % of the frame) on a 16×16
/// reduction, refined at 32×32 around the best transform; the score is the zero-mean normalized
/// cross-correlation (Pearson r) over the overlap, so exposure changes cancel out. The search
/// reaches alignments that keep only `minimumSearchOverlap` of the frame, so the frames of a pan
/// (overlapping 40–55 %) are aligned where they really overlap instead of at the edge of the
/// search, and the overlap it reports is what `GroupRules.minimumOverlap` judges.
public struct Thumbnail: Sendable {
    public static let side = VisualSignature.lumaSide
    /// 32×32 luma, zero mean and unit variance.
    let full: [Float]
    /// 16×16 reduction, zero mean and unit variance.
    let half: [Float]
    /// The 8×8 RGB thumbnail.
    let color: [UInt8]
    /// `full` and `half` with their summed-area tables (`aligned`).
    let fullPlane: SummedPlane
    let halfPlane: SummedPlane
    /// The stored signature it was read from (`mirrored`).
    let signature: [UInt8]

    /// Reads a stored signature blob; nil when it is not a 32×32 one.
    public init?(signature: [UInt8]) {
        let n = Thumbnail.side * Thumbnail.side
        guard signature.count >= n + 192 else { return nil }
        self.signature = signature
        let luma = signature[0..<n].map(Float.init)
        full = Thumbnail.standardized(luma)
        var h = [Float](repeating: 0, count: n / 4)
        let s = Thumbnail.side
        for y in 0..<(s / 2) {
            for x in 0..<(s / 2) {
                h[y * s / 2 + x] =
                    (luma[2 * y * s + 2 * x] + luma[2 * y * s + 2 * x + 1] + luma[(2 * y + 1) * s + 2 * x] + luma[(2 * y + 1) * s + 2 * x + 1]) / 4
            }
        }
        half = Thumbnail.standardized(h)
        color = Array(signature[n..<(n + 192)])
        fullPlane = SummedPlane(full, side: s)
        halfPlane = SummedPlane(half, side: s / 2)
    }

    static func standardized(_ v: [Float]) -> [Float] {
        let n = Float(v.count)
        let mean = v.reduce(0, +) / n
        var sq: Float = 0
        for x in v { sq += (x - mean) * (x - mean) }
        let sd = max((sq / n).squareRoot(), 1)  // flat images stay flat instead of amplifying noise
        return v.map { ($0 - mean) / sd }
    }

    /// The zooms searched.
    static let scales: [Float] = [0.84, 0.89, 0.94, 1.0, 1.06, 1.12, 1.19]
    /// The largest shift searched, in pixels of the 16×16 reduction (5 = 31 % of the frame).
    static let maxShift = 5
    /// Alignments whose overlap is smaller than this share of the frame are not considered.
    static let minimumSearchOverlap: Float = 0.35
    /// How many of the best coarse alignments are refined (besides the identity).
    static let refinedCandidates = 3
    /// The turns (degrees) tried around the refined alignment: a retake held a little crooked.
    static let turns: [Float] = [-6, -4, -2, 2, 4, 6]
    /// …when the straight winner's zoom lies within the searched zooms: a refinement pushed past
    /// them is the search's edge, where two frames that are no small transform of each other (a
    /// pan's, half in common) end up, and a turn there only fits texture (one pan pair in DEV went
    /// from 0.76 to 0.86 at zoom 1.23).
    static let turnedZooms = scales.first!...scales.last!
    /// …and when the straight winner scores at least this: the largest gain of a turn seen (DEV2's
    /// crooked retake, 0.75 → 0.95) was 0.2, so a pair below it cannot reach the threshold (0.8)
    /// turned, and most of a library's neighbours that are refined score below it.
    static let turnFloor: Float = 0.6

    /// The best Pearson correlation between `self` and `other` over the aligned overlap, and the
    /// overlap's share of the frame at that alignment.
    ///
    /// An alignment is a zoom `s` about the centre and a whole-pixel shift (`dx`, `dy`) of
    /// `other`: pixel (x, y) of `self` meets `other` at ((x - dx - c) / s + c, (y - dy - c) / s + c),
    /// bilinear, and only pixels that land inside `other` count.
    /// The 16×16 search only proposes: the best `refinedCandidates` coarse alignments and the
    /// identity (frames of a burst barely move) are each refined at 32×32 (shift doubled, ±1 px,
    /// zoom ±3 %), and the best refined one wins. A single coarse winner is not enough: at 16×16
    /// a textured frame can correlate best at a wrong zoom, whose refinement then misses the true
    /// alignment. Last, `other` is turned about its centre by each of `turns` at the winner's
    /// zoom (shift ±1 px; only when that zoom is within the search, `turnedZooms`, and the score
    /// reaches `turnFloor`): a retake is
    /// often held a few degrees crooked, which at 32×32 moves the corners by a pixel or two and
    /// can cost the straight alignment a fifth of its r. A turned sample counts where the
    /// straight one lands inside `other` (so the overlap is the straight one's) and is clamped
    /// to the frame (its corners leave the frame by under two pixels).
    ///
    /// This is most of a regroup's time (a library shot every minute and a half compares every
    /// photo with three neighbours), so shifts are whole pixels of `self`: for one zoom, `other`
    /// is resampled once (`Zoomed`) and every shift is a window of it. Sums over the overlap come
    /// from summed-area tables, the cross term from SIMD dot products of rows
    /// (`AlignmentReference` in the tests holds the per-pixel definition).
    public func aligned(with other: Thumbnail) -> (score: Double, overlap: Double) {
        refined(coarseCandidates(with: other), with: other)
    }

    /// `aligned(with:)` for a pair that counts only if it scores at least `threshold` (a regroup's
    /// window pairs): when no coarse alignment comes within `coarseMargin` of the threshold the
    /// 32×32 refinement is skipped and the coarse search's best is returned (`refined` false),
    /// otherwise the result is `aligned(with:)`'s, bit for bit.
    ///
    /// The refinement moves a coarse alignment by at most a pixel of the 32×32 thumbnail and 3 %
    /// of zoom, and turns it by at most 6° (the identity is also a coarse alignment; the largest
    /// gain of a turn seen, DEV2's crooked retake, was 0.2), so a pair that reaches the threshold
    /// there already correlates nearly as well at the coarse alignment it was refined from: the
    /// 16×16 reduction is the thumbnails' 2×2 means, which keep the low frequencies a photo's
    /// correlation rests on, and it is at most half a coarse pixel and 3 % of zoom off. On every
    /// pair accepted in DEV, DEV2 and a 100 000-photo library (6 507 of them) the best coarse r
    /// was at most 0.116 below the threshold; the margin is 0.3. This is an argument, not a
    /// proof: a pattern finer than 2×2 pixels (a checkerboard) averages away at 16×16, but a
    /// thumbnail is an area average of a photo, not such a pattern. `AlignmentEquivalenceTests`
    /// holds it on shifted, zoomed, rotated and re-exposed frames.
    func aligned(with other: Thumbnail, zooms: CoarseZooms? = nil, reaching threshold: Double) -> (score: Double, overlap: Double, refined: Bool) {
        let best = coarseCandidates(with: other, zooms: zooms)
        guard let first = best.first else { return (0, 0, false) }
        guard Double(first.r) >= threshold - Thumbnail.coarseMargin else {
            return (Double(first.r), Double(Thumbnail.sharedOverlap(first.overlap, scale: first.scale)), false)
        }
        let r = refined(best, with: other)
        return (r.score, r.overlap, true)
    }

    /// How far below the similarity threshold the best coarse alignment of a pair may score and
    /// still be refined (`aligned(with:reaching:)`).
    static let coarseMargin = 0.3

    /// An alignment of the search: Pearson r, zoom, shift (pixels of the 16×16 reduction) and
    /// overlap share.
    typealias Candidate = (r: Float, scale: Float, dx: Int, dy: Int, overlap: Float)

    /// `other`'s 16×16 reduction at every zoom of the search, with the tables the search reads:
    /// the same for every pair `other` is aligned in, so a regroup makes it once per photo
    /// (`SimilarClustering.align`) instead of once per pair.
    struct CoarseZooms: Sendable {
        let zooms: [Zoomed]

        init(_ other: Thumbnail) {
            let m = Thumbnail.maxShift
            zooms = Thumbnail.scales.map { Zoomed(other.halfPlane, scale: $0, dx: -m...m, dy: -m...m, tables: true) }
        }
    }

    /// The 16×16 search: the best `refinedCandidates` alignments, best first (empty when no
    /// alignment keeps `minimumSearchOverlap`). `zooms` are `other`'s, when already made.
    func coarseCandidates(with other: Thumbnail, zooms: CoarseZooms? = nil) -> [Candidate] {
        // Deterministic order: by score, then by the transform.
        func better(_ a: Candidate, _ b: Candidate) -> Bool { (a.r, -a.scale, -a.dx, -a.dy) > (b.r, -b.scale, -b.dx, -b.dy) }
        var best: [Candidate] = []  // the best `refinedCandidates`, best first
        best.reserveCapacity(Thumbnail.refinedCandidates + 1)
        let zooms = zooms ?? CoarseZooms(other)
        for (s, zoomed) in zip(Thumbnail.scales, zooms.zooms) {
            zoomed.correlations(with: halfPlane) {
                dx, dy, r, o in
                let c: Candidate = (r, s, dx, dy, o)
                if best.count == Thumbnail.refinedCandidates {
                    guard better(c, best[best.count - 1]) else { return }
                    best.removeLast()
                }
                let at = best.firstIndex { better(c, $0) } ?? best.count
                best.insert(c, at: at)
            }
        }
        return best
    }

    /// The 32×32 refinement of the coarse search's `best` (and the identity): the score and
    /// shared overlap `aligned(with:)` reports.
    func refined(_ best: [Candidate], with other: Thumbnail) -> (score: Double, overlap: Double) {
        guard let first = best.first else { return (0, 0) }
        var starts = best
        if !starts.contains(where: { $0.scale == 1 && $0.dx == 0 && $0.dy == 0 }) { starts.append((0, 1, 0, 0, 1)) }
        // Refine at full size around each start (shift doubles with the side).
        var fine: (r: Float, overlap: Float, scale: Float) = (-2, 0, 1)
        var shift = (dx: 0, dy: 0)
        for start in starts {
            for s in [start.scale * 0.97, start.scale, start.scale * 1.03] {
                let zoomed = Zoomed(
                    other.fullPlane, scale: s, dx: (2 * start.dx - 1)...(2 * start.dx + 1),
                    dy: (2 * start.dy - 1)...(2 * start.dy + 1), tables: false)
                zoomed.correlations(with: fullPlane) { dx, dy, r, o in
                    if r > fine.r { fine = (r, o, s); shift = (dx, dy) }
                }
            }
        }
        // Then turned, around the winner.
        if fine.r >= Thumbnail.turnFloor && Thumbnail.turnedZooms.contains(fine.scale) {
            let s = fine.scale, around = shift
            for degrees in Thumbnail.turns {
                let zoomed = Zoomed(
                    other.fullPlane, scale: s, dx: (around.dx - 1)...(around.dx + 1), dy: (around.dy - 1)...(around.dy + 1),
                    tables: false, turn: degrees * .pi / 180)
                zoomed.correlations(with: fullPlane) { _, _, r, o in
                    if r > fine.r { fine = (r, o, s) }
                }
            }
        }
        let chosen: (r: Float, overlap: Float, scale: Float) = fine.r > -2 ? fine : (first.r, first.overlap, first.scale)
        return (Double(chosen.r), Double(Thumbnail.sharedOverlap(chosen.overlap, scale: chosen.scale)))
    }

    /// The overlap as a share of *both* frames: the smaller of this frame's share and the other's
    /// (the other, magnified `scale` times, shows the overlap on 1/scale² of its area). A pair is
    /// then judged alike whichever of the two is aligned to the other — this frame's share alone
    /// let a pan's frames (half in common) pass one way round, zoomed in, and not the other.
    static func sharedOverlap(_ overlap: Float, scale: Float) -> Float {
        overlap * min(1, 1 / (scale * scale))
    }

    /// A square plane of side `n` (a multiple of 16) with its summed-area tables.
    struct SummedPlane: Sendable {
        let n: Int
        let values: [Float]
        /// (n+1)×(n+1): the sum of values (and of their squares) above and left of each corner.
        let sums: [Double]
        let squares: [Double]

        init(_ values: [Float], side n: Int) {
            self.n = n
            self.values = values
            (sums, squares) = SummedPlane.tables(values, width: n, height: n)
        }

        static func tables(_ v: [Float], width w: Int, height h: Int) -> ([Double], [Double]) {
            let count = (w + 1) * (h + 1)
            var q = [Double]()
            let s = [Double](unsafeUninitializedCapacity: count) { s, sInit in
                q = [Double](unsafeUninitializedCapacity: count) { q, qInit in
                    v.withUnsafeBufferPointer { v in
                        for x in 0...w { s[x] = 0; q[x] = 0 }
                        for y in 0..<h {
                            var row = 0.0, rowSq = 0.0
                            let above = y &* (w &+ 1), here = above &+ w &+ 1
                            s[here] = 0
                            q[here] = 0
                            for x in 0..<w {
                                let value = Double(v[y &* w &+ x])
                                row += value
                                rowSq += value * value
                                s[here &+ x &+ 1] = s[above &+ x &+ 1] + row
                                q[here &+ x &+ 1] = q[above &+ x &+ 1] + rowSq
                            }
                        }
                    }
                    qInit = count
                }
                sInit = count
            }
            return (s, q)
        }

        /// Sum over columns x0..<x1, rows y0..<y1 of a `width`-wide table.
        @inline(__always)
        static func rect(_ t: [Double], width w: Int, _ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int) -> Double {
            t.withUnsafeBufferPointer { rect($0, width: w, x0, y0, x1, y1) }
        }

        @inline(__always)
        static func rect(_ t: UnsafeBufferPointer<Double>, width w: Int, _ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int) -> Double {
            let stride = w &+ 1
            return t[y1 &* stride &+ x1] - t[y0 &* stride &+ x1] - t[y1 &* stride &+ x0] + t[y0 &* stride &+ x0]
        }
    }

    /// `other` zoomed by `scale` and sampled for a range of shifts: `grid[j][i]` is the bilinear
    /// sample at ((i - dx.upperBound - c) / scale + c, (j - dy.upperBound - c) / scale + c),
    /// zero outside the plane (turned by `turn` radians about the centre: see `refined`), so
    /// pixel (x, y) of `self` at shift (dx, dy) meets
    /// `grid[y - dy + dy.upperBound][x - dx + dx.upperBound]`, and sums over the overlap are sums
    /// over whole rows of a window of the grid.
    struct Zoomed: Sendable {
        let n: Int
        let dx: ClosedRange<Int>, dy: ClosedRange<Int>
        let width: Int
        let grid: [Float]
        /// The grid columns and rows that sample inside the plane (the same rule both ways).
        let columns: ClosedRange<Int>?, rows: ClosedRange<Int>?
        /// The grid's summed-area tables, when many shifts share them (`tables`).
        let sums: [Double], squares: [Double]

        init(_ plane: SummedPlane, scale: Float, dx: ClosedRange<Int>, dy: ClosedRange<Int>, tables: Bool, turn: Float = 0) {
            let n = plane.n
            self.n = n
            self.dx = dx
            self.dy = dy
            let w = n + dx.count - 1, h = n + dy.count - 1
            width = w
            let c = Float(n - 1) / 2, maxC = Float(n - 1)
            /// Where each grid index samples the plane: whole index and fraction; the valid range.
            func axis(_ count: Int, _ origin: Int, _ index: UnsafeMutablePointer<Int>, _ fraction: UnsafeMutablePointer<Float>) -> ClosedRange<Int>? {
                var lo = Int.max, hi = Int.min
                for i in 0..<count {
                    let u = (Float(i - origin) - c) / scale + c
                    guard u >= 0 && u <= maxC else { continue }
                    let i0 = min(Int(u), n - 2)
                    index[i] = i0
                    fraction[i] = u - Float(i0)
                    lo = min(lo, i)
                    hi = max(hi, i)
                }
                return lo <= hi ? lo...hi : nil
            }
            var cols: ClosedRange<Int>?, rws: ClosedRange<Int>?
            grid = [Float](unsafeUninitializedCapacity: w * h) { g, initialized in
                g.initialize(repeating: 0)
                initialized = w * h
                withUnsafeTemporaryAllocation(of: Int.self, capacity: w + h) { index in
                    withUnsafeTemporaryAllocation(of: Float.self, capacity: w + h) { fraction in
                        let xi = index.baseAddress!, xf = fraction.baseAddress!, yi = xi + w, yf = xf + w
                        cols = axis(w, dx.upperBound, xi, xf)
                        rws = axis(h, dy.upperBound, yi, yf)
                        guard let cols, let rws else { return }
                        if turn != 0 {
                            // Turned: each sample on its own, clamped to the frame; it counts where
                            // the straight sample (`cols`, `rws`) lands inside.
                            let cosT = Foundation.cos(turn), sinT = Foundation.sin(turn)
                            plane.values.withUnsafeBufferPointer { pb in
                                for j in rws {
                                    let y = Float(j - dy.upperBound) - c
                                    for i in cols {
                                        let x = Float(i - dx.upperBound) - c
                                        let u = min(max((cosT * x + sinT * y) / scale + c, 0), maxC)
                                        let v = min(max((cosT * y - sinT * x) / scale + c, 0), maxC)
                                        let x0 = min(Int(u), n - 2), y0 = min(Int(v), n - 2)
                                        let fx = u - Float(x0), fy = v - Float(y0), k = y0 &* n &+ x0
                                        let top = pb[k] + (pb[k &+ 1] - pb[k]) * fx
                                        let bottom = pb[k &+ n] + (pb[k &+ n &+ 1] - pb[k &+ n]) * fx
                                        g[j &* w &+ i] = top + (bottom - top) * fy
                                    }
                                }
                            }
                            return
                        }
                        // Bilinear in two passes, the same operations as one: each plane row the
                        // grid's rows sample is interpolated across once (`across`), then each grid
                        // row between its two plane rows — rather than both plane rows for every
                        // grid row (a zoom in samples the same plane rows for several grid rows).
                        let firstRow = yi[rws.lowerBound], lastRow = yi[rws.upperBound] + 1
                        withUnsafeTemporaryAllocation(of: Float.self, capacity: (lastRow - firstRow + 1) * w) { across in
                            plane.values.withUnsafeBufferPointer { pb in
                                for y in firstRow...lastRow {
                                    let row = (y &- firstRow) &* w
                                    for i in cols {
                                        let k = y &* n &+ xi[i], fx = xf[i]
                                        across[row &+ i] = pb[k] + (pb[k &+ 1] - pb[k]) * fx
                                    }
                                }
                            }
                            for j in rws {
                                let top = (yi[j] &- firstRow) &* w, bottom = top &+ w, fy = yf[j], out = j &* w
                                for i in cols {
                                    let t = across[top &+ i]
                                    g[out &+ i] = t + (across[bottom &+ i] - t) * fy
                                }
                            }
                        }
                    }
                }
            }
            columns = cols
            rows = rws
            (sums, squares) = tables ? SummedPlane.tables(grid, width: w, height: h) : ([], [])
        }

        /// Pearson r and overlap share of `a` with this zoom at every shift (in order of dy, then
        /// dx) whose overlap reaches `Thumbnail.minimumSearchOverlap`: the sums over the overlap
        /// from the summed-area tables (the grid's, when made), the cross term (and without
        /// tables Σg, Σg²) as four-lane row sums — `Correlations` (C, AVX2 where there is).
        func correlations(with a: SummedPlane, plain: Bool = false, _ body: (_ dx: Int, _ dy: Int, _ r: Float, _ overlap: Float) -> Void) {
            guard let cols = columns, let rws = rows else { return }
            a.values.withUnsafeBufferPointer { av in
                a.sums.withUnsafeBufferPointer { aSums in
                    a.squares.withUnsafeBufferPointer { aSquares in
                        grid.withUnsafeBufferPointer { g in
                            sums.withUnsafeBufferPointer { gSums in
                                squares.withUnsafeBufferPointer { gSquares in
                                    Correlations.each(
                                        Correlations.Plane(values: av, sums: aSums, squares: aSquares, n: n),
                                        Correlations.Grid(
                                            values: g, sums: gSums, squares: gSquares, width: width, dx: dx, dy: dy, columns: cols, rows: rws),
                                        minimumOverlap: Thumbnail.minimumSearchOverlap, plain: plain, body)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The thumbnail of the picture mirrored left to right (what a front camera or an editor's
    /// flip gives).
    var mirrored: Thumbnail { Thumbnail(signature: Thumbnail.mirrorSignature(signature))! }

    /// A stored signature (32×32 luma, then 8×8 RGB) mirrored left to right.
    static func mirrorSignature(_ sig: [UInt8]) -> [UInt8] {
        var out = sig
        let s = side
        for y in 0..<s { for x in 0..<s { out[y * s + x] = sig[y * s + (s - 1 - x)] } }
        let n = s * s
        guard sig.count >= n + 192 else { return out }
        for y in 0..<8 { for x in 0..<8 { for c in 0..<3 { out[n + (y * 8 + x) * 3 + c] = sig[n + (y * 8 + (7 - x)) * 3 + c] } } }
        return out
    }

    /// The pHash (`MetricsComputer.signature`'s) of the picture mirrored left to right, from its
    /// stored signature: the DCT of a mirrored row is the row's with the odd horizontal
    /// frequencies negated, the bits then set against the new median.
    static func mirroredHash(signature sig: [UInt8]) -> UInt64? {
        let n = side * side
        guard sig.count >= n else { return nil }
        var coeffs = MetricsComputer.dct8x8(sig[0..<n].map(Float.init))
        for v in 0..<8 { for u in stride(from: 1, to: 8, by: 2) { coeffs[v * 8 + u] = -coeffs[v * 8 + u] } }
        let median = coeffs.sorted()[32]
        var h: UInt64 = 0
        for c in coeffs { h = (h << 1) | (c > median ? 1 : 0) }
        return h
    }

    /// The share of the 32×32 thumbnails' pixels that keep their (standardized) value where they
    /// stand, within a quarter of a standard deviation: a still camera's frames keep the scene a
    /// small subject moved over (a pen across a third of a table keeps ~0.6), while two different
    /// pictures agree by chance on ~0.15 of them.
    func stillShare(with other: Thumbnail) -> Double {
        var n = 0
        for i in 0..<full.count where abs(full[i] - other.full[i]) < 0.25 { n += 1 }
        return Double(n) / Double(full.count)
    }

    /// Pearson r of the two 32×32 thumbnails as they are (no alignment): near-copies score ≈ 1.
    public func direct(with other: Thumbnail) -> Double {
        var s: Float = 0
        for i in 0..<full.count { s += full[i] * other.full[i] }
        return Double(s / Float(full.count))
    }

    /// Mean absolute difference of the 8×8 RGB thumbnails (0…255): copies keep their colours.
    public func colorDistance(to other: Thumbnail) -> Double {
        var d = 0
        for i in 0..<color.count { d += abs(Int(color[i]) - Int(other.color[i])) }
        return Double(d) / Double(color.count)
    }
}
