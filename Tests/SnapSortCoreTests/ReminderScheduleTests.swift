import Foundation
import SnapSortCore
import Testing

/// Local wall time helpers checked against Foundation's calendar (an independent implementation).
enum Wall {
    static func calendar(_ tz: TimeZone) -> Calendar {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = tz
        return c
    }

    /// The components of an instant in `tz`.
    static func parts(_ d: Date, _ tz: TimeZone) -> DateComponents {
        calendar(tz).dateComponents([.year, .month, .day, .hour, .minute, .weekday], from: d)
    }

    /// An unambiguous local time ("2026-03-28 19:00") in `tz`.
    static func date(_ s: String, _ tz: TimeZone) -> Date {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = tz
        f.dateFormat = "yyyy-MM-dd HH:mm"
        return f.date(from: s)!
    }

    static func utc(_ s: String) -> Date {
        let f = ISO8601DateFormatter()
        return f.date(from: s)!
    }
}

@Suite("Reminder schedule")
struct ReminderScheduleTests {
    static let stockholm = TimeZone(identifier: "Europe/Stockholm")!
    static let newYork = TimeZone(identifier: "America/New_York")!
    static let lordHowe = TimeZone(identifier: "Australia/Lord_Howe")!

    /// Every occurrence in 2026 (local), walking `occurrence(after:)`.
    static func year(_ s: ReminderSchedule, _ tz: TimeZone, year: Int = 2026) -> [Date] {
        var out: [Date] = []
        var t = Wall.date("\(year)-01-01 00:00", tz)
        let end = Wall.date("\(year + 1)-01-01 00:00", tz)
        while let n = s.occurrence(after: t, in: tz), n < end {
            out.append(n)
            t = n
        }
        return out
    }

    @Test(
        "daily: every day of a year at 19:00 local, across both DST changes",
        arguments: [ReminderScheduleTests.stockholm, ReminderScheduleTests.newYork, ReminderScheduleTests.lordHowe])
    func daily(tz: TimeZone) {
        let s = ReminderSchedule(cadence: .daily, minuteOfDay: 19 * 60)
        let all = ReminderScheduleTests.year(s, tz)
        #expect(all.count == 365)
        var days = Set<String>()
        for d in all {
            let p = Wall.parts(d, tz)
            #expect(p.hour == 19 && p.minute == 0)
            days.insert("\(p.year!)-\(p.month!)-\(p.day!)")
        }
        #expect(days.count == 365)
        // Going back gives the same slots.
        for d in all.prefix(40) { #expect(s.occurrence(atOrBefore: d, in: tz) == d) }
    }

    @Test("weekly: each Sunday (and each Wednesday) of a year", arguments: [(7, 1), (3, 4)])
    func weekly(weekday: Int, foundationWeekday: Int) {
        for tz in [ReminderScheduleTests.stockholm, ReminderScheduleTests.newYork, ReminderScheduleTests.lordHowe] {
            let s = ReminderSchedule(cadence: .weekly(weekday: weekday), minuteOfDay: 9 * 60 + 30)
            let all = ReminderScheduleTests.year(s, tz)
            #expect(all.count == 52 || all.count == 53)
            for d in all {
                let p = Wall.parts(d, tz)
                #expect(p.weekday == foundationWeekday)
                #expect(p.hour == 9 && p.minute == 30)
            }
            for (a, b) in zip(all, all.dropFirst()) {
                // A week is 7 days ± the DST shift (1 h, or 30 min on Lord Howe).
                #expect(abs(b.timeIntervalSince(a) - 7 * 86_400) <= 3600)
            }
        }
    }

    @Test("monthly: days 29–31 fall back to the last day of short months; day 31 in February")
    func monthly() {
        let tz = ReminderScheduleTests.stockholm
        let s31 = ReminderSchedule(cadence: .monthly(day: 31), minuteOfDay: 19 * 60)
        let days31 = ReminderScheduleTests.year(s31, tz).map { Wall.parts($0, tz).day! }
        #expect(days31 == [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])
        // A leap year's February has a 29th.
        let leap = ReminderScheduleTests.year(s31, tz, year: 2028).map { Wall.parts($0, tz).day! }
        #expect(leap[1] == 29)
        let s30 = ReminderSchedule(cadence: .monthly(day: 30), minuteOfDay: 19 * 60)
        #expect(ReminderScheduleTests.year(s30, tz).map { Wall.parts($0, tz).day! } == [30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30])
        let s1 = ReminderSchedule(cadence: .monthly(day: 1), minuteOfDay: 8 * 60)
        #expect(ReminderScheduleTests.year(s1, tz).map { Wall.parts($0, tz).day! } == Array(repeating: 1, count: 12))
        // From inside February, the next "31st" is February's last day.
        #expect(s31.occurrence(after: Wall.date("2026-02-10 12:00", tz), in: tz) == Wall.date("2026-02-28 19:00", tz))
    }

    @Test("off: never")
    func off() {
        let s = ReminderSchedule(cadence: .off, minuteOfDay: 0)
        #expect(s.occurrence(after: Date(), in: .current) == nil)
        #expect(s.occurrence(atOrBefore: Date(), in: .current) == nil)
    }

    /// (time zone, local date, wall time, expected instant): skipped times move forward by
    /// the gap, repeated times are the first.
    static let transitions: [(String, String, String, String)] = [
        ("Europe/Stockholm", "2026-03-28", "19:00", "2026-03-28T18:00:00Z"),
        ("Europe/Stockholm", "2026-03-29", "19:00", "2026-03-29T17:00:00Z"),
        ("Europe/Stockholm", "2026-03-29", "02:30", "2026-03-29T01:30:00Z"),  // gap 02→03: 03:30 CEST
        ("Europe/Stockholm", "2026-10-25", "02:30", "2026-10-25T00:30:00Z"),  // twice: first (CEST)
        ("America/New_York", "2026-03-08", "02:30", "2026-03-08T07:30:00Z"),  // gap: 03:30 EDT
        ("America/New_York", "2026-11-01", "01:30", "2026-11-01T05:30:00Z"),  // twice: first (EDT)
        ("America/New_York", "2026-11-01", "19:00", "2026-11-02T00:00:00Z"),
        ("Australia/Lord_Howe", "2026-10-04", "02:15", "2026-10-03T15:45:00Z"),  // 30-minute gap: 02:45 (+11)
        ("Australia/Lord_Howe", "2026-04-05", "01:45", "2026-04-04T14:45:00Z"),  // twice: first (+11)
        ("Australia/Lord_Howe", "2026-04-05", "19:00", "2026-04-05T08:30:00Z"),  // +10:30 after
    ]

    @Test("DST forward and back", arguments: ReminderScheduleTests.transitions)
    func dst(zone: String, day: String, time: String, expected: String) {
        let tz = TimeZone(identifier: zone)!
        let p = day.split(separator: "-").map { Int($0)! }
        let minute = Configuration.parseTime(time)!
        let d = LocalCalendar.day(year: p[0], month: p[1], day: p[2])
        #expect(LocalCalendar.instant(day: d, minute: minute, tz) == Wall.utc(expected))
        // The daily schedule at that time lands on the same instant.
        let s = ReminderSchedule(cadence: .daily, minuteOfDay: minute)
        #expect(s.occurrence(after: Wall.utc(expected).addingTimeInterval(-1), in: tz) == Wall.utc(expected))
    }

    @Test("a day with a DST change is 23 h (spring) or 25 h (autumn) between two 19:00s")
    func dayLength() {
        let tz = ReminderScheduleTests.stockholm
        let s = ReminderSchedule(cadence: .daily, minuteOfDay: 19 * 60)
        let a = Wall.date("2026-03-28 19:00", tz)
        #expect(s.occurrence(after: a, in: tz)!.timeIntervalSince(a) == 23 * 3600)
        let b = Wall.date("2026-10-24 19:00", tz)
        #expect(s.occurrence(after: b, in: tz)!.timeIntervalSince(b) == 25 * 3600)
        let lh = ReminderScheduleTests.lordHowe
        let c = Wall.date("2026-10-03 19:00", lh)
        #expect(s.occurrence(after: c, in: lh)!.timeIntervalSince(c) == 23.5 * 3600)
    }

    @Test("a time-zone change: the next reminder is 19:00 in the new zone")
    func zoneChange() {
        let s = ReminderSchedule(cadence: .daily, minuteOfDay: 19 * 60)
        let now = Wall.utc("2026-06-10T12:00:00Z")
        #expect(s.occurrence(after: now, in: ReminderScheduleTests.stockholm) == Wall.utc("2026-06-10T17:00:00Z"))
        #expect(s.occurrence(after: now, in: ReminderScheduleTests.newYork) == Wall.utc("2026-06-10T23:00:00Z"))
    }

    @Test("quiet hours move a delivery to their end, also across midnight")
    func quiet() {
        let tz = ReminderScheduleTests.stockholm
        let s = ReminderSchedule(cadence: .daily, minuteOfDay: 23 * 60, quietHours: QuietHours("22:00-08:00"))
        #expect(s.deliveryTime(notBefore: Wall.date("2026-06-10 23:00", tz), in: tz) == Wall.date("2026-06-11 08:00", tz))
        #expect(s.deliveryTime(notBefore: Wall.date("2026-06-11 07:00", tz), in: tz) == Wall.date("2026-06-11 08:00", tz))
        #expect(s.deliveryTime(notBefore: Wall.date("2026-06-11 12:00", tz), in: tz) == Wall.date("2026-06-11 12:00", tz))
        let noon = ReminderSchedule(cadence: .daily, minuteOfDay: 0, quietHours: QuietHours("12:00-14:00"))
        #expect(noon.deliveryTime(notBefore: Wall.date("2026-06-11 13:10", tz), in: tz) == Wall.date("2026-06-11 14:00", tz))
        #expect(noon.deliveryTime(notBefore: Wall.date("2026-06-11 14:00", tz), in: tz) == Wall.date("2026-06-11 14:00", tz))
        #expect(QuietHours("off") == nil)
    }

    @Test("the configuration's keys become a schedule")
    func fromConfiguration() {
        var c = Configuration()
        #expect(ReminderSchedule(c).cadence == .weekly(weekday: 7))
        c.reminder = "monthly"
        c.reminderDay = 31
        c.reminderTime = "07:45"
        c.quietHours = nil
        let s = ReminderSchedule(c)
        #expect(s.cadence == .monthly(day: 31))
        #expect(s.minuteOfDay == 7 * 60 + 45)
        #expect(s.quietHours == nil)
        c.reminder = "off"
        #expect(ReminderSchedule(c).cadence == .off)
    }
}
