import Foundation

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

    /// Reads a stored signature blob; nil when it is not a 32×32 one.
    public init?(signature: [UInt8]) {
        let n = Thumbnail.side * Thumbnail.side
        guard signature.count >= n + 192 else { return nil }
        let luma = signature[0..<n].map(Float.init)
        full = Thumbnail.standardized(luma)
        var h = [Float](repeating: 0, count: n / 4)
        let s = Thumbnail.side
        for y in 0..<(s / 2) {
            for x in 0..<(s / 2) {
                h[y * s / 2 + x] = (luma[2 * y * s + 2 * x] + luma[2 * y * s + 2 * x + 1] + luma[(2 * y + 1) * s + 2 * x] + luma[(2 * y + 1) * s + 2 * x + 1]) / 4
            }
        }
        half = Thumbnail.standardized(h)
        color = Array(signature[n..<(n + 192)])
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

    /// The best Pearson correlation between `self` and `other` over the aligned overlap, and the
    /// overlap's share of the frame at that alignment.
    ///
    /// The 16×16 search only proposes: the best `refinedCandidates` coarse alignments and the
    /// identity (frames of a burst barely move) are each refined at 32×32, and the best refined
    /// one wins. A single coarse winner is not enough: at 16×16 a textured frame can correlate
    /// best at a wrong zoom, whose refinement then misses the true alignment.
    public func aligned(with other: Thumbnail) -> (score: Double, overlap: Double) {
        typealias Candidate = (r: Float, scale: Float, dx: Float, dy: Float, overlap: Float)
        var coarse: [Candidate] = []
        let hs = Thumbnail.side / 2
        for s in Thumbnail.scales {
            for dy in -Thumbnail.maxShift...Thumbnail.maxShift {
                for dx in -Thumbnail.maxShift...Thumbnail.maxShift {
                    let (r, o) = Thumbnail.correlate(half, other.half, side: hs, scale: s, dx: Float(dx), dy: Float(dy))
                    if o >= Thumbnail.minimumSearchOverlap { coarse.append((r, s, Float(dx), Float(dy), o)) }
                }
            }
        }
        guard !coarse.isEmpty else { return (0, 0) }
        // Deterministic order: by score, then by the transform.
        coarse.sort { ($0.r, -$0.scale, -$0.dx, -$0.dy) > ($1.r, -$1.scale, -$1.dx, -$1.dy) }
        var starts = Array(coarse.prefix(Thumbnail.refinedCandidates))
        if !starts.contains(where: { $0.scale == 1 && $0.dx == 0 && $0.dy == 0 }) { starts.append((0, 1, 0, 0, 1)) }
        // Refine at full size around each start (shift doubles with the side).
        var fine: (Float, Float) = (-2, 0)
        for start in starts {
            for s in [start.scale * 0.97, start.scale, start.scale * 1.03] {
                for ddy in -1...1 {
                    for ddx in -1...1 {
                        let (r, o) = Thumbnail.correlate(full, other.full, side: Thumbnail.side, scale: s,
                                                         dx: 2 * start.dx + Float(ddx), dy: 2 * start.dy + Float(ddy))
                        if o >= Thumbnail.minimumSearchOverlap && r > fine.0 { fine = (r, o) }
                    }
                }
            }
        }
        return fine.0 > -2 ? (Double(fine.0), Double(fine.1)) : (Double(coarse[0].r), Double(coarse[0].overlap))
    }

    /// Pearson r between `a` and `b` sampled at `(x - c) / scale + c - dx` (bilinear), over the
    /// pixels that land inside `b`; returns the share of such pixels too.
    static func correlate(_ a: [Float], _ b: [Float], side n: Int, scale: Float, dx: Float, dy: Float) -> (Float, Float) {
        let c = Float(n - 1) / 2
        var sa: Float = 0, sb: Float = 0, saa: Float = 0, sbb: Float = 0, sab: Float = 0
        var count = 0
        let maxC = Float(n - 1)
        a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                for y in 0..<n {
                    let by = (Float(y) - c) / scale + c - dy
                    if by < 0 || by > maxC { continue }
                    let y0 = min(Int(by), n - 2), fy = by - Float(y0)
                    for x in 0..<n {
                        let bx = (Float(x) - c) / scale + c - dx
                        if bx < 0 || bx > maxC { continue }
                        let x0 = min(Int(bx), n - 2), fx = bx - Float(x0)
                        let i = y0 * n + x0
                        let top = pb[i] + (pb[i + 1] - pb[i]) * fx
                        let bottom = pb[i + n] + (pb[i + n + 1] - pb[i + n]) * fx
                        let vb = top + (bottom - top) * fy
                        let va = pa[y * n + x]
                        sa += va; sb += vb; saa += va * va; sbb += vb * vb; sab += va * vb
                        count += 1
                    }
                }
            }
        }
        guard count > 16 else { return (-1, 0) }
        let k = Float(count)
        let cov = sab / k - (sa / k) * (sb / k)
        let va = saa / k - (sa / k) * (sa / k), vb = sbb / k - (sb / k) * (sb / k)
        guard va > 1e-4 && vb > 1e-4 else { return (0, Float(count) / Float(n * n)) }
        return (cov / (va * vb).squareRoot(), Float(count) / Float(n * n))
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
