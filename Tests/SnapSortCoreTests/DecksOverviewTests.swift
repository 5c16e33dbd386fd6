import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// The overview counted in SQL (`Decks+Overview.swift`) against the straightforward count of
/// every candidate read into Swift (`Decks.overviewByCandidates`), on a real library with a
/// mix of everything the decks read: decisions of every kind (due and cooling down, a trash
/// verdict on bytes that changed since), months and years, On This Day (a 29 February among
/// them), every named filter, cameras written many ways, favourites by rating and by a rated
/// RAW, Live Photos, the Screenshots group and screenshots by name, smart groups, tombstones,
/// and the odd rows the SQL key leaves to Swift (names and cameras not in ASCII, dates not in
/// RFC 3339, a capture time without its text).
@Suite("Decks: the counted overview")
struct DecksOverviewTests {
    static let names = [
        "IMG_%d.jpg", "Screenshot_%d.png", "screen shot %d.png", "SCREENSHOT %d.PNG", "Bildschirmfoto %d.png",
        "IMG_E%d.HEIC", "holiday-%d-edited.jpg", "photo_%d_edit.jpg", "x%d-modificato.jpg", "Été %d.jpg",
        "capture d’écran %d.png", "Capture d %d.png", "scan%d.tiff", "DSC%d.JPG", "bearbeitet %d.jpg", "a/%d/",
    ]
    static let cameras: [(String?, String?)] = [
        ("Google", "Pixel 7"), ("Google", " Pixel 7 "), ("google", "Pixel 7"), ("Canon", "Canon EOS R5"), ("Xiaomi", "2201117TG"),
        ("\tApple", "iPhone 12\t"), ("Ñikon", "Z 6"), ("Nikon", "Z 6"), (nil, "Lonely"), ("Sony", nil), (nil, nil), (nil, nil),
        ("Apple", "iPhone 12"), ("", " "),
    ]
    static let lenses: [String?] = [nil, nil, "iPhone 12 front camera", "FRONT", "back camera", "Frönt"]
    static let software: [String?] = [nil, nil, "Adobe Photoshop 2024", "GIMP 2.10", "HDR+ 1.0", "Lightroom Classic", "Snapseed™", "Instagram"]
    static let ratings: [Int?] = [nil, nil, 0, 3, 4, 5, 1]

    /// A library of `count` rows made from a seeded generator; returns it and its live ids.
    static func library(count: Int = 600, seed: UInt64 = 7) throws -> (TestLibrary, [Int64]) {
        let t = try TestLibrary()
        let l = t.library
        var rng = SeededRandom(seed: seed)
        func pick<T>(_ a: [T]) -> T { a[Int(rng.next() % UInt64(a.count))] }
        var ids: [Int64] = []
        let base = ReviewFixture.date("2017-01-01 00:00:00").timeIntervalSince1970
        for i in 0..<count {
            let kind: MediaFormat.Kind = [.photo, .photo, .photo, .video, .other][Int(rng.next() % 5)]
            // Dates over ten years, a fifth of them on this day (29 November) or a 29 February.
            var taken: Date? = Date(timeIntervalSince1970: base + Double(rng.next() % (10 * 365 * 86_400)))
            switch rng.next() % 10 {
            case 0: taken = nil
            case 1: taken = ReviewFixture.date("\(2017 + Int(rng.next() % 10))-11-29 \(10 + Int(rng.next() % 14)):30:00")
            case 2: taken = ReviewFixture.date("2024-02-29 23:30:00")
            default: break
            }
            let tz = pick([ReviewFixture.utc, TimeZone(identifier: "Asia/Kolkata")!, TimeZone(identifier: "America/New_York")!])
            let (make, model) = pick(cameras)
            let name = String(format: pick(names), i)
            let id = try ReviewFixture.insert(
                l, path: t.root + "/\(i % 7)/" + name, taken: taken, kind: kind, bytes: Int64(1000 + i), make: make, model: model,
                lens: pick(lenses), software: pick(software), rating: pick(ratings), tz: tz)
            ids.append(id)
            switch rng.next() % 12 {
            // A capture time without its text (the Swift rules read it in the time zone asked).
            case 0: try l.db.run("UPDATE files SET taken_at = NULL WHERE id = ?", id)
            // A date as EXIF writes it, not RFC 3339.
            case 1: try l.db.run("UPDATE files SET taken_at = '2021:03:04 10:00:00' WHERE id = ? AND taken_at IS NOT NULL", id)
            case 2: try l.db.run("UPDATE files SET status = ? WHERE id = ?", ItemStatus.gone.rawValue, id)
            default: break
            }
        }
        // Pairs: Live Photos (a photo and its clip), RAW+JPEG with the RAW rated.
        var k = 0
        while k + 1 < ids.count {
            let kind = k % 3 == 0 ? "live" : "raw"
            try l.db.run("INSERT OR IGNORE INTO sidecars(file_id, sidecar_id, kind) VALUES(?, ?, ?)", ids[k], ids[k + 1], kind)
            if kind == "raw" { try l.db.run("UPDATE files SET rating = ? WHERE id = ?", [0, 3, 5][k % 3], ids[k + 1]) }
            k += 37
        }
        // Groups: screenshots, blurry, heavy, and Similar Shots sets (one of them down to one
        // live file: no set).
        for (i, id) in ids.enumerated() {
            if i % 9 == 0 { try l.db.run("INSERT INTO group_members(group_id, file_id) VALUES('screenshot', ?)", id) }
            if i % 11 == 0 { try l.db.run("INSERT INTO group_members(group_id, file_id) VALUES('blurry', ?)", id) }
            if i % 13 == 0 { try l.db.run("INSERT INTO group_members(group_id, file_id) VALUES('heavy', ?)", id) }
            if i % 5 == 0 {
                try l.db.run("INSERT INTO group_members(group_id, file_id) VALUES('similar', ?)", id)
                try l.db.run("INSERT INTO similar_sets(file_id, set_key, keeper) VALUES(?, ?, ?)", id, i / 15, i % 15 == 0 ? 1 : 0)
            }
        }
        return (t, ids)
    }

    /// Decisions of every kind on a share of `ids`, some of them on bytes that changed since.
    static func decide(_ t: TestLibrary, _ ids: [Int64], at now: Date, seed: UInt64 = 11) throws {
        let l = t.library
        var rng = SeededRandom(seed: seed)
        let (clock, time) = Clock.manual(now.addingTimeInterval(-40 * 86_400))
        for id in ids where rng.next() % 3 == 0 {
            guard try l.item(id: id)?.status != .gone else { continue }
            let d = Decision.allCases[Int(rng.next() % UInt64(Decision.allCases.count))]
            do { try Review.decide(d, fileID: id, library: l, clock: clock) } catch is ReviewError { continue }
            if d == .trash && rng.next() % 3 == 0 { try l.db.run("UPDATE files SET size = size + 1 WHERE id = ?", id) }
            time.advance(Double(rng.next() % 3) * 86_400)
        }
    }

    static let zones = ["UTC", "America/New_York", "Asia/Kolkata", "Pacific/Kiritimati"].map { TimeZone(identifier: $0)! }
    static let days = ["2026-11-29 12:00:00", "2026-02-28 09:00:00", "2028-02-29 09:00:00", "2026-06-15 23:59:00"]

    @Test("the counted overview is the straightforward count: every deck, title, waiting and progress")
    func countedOverviewIsTheStraightforwardOne() throws {
        let (t, ids) = try Self.library()
        let l = t.library
        for round in 0..<2 {
            if round == 1 { try Self.decide(t, ids, at: ReviewFixture.date(Self.days[0])) }
            for day in Self.days {
                let (clock, _) = Clock.manual(ReviewFixture.date(day))
                // The status file's count of the waiting cards, in two counts now.
                let waiting = try Decks.candidates(l).filter { $0.waiting(clock.now()) }.count
                #expect(try Decks.awaitingReview(library: l, clock: clock) == waiting, "\(day)")
                for tz in Self.zones {
                    for groups in [Decks.smartGroups, nil] {
                        let fast = try Decks.overview(library: l, clock: clock, timeZone: tz, groups: groups)
                        let plain = try Decks.overviewByCandidates(library: l, clock: clock, timeZone: tz, groups: groups)
                        #expect(fast == plain, "\(day) \(tz.identifier) groups: \(groups != nil) decided: \(round)")
                        if fast != plain {
                            for (a, b) in zip(fast, plain) where a != b { Issue.record("\(a) != \(b)") }
                            #expect(fast.count == plain.count)
                            return
                        }
                    }
                }
            }
        }
        // The mix holds what it says: decisions, special and plain rows, every named filter.
        let overview = try Decks.overview(library: l, clock: Clock.manual(ReviewFixture.date(Self.days[0])).0, timeZone: ReviewFixture.utc)
        let decks = Set(overview.map(\.id.description))
        for f in LibraryFilter.named.map(\.1) where f != .all { #expect(decks.contains("filter:\(f.name)"), "\(f.name)") }
        for d in ["on-this-day", "later", "group:blurry", "group:similar", "group:screenshot"] { #expect(decks.contains(d), "\(d)") }
        #expect(overview.contains { $0.progress.bytesToGain > 0 } && overview.contains { $0.progress.reviewed > 0 })
        // Both ways of counting are in it: many candidates of each.
        let special = try Decks.specialCandidates(l).count, all = try Decks.candidates(l).count
        #expect(special > 50 && all - special > 50, "\(special) of \(all)")
    }

    /// Decisions the SQL would read otherwise than `DecisionRecord` (a word it does not know, a
    /// size written as text, an empty hash, a device without its inode) are special: read whole
    /// and counted by the Swift rules; a deferral without its end is plain (both read it as due).
    @Test("decisions the SQL would read otherwise are counted by the Swift rules")
    func oddDecisionsAreCountedBySwift() throws {
        let (t, ids) = try Self.library(count: 300, seed: 17)
        let l = t.library
        try Self.decide(t, ids, at: ReviewFixture.date(Self.days[0]))
        try l.db.run("UPDATE decisions SET later_until = NULL WHERE decision = 'later' AND file_id % 2 = 0")
        try l.db.run("UPDATE decisions SET reviewed_device = NULL WHERE file_id % 5 = 1")
        try l.db.run("UPDATE decisions SET reviewed_hash = x'' WHERE file_id % 5 = 2")
        try l.db.run("UPDATE decisions SET reviewed_size = 'many' WHERE file_id % 5 = 3")
        try l.db.run("UPDATE decisions SET decision = 'maybe' WHERE file_id % 7 = 4")
        let odd = try l.db.scalar("SELECT count(*) FROM (\(Decks.Decided.special))") ?? 0
        #expect(odd > 10, "\(odd)")
        for day in Self.days {
            let (clock, _) = Clock.manual(ReviewFixture.date(day))
            for groups in [Decks.smartGroups, nil] {
                let fast = try Decks.overview(library: l, clock: clock, timeZone: ReviewFixture.utc, groups: groups)
                let plain = try Decks.overviewByCandidates(library: l, clock: clock, timeZone: ReviewFixture.utc, groups: groups)
                #expect(fast == plain, "\(day)")
                for (a, b) in zip(fast, plain) where a != b { Issue.record("\(a) != \(b)") }
            }
            let deck = try Decks.build(.filter(.screenshots, year: nil), library: l, clock: clock)
            let cutoff = clock.now().timeIntervalSince1970 - 30 * 86_400
            let expected = deck.items.filter { c in
                (c.item.takenTimestamp ?? Double(c.item.mtimeNanoseconds) / 1e9) < cutoff && c.decision == nil
            }.map(\.item.id)
            #expect(try Decks.oldScreenshots(days: 30, library: l, clock: clock).map(\.id) == expected, "\(day)")
        }
    }

    @Test("the counted overview follows a custom group source as the straightforward count does")
    func customGroupSource() throws {
        let (t, ids) = try Self.library(count: 200, seed: 3)
        try Self.decide(t, ids, at: ReviewFixture.date(Self.days[0]))
        let source = Decks.GroupSource { _ in [(id: "mine", title: "Mine", fileIDs: Array(ids.prefix(80)) + [ids[3], -1])] }
        let (clock, _) = Clock.manual(ReviewFixture.date(Self.days[0]))
        let fast = try Decks.overview(library: t.library, clock: clock, timeZone: ReviewFixture.utc, groups: source)
        #expect(fast == (try Decks.overviewByCandidates(library: t.library, clock: clock, timeZone: ReviewFixture.utc, groups: source)))
        #expect(fast.contains { $0.id == .group("mine") })
    }

    @Test("old screenshots: the Screenshots deck's cards without a verdict older than the days asked, in the deck's order")
    func oldScreenshotsAreTheDecksOwn() throws {
        let (t, ids) = try Self.library(count: 400, seed: 5)
        try Self.decide(t, ids, at: ReviewFixture.date(Self.days[0]))
        for day in Self.days {
            let (clock, _) = Clock.manual(ReviewFixture.date(day))
            let deck = try Decks.build(.filter(.screenshots, year: nil), library: t.library, clock: clock)
            for days in [0, 30, 400, 4000] {
                let cutoff = clock.now().timeIntervalSince1970 - Double(days) * 86_400
                let expected = deck.items.filter { c in
                    (c.item.takenTimestamp ?? Double(c.item.mtimeNanoseconds) / 1e9) < cutoff && c.decision == nil
                }.map(\.item.id)
                let got = try Decks.oldScreenshots(days: days, library: t.library, clock: clock).map(\.id)
                #expect(got == expected, "\(day) \(days)")
                if days == 400 { #expect(!got.isEmpty) }
            }
        }
    }

    @Test("the overview's counts read the kept counts and narrow indexes, never the table's rows")
    func theCountsReadTheIndex() throws {
        let t = try TestLibrary()
        func plan(_ sql: String, _ args: SQLBindable...) throws -> String {
            try t.library.db.rows("EXPLAIN QUERY PLAN " + sql, arguments: args).compactMap { $0.string(3) }.joined(separator: "; ")
        }
        #expect(try plan(Decks.DeckKey.counts).contains("SCAN deck_counts"))
        let decided = try plan(Decks.DeckKey.decidedKept)
        #expect(decided.contains("SEARCH c USING PRIMARY KEY (key=?)") && !decided.contains("decisions"), "\(decided)")
        #expect(try plan("SELECT id FROM files WHERE \(Library.live()) AND \(Decks.DeckKey.odd) = 1").contains("files_deck (<expr>=?)"))
    }

    /// `deck_counts` (migration 89) is what a GROUP BY of every live row's key says, after
    /// every kind of write to `files`: rows made, renamed, dated again, retagged, removed,
    /// brought back, deleted.
    @Test("the kept deck counts follow every write to the files")
    func theKeptCountsFollowTheFiles() throws {
        let (t, ids) = try Self.library(count: 300, seed: 13)
        let l = t.library
        func expectKept(_ step: String) throws {
            let kept = try l.db.rows("SELECT key, n FROM deck_counts ORDER BY key").map { "\($0.string(0)!) \($0.int(1)!)" }
            let counted = try l.db.rows(
                """
                SELECT \(Decks.DeckKey.names.map { "quote(\($0))" }.joined(separator: " || ',' || ")) AS key, count(*) FROM (
                  SELECT \(zip(Decks.DeckKey.columns, Decks.DeckKey.names).map { "\($0) AS \($1)" }.joined(separator: ", "))
                  FROM files WHERE \(Library.live())) GROUP BY key ORDER BY key
                """
            ).map { "\($0.string(0)!) \($0.int(1)!)" }
            #expect(kept == counted, "\(step)")
        }
        try expectKept("made")
        try l.db.run("UPDATE files SET path = path || '-Screenshot.png' WHERE id % 5 = 0")
        try l.db.run("UPDATE files SET taken_at = '2019-05-06T07:08:09Z' WHERE id % 7 = 0")
        try l.db.run("UPDATE files SET model = 'Pixel 9', make = 'Google', lens = 'front', software = 'GIMP', rating = 5 WHERE id % 6 = 0")
        try l.db.run("UPDATE files SET kind = 'video' WHERE id % 8 = 0")
        try expectKept("changed")
        try l.db.run("UPDATE files SET status = ? WHERE id % 9 = 0", ItemStatus.gone.rawValue)
        try l.db.run("UPDATE files SET status = ? WHERE id % 4 = 0", ItemStatus.ok.rawValue)
        try l.db.run("UPDATE files SET size = size + 1 WHERE id % 3 = 0")
        try expectKept("gone and back")
        try l.db.run("DELETE FROM files WHERE id IN (?, ?, ?)", ids[1], ids[2], ids[3])
        try expectKept("deleted")
    }

    /// The overview's read is the database's own read transaction: a write made inside it
    /// (a transaction, as a caller's step may be) is a savepoint of it. A raw `SAVEPOINT`
    /// beside `Database.transaction`'s depth made it begin again, and fail.
    @Test("a transaction inside the decks' read works")
    func aTransactionInsideTheReadWorks() throws {
        let (t, ids) = try Self.library(count: 40, seed: 3)
        let (clock, _) = Clock.manual(ReviewFixture.date(Self.days[0]))
        try Self.decide(t, ids, at: clock.now())
        let decided = try #require(try t.library.db.scalar("SELECT file_id FROM decisions LIMIT 1"))
        let counted = try Decks.reading(t.library) { () -> [DeckSummary] in
            let summaries = try Decks.countedOverview(library: t.library, clock: clock, timeZone: .current, groups: nil)
            try t.library.db.transaction { try t.library.db.run("DELETE FROM decisions WHERE file_id = ?", decided) }
            return summaries
        }
        #expect(!counted.isEmpty)
        #expect(try t.library.db.scalar("SELECT count(*) FROM decisions WHERE file_id = ?", decided) == 0)
    }

    /// The index's text is a fixed literal in its migration (73), the key the counts read is
    /// built from live constants (`Decks.DeckKey`, the editors, the favourite rating, the
    /// screenshot words): changed without a migration that makes the index again, the
    /// counts would scan every row of every library made before, silently.
    @Test("the index a library holds is the deck key the counts read")
    func theIndexIsTheKeyTheCountsRead() throws {
        let t = try TestLibrary()
        let stored = try t.library.db.rows("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'files_deck'").first?.string(0)
        #expect(stored == Decks.DeckKey.index, "a change to Decks.DeckKey needs a migration that drops files_deck and creates it again")
        // And the triggers that keep `deck_keys` (migration 89) make the same key.
        for trigger in ["deck_keys_file_added", "deck_keys_file_changed"] {
            let sql = try t.library.db.rows("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", trigger).first?.string(0) ?? ""
            #expect(
                sql.contains("SELECT id, \(Decks.DeckKey.columns.joined(separator: ", ")) FROM files WHERE id = NEW.id"),
                "a change to Decks.DeckKey needs a migration that makes \(trigger) again")
        }
    }
}
