import Foundation

/// How often reminders come.
public enum ReminderCadence: Sendable, Equatable, CustomStringConvertible {
    case off
    case daily
    /// On a weekday: 1 Monday … 7 Sunday (ISO 8601).
    case weekly(weekday: Int)
    /// On a day of the month, 1…31; a day the month does not have falls back to its last day.
    case monthly(day: Int)

    public var description: String {
        switch self {
        case .off: "off"
        case .daily: "daily"
        case .weekly(let w): "weekly(\(LocalCalendar.weekdayNames[w - 1]))"
        case .monthly(let d): "monthly(\(d))"
        }
    }
}

/// A daily span of local time in which nothing is shown, e.g. 22:00–08:00 (may wrap midnight).
public struct QuietHours: Sendable, Equatable {
    /// Minutes after local midnight; `start == end` is an empty span.
    public var start: Int
    public var end: Int

    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }

    /// Parses `HH:MM-HH:MM` (nil for `off`, empty or malformed text).
    public init?(_ text: String) {
        let parts = text.split(separator: "-").map(String.init)
        guard parts.count == 2, let s = Configuration.parseTime(parts[0]), let e = Configuration.parseTime(parts[1]) else { return nil }
        self.init(start: s, end: e)
    }

    /// Whether a local minute of the day is quiet.
    public func contains(minute m: Int) -> Bool {
        if start == end { return false }
        return start < end ? (start <= m && m < end) : (m >= start || m < end)
    }
}

/// When reminders are due: a cadence at a local time of day, outside quiet hours.
///
/// Everything is computed in local wall time for the time zone passed in, so a reminder at
/// 19:00 stays at 19:00 across DST changes and after the user moves to another time zone.
/// A wall time that does not exist (the hour skipped in spring) moves forward by the gap
/// (02:30 → 03:30 in Stockholm, 02:15 → 02:45 on Lord Howe); a wall time that happens twice
/// (autumn) is the first one.
public struct ReminderSchedule: Sendable, Equatable {
    public var cadence: ReminderCadence
    /// Minutes after local midnight.
    public var minuteOfDay: Int
    public var quietHours: QuietHours?

    public init(cadence: ReminderCadence, minuteOfDay: Int, quietHours: QuietHours? = nil) {
        self.cadence = cadence
        self.minuteOfDay = minuteOfDay
        self.quietHours = quietHours
    }

    /// The schedule of a configuration (`reminder`, `reminder_time`, `reminder_weekday`,
    /// `reminder_day`, `quiet_hours`).
    public init(_ c: Configuration) {
        let cadence: ReminderCadence
        switch c.reminder {
        case "daily": cadence = .daily
        case "weekly": cadence = .weekly(weekday: (LocalCalendar.weekdayNames.firstIndex(of: c.reminderWeekday) ?? 6) + 1)
        case "monthly": cadence = .monthly(day: min(31, max(1, c.reminderDay)))
        default: cadence = .off
        }
        self.init(
            cadence: cadence, minuteOfDay: Configuration.parseTime(c.reminderTime) ?? 19 * 60,
            quietHours: c.quietHours.flatMap(QuietHours.init))
    }

    /// Whether the cadence falls on a local day.
    public func falls(on day: Int) -> Bool {
        switch cadence {
        case .off: return false
        case .daily: return true
        case .weekly(let w): return LocalCalendar.weekday(day) == w
        case .monthly(let want):
            let (y, m, d) = LocalCalendar.civil(day)
            return d == min(want, LocalCalendar.daysInMonth(y, m))
        }
    }

    /// The first scheduled time strictly after `t` (nil when off).
    public func occurrence(after t: Date, in tz: TimeZone) -> Date? {
        guard cadence != .off else { return nil }
        let today = LocalCalendar.local(t, tz).day
        for day in (today - 1)...(today + 63) where falls(on: day) {
            let s = LocalCalendar.instant(day: day, minute: minuteOfDay, tz)
            if s > t { return s }
        }
        return nil
    }

    /// The last scheduled time at or before `t` (nil when off).
    public func occurrence(atOrBefore t: Date, in tz: TimeZone) -> Date? {
        guard cadence != .off else { return nil }
        let today = LocalCalendar.local(t, tz).day
        for day in stride(from: today + 1, through: today - 63, by: -1) where falls(on: day) {
            let s = LocalCalendar.instant(day: day, minute: minuteOfDay, tz)
            if s <= t { return s }
        }
        return nil
    }

    /// Whether `t` is inside quiet hours.
    public func isQuiet(_ t: Date, in tz: TimeZone) -> Bool {
        guard let q = quietHours else { return false }
        return q.contains(minute: LocalCalendar.local(t, tz).minute)
    }

    /// `t`, or the end of the quiet hours `t` falls in.
    public func deliveryTime(notBefore t: Date, in tz: TimeZone) -> Date {
        guard let q = quietHours, q.contains(minute: LocalCalendar.local(t, tz).minute) else { return t }
        let (day, m) = LocalCalendar.local(t, tz)
        // In a span that wraps midnight, the evening part ends tomorrow.
        let endDay = (q.start > q.end && m >= q.start) ? day + 1 : day
        let end = LocalCalendar.instant(day: endDay, minute: q.end, tz)
        return end > t ? end : t
    }
}

/// Civil-calendar arithmetic on local day numbers (days since 1970-01-01), independent of
/// Foundation's calendar so that DST gaps and overlaps are handled explicitly.
public enum LocalCalendar {
    /// `mon` … `sun`, as the configuration spells them.
    public static let weekdayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// The local day number and minute of the day of `t` in `tz`.
    public static func local(_ t: Date, _ tz: TimeZone) -> (day: Int, minute: Int) {
        let s = Int((t.timeIntervalSince1970).rounded(.down)) + tz.secondsFromGMT(for: t)
        let day = Int((Double(s) / 86_400).rounded(.down))
        return (day, (s - day * 86_400) / 60)
    }

    /// The instant of a local wall time. A time skipped by DST moves forward by the gap; a
    /// repeated time is its first occurrence.
    public static func instant(day: Int, minute: Int, _ tz: TimeZone) -> Date {
        let wall = day * 86_400 + minute * 60
        // The offsets a day before and after bracket at most one transition.
        let before = tz.secondsFromGMT(for: Date(timeIntervalSince1970: Double(wall - 86_400)))
        let after = tz.secondsFromGMT(for: Date(timeIntervalSince1970: Double(wall + 86_400)))
        var valid: [Int] = []
        for off in Set([before, after]) {
            let u = wall - off
            if tz.secondsFromGMT(for: Date(timeIntervalSince1970: Double(u))) == off { valid.append(u) }
        }
        // None valid: the wall time is in a gap; with the old offset it lands after the gap.
        let u = valid.min() ?? (wall - before)
        return Date(timeIntervalSince1970: Double(u))
    }

    /// The local day number of a civil date.
    public static func day(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a local day number (Howard Hinnant's `civil_from_days`).
    public static func civil(_ z0: Int) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// 1 Monday … 7 Sunday (1970-01-01 was a Thursday).
    public static func weekday(_ day: Int) -> Int { ((day % 7 + 7 + 3) % 7) + 1 }

    public static func daysInMonth(_ y: Int, _ m: Int) -> Int {
        switch m {
        case 2: return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
