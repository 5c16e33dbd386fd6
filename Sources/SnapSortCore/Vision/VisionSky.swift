import SnapSortSystem

/// The sky cue of the Scenery rule: where an upright photo shows open sky, measured on the same
/// picture the models see. ImageNet has no class for "a sky" or "a street": a blue sky over a
/// town, a dune or a road spreads its probability over weak classes (ear of grain, car mirror,
/// wing), so the classifier alone misses such photos.
///
/// The picture is shrunk to `workLongSide` and cut into a grid of `rows` × `columns` cells. A cell
/// is *sky* when it is smooth (mean |∂x| + |∂y| of the luma at most `maxSkyTexture` grey levels
/// per pixel: clear sky, haze and soft clouds are ≤ 8, foliage, walls, fur and bokeh ≥ 10) and
/// blue to violet (B ≥ R + 12, B ≥ G − 8, luma ≥ 45: day sky, dusk, the blue hour). Orange
/// sunsets and white overcast skies are left to the classifier: smooth warm or white areas are
/// just as often walls, tables and studio backdrops.
///
/// Two numbers come out:
/// - `horizon`: the share of sky cells in the top third of the frame, when there is ground under
///   it — the bottom third is mostly not sky (≤ `maxGroundSky`) and textured (its mean texture
///   at least `minGroundTexture` and twice the top third's). A photo with a horizon is Scenery
///   unless something else is clearly its subject (`VisionCategories.members`). Smooth renders
///   and abstract wallpapers have no textured ground; plain-backdrop portraits have a face.
/// - `share`: the share of sky cells in the whole frame. When the sky fills at least half of it,
///   the things ImageNet photographs against the sky (a paraglider's parachute, a plane's wing)
///   count towards Scenery (`VisionCategories.skyObjects`).
public enum VisionSky {
    public static let workLongSide = 256
    public static let rows = 12
    public static let columns = 16
    public static let maxSkyTexture = 8.0
    public static let maxGroundSky = 0.35
    public static let minGroundTexture = 8.0

    /// What `measure` found.
    public struct Cue: Sendable, Equatable {
        /// Share of sky cells in the top third when there is ground below, else 0.
        public var horizon: Double
        /// Share of sky cells in the whole frame.
        public var share: Double
    }

    /// One grid cell: mean colour, mean luma, mean texture.
    struct Cell {
        var r = 0.0, g = 0.0, b = 0.0, luma = 0.0, texture = 0.0

        var isSky: Bool {
            texture <= VisionSky.maxSkyTexture && b >= r + 12 && b >= g - 8 && luma >= 45
        }
    }

    /// Measures an upright RGB picture.
    public static func measure(_ picture: Bitmap) -> Cue {
        let grid = cells(picture)
        guard !grid.isEmpty else { return Cue(horizon: 0, share: 0) }
        let third = rows / 3
        func share(_ rs: Range<Int>) -> Double {
            Double(rs.reduce(0) { n, r in n + grid[r].filter(\.isSky).count }) / Double(rs.count * columns)
        }
        func texture(_ rs: Range<Int>) -> Double {
            rs.reduce(0.0) { t, r in t + grid[r].reduce(0.0) { $0 + $1.texture } } / Double(rs.count * columns)
        }
        let top = 0..<third, bottom = (rows - third)..<rows
        let ground = share(bottom) <= maxGroundSky && texture(bottom) >= max(minGroundTexture, 2 * texture(top))
        return Cue(horizon: ground ? share(top) : 0, share: share(0..<rows))
    }

    /// The grid of cells of `picture` shrunk to `workLongSide` (rows of `columns` cells).
    static func cells(_ picture: Bitmap) -> [[Cell]] {
        precondition(picture.channels == 3, "VisionSky measures RGB")
        let small = VisionImage.shrink(picture, longSide: workLongSide)
        let w = small.width, h = small.height
        guard w >= columns, h >= rows else { return [] }
        var luma = [Double](repeating: 0, count: w * h)
        for i in 0..<(w * h) {
            luma[i] = 0.299 * Double(small.pixels[i * 3]) + 0.587 * Double(small.pixels[i * 3 + 1]) + 0.114 * Double(small.pixels[i * 3 + 2])
        }
        // Texture of a pixel: |right neighbour − it| + |lower neighbour − it| (0 past the edge).
        var texture = [Double](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                var t = 0.0
                if x + 1 < w { t += abs(luma[i + 1] - luma[i]) }
                if y + 1 < h { t += abs(luma[i + w] - luma[i]) }
                texture[i] = t
            }
        }
        var grid: [[Cell]] = []
        for row in 0..<rows {
            let y0 = row * h / rows, y1 = (row + 1) * h / rows
            var line: [Cell] = []
            for column in 0..<columns {
                let x0 = column * w / columns, x1 = (column + 1) * w / columns
                var c = Cell()
                for y in y0..<y1 {
                    for x in x0..<x1 {
                        let i = y * w + x
                        c.r += Double(small.pixels[i * 3])
                        c.g += Double(small.pixels[i * 3 + 1])
                        c.b += Double(small.pixels[i * 3 + 2])
                        c.luma += luma[i]
                        c.texture += texture[i]
                    }
                }
                let n = Double((y1 - y0) * (x1 - x0))
                c.r /= n; c.g /= n; c.b /= n; c.luma /= n; c.texture /= n
                line.append(c)
            }
            grid.append(line)
        }
        return grid
    }
}
