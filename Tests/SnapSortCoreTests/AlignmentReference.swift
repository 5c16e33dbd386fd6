import Foundation

@testable import SnapSortCore

/// `Thumbnail.aligned` per pixel: a bilinear sample of `other` for every pixel of `self` at
/// every zoom and whole-pixel shift, every coarse alignment kept and sorted. The optimized
/// version (one resampling per zoom, summed-area tables, SIMD rows) must give the same
/// alignment and the same score up to float summation order (`AlignmentEquivalenceTests`); this
/// copy is the definition it is held to.
enum AlignmentReference {
    static func aligned(_ this: Thumbnail, with other: Thumbnail, turns: Bool = true) -> (score: Double, overlap: Double) {
        typealias Candidate = (r: Float, scale: Float, dx: Float, dy: Float, overlap: Float)
        var coarse: [Candidate] = []
        let hs = Thumbnail.side / 2
        for s in Thumbnail.scales {
            for dy in -Thumbnail.maxShift...Thumbnail.maxShift {
                for dx in -Thumbnail.maxShift...Thumbnail.maxShift {
                    let (r, o) = correlate(this.half, other.half, side: hs, scale: s, dx: Float(dx), dy: Float(dy))
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
        var fine: (Float, Float, Float) = (-2, 0, 1)
        var shift: (Float, Float) = (0, 0)
        for start in starts {
            for s in [start.scale * 0.97, start.scale, start.scale * 1.03] {
                for ddy in -1...1 {
                    for ddx in -1...1 {
                        let (r, o) = correlate(
                            this.full, other.full, side: Thumbnail.side, scale: s,
                            dx: 2 * start.dx + Float(ddx), dy: 2 * start.dy + Float(ddy))
                        if o >= Thumbnail.minimumSearchOverlap && r > fine.0 {
                            fine = (r, o, s); shift = (2 * start.dx + Float(ddx), 2 * start.dy + Float(ddy))
                        }
                    }
                }
            }
        }
        // Turned about the centre around the winner: the same zoom, shift ±1.
        if turns && fine.0 >= Thumbnail.turnFloor && Thumbnail.scales.first! <= fine.2 && fine.2 <= Thumbnail.scales.last! {
            let s = fine.2, around = shift
            for degrees in Thumbnail.turns {
                for ddy in -1...1 {
                    for ddx in -1...1 {
                        let (r, o) = correlate(
                            this.full, other.full, side: Thumbnail.side, scale: s,
                            dx: around.0 + Float(ddx), dy: around.1 + Float(ddy), turn: degrees * .pi / 180)
                        if o >= Thumbnail.minimumSearchOverlap && r > fine.0 { fine = (r, o, s) }
                    }
                }
            }
        }
        let best = fine.0 > -2 ? fine : (coarse[0].r, coarse[0].overlap, coarse[0].scale)
        return (Double(best.0), Double(Thumbnail.sharedOverlap(best.1, scale: best.2)))
    }

    /// Pearson r between `a` and `b` sampled at `(x - dx - c) / scale + c` (bilinear), over the
    /// pixels that land inside `b`; returns the share of such pixels too. With a `turn`
    /// (radians), `b` is sampled turned about its centre, clamped to the frame, where the straight
    /// sample lands inside.
    static func correlate(_ a: [Float], _ b: [Float], side n: Int, scale: Float, dx: Float, dy: Float, turn: Float = 0) -> (Float, Float) {
        let c = Float(n - 1) / 2
        var sa: Float = 0, sb: Float = 0, saa: Float = 0, sbb: Float = 0, sab: Float = 0
        var count = 0
        let maxC = Float(n - 1)
        a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                for y in 0..<n {
                    let by = (Float(y) - dy - c) / scale + c
                    if by < 0 || by > maxC { continue }
                    for x in 0..<n {
                        var bx = (Float(x) - dx - c) / scale + c
                        if bx < 0 || bx > maxC { continue }
                        var by = by
                        if turn != 0 {
                            let px = Float(x) - dx - c, py = Float(y) - dy - c
                            bx = min(max((cos(turn) * px + sin(turn) * py) / scale + c, 0), maxC)
                            by = min(max((cos(turn) * py - sin(turn) * px) / scale + c, 0), maxC)
                        }
                        let x0 = min(Int(bx), n - 2), fx = bx - Float(x0)
                        let y0 = min(Int(by), n - 2), fy = by - Float(y0)
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
}
