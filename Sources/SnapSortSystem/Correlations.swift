import CKernels

/// The thumbnail alignment's inner loop (`ss_correlations`): Pearson r of a square plane
/// against every window of a resampled grid, one shift at a time — in C for AVX2 where the
/// processor has it (chosen at run time), bit for bit the Swift arithmetic it replaced.
public enum Correlations {
    /// A plane of side `n` (a multiple of 16) with its (n+1)² summed-area tables.
    public struct Plane {
        public let values: UnsafeBufferPointer<Float>
        public let sums: UnsafeBufferPointer<Double>, squares: UnsafeBufferPointer<Double>
        public let n: Int

        public init(values: UnsafeBufferPointer<Float>, sums: UnsafeBufferPointer<Double>, squares: UnsafeBufferPointer<Double>, n: Int) {
            (self.values, self.sums, self.squares, self.n) = (values, sums, squares, n)
        }
    }

    /// A grid `width` wide sampled for the shifts `dx`, `dy` (`cells`: the columns and rows that
    /// sample inside the plane), with its summed-area tables or none (`sums` empty: Σg and Σg²
    /// are summed row by row with the cross term).
    public struct Grid {
        public let values: UnsafeBufferPointer<Float>
        public let sums: UnsafeBufferPointer<Double>, squares: UnsafeBufferPointer<Double>
        public let width: Int
        public let dx: ClosedRange<Int>, dy: ClosedRange<Int>
        public let columns: ClosedRange<Int>, rows: ClosedRange<Int>

        public init(
            values: UnsafeBufferPointer<Float>, sums: UnsafeBufferPointer<Double>, squares: UnsafeBufferPointer<Double>, width: Int,
            dx: ClosedRange<Int>, dy: ClosedRange<Int>, columns: ClosedRange<Int>, rows: ClosedRange<Int>
        ) {
            (self.values, self.sums, self.squares, self.width) = (values, sums, squares, width)
            (self.dx, self.dy, self.columns, self.rows) = (dx, dy, columns, rows)
        }
    }

    /// `body(dx, dy, r, overlap)` for every shift (dy, then dx, ascending) whose overlap keeps
    /// more than 16 pixels and at least `minimumOverlap` of the plane; r is 0 where either side
    /// is flat. `plain`: the portable path even where AVX2 is there (the tests compare them).
    public static func each(
        _ a: Plane, _ g: Grid, minimumOverlap: Float, plain: Bool = false, _ body: (_ dx: Int, _ dy: Int, _ r: Float, _ overlap: Float) -> Void
    ) {
        let shifts = g.dx.count * g.dy.count
        var zoom = ss_zoom(
            a: a.values.baseAddress, a_sums: a.sums.baseAddress, a_squares: a.squares.baseAddress, n: Int32(a.n),
            grid: g.values.baseAddress, g_sums: g.sums.isEmpty ? nil : g.sums.baseAddress,
            g_squares: g.squares.isEmpty ? nil : g.squares.baseAddress, width: Int32(g.width),
            dx_lo: Int32(g.dx.lowerBound), dx_hi: Int32(g.dx.upperBound), dy_lo: Int32(g.dy.lowerBound), dy_hi: Int32(g.dy.upperBound),
            cols_lo: Int32(g.columns.lowerBound), cols_hi: Int32(g.columns.upperBound), rows_lo: Int32(g.rows.lowerBound),
            rows_hi: Int32(g.rows.upperBound), minimum_overlap: minimumOverlap)
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * shifts) { shift in
            withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * shifts) { out in
                let dx = shift.baseAddress!, dy = dx + shifts, r = out.baseAddress!, overlap = r + shifts
                let found = ss_correlations(&zoom, plain ? 1 : 0, dx, dy, r, overlap)
                for k in 0..<found { body(Int(dx[k]), Int(dy[k]), r[k], overlap[k]) }
            }
        }
    }
}
