import Foundation
import SnapSortSystem

/// What the reminder scheduler has done, persisted in the `reminders` table (schema 40).
public struct ReminderState: Sendable, Equatable {
    /// The latest scheduled time handled (shown, skipped or failed); slots at or before it are
    /// never delivered again.
    public var lastSlot: Date?
    /// When a reminder was last shown.
    public var lastDeliveredAt: Date?
    /// `shown` | `skipped-goal` | `skipped-reviewed` | `skipped-nothing-waiting` | `failed`.
    public var lastOutcome: String?
    /// "Later": deliver again at this time.
    public var snoozedUntil: Date?
    /// The local day number whose session goal was announced.
    public var goalNotifiedDay: Int?

    public init(
        lastSlot: Date? = nil, lastDeliveredAt: Date? = nil, lastOutcome: String? = nil,
        snoozedUntil: Date? = nil, goalNotifiedDay: Int? = nil
    ) {
        self.lastSlot = lastSlot
        self.lastDeliveredAt = lastDeliveredAt
        self.lastOutcome = lastOutcome
        self.snoozedUntil = snoozedUntil
        self.goalNotifiedDay = goalNotifiedDay
    }
}

extension Library {
    /// The stored reminder state; nil before the scheduler first ran.
    public func reminderState() throws -> ReminderState? {
        guard let r = try db.row("SELECT last_slot, last_delivered_at, last_outcome, snoozed_until, goal_notified_day FROM reminders WHERE id=1")
        else { return nil }
        func date(_ i: Int) -> Date? { r.double(i).map { Date(timeIntervalSince1970: $0) } }
        return ReminderState(
            lastSlot: date(0), lastDeliveredAt: date(1), lastOutcome: r.string(2), snoozedUntil: date(3),
            goalNotifiedDay: r.int(4).map(Int.init))
    }

    /// Stores the reminder state.
    public func saveReminderState(_ s: ReminderState, now: Date) throws {
        try db.run(
            """
            INSERT INTO reminders(id, last_slot, last_delivered_at, last_outcome, snoozed_until, goal_notified_day, updated_at)
            VALUES(1,?,?,?,?,?,?)
            ON CONFLICT(id) DO UPDATE SET last_slot=excluded.last_slot, last_delivered_at=excluded.last_delivered_at,
              last_outcome=excluded.last_outcome, snoozed_until=excluded.snoozed_until,
              goal_notified_day=excluded.goal_notified_day, updated_at=excluded.updated_at
            """, s.lastSlot?.timeIntervalSince1970, s.lastDeliveredAt?.timeIntervalSince1970, s.lastOutcome,
            s.snoozedUntil?.timeIntervalSince1970, s.goalNotifiedDay, now.timeIntervalSince1970)
    }

    /// Milestones already announced.
    public func notifiedMilestones() throws -> Set<String> {
        Set(try db.rows("SELECT id FROM reminder_milestones").compactMap { $0.string(0) })
    }

    /// Marks milestones as announced.
    public func markMilestonesNotified(_ ids: [String], now: Date) throws {
        try db.transaction {
            for id in ids { try db.run("INSERT OR IGNORE INTO reminder_milestones(id, notified_at) VALUES(?,?)", id, now.timeIntervalSince1970) }
        }
    }
}
