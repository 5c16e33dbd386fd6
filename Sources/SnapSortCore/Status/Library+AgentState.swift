import Foundation
import SnapSortSystem

/// The agent's small key/value settings in the database (`agent_state`, schema 30).
extension Library {
    /// A stored agent setting.
    public func agentState(_ key: String) throws -> String? {
        try db.row("SELECT value FROM agent_state WHERE key=?", key)?.string(0)
    }

    /// Stores (or, with nil, removes) an agent setting; `now` dates it (`updated_at`).
    public func setAgentState(_ key: String, _ value: String?, at now: Date) throws {
        if let value {
            try db.run(
                """
                INSERT INTO agent_state(key, value, updated_at) VALUES(?,?,?)
                ON CONFLICT(key) DO UPDATE SET value=excluded.value, updated_at=excluded.updated_at
                """, key, value, StatusTimestamp.string(now))
        } else {
            try removeAgentState(key)
        }
    }

    /// Removes an agent setting.
    public func removeAgentState(_ key: String) throws {
        try db.run("DELETE FROM agent_state WHERE key=?", key)
    }

    /// When analysis is paused: nil when running, `.distantFuture` when paused until resumed.
    public func pausedUntil(now: Date) throws -> Date? {
        guard let v = try agentState("paused_until") else { return nil }
        if v == "indefinite" { return .distantFuture }
        guard let d = StatusTimestamp.date(v), d > now else { return nil }
        return d
    }

    /// Pauses analysis until `until` (nil: until resumed).
    public func pause(until: Date?, now: Date) throws {
        try setAgentState("paused_until", until.map(StatusTimestamp.string) ?? "indefinite", at: now)
    }

    /// Resumes analysis.
    public func resume(now: Date) throws { try setAgentState("paused_until", nil, at: now) }

    /// Live items and how many of them are analyzed (not pending).
    public func itemCounts() throws -> (total: Int, analyzed: Int) {
        let r = try db.row("SELECT count(*), coalesce(sum(status != \(ItemStatus.pending.sql)), 0) FROM files WHERE \(Library.live())")
        return (Int(r?.int(0) ?? 0), Int(r?.int(1) ?? 0))
    }
}

/// RFC 3339 timestamps in UTC (`2026-11-29T13:20:50Z`).
public enum StatusTimestamp {
    /// `d` in whole seconds, as `ISO8601DateFormatter` writes it by default (ICU rounds to the
    /// millisecond, then drops the fraction), from `gmtime_r` (`CalendarTime.utc`): a formatter
    /// costs ~0.4 ms to make, and the scanner stamps every row it stores with one of these.
    public static func string(_ d: Date) -> String {
        let milliseconds = (d.timeIntervalSince1970 * 1000).rounded()
        let parts = CalendarTime.utc(Int64((milliseconds / 1000).rounded(.down)))
        func digits(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        return digits(parts.year, 4) + "-" + digits(parts.month, 2) + "-" + digits(parts.day, 2) + "T"
            + digits(parts.hour, 2) + ":" + digits(parts.minute, 2) + ":" + digits(parts.second, 2) + "Z"
    }

    public static func date(_ s: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        if let d = f.date(from: s) { return d }
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: s)
    }
}
