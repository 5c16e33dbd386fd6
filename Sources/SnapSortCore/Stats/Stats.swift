import Foundation
import SnapSortSystem

/// A day in the user's time zone, as a day number (days since 1970-01-01 of the civil
/// calendar): consecutive days differ by one whatever DST does to their length.
public struct LocalDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let number: Int

    public init(number: Int) { self.number = number }

    /// The local day of an instant in `timeZone`.
    public init(_ date: Date, in timeZone: TimeZone) {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = timeZone
        let c = cal.dateComponents([.year, .month, .day], from: date)
        number = LocalDay.daysFromCivil(c.year!, c.month!, c.day!)
    }

    public init(year: Int, month: Int, day: Int) { number = LocalDay.daysFromCivil(year, month, day) }

    /// The day of the instant `ts` at `utcOffset` seconds east of UTC, or in `timeZone` when the
    /// offset is not known.
    static func of(_ ts: Double, utcOffset: Int?, else timeZone: TimeZone) -> LocalDay {
        guard let o = utcOffset else { return LocalDay(Date(timeIntervalSince1970: ts), in: timeZone) }
        return LocalDay(number: Int(((ts + Double(o)) / 86_400).rounded(.down)))
    }

    public static func < (a: LocalDay, b: LocalDay) -> Bool { a.number < b.number }
    public func adding(_ days: Int) -> LocalDay { LocalDay(number: number + days) }

    /// `YYYY-MM-DD`.
    public var description: String {
        let (y, m, d) = LocalDay.civil(number)
        return String(format: "%04d-%02d-%02d", y, m, d)
    }

    // Howard Hinnant's civil-calendar algorithms ("chrono-Compatible Low-Level Date Algorithms").
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}

/// Bytes over today, the last seven days and ever: what was cleared (left the disk: the Trash
/// emptied or the file deleted from it), or what was moved to the Trash (by a commit, minus what
/// was put back since) — `StatsReport.cleared` and `.moved` (issue 43, item 4: one meaning each).
public struct Cleared: Sendable, Equatable {
    public var today: Int64 = 0
    /// The last seven local days, today included.
    public var week: Int64 = 0
    public var total: Int64 = 0
    public init(today: Int64 = 0, week: Int64 = 0, total: Int64 = 0) {
        self.today = today
        self.week = week
        self.total = total
    }
}

/// Current and longest run of consecutive local days with at least one verdict.
public struct Streak: Sendable, Equatable {
    public var current = 0
    public var longest = 0
    public init(current: Int = 0, longest: Int = 0) {
        self.current = current
        self.longest = longest
    }
}

/// One day of the 7-day chart.
public struct DayStats: Sendable, Equatable {
    public var date: String
    public var reviewed: Int
    /// Bytes that left the disk that day (the Trash emptied).
    public var bytesCleared: Int64
    /// Bytes a commit moved to the Trash that day (minus those put back since).
    public var bytesMoved: Int64 = 0
}

/// A milestone and when it was reached.
public struct Milestone: Sendable, Equatable {
    public var id: String
    public var reachedAt: Date
}

/// Everything `snapsort stats` shows, computed from the recorded events.
public struct StatsReport: Sendable {
    public var reviewedTotal: Int
    /// Bytes cleared: they left the disk (what SnapSort moved to a Trash, emptied since).
    public var cleared: Cleared
    /// Bytes moved to the Trash by commits (minus what was put back), emptied since or not.
    public var moved: Cleared = Cleared()
    /// Bytes of what SnapSort trashed that still sit in a Trash (emptying the Trash frees them).
    public var inTrashBytes: Int64
    public var streak: Streak
    public var lastSevenDays: [DayStats]
    public var milestones: [Milestone]
    public var goalTarget: Int
    public var doneToday: Int
    public var chapters: [Chapter]
    /// Cover paths of the chapters, by chapter id.
    public var chapterCovers: [Int64: String]
    public var timeZone: TimeZone

    /// The `snapsort stats --json` object (a contract: keys and order; new keys are added after
    /// the old ones). `bytes_cleared`: bytes that left the disk; `bytes_moved_to_trash`: moved to
    /// the Trash by commits; `in_trash_bytes`: still waiting there.
    public var json: JSON {
        .object([
            ("reviewed_total", .int(reviewedTotal)),
            ("bytes_cleared", cleared.json),
            ("in_trash_bytes", .int(inTrashBytes)),
            ("streak", .object([("current", .int(streak.current)), ("longest", .int(streak.longest))])),
            (
                "last_7_days",
                .array(
                    lastSevenDays.map {
                        .object([
                            ("date", .string($0.date)), ("reviewed", .int($0.reviewed)), ("bytes_cleared", .int($0.bytesCleared)),
                            ("bytes_moved_to_trash", .int($0.bytesMoved)),
                        ])
                    })
            ),
            (
                "milestones",
                .array(
                    milestones.map {
                        .object([("id", .string($0.id)), ("reached_at", .string(Stats.localTimestamp($0.reachedAt, timeZone)))])
                    })
            ),
            ("goal", .object([("target", .int(goalTarget)), ("done_today", .int(doneToday))])),
            (
                "chapters",
                .array(
                    chapters.map { c in
                        .object([
                            ("id", .int(c.id)), ("deck", .string(c.deckID)), ("title", .string(c.title)),
                            ("date", .string(LocalDay(Date(timeIntervalSince1970: c.finishedAt), in: timeZone).description)),
                            ("finished_at", .string(Stats.localTimestamp(Date(timeIntervalSince1970: c.finishedAt), timeZone))),
                            ("decisions", .int(c.decisions)), ("bytes", .int(c.bytes)),
                            ("cover", .opt(chapterCovers[c.id])),
                        ])
                    })
            ),
            ("bytes_moved_to_trash", moved.json),
        ])
    }
}

extension Cleared {
    /// `{"today","week","total"}`: `stats --json`'s `bytes_cleared` and `bytes_moved_to_trash`,
    /// the status file's `cleared` and `moved_to_trash`, the page's summary (one encoding).
    public var json: JSON { .object([("today", .int(today)), ("week", .int(week)), ("total", .int(total))]) }

    /// Read back from `json` (nil without `today`).
    init?(json c: JSON) {
        guard let today = c["today"]?.intValue else { return nil }
        self.init(today: Int64(today), week: Int64(c["week"]?.intValue ?? 0), total: Int64(c["total"]?.intValue ?? 0))
    }
}

/// The small numbers the agent's status file, reminders and the page header need.
public struct StatusSnapshot: Sendable, Equatable {
    /// Staged for the Trash, not yet committed.
    public var trashCount: Int
    public var trashBytes: Int64
    /// What SnapSort moved to a Trash that is still there.
    public var inTrashBytes: Int64
    /// Bytes that left the disk (`StatsReport.cleared`).
    public var cleared: Cleared
    /// Bytes moved to the Trash by commits (`StatsReport.moved`).
    public var moved: Cleared = Cleared()
    public var streak: Streak
    public var goalTarget: Int
    public var doneToday: Int
    /// Live photos and videos waiting for a verdict.
    public var awaitingReview: Int

    /// `{"trash":{"count","bytes","in_trash_bytes"},"cleared":{…},"streak":{…},"goal":{…},"awaiting_review":N,
    /// "moved_to_trash":{…}}`.
    public var json: JSON {
        .object([
            ("trash", .object([("count", .int(trashCount)), ("bytes", .int(trashBytes)), ("in_trash_bytes", .int(inTrashBytes))])),
            ("cleared", cleared.json),
            ("streak", .object([("current", .int(streak.current)), ("longest", .int(streak.longest))])),
            ("goal", .object([("target", .int(goalTarget)), ("done_today", .int(doneToday))])),
            ("awaiting_review", .int(awaitingReview)),
            ("moved_to_trash", moved.json),
        ])
    }
}

/// Stats, computed from `review_events` (verdicts, commits, restores) in the user's time zone.
///
/// A day counts for the streak with at least one verdict (trash, keep or later; a skip is not
/// a verdict) that was not undone. Bytes count as moved to the Trash when a commit moves the
/// file there and are subtracted when it is restored; they count as cleared when they leave the
/// disk (the Trash emptied, noticed by `Trash.noticeRestores`): one meaning each (issue 43).
public enum Stats {
    /// Milestone thresholds: bytes cleared (left the disk), items reviewed, streak days.
    public static let byteMilestones: [(String, Int64)] = [
        ("cleared_100mb", 100_000_000), ("cleared_1gb", 1_000_000_000), ("cleared_10gb", 10_000_000_000),
    ]
    public static let reviewMilestones: [(String, Int)] = [("reviewed_100", 100), ("reviewed_1000", 1000), ("reviewed_10000", 10_000)]
    public static let streakMilestones: [(String, Int)] = [("streak_7", 7), ("streak_30", 30)]

    struct Event {
        var ts: Double
        /// Nil for a word this version does not know (a newer SnapSort's): counted nowhere.
        var kind: ReviewEventKind?
        var bytes: Int64
        var firstReview: Bool
        var fileID: Int64?
        /// The UTC offset where and when it happened (nil for events recorded before it was).
        var utcOffset: Int?

        /// Its day: the day it was where it was made, else (an older event) in `timeZone`.
        func day(in timeZone: TimeZone) -> LocalDay { LocalDay.of(ts, utcOffset: utcOffset, else: timeZone) }
    }

    static func events(_ library: Library) throws -> [Event] {
        try library.db.rows(
            """
            SELECT ts, kind, bytes, first_review, file_id, utc_offset FROM review_events WHERE undone=0 ORDER BY ts
            """
        ).map {
            Event(
                ts: $0.double(0) ?? 0, kind: $0.string(1).flatMap(ReviewEventKind.init), bytes: $0.int(2) ?? 0, firstReview: ($0.int(3) ?? 0) != 0,
                fileID: $0.int(4),
                utcOffset: $0.int(5).map(Int.init))
        }
    }

    /// The full stats.
    public static func report(library: Library, clock: Clock, timeZone: TimeZone = .current, goal: Int = Review.defaultGoal) throws -> StatsReport {
        let events = try events(library)
        let today = LocalDay(clock.now(), in: timeZone)
        var reviewedPerDay: [LocalDay: Int] = [:]
        var bytesPerDay: [LocalDay: Int64] = [:]
        var freedPerDay: [LocalDay: Int64] = [:]
        var reviewedTotal = 0
        // A day counts the items decided on it, each once (a card decided again in a second
        // window, or a changed mind, made the goal bar and the chart count it twice).
        var decidedOn: [LocalDay: Set<Int64>] = [:]
        // A restore takes its bytes back from the day they were cleared: restored on a later
        // day, they stayed on the commit's day in the chart while the week's sum dropped them.
        var clearedOn: [Int64: LocalDay] = [:]
        for e in events {
            let day = e.day(in: timeZone)
            switch e.kind {
            case .decision:
                if let f = e.fileID, !decidedOn[day, default: []].insert(f).inserted { break }
                reviewedPerDay[day, default: 0] += 1
                if e.firstReview { reviewedTotal += 1 }
            case .cleared:
                bytesPerDay[day, default: 0] += e.bytes
                if let f = e.fileID { clearedOn[f] = day }
            case .restored:
                let booked = e.fileID.flatMap { clearedOn.removeValue(forKey: $0) } ?? day
                bytesPerDay[booked, default: 0] += e.bytes
            case .purged:
                freedPerDay[day, default: 0] += e.bytes
            case nil: break
            }
        }
        func sums(_ perDay: [LocalDay: Int64]) -> Cleared {
            var c = Cleared()
            for (day, b) in perDay {
                c.total += b
                if day == today { c.today += b }
                if day > today.adding(-7) && day <= today { c.week += b }
            }
            // A restore without its commit among the events (older than them) is booked on its own
            // day: a day that put back more than it moved shows nothing, never a negative amount.
            return Cleared(today: max(0, c.today), week: max(0, c.week), total: max(0, c.total))
        }
        let moved = sums(bytesPerDay), cleared = sums(freedPerDay)
        let lastSeven = (0..<7).reversed().map { back -> DayStats in
            let d = today.adding(-back)
            return DayStats(
                date: d.description, reviewed: reviewedPerDay[d] ?? 0, bytesCleared: max(0, freedPerDay[d] ?? 0),
                bytesMoved: max(0, bytesPerDay[d] ?? 0))
        }
        let chapters = try Chapter.all(library: library)
        var covers: [Int64: String] = [:]
        for c in chapters { if let f = c.coverFileID, let p = try library.item(id: f)?.path { covers[c.id] = p } }
        let milestones = try library.db.rows("SELECT id, reached_ts FROM milestones ORDER BY reached_ts, id").map {
            Milestone(id: $0.string(0) ?? "", reachedAt: Date(timeIntervalSince1970: $0.double(1) ?? 0))
        }
        return StatsReport(
            reviewedTotal: reviewedTotal, cleared: cleared, moved: moved, inTrashBytes: try Trash.inTrashBytes(library: library),
            streak: streak(days: Set(reviewedPerDay.keys), today: today), lastSevenDays: lastSeven, milestones: milestones,
            goalTarget: goal, doneToday: reviewedPerDay[today] ?? 0, chapters: chapters, chapterCovers: covers, timeZone: timeZone)
    }

    /// Decisions made today (the local day of `clock`), undone ones left out: `report`'s
    /// `doneToday` (what `snapsort stats` shows as "Today: N reviewed · goal G"), without reading the
    /// whole history. Two days back covers every UTC offset; the day test is `report`'s.
    public static func doneToday(library: Library, clock: Clock, timeZone: TimeZone = .current) throws -> Int {
        let now = clock.now()
        let today = LocalDay(now, in: timeZone)
        // Items, not key presses: a card decided again (a changed mind, a second window) counts once.
        var files = Set<Int64>()
        for r in try library.db.rows(
            """
            SELECT ts, file_id, utc_offset FROM review_events WHERE kind = \(ReviewEventKind.decision.sql) AND undone=0 AND ts >= ?
            """, now.timeIntervalSince1970 - 2 * 86_400)
        where LocalDay.of(r.double(0) ?? 0, utcOffset: r.int(2).map(Int.init), else: timeZone) == today {
            files.insert(r.int(1) ?? -1)
        }
        return files.count
    }

    /// The numbers for the agent's status file (`trash {count, bytes}`, `cleared {today, week,
    /// total}`, `streak {current, longest}`, `goal {target, done_today}`, `awaiting_review`).
    public static func statusSnapshot(
        library: Library, clock: Clock, goal: Int = Review.defaultGoal,
        timeZone: TimeZone = .current
    ) throws -> StatusSnapshot {
        let r = try report(library: library, clock: clock, timeZone: timeZone, goal: goal)
        let staged = try Trash.stagedTotals(library: library)
        return StatusSnapshot(
            trashCount: staged.count, trashBytes: staged.bytes, inTrashBytes: r.inTrashBytes, cleared: r.cleared, moved: r.moved,
            streak: r.streak, goalTarget: goal, doneToday: r.doneToday,
            awaitingReview: try Decks.awaitingReview(library: library, clock: clock))
    }

    /// Current and longest streak over days with activity. The current streak is still alive
    /// when today has no verdict yet but yesterday had one.
    public static func streak(days: Set<LocalDay>, today: LocalDay) -> Streak {
        var s = Streak()
        var run = 0
        var previous: LocalDay?
        for d in days.sorted() {
            run = (previous.map { d.number == $0.number + 1 } ?? false) ? run + 1 : 1
            s.longest = max(s.longest, run)
            previous = d
        }
        var start = days.contains(today) ? today : today.adding(-1)
        while days.contains(start) {
            s.current += 1
            start = start.adding(-1)
        }
        return s
    }

    /// Records milestones newly reached (inside the caller's transaction). Returns their ids.
    @discardableResult
    public static func recordMilestones(library: Library, clock: Clock, timeZone: TimeZone = .current) throws -> [String] {
        let db = library.db
        let have = Set(try db.rows("SELECT id FROM milestones").compactMap { $0.string(0) })
        let all = [byteMilestones.map(\.0), reviewMilestones.map(\.0), streakMilestones.map(\.0)].joined()
        if all.allSatisfy(have.contains) { return [] }
        let needsStreak = !streakMilestones.allSatisfy { have.contains($0.0) }
        let reached = try milestonesReached(library: library, clock: clock, timeZone: timeZone, streak: needsStreak).filter { !have.contains($0) }
        for id in reached { try db.run("INSERT OR IGNORE INTO milestones(id, reached_ts) VALUES(?,?)", id, clock.now().timeIntervalSince1970) }
        return reached
    }

    /// Takes back the milestones whose mark the stats no longer reach (after an undo): a
    /// 7-day-streak badge beside "longest 6" contradicted itself. Reached again, they are
    /// recorded again with the new date (a reminder announces each one once).
    public static func withdrawMilestones(library: Library, clock: Clock, timeZone: TimeZone = .current) throws {
        let db = library.db
        let have = Set(try db.rows("SELECT id FROM milestones").compactMap { $0.string(0) })
        guard !have.isEmpty else { return }
        let needsStreak = streakMilestones.contains { have.contains($0.0) }
        let reached = Set(try milestonesReached(library: library, clock: clock, timeZone: timeZone, streak: needsStreak))
        for id in have.subtracting(reached) { try db.run("DELETE FROM milestones WHERE id = ?", id) }
    }

    /// Every milestone the stats reach now (the streak ones only when `streak`: they read every
    /// event, the others two sums).
    static func milestonesReached(library: Library, clock: Clock, timeZone: TimeZone, streak withStreak: Bool) throws -> [String] {
        let db = library.db
        let cleared =
            try db.scalar("SELECT COALESCE(sum(bytes),0) FROM review_events WHERE kind = \(ReviewEventKind.purged.sql) AND undone=0")
            ?? 0
        let reviewed = Int(
            try db.scalar("SELECT count(*) FROM review_events WHERE kind = \(ReviewEventKind.decision.sql) AND first_review=1 AND undone=0") ?? 0)
        var out = byteMilestones.filter { cleared >= $0.1 }.map(\.0) + reviewMilestones.filter { reviewed >= $0.1 }.map(\.0)
        if withStreak {
            let days = Set(try events(library).filter { $0.kind == .decision }.map { $0.day(in: timeZone) })
            let s = streak(days: days, today: LocalDay(clock.now(), in: timeZone))
            out += streakMilestones.filter { s.longest >= $0.1 }.map(\.0)
        }
        return out
    }

    /// `YYYY-MM-DDThh:mm:ss±hh:mm` in `timeZone`.
    public static func localTimestamp(_ d: Date, _ timeZone: TimeZone) -> String {
        let f = ISO8601DateFormatter()
        f.timeZone = timeZone
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: d)
    }
}
