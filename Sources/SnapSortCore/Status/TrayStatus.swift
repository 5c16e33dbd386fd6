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
    /// "387 kB waiting in the Trash · 1.2 MB cleared in all" (nil when neither): what waits in
    /// the desktop's Trash, and what left the disk — one meaning each (issue 43, item 4).
    public var space: String?
    /// Whether analysis is paused (the menu offers Resume instead of Pause).
    public var paused: Bool
    /// The bars' colour for the state, "#rrggbb".
    public var color: String
    /// Which of SnapSort's icons shows (`TrayIcon`): `attention` on a warning, `paused`,
    /// `review` when photos wait, `normal` otherwise (a yellow or grey disc told little).
    public var icon: TrayIcon.State

    /// SnapSort's icon in the installed icon theme (share/icons/hicolor), the normal state's.
    public static let iconName = TrayIcon.name(.normal)
    /// The state's icon in the installed theme (`IconName`).
    public var iconName: String { TrayIcon.name(icon) }

    public init(_ d: StatusDocument) {
        let s = StatusSummary(d)
        let a = d.agent
        let review = d.awaitingReview ?? d.groups.reduce(0) { $0 + $1.items }
        let warning = a.lastError != nil || !a.offlineRoots.isEmpty || a.degraded
        status = warning ? "NeedsAttention" : review > 0 ? "Active" : "Passive"
        title = s.text
        toolTip = s.tooltip
        today = d.goal.map { "\($0.doneToday) reviewed today · goal \($0.target)" }
        let waiting = (d.trash?.inTrashBytes ?? 0) > 0 ? "\(StatusSummary.bytes(d.trash!.inTrashBytes!)) waiting in the Trash" : nil
        let cleared = (d.cleared?.total ?? 0) > 0 ? "\(StatusSummary.bytes(d.cleared!.total)) cleared in all" : nil
        space = [waiting, cleared].compactMap { $0 }.joined(separator: " · ")
        if space?.isEmpty == true { space = nil }
        paused = a.state == .paused
        color = s.color
        icon = warning ? .attention : paused ? .paused : review > 0 ? .review : .normal
    }

    /// The state's icon at `size`×`size` for hosts without the theme (`IconPixmap`): ARGB32 in
    /// network byte order (A, R, G, B).
    public func pixmap(size: Int = 22) -> [UInt8] { TrayIcon.argb(icon, size: size) }
}
