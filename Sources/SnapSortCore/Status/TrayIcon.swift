import Foundation

/// SnapSort's own icon — the camera of the review page's header (share/web/index.html) — in
/// the states a person tells apart in a panel (issue 43, item 1): `normal`, `review` (photos
/// wait: a blue dot), `paused` (the camera grey, a pause sign) and `attention` (a folder
/// offline, an error: an amber "!"). The installed theme icons (share/icons/hicolor: PNGs at
/// `sizes` and a scalable SVG of each state) are this drawing (`TrayIconTests` holds them to
/// it), and so is the `IconPixmap` a host without the theme shows.
public enum TrayIcon {
    public enum State: String, Sendable, CaseIterable {
        case normal, review, paused, attention
    }

    /// The state's name in the icon theme (`snapsort`, `snapsort-review`, …).
    public static func name(_ state: State) -> String { state == .normal ? "snapsort" : "snapsort-" + state.rawValue }

    /// The sizes of the installed pixmaps (hicolor's panel sizes).
    public static let sizes = [16, 22, 24, 32, 48]

    /// The icon at `size`×`size`: RGBA, 8 bits a channel, straight alpha, rows top down (as a
    /// PNG holds it). Drawn on the header icon's 32-unit grid, 4×4 samples a pixel.
    public static func rgba(_ state: State, size: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: size * size * 4)
        let n = 4
        let unit = 32 / Double(size)
        for y in 0..<size {
            for x in 0..<size {
                var sum = (r: 0.0, g: 0.0, b: 0.0, a: 0.0)
                for sy in 0..<n {
                    for sx in 0..<n {
                        let u = (Double(x) + (Double(sx) + 0.5) / Double(n)) * unit
                        let v = (Double(y) + (Double(sy) + 0.5) / Double(n)) * unit
                        guard let c = colour(state, u, v) else { continue }
                        sum.r += c.0 * c.3
                        sum.g += c.1 * c.3
                        sum.b += c.2 * c.3
                        sum.a += c.3
                    }
                }
                let i = (y * size + x) * 4
                let a = sum.a / Double(n * n)
                guard a > 0 else { continue }
                out[i] = UInt8((sum.r / sum.a).rounded())
                out[i + 1] = UInt8((sum.g / sum.a).rounded())
                out[i + 2] = UInt8((sum.b / sum.a).rounded())
                out[i + 3] = UInt8((a * 255).rounded())
            }
        }
        return out
    }

    /// The icon as `IconPixmap` wants it: ARGB32 in network byte order (A, R, G, B).
    public static func argb(_ state: State, size: Int) -> [UInt8] {
        var p = rgba(state, size: size)
        for i in stride(from: 0, to: p.count, by: 4) {
            let (r, g, b, a) = (p[i], p[i + 1], p[i + 2], p[i + 3])
            (p[i], p[i + 1], p[i + 2], p[i + 3]) = (a, r, g, b)
        }
        return p
    }

    /// The scalable icon of `state`: the same shapes as `rgba`, as share/icons/hicolor/scalable
    /// holds them.
    public static func svg(_ state: State) -> String {
        let body = state == .paused ? grey : accent
        var s = """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="32" height="32">
              <title>SnapSort\(state == .normal ? "" : " (\(state.rawValue))")</title>
              <rect x="3" y="7" width="26" height="20" rx="5" fill="\(body)"/>
              <rect x="10" y="4" width="9" height="5" rx="2" fill="\(body)"/>
              <circle cx="16" cy="17" r="6" fill="#ffffff"/>
              <circle cx="16" cy="17" r="3.4" fill="\(ink)"/>

            """
        switch state {
        case .normal: break
        case .review:
            s += "  <circle cx=\"26\" cy=\"8\" r=\"6\" fill=\"#ffffff\"/>\n  <circle cx=\"26\" cy=\"8\" r=\"4.5\" fill=\"\(blue)\"/>\n"
        case .paused:
            s += "  <circle cx=\"26\" cy=\"8\" r=\"6\" fill=\"#ffffff\"/>\n  <circle cx=\"26\" cy=\"8\" r=\"4.5\" fill=\"\(ink)\"/>\n"
            s +=
                "  <rect x=\"23.6\" y=\"5.5\" width=\"1.8\" height=\"5\" fill=\"#ffffff\"/>\n  <rect x=\"26.6\" y=\"5.5\" width=\"1.8\" height=\"5\" fill=\"#ffffff\"/>\n"
        case .attention:
            s += "  <circle cx=\"26\" cy=\"8\" r=\"6\" fill=\"#ffffff\"/>\n  <circle cx=\"26\" cy=\"8\" r=\"4.5\" fill=\"\(amber)\"/>\n"
            s +=
                "  <rect x=\"25.1\" y=\"4.6\" width=\"1.8\" height=\"4\" fill=\"\(ink)\"/>\n  <rect x=\"25.1\" y=\"9.6\" width=\"1.8\" height=\"1.8\" fill=\"\(ink)\"/>\n"
        }
        return s + "</svg>\n"
    }

    static let accent = "#e85d4a", grey = "#8a8f99", ink = "#2b2d42", blue = "#2563eb", amber = "#f2a900"

    /// The colour at (u, v) on the 32-unit grid, nil where the icon is transparent; the shapes
    /// painted in `svg`'s order.
    static func colour(_ state: State, _ u: Double, _ v: Double) -> (Double, Double, Double, Double)? {
        var c: String?
        let body = state == .paused ? grey : accent
        if inRoundedRect(u, v, 3, 7, 29, 27, 5) || inRoundedRect(u, v, 10, 4, 19, 9, 2) { c = body }
        if inCircle(u, v, 16, 17, 6) { c = "#ffffff" }
        if inCircle(u, v, 16, 17, 3.4) { c = ink }
        if state != .normal {
            if inCircle(u, v, 26, 8, 6) { c = "#ffffff" }
            if inCircle(u, v, 26, 8, 4.5) { c = state == .review ? blue : state == .paused ? ink : amber }
            switch state {
            case .paused where inRect(u, v, 23.6, 5.5, 25.4, 10.5) || inRect(u, v, 26.6, 5.5, 28.4, 10.5): c = "#ffffff"
            case .attention where inRect(u, v, 25.1, 4.6, 26.9, 8.6) || inRect(u, v, 25.1, 9.6, 26.9, 11.4): c = ink
            default: break
            }
        }
        guard let c, let v = UInt32(c.dropFirst(), radix: 16) else { return nil }
        return (Double(v >> 16 & 0xff), Double(v >> 8 & 0xff), Double(v & 0xff), 1)
    }

    static func inRect(_ u: Double, _ v: Double, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> Bool {
        u >= x0 && u <= x1 && v >= y0 && v <= y1
    }

    static func inRoundedRect(_ u: Double, _ v: Double, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ r: Double) -> Bool {
        guard inRect(u, v, x0, y0, x1, y1) else { return false }
        let dx = max(x0 + r - u, 0, u - (x1 - r)), dy = max(y0 + r - v, 0, v - (y1 - r))
        return dx * dx + dy * dy <= r * r
    }

    static func inCircle(_ u: Double, _ v: Double, _ cx: Double, _ cy: Double, _ r: Double) -> Bool {
        (u - cx) * (u - cx) + (v - cy) * (v - cy) <= r * r
    }
}
