extension Schema {
    /// Migrations owned by the reminders feature (versions 40–49).
    static let reminders: [Migration] = [
        // One row: what the reminder scheduler has done, so a restart neither repeats nor
        // loses a reminder (systemd timers' Persistent=). Times are seconds since 1970 (UTC).
        // `last_slot`: the latest scheduled time handled (shown, skipped by the no-nag rule, or
        // failed — a failure is retried at the next slot); `snoozed_until`: "Later";
        // `goal_notified_day`: the local day number whose goal was announced.
        // `reminder_milestones`: milestones already announced, so each is announced once.
        Migration(
            version: 40,
            sql: """
                CREATE TABLE reminders(
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    last_slot REAL,
                    last_delivered_at REAL,
                    last_outcome TEXT,                         -- shown | skipped-goal | skipped-reviewed | failed
                    snoozed_until REAL,
                    goal_notified_day INTEGER,
                    updated_at REAL NOT NULL
                );
                CREATE TABLE reminder_milestones(
                    id TEXT PRIMARY KEY,
                    notified_at REAL NOT NULL
                );
                """)
    ]
}
