import Foundation

/// What the tray icon (a StatusNotifierItem, issue 33) shows for a status document: the same
/// facts as the bars, from the same `StatusSummary` (its `text` is the title, its `tooltip` the
/// tooltip's body), plus the item's `Status` and the menu's labels.
public struct TrayStatus: Sendable, Equatable {
    /// `Passive` (nothing waits), `Active` (photos wait for review) or `NeedsAttention` (a
    /// warning: a folder offline, a service that cannot do its part, an error).
    public var status: String
    /// The bars' text ("SnapSort 12 to review").
    public var title: String
    /// The bars' tooltip, one fact a line.
    public var toolTip: String
    /// "3 reviewed today · goal 25" (nil without a goal): what each number is ("Today: 29 of
    /// 10" read as a fraction gone wrong).
    public var today: String?
    /// Whether analysis is paused (the menu offers Resume instead of Pause).
    public var paused: Bool
    /// The fallback icon's colour, "#rrggbb" (the bars' colour for the state).
    public var color: String

    /// The icon's name in the installed icon theme (share/icons/snapsort.svg).
    public static let iconName = "snapsort"

    public init(_ d: StatusDocument) {
        let s = StatusSummary(d)
        let a = d.agent
        let review = d.awaitingReview ?? d.groups.reduce(0) { $0 + $1.items }
        let warning = a.lastError != nil || !a.offlineRoots.isEmpty || a.degraded
        status = warning ? "NeedsAttention" : review > 0 ? "Active" : "Passive"
        title = s.text
        toolTip = s.tooltip
        today = d.goal.map { "\($0.doneToday) reviewed today · goal \($0.target)" }
        paused = a.state == .paused
        color = s.color
    }

    /// A `size`×`size` icon for hosts without the theme's icon: a disc in the state's colour on
    /// a transparent square, ARGB32 in network byte order (A, R, G, B), as `IconPixmap` wants.
    public func pixmap(size: Int = 22) -> [UInt8] {
        let hex = color.dropFirst()
        let v = UInt32(hex, radix: 16) ?? 0x888888
        let (r, g, b) = (UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff))
        var out = [UInt8](repeating: 0, count: size * size * 4)
        let c = Double(size - 1) / 2
        let radius = Double(size) / 2 - 1
        for y in 0..<size {
            for x in 0..<size {
                let d = ((Double(x) - c) * (Double(x) - c) + (Double(y) - c) * (Double(y) - c)).squareRoot()
                // One pixel of anti-aliasing at the edge.
                let alpha = max(0, min(1, radius - d + 0.5))
                guard alpha > 0 else { continue }
                let i = (y * size + x) * 4
                out[i] = UInt8((alpha * 255).rounded())
                out[i + 1] = r
                out[i + 2] = g
                out[i + 3] = b
            }
        }
        return out
    }
}
