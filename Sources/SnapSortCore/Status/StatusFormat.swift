import Foundation

/// The status document rendered for status bars (one line per update) and for people.
///
/// - waybar (custom module, `return-type: json`): `text`, `alt`, `tooltip`, `class`, `percentage`.
/// - polybar (`custom/script`, `tail = true`): one plain line, `%{F#rrggbb}…%{F-}` colours.
/// - i3blocks (`format=json`): an i3bar block object with `full_text`, `short_text`, `color`.
/// - i3status-rust (`custom` block, `json = true`): `icon`, `state`, `text`, `short_text`.
public enum StatusFormat: String, CaseIterable, Sendable {
    case waybar
    case polybar
    case i3blocks
    case i3statusRust = "i3status-rust"

    /// `text` with Pango markup's special characters escaped.
    static func pango(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    /// One line for the bar.
    public func render(_ d: StatusDocument) -> String {
        let s = StatusSummary(d)
        switch self {
        case .waybar:
            // Waybar parses `text` and `tooltip` as Pango markup (its `escape` option is off by
            // default): a folder named "Tom & Jerry <2024>" broke the tooltip.
            return JSON.object([
                ("text", .string(Self.pango(s.text))), ("alt", .string(s.state)), ("tooltip", .string(Self.pango(s.tooltip))),
                ("class", s.isWarning ? .array([.string(s.cssClass), .string("warning")]) : .string(s.cssClass)),
                ("percentage", .int(s.percentage)),
            ]).serialized()
        case .polybar:
            return "%{F\(s.color)}\(s.text)%{F-}"
        case .i3blocks:
            return JSON.object([("full_text", .string(s.text)), ("short_text", .string(s.shortText)), ("color", .string(s.color))]).serialized()
        case .i3statusRust:
            return JSON.object([
                ("icon", .string("")), ("state", .string(s.i3rsState)), ("text", .string(s.text)), ("short_text", .string(s.shortText)),
            ]).serialized()
        }
    }
}

/// The words and colours the bar formats share.
public struct StatusSummary: Sendable {
    public var state: String
    public var text: String
    public var shortText: String
    public var tooltip: String
    public var cssClass: String
    /// A warning beside the state (a service that cannot do its part, a folder offline): waybar
    /// gets the classes `[state, "warning"]` (it takes a list), so a style can mark it.
    public var isWarning = false
    public var percentage: Int
    public var color: String
    public var i3rsState: String

    public init(_ d: StatusDocument) {
        let a = d.agent
        state = a.state.rawValue
        let known = a.state
        let review = d.awaitingReview ?? d.groups.reduce(0) { $0 + $1.items }
        switch known {
        case .grouping:
            // Every photo is analyzed; Similar Shots and the other groups are being made.
            text = "SnapSort grouping…"
            shortText = "…"
            color = "#8fbcbb"
            i3rsState = "Info"
        case .scanning, .analyzing, .starting:
            // Starting and checking folders count nothing yet: "SnapSort 282/282" at 100 % read
            // as finished at every login (review 8). Only the analysis counts.
            let counting = known == .analyzing && a.total > 0
            text = counting ? "SnapSort \(StatusSummary.number(a.done))/\(StatusSummary.number(a.total))" : "SnapSort…"
            shortText = counting ? "\(a.done * 100 / a.total)%" : "…"
            color = "#8fbcbb"
            i3rsState = "Info"
        case .reconciling:
            // A lost event queue caught up: the backlog, not a count that reads as finished.
            text = a.pending > 0 ? "SnapSort catching up (\(StatusSummary.number(a.pending)) waiting)" : "SnapSort catching up…"
            shortText = "…"
            color = "#8fbcbb"
            i3rsState = "Info"
        case .paused:
            // Till when, on every bar (polybar and i3blocks have no tooltip).
            let until = a.pausedUntil.map { " until " + StatusSummary.localTime($0).split(separator: " ").last.map(String.init)! } ?? ""
            text =
                a.pending > 0
                ? "SnapSort paused\(until) (\(StatusSummary.number(a.pending)) change\(a.pending == 1 ? "" : "s") waiting)"
                : "SnapSort paused\(until)"
            shortText = AgentState.paused.rawValue
            color = "#888888"
            i3rsState = "Idle"
        case .error:
            // The library refused (an emptied file): nothing is watched until the person decides.
            text = "SnapSort: library needs you"
            shortText = AgentState.error.rawValue
            color = "#bf616a"
            i3rsState = "Critical"
        case .stopped, .stopping:
            text = review > 0 ? "SnapSort \(StatusSummary.number(review)) to review (stopped)" : "SnapSort stopped"
            shortText = AgentState.stopped.rawValue
            color = "#888888"
            i3rsState = "Idle"
        default:
            text = review > 0 ? "SnapSort \(StatusSummary.number(review)) to review" : "SnapSort ✓"
            shortText = review > 0 ? StatusSummary.number(review) : "✓"
            color = review > 0 ? "#ebcb8b" : "#a3be8c"
            i3rsState = review > 0 ? "Warning" : "Good"
        }
        if a.lastError != nil && !a.isWarningOnly {
            color = "#bf616a"
            i3rsState = "Critical"
        } else if (a.isWarningOnly || a.degraded) && i3rsState != "Warning" {
            // A service that cannot do its part (no notification server for the reminders) is
            // said in the tooltip and marked, never turned into a permanent alarm.
            if i3rsState == "Good" { color = "#ebcb8b" }
            i3rsState = i3rsState == "Good" ? "Warning" : i3rsState
        }
        let warning = a.isWarningOnly || !a.offlineRoots.isEmpty
        // Degraded (the watch limit, some folders polled) is a warning with a class of its own.
        cssClass = a.lastError != nil && !a.isWarningOnly ? "error" : a.degraded ? "degraded" : a.state.rawValue
        isWarning = warning && cssClass == a.state.rawValue
        // Seen on every bar, not only in waybar's tooltip: polybar, i3blocks and i3status-rust
        // have none, and a missing notification server or an unplugged drive looked like any day.
        if a.degraded || a.lastError != nil || warning {
            text += " ⚠"
            shortText += " ⚠"
        }
        // Catching up counts a backlog (`pending`), not a share of the library.
        if known == .starting || known == .scanning || known == .reconciling {
            percentage = 0
        } else if a.total > 0 {
            percentage = min(100, a.done * 100 / a.total)
        } else {
            percentage = 100
        }
        if let g = d.goal, g.target > 0, !known.isWork && known != .starting {
            percentage = min(100, g.doneToday * 100 / g.target)
        }
        var lines = ["Agent: \(a.state)" + (a.pid.map { " (pid \($0))" } ?? "")]
        lines.append("Analyzed: \(StatusSummary.number(a.done)) of \(StatusSummary.number(a.total))")
        if let m = d.models, m.done < m.total {
            lines.append("Models: \(StatusSummary.number(m.done)) of \(StatusSummary.number(m.total)) photos looked at (People, Pets, Food, Scenery)")
        }
        // The groups that hold something, by their names (empty ones under internal ids were noise).
        for g in d.groups where g.items > 0 {
            lines.append("\(GroupID(rawValue: g.id)?.title ?? g.id): \(StatusSummary.number(g.items)) (\(StatusSummary.bytes(g.bytes)))")
        }
        if let r = d.awaitingReview { lines.append("Awaiting review: \(StatusSummary.number(r))") }
        // One meaning a number (issue 43, item 4): staged (not moved yet), moved to the desktop's
        // Trash, still waiting there, and cleared — left the disk when the Trash was emptied.
        if let t = d.trash { lines.append("Staged for the Trash: \(StatusSummary.number(t.count)) (\(StatusSummary.bytes(t.bytes)))") }
        if let m = d.movedToTrash { lines.append("Moved to the Trash: \(StatusSummary.span(m))") }
        if let w = d.trash?.inTrashBytes, w > 0 { lines.append("Waiting in the Trash: \(StatusSummary.bytes(w)) (emptying it frees the space)") }
        if let c = d.cleared { lines.append("Cleared from the disk: \(StatusSummary.span(c))") }
        if let s = d.streak { lines.append("Streak: \(s.current) day\(s.current == 1 ? "" : "s") (longest \(s.longest))") }
        if let g = d.goal { lines.append("Goal: \(g.doneToday)/\(g.target) today") }
        if let r = d.nextReminder { lines.append("Next reminder: \(StatusSummary.localTime(r))") }
        if known == .paused, let until = a.pausedUntil { lines.append("Paused until \(StatusSummary.localTime(until))") }
        if known == .paused && a.pending > 0 {
            lines.append(
                "Waiting: \(StatusSummary.number(a.pending)) changed file\(a.pending == 1 ? "" : "s") or folder\(a.pending == 1 ? "" : "s"), analyzed after 'snapsort resume'"
            )
        }
        if a.degraded { lines.append("Degraded: some folders are checked periodically, not watched") }
        for r in a.offlineRoots {
            lines.append("Offline: \(r) (moved away or not mounted; its photos are kept, and it is watched again when it is back)")
        }
        if let e = a.lastError { lines.append((a.isWarningOnly ? "Warning: " : "Last error: ") + e) }
        tooltip = lines.joined(separator: "\n")
    }

    /// "1.7 MB today, 1.7 MB this week, 30 MB in all".
    static func span(_ c: StatusDocument.Cleared) -> String {
        "\(bytes(c.today)) today, \(bytes(c.week)) this week, \(bytes(c.total)) in all"
    }

    /// People's view: the tooltip lines, one fact a line.
    public var human: String { tooltip }

    /// Groups digits by threes with a space ("12 431"), as the STATUS= lines do.
    public static func number(_ n: Int) -> String {
        let s = String(abs(n))
        var out = ""
        for (i, c) in s.enumerated() {
            if i > 0 && (s.count - i) % 3 == 0 { out.append(" ") }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }

    /// A moment for people, in the local time zone: "Sun 6 Dec 19:00" (the status file keeps
    /// RFC 3339 UTC for programs).
    public static func localTime(_ d: Date, timeZone: TimeZone = .current) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_GB")
        f.timeZone = timeZone
        f.dateFormat = "EEE d MMM HH:mm"
        return f.string(from: d)
    }

    /// Bytes for people (SI units).
    public static func bytes(_ b: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var v = Double(b)
        var i = 0
        while v >= 1000 && i < units.count - 1 { v /= 1000; i += 1 }
        return i == 0 ? "\(b) B" : String(format: v < 10 ? "%.1f %@" : "%.0f %@", v, units[i])
    }
}
