import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

@Suite("Stats")
struct StatsTests {
    /// Makes one verdict at each local time (in `tz`) on a fresh item.
    static func decideAt(_ times: [String], tz: TimeZone, lib: TestLibrary) throws {
        for (i, t) in times.enumerated() {
            let id = try ReviewFixture.insert(lib.library, path: lib.root + "/s\(i)-\(UUID().uuidString).jpg", taken: nil)
            let (clock, _) = Clock.manual(ReviewFixture.date(t, tz))
            try Review.decide(.keep, fileID: id, library: lib.library, clock: clock, timeZone: tz)
        }
    }

    @Test("a streak crosses midnight in local time, not UTC")
    func midnight() throws {
        let tz = TimeZone(identifier: "America/Los_Angeles")!
        let lib = try TestLibrary()
        // 23:59 and 00:01 local are two days (but the same UTC day).
        try StatsTests.decideAt(["2026-06-10 23:59:00", "2026-06-11 00:01:00"], tz: tz, lib: lib)
        let (clock, time) = Clock.manual(ReviewFixture.date("2026-06-11 20:00:00", tz))
        var r = try Stats.report(library: lib.library, clock: clock, timeZone: tz)
        #expect(r.streak == Streak(current: 2, longest: 2))
        #expect(r.doneToday == 1)
        // Still alive the next day before any verdict; broken the day after.
        time.set(ReviewFixture.date("2026-06-12 23:59:59", tz))
        r = try Stats.report(library: lib.library, clock: clock, timeZone: tz)
        #expect(r.streak == Streak(current: 2, longest: 2))
        time.set(ReviewFixture.date("2026-06-13 00:00:01", tz))
        r = try Stats.report(library: lib.library, clock: clock, timeZone: tz)
        #expect(r.streak == Streak(current: 0, longest: 2))
    }

    @Test(
        "streaks are DST-safe (23- and 25-hour days)",
        arguments: [
            ("Europe/Berlin", ["2026-03-28 23:30:00", "2026-03-29 00:30:00", "2026-03-30 23:50:00", "2026-03-31 00:10:00"]),
            ("Europe/Berlin", ["2026-10-24 23:30:00", "2026-10-25 23:30:00", "2026-10-26 00:30:00"]),
            ("America/New_York", ["2026-03-07 22:00:00", "2026-03-08 03:30:00", "2026-03-09 00:00:00"]),
            ("America/New_York", ["2026-10-31 23:59:00", "2026-11-01 01:30:00", "2026-11-02 23:59:00"]),
        ])
    func dst(_ zone: String, _ times: [String]) throws {
        let tz = TimeZone(identifier: zone)!
        let lib = try TestLibrary()
        try StatsTests.decideAt(times, tz: tz, lib: lib)
        let last = ReviewFixture.date(times.last!, tz)
        let (clock, _) = Clock.manual(last)
        let r = try Stats.report(library: lib.library, clock: clock, timeZone: tz)
        let days = Set(times.map { String($0.prefix(10)) }).count
        #expect(r.streak == Streak(current: days, longest: days))
        #expect(r.lastSevenDays.last?.date == String(times.last!.prefix(10)))
        #expect(r.lastSevenDays.map(\.reviewed).reduce(0, +) == times.count)
    }

    /// A session's day is the day it was where it was made: two mornings' sessions in Tokyo
    /// stay two days (a streak of two) when the stats are read back home in Los Angeles, where
    /// both fell on one day.
    @Test("a day stays the day it was where the verdicts were given")
    func daysKeepTheZoneTheyWereMadeIn() throws {
        let tokyo = TimeZone(identifier: "Asia/Tokyo")!, la = TimeZone(identifier: "America/Los_Angeles")!
        let lib = try TestLibrary()
        try StatsTests.decideAt(["2026-06-10 23:30:00", "2026-06-11 08:00:00"], tz: tokyo, lib: lib)
        let (clock, _) = Clock.manual(ReviewFixture.date("2026-06-11 18:00:00", la))
        let r = try Stats.report(library: lib.library, clock: clock, timeZone: la)
        #expect(r.streak == Streak(current: 2, longest: 2))
        #expect(r.lastSevenDays.suffix(2).map(\.reviewed) == [1, 1], "\(r.lastSevenDays)")
        #expect(try Stats.doneToday(library: lib.library, clock: clock, timeZone: la) == 1)
    }

    @Test("local days count consecutive calendar days")
    func localDays() {
        let tz = TimeZone(identifier: "Europe/Berlin")!
        let a = LocalDay(ReviewFixture.date("2026-03-29 00:30:00", tz), in: tz)
        let b = LocalDay(ReviewFixture.date("2026-03-29 23:30:00", tz), in: tz)
        #expect(a == b && a.description == "2026-03-29" && a.adding(1).description == "2026-03-30")
        #expect(LocalDay(year: 2024, month: 2, day: 28).adding(1).description == "2024-02-29")
        #expect(LocalDay(year: 1970, month: 1, day: 1).number == 0)
        #expect(Stats.streak(days: [a.adding(-3), a.adding(-2), a], today: a) == Streak(current: 1, longest: 2))
    }

    @Test("a card decided twice in a day (a second window, a changed mind) counts once toward the day")
    func aCardDecidedTwiceCountsOnce() throws {
        let lib = try TestLibrary()
        let a = try ReviewFixture.insert(lib.library, path: lib.root + "/a.jpg", taken: nil)
        let b = try ReviewFixture.insert(lib.library, path: lib.root + "/b.jpg", taken: nil)
        let (clock, time) = Clock.manual(ReviewFixture.date("2026-06-10 12:00:00"))
        try Review.decide(.trash, fileID: a, library: lib.library, clock: clock)
        time.advance(5)
        try Review.decide(.keep, fileID: a, library: lib.library, clock: clock)
        try Review.decide(.keep, fileID: b, library: lib.library, clock: clock)
        #expect(try Stats.doneToday(library: lib.library, clock: clock, timeZone: ReviewFixture.utc) == 2)
        let r = try Stats.report(library: lib.library, clock: clock, timeZone: ReviewFixture.utc)
        #expect(r.doneToday == 2 && r.lastSevenDays.last?.reviewed == 2 && r.reviewedTotal == 2)
    }

    @Test("a restore on a later day never makes a day's moved bytes negative")
    func restoreOnALaterDay() throws {
        let lib = try TestLibrary()
        let id = try ReviewFixture.insert(lib.library, path: lib.root + "/r.jpg", taken: nil)
        // As a commit on the 10th and a restore on the 11th book them.
        try lib.library.db.run(
            "INSERT INTO review_events(ts, kind, file_id, bytes) VALUES(?, 'cleared', ?, 70671), (?, 'restored', ?, -70671)",
            ReviewFixture.date("2026-06-10 10:00:00").timeIntervalSince1970, id, ReviewFixture.date("2026-06-11 10:00:00").timeIntervalSince1970, id)
        let (clock, _) = Clock.manual(ReviewFixture.date("2026-06-11 12:00:00"))
        let r = try Stats.report(library: lib.library, clock: clock, timeZone: ReviewFixture.utc)
        #expect(r.moved.today == 0 && r.moved.week == 0 && r.moved.total == 0, "\(r.moved)")
        #expect(r.lastSevenDays.allSatisfy { $0.bytesMoved >= 0 })
        // The bytes leave the commit's day too: the chart's days add up to the week (they stayed
        // on the 10th, review 8).
        #expect(r.lastSevenDays.allSatisfy { $0.bytesMoved == 0 && $0.bytesCleared == 0 }, "\(r.lastSevenDays)")
    }

    /// Numbers mean what they say (issue 43, item 4): a commit moves bytes to the Trash — they
    /// are "moved" and "waiting in the Trash", not cleared ("Space cleared 387 kB" stood beside
    /// "Still in the Trash 387 kB"); emptying the Trash clears them, and "100 MB cleared" is
    /// reached then, not at the commit.
    @Test func bytesAreClearedWhenTheyLeaveTheDiskNotWhenTheyAreMovedToTheTrash() throws {
        let s = try TrashSetup(["big.jpg"])
        let id = try s.stage("big.jpg")
        let bytes = try #require(try s.lib.library.item(id: id)?.bytes)
        let report = try s.commit()
        #expect(report.succeeded.count == 1)
        var r = try Stats.report(library: s.lib.library, clock: s.clock, timeZone: ReviewFixture.utc)
        #expect(r.moved == Cleared(today: bytes, week: bytes, total: bytes), "\(r.moved)")
        #expect(r.inTrashBytes == bytes)
        #expect(r.cleared == Cleared(), "moved to the Trash is not cleared: \(r.cleared)")
        #expect(r.lastSevenDays.last?.bytesMoved == bytes && r.lastSevenDays.last?.bytesCleared == 0)
        // As if it were 150 MB: moved, it reaches no "cleared" milestone.
        try s.lib.library.db.run("UPDATE trash_ledger SET bytes = 150000000 WHERE file_id = ?", id)
        try s.lib.library.db.run("UPDATE review_events SET bytes = 150000000 WHERE file_id = ? AND kind = 'cleared'", id)
        #expect(try Stats.recordMilestones(library: s.lib.library, clock: s.clock, timeZone: ReviewFixture.utc).isEmpty)
        // The Trash emptied (as a file manager does): noticed, the bytes left the disk.
        for dir in ["files", "info"] {
            for e in try FileSystem.listDirectory(s.homeTrash + "/" + dir) { try FileSystem.remove(s.homeTrash + "/" + dir + "/" + e.name) }
        }
        #expect(try Trash.noticeRestores(library: s.lib.library, clock: s.clock) == 0)
        r = try Stats.report(library: s.lib.library, clock: s.clock, timeZone: ReviewFixture.utc)
        #expect(r.cleared == Cleared(today: 150_000_000, week: 150_000_000, total: 150_000_000), "\(r.cleared)")
        #expect(r.moved.total == 150_000_000 && r.inTrashBytes == 0)
        #expect(r.lastSevenDays.last?.bytesCleared == 150_000_000)
        #expect(try s.lib.library.db.scalar("SELECT count(*) FROM milestones WHERE id = 'cleared_100mb'") == 1)
        // Noticed again, it counts once.
        _ = try Trash.noticeRestores(library: s.lib.library, clock: s.clock)
        #expect(try Stats.report(library: s.lib.library, clock: s.clock, timeZone: ReviewFixture.utc).cleared.total == 150_000_000)
        // The status file and the page's summary say the same: cleared, moved, waiting.
        let snap = try Stats.statusSnapshot(library: s.lib.library, clock: s.clock, timeZone: ReviewFixture.utc)
        #expect(snap.json["cleared"]?["total"]?.intValue == 150_000_000 && snap.json["moved_to_trash"]?["total"]?.intValue == 150_000_000)
        #expect(snap.json["trash"]?["in_trash_bytes"]?.intValue == 0)
    }

    /// A restore takes its bytes back from "moved to the Trash"; nothing had left the disk.
    @Test func aRestoreTakesBackWhatWasMovedAndClearsNothing() throws {
        let s = try TrashSetup(["big.jpg"])
        _ = try s.stage("big.jpg")
        _ = try s.commit()
        let ledger = try #require(try Trash.inSystemTrash(library: s.lib.library).first?.ledgerID)
        #expect(try Trash.restore(ledgerIDs: [ledger], library: s.lib.library, clock: s.clock).first?.result == .restored)
        let r = try Stats.report(library: s.lib.library, clock: s.clock, timeZone: ReviewFixture.utc)
        #expect(r.moved == Cleared() && r.cleared == Cleared() && r.inTrashBytes == 0, "\(r.moved) \(r.cleared)")
    }

    @Test("stats --json has exactly the contract's keys")
    func jsonKeys() throws {
        let lib = try TestLibrary()
        try StatsTests.decideAt(["2026-06-10 10:00:00"], tz: ReviewFixture.utc, lib: lib)
        let (clock, _) = Clock.manual(ReviewFixture.date("2026-06-10 12:00:00"))
        let json = try Stats.report(library: lib.library, clock: clock, timeZone: ReviewFixture.utc, goal: 25).json
        guard case .object(let o) = json else { Issue.record("not an object"); return }
        #expect(
            o.map(\.0) == [
                "reviewed_total", "bytes_cleared", "in_trash_bytes", "streak", "last_7_days", "milestones", "goal", "chapters",
                "bytes_moved_to_trash",
            ])
        #expect(json["bytes_cleared"]?["week"]?.intValue == 0)
        #expect(json["goal"]?["done_today"]?.intValue == 1 && json["goal"]?["target"]?.intValue == 25)
        #expect(json["last_7_days"]?.arrayValue?.count == 7)
        #expect(json["last_7_days"]?.arrayValue?.last?["reviewed"]?.intValue == 1)
        let snapshot = try Stats.statusSnapshot(library: lib.library, clock: clock, goal: 25, timeZone: ReviewFixture.utc)
        #expect(snapshot.doneToday == 1 && snapshot.awaitingReview == 0 && snapshot.streak.current == 1)
    }

    @Test("100 reviewed is a milestone with its date; a changed verdict is not a second review")
    func milestones() throws {
        let lib = try TestLibrary()
        let (clock, time) = Clock.manual(ReviewFixture.date("2026-06-10 12:00:00"))
        var first: Int64 = 0
        for i in 0..<100 {
            let id = try ReviewFixture.insert(lib.library, path: lib.root + "/m\(i).jpg", taken: nil)
            if i == 0 { first = id }
            let o = try Review.decide(.keep, fileID: id, library: lib.library, clock: clock)
            #expect(o.milestones == (i == 99 ? ["reviewed_100"] : []))
            time.advance(1)
        }
        try Review.decide(.trash, fileID: first, library: lib.library, clock: clock)
        let r = try Stats.report(library: lib.library, clock: clock, timeZone: ReviewFixture.utc)
        #expect(r.reviewedTotal == 100)
        #expect(r.milestones.map(\.id) == ["reviewed_100"])
        // Undone below the mark, the milestone goes with the decision that earned it (a badge
        // beside numbers that no longer reach it, review 7, F5); reached again, it comes back.
        _ = try Review.undo(library: lib.library, clock: clock)  // the changed verdict: still 100 reviewed
        #expect(try Stats.report(library: lib.library, clock: clock, timeZone: ReviewFixture.utc).milestones.map(\.id) == ["reviewed_100"])
        _ = try Review.undo(library: lib.library, clock: clock)  // the 100th review
        let after = try Stats.report(library: lib.library, clock: clock, timeZone: ReviewFixture.utc)
        #expect(after.reviewedTotal == 99 && after.milestones.isEmpty, "\(after.milestones)")
        let again = try Review.decide(.keep, fileID: first + 99, library: lib.library, clock: clock)
        #expect(again.milestones == ["reviewed_100"])
    }
}
