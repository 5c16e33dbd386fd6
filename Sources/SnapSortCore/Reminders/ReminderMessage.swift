import Foundation

/// The real numbers a reminder is built from (injected: the groups, stats and review features
/// own them).
public struct ReminderFacts: Sendable, Equatable {
    public var similarShots: Int
    public var screenshots: Int
    /// About how much the waiting groups would free.
    public var bytesToFree: Int64
    /// Items waiting for a verdict.
    public var awaitingReview: Int
    /// Consecutive days with a review, as the stats count it.
    public var streakDays: Int
    public var sessionGoal: Int

    public init(
        similarShots: Int = 0, screenshots: Int = 0, bytesToFree: Int64 = 0, awaitingReview: Int = 0,
        streakDays: Int = 0, sessionGoal: Int = 25
    ) {
        self.similarShots = similarShots
        self.screenshots = screenshots
        self.bytesToFree = bytesToFree
        self.awaitingReview = awaitingReview
        self.streakDays = streakDays
        self.sessionGoal = sessionGoal
    }
}

/// Today's progress, for the no-nag rule.
public struct ReminderProgress: Sendable, Equatable {
    /// Verdicts given today (local day).
    public var reviewedToday: Int
    public var sessionGoal: Int
    public var goalReached: Bool { reviewedToday >= sessionGoal }

    public init(reviewedToday: Int, sessionGoal: Int) {
        self.reviewedToday = reviewedToday
        self.sessionGoal = sessionGoal
    }
}

/// The text of reminders and announcements.
public enum ReminderMessage {
    /// The reminder: a summary and a body from the facts, e.g. "23 similar shots and 140
    /// screenshots — about 1.2 GB to free" and "Day 6 of your streak".
    public static func reminder(_ f: ReminderFacts) -> (summary: String, body: String) {
        var lines: [String] = []
        var parts: [String] = []
        if f.similarShots > 0 { parts.append(count(f.similarShots, "similar shot", "similar shots")) }
        if f.screenshots > 0 { parts.append(count(f.screenshots, "screenshot", "screenshots")) }
        if parts.isEmpty && f.awaitingReview > 0 { parts.append(count(f.awaitingReview, "photo waits", "photos wait") + " for a look") }
        if !parts.isEmpty {
            var line = parts.joined(separator: " and ")
            if f.bytesToFree > 0 { line += " — about \(bytes(f.bytesToFree)) to free" }
            lines.append(line)
        }
        if f.streakDays > 0 { lines.append("Day \(f.streakDays) of your streak") }
        lines.append("A session is \(count(f.sessionGoal, "decision", "decisions")).")
        return ("Time for a short SnapSort session", lines.joined(separator: "\n"))
    }

    /// A milestone announcement (ids from the stats feature: `cleared_1gb`, `reviewed_100`, `streak_7`, …).
    public static func milestone(_ id: String) -> (summary: String, body: String) {
        let p = id.split(separator: "_").map(String.init)
        guard p.count == 2 else { return ("Milestone reached", id) }
        switch p[0] {
        case "cleared":
            return (
                "Milestone: \(p[1].uppercased().replacingOccurrences(of: "MB", with: " MB").replacingOccurrences(of: "GB", with: " GB")) cleared",
                "Nice work — that space is yours again."
            )
        case "reviewed": return ("Milestone: \(p[1]) photos reviewed", "Every decision makes the library lighter.")
        case "streak": return ("Milestone: a \(p[1])-day streak", "A short session a day adds up.")
        default: return ("Milestone reached", id)
        }
    }

    /// The goal announcement.
    public static func goalReached(_ p: ReminderProgress) -> (summary: String, body: String) {
        ("Today's goal reached", "\(count(p.reviewedToday, "decision", "decisions")) today — see you next time.")
    }

    static func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }

    /// Decimal units with one decimal from MB on: 1.2 GB, 340 MB, 12 kB.
    public static func bytes(_ b: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var v = Double(b)
        var i = 0
        while v >= 1000 && i < units.count - 1 {
            v /= 1000
            i += 1
        }
        if i == 0 { return "\(b) B" }
        return v < 10 ? String(format: "%.1f", v) + " " + units[i] : "\(Int(v.rounded())) \(units[i])"
    }
}
