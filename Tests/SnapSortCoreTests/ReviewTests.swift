import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Testing

/// Helpers shared by the review, decks, trash and stats tests.
enum ReviewFixture {
    static let utc = TimeZone(identifier: "UTC")!

    /// Inserts a library row directly (decks and stats tests need many items, not decoding).
    @discardableResult
    static func insert(
        _ library: Library, path: String, taken: Date?, kind: MediaFormat.Kind = .photo, format: String = "jpeg",
        bytes: Int64 = 1000, make: String? = nil, model: String? = nil, lens: String? = nil,
        software: String? = nil, rating: Int? = nil, tz: TimeZone = utc
    ) throws -> Int64 {
        let takenText = taken.map { d -> String in
            let f = ISO8601DateFormatter()
            f.timeZone = tz
            return f.string(from: d)
        }
        try library.db.run(
            """
            INSERT INTO files(path, device, inode, size, mtime_ns, kind, format, status, taken_at, taken_ts, taken_source,
                              make, model, lens, software, rating, first_seen_at)
            VALUES(?, 1, abs(random()) % 100000000, ?, 0, ?, ?, 'ok', ?, ?, 'exif', ?, ?, ?, ?, ?, '2026-01-01T00:00:00Z')
            """, path, bytes, kind.rawValue, format, takenText, taken?.timeIntervalSince1970, make, model, lens, software, rating)
        return library.db.lastInsertRowID
    }

    /// A date from text `yyyy-MM-dd HH:mm:ss` in a time zone.
    static func date(_ text: String, _ tz: TimeZone = utc) -> Date {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = tz
        f.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return f.date(from: text)!
    }

    /// A scanned library with `count` small JPEGs under Pictures/.
    static func scanned(_ names: [String]) throws -> TestLibrary { try TestLibrary.scanned(names) }
}

@Suite("Review: decisions and undo")
struct ReviewTests {
    @Test("undo restores the previous decision of every kind", arguments: Decision.allCases)
    func undoEveryKind(_ kind: Decision) throws {
        let lib = try TestLibrary()
        let (clock, _) = Clock.manual(ReviewFixture.date("2026-03-01 12:00:00"))
        let id = try ReviewFixture.insert(lib.library, path: lib.root + "/a.jpg", taken: Date(timeIntervalSince1970: 0))
        let first: Decision = kind == .keep ? .trash : .keep  // the same verdict twice is one step (below)
        try Review.decide(first, fileID: id, library: lib.library, clock: clock)
        try Review.decide(kind, fileID: id, library: lib.library, clock: clock)
        #expect(try Review.decision(for: id, library: lib.library)?.decision == kind)
        let o = try #require(try Review.undo(library: lib.library, clock: clock))
        #expect(o.undone == kind)
        #expect(o.restored == first)
        #expect(try Review.decision(for: id, library: lib.library)?.decision == first)
        _ = try Review.undo(library: lib.library, clock: clock)
        #expect(try Review.decision(for: id, library: lib.library) == nil)
        #expect(try Review.undo(library: lib.library, clock: clock) == nil)
        // Taken-back verdicts do not count.
        #expect(try Stats.report(library: lib.library, clock: clock, timeZone: ReviewFixture.utc).reviewedTotal == 0)
    }

    /// A second press of the verdict an item has (another window, a repeated key) changes
    /// nothing, so it records nothing: no undo step that would take back nothing, no second
    /// review in the stats. On bytes changed since the review it is a new review (the change
    /// is seen), and a deck's current card moves the deck on, which is a step.
    @Test("the same verdict twice is one decision, one undo step, one review")
    func theSameVerdictTwiceIsOneStep() throws {
        let lib = try TestLibrary()
        let (clock, time) = Clock.manual(ReviewFixture.date("2026-03-01 12:00:00"))
        let id = try ReviewFixture.insert(lib.library, path: lib.root + "/a.jpg", taken: Date(timeIntervalSince1970: 0))
        for verdict in [Decision.keep, .trash] {
            try Review.decide(verdict, fileID: id, library: lib.library, clock: clock)
            time.advance(60)
            let again = try Review.decide(verdict, fileID: id, library: lib.library, clock: clock)
            #expect(again.previous == verdict)
            #expect(try lib.library.db.scalar("SELECT count(*) FROM undo_steps") == (verdict == .keep ? 1 : 2))
            #expect(try lib.library.db.scalar("SELECT count(*) FROM review_events WHERE undone=0") == (verdict == .keep ? 1 : 2))
        }
        // Undo: trash → keep → undecided, a press each.
        #expect(try Review.undo(library: lib.library, clock: clock)?.restored == .keep)
        #expect(try Review.undo(library: lib.library, clock: clock)?.restored == nil)
        #expect(try Review.decision(for: id, library: lib.library) == nil)
        #expect(try Review.undo(library: lib.library, clock: clock) == nil)
        // The file changed since its review: the same verdict again records the new bytes.
        try Review.decide(.keep, fileID: id, library: lib.library, clock: clock)
        try lib.library.db.run("UPDATE files SET size=size+1 WHERE id=?", id)
        try Review.decide(.keep, fileID: id, library: lib.library, clock: clock)
        #expect(try Review.decision(for: id, library: lib.library)?.reviewedSize == 1001)
        #expect(try lib.library.db.scalar("SELECT count(*) FROM undo_steps") == 2)
    }

    /// Staged for the Trash, then changed (edited, re-saved) before the commit: the commit
    /// leaves it ("changed since it was reviewed: decide again"), so it waits for a verdict again
    /// and its deck deals it — it was "reviewed" in every deck and could never be decided again
    /// (review 8). Times alone are no change, as the commit has it; a kept photo that changes
    /// stays kept.
    @Test("a photo staged for the Trash whose bytes change since goes back to its deck")
    func trashOnChangedBytesWaitsAgain() throws {
        let lib = try TestLibrary()
        let (clock, _) = Clock.manual(ReviewFixture.date("2026-03-01 12:00:00"))
        let l = lib.library
        let taken = ReviewFixture.date("2021-05-01 10:00:00")
        let a = try ReviewFixture.insert(l, path: lib.root + "/a.jpg", taken: taken)
        let b = try ReviewFixture.insert(l, path: lib.root + "/b.jpg", taken: taken)
        try l.db.run("UPDATE files SET content_hash=x'00112233'")
        try Review.decide(.trash, fileID: a, library: l, clock: clock)
        try Review.decide(.keep, fileID: b, library: l, clock: clock)
        func dealt() throws -> [String] { try Decks.build(.month(year: 2021, month: 5), library: l, clock: clock).items.map(\.item.name) }
        #expect(try dealt().isEmpty && Decks.awaitingReview(library: l, clock: clock) == 0)
        // Touched only: the same bytes.
        try l.db.run("UPDATE files SET mtime_ns=mtime_ns+5")
        #expect(try dealt().isEmpty)
        // Edited: other bytes (a rescan stores their size and hash).
        try l.db.run("UPDATE files SET content_hash=x'44556677'")
        #expect(try dealt() == ["a.jpg"])
        let deck = try Decks.build(.month(year: 2021, month: 5), library: l, clock: clock)
        #expect(deck.progress.reviewed == 1 && deck.items.first?.decision == nil, "\(deck.progress)")
        #expect(try Decks.awaitingReview(library: l, clock: clock) == 1)
        // Decided again, on the bytes it has now: done.
        try Review.decide(.trash, fileID: a, library: l, clock: clock)
        #expect(try dealt().isEmpty && Decks.awaitingReview(library: l, clock: clock) == 0)
        try l.db.run("UPDATE files SET size=size+1 WHERE id=?", a)
        #expect(try dealt() == ["a.jpg"])
    }

    @Test("undo puts the deck position and skipped cards back exactly")
    func undoRestoresDeckPosition() throws {
        let lib = try TestLibrary()
        let (clock, time) = Clock.manual(ReviewFixture.date("2026-03-01 12:00:00"))
        var ids: [Int64] = []
        for i in 0..<3 {
            ids.append(try ReviewFixture.insert(lib.library, path: lib.root + "/p\(i).jpg", taken: ReviewFixture.date("2021-05-0\(i + 1) 10:00:00")))
        }
        let deck = try Decks.build(.month(year: 2021, month: 5), library: lib.library, clock: clock)
        #expect(deck.items.map(\.item.id) == ids)
        var s = try DeckSession.start(deck, library: lib.library, clock: clock, goal: 10)
        s = try #require(try Review.decide(.skip, fileID: ids[0], library: lib.library, clock: clock, session: s.id).session)
        #expect(s.position == 1 && s.itemIDs == ids + [ids[0]])
        time.advance(5)
        s = try #require(try Review.decide(.trash, fileID: ids[1], library: lib.library, clock: clock, session: s.id).session)
        #expect(s.position == 2 && s.decisions == 1 && s.bytes == 1000)
        let u1 = try #require(try Review.undo(library: lib.library, clock: clock))
        #expect(u1.session?.position == 1 && u1.session?.decisions == 0 && u1.session?.bytes == 0)
        let u2 = try #require(try Review.undo(library: lib.library, clock: clock))
        #expect(u2.session?.position == 0 && u2.session?.itemIDs == ids)
        // Persisted: a front end reloading the session sees the same state.
        let reloaded = try #require(try DeckSession.load(id: s.id, library: lib.library))
        #expect(reloaded.position == 0 && reloaded.itemIDs == ids && reloaded.current == ids[0])
    }

    @Test("at least 20 undo steps survive a restart")
    func undoAcrossRestart() throws {
        let lib = try TestLibrary()
        let (clock, time) = Clock.manual(ReviewFixture.date("2026-03-01 12:00:00"))
        var ids: [Int64] = []
        for i in 0..<25 {
            let id = try ReviewFixture.insert(lib.library, path: lib.root + "/p\(i).jpg", taken: Date(timeIntervalSince1970: Double(i)))
            ids.append(id)
            try Review.decide(Decision.allCases[i % 4], fileID: id, library: lib.library, clock: clock)
            time.advance(1)
        }
        let reopened = try Library(path: lib.dbPath)
        #expect(try Review.undoDepth(library: reopened) == 25)
        for id in ids.reversed() {
            let o = try #require(try Review.undo(library: reopened, clock: clock))
            #expect(o.fileID == id && o.restored == nil)
        }
        #expect(try reopened.db.scalar("SELECT count(*) FROM decisions") == 0)
    }

    @Test("a bulk action of more decisions than the undo limit goes back whole, and counts as one step")
    func bulkLargerThanUndoLimit() throws {
        let lib = try TestLibrary()
        let (clock, _) = Clock.manual(ReviewFixture.date("2026-03-01 12:00:00"))
        let first = try ReviewFixture.insert(lib.library, path: lib.root + "/first.jpg", taken: nil)
        try Review.decide(.keep, fileID: first, library: lib.library, clock: clock)
        let n = Review.undoLimit + 50
        var ids: [Int64] = []
        for i in 0..<n { ids.append(try ReviewFixture.insert(lib.library, path: lib.root + "/b\(i).jpg", taken: nil)) }
        try Review.asOneUndoStep(library: lib.library) {
            for id in ids { try Review.decide(.trash, fileID: id, library: lib.library, clock: clock) }
        }
        // The step before the bulk action is still there: the bulk action is one step, not n.
        #expect(try Review.undoDepth(library: lib.library) == 2)
        let o = try #require(try Review.undo(library: lib.library, clock: clock))
        #expect(o.count == n)
        #expect(try lib.library.db.scalar("SELECT count(*) FROM decisions WHERE decision='trash'") == 0)
        #expect(try Review.undo(library: lib.library, clock: clock)?.fileID == first)
    }

    @Test("the undo limit counts a bulk action as one step")
    func undoLimitCountsBatches() throws {
        let lib = try TestLibrary()
        let (clock, _) = Clock.manual(ReviewFixture.date("2026-03-01 12:00:00"))
        var ids: [Int64] = []
        for i in 0..<(Review.undoLimit + 3) { ids.append(try ReviewFixture.insert(lib.library, path: lib.root + "/p\(i).jpg", taken: nil)) }
        try Review.asOneUndoStep(library: lib.library) {
            for id in ids.prefix(3) { try Review.decide(.trash, fileID: id, library: lib.library, clock: clock) }
        }
        for id in ids.dropFirst(3).prefix(Review.undoLimit - 1) { try Review.decide(.keep, fileID: id, library: lib.library, clock: clock) }
        // undoLimit steps: the batch (3 rows) and undoLimit - 1 singles.
        #expect(try Review.undoDepth(library: lib.library) == Review.undoLimit)
        #expect(try lib.library.db.scalar("SELECT count(*) FROM undo_steps") == Int64(Review.undoLimit + 2))
        try Review.decide(.keep, fileID: ids.last!, library: lib.library, clock: clock)
        // One step more: the oldest step, the whole batch, goes.
        #expect(try Review.undoDepth(library: lib.library) == Review.undoLimit)
        #expect(try lib.library.db.scalar("SELECT count(*) FROM undo_steps") == Int64(Review.undoLimit))
        #expect(try lib.library.db.scalar("SELECT count(*) FROM undo_steps WHERE batch IS NOT NULL") == 0)
    }

    @Test("a later item returns after the 7-day cool-down, seen before; three deferrals suggest keeping it")
    func laterCooldown() throws {
        let lib = try TestLibrary()
        let start = ReviewFixture.date("2026-03-01 12:00:00")
        let (clock, time) = Clock.manual(start)
        let id = try ReviewFixture.insert(lib.library, path: lib.root + "/a.jpg", taken: ReviewFixture.date("2020-01-01 10:00:00"))
        for round in 1...3 {
            try Review.decide(.later, fileID: id, library: lib.library, clock: clock)
            #expect(try Decks.build(.later, library: lib.library, clock: clock).items.isEmpty)
            #expect(try Decks.build(.month(year: 2020, month: 1), library: lib.library, clock: clock).items.isEmpty)
            time.advance(7 * 86_400 - 1)
            #expect(try Decks.build(.later, library: lib.library, clock: clock).items.isEmpty)
            time.advance(1)
            let card = try #require(try Decks.build(.later, library: lib.library, clock: clock).items.first)
            #expect(card.item.id == id && card.seenBefore && card.deferrals == round)
            #expect(card.suggestKeep == (round >= 3))
            #expect(try Decks.build(.month(year: 2020, month: 1), library: lib.library, clock: clock).items.first?.seenBefore == true)
        }
        #expect(try Decks.awaitingReview(library: lib.library, clock: clock) == 1)
    }

    /// A library of `count` items taken on 1, 2, 3… May 2021 and a session of that month's deck.
    static func monthSession(_ count: Int, goal: Int) throws -> (TestLibrary, Clock, [Int64], Deck, DeckSession) {
        let lib = try TestLibrary()
        let (clock, _) = Clock.manual(ReviewFixture.date("2026-03-01 12:00:00"))
        let ids = try (0..<count).map { i in
            try ReviewFixture.insert(
                lib.library, path: lib.root + "/\(["a", "b", "c"][i]).jpg", taken: ReviewFixture.date("2021-05-0\(i + 1) 10:00:00"))
        }
        let deck = try Decks.build(.month(year: 2021, month: 5), library: lib.library, clock: clock)
        return (lib, clock, ids, deck, try DeckSession.start(deck, library: lib.library, clock: clock, goal: goal))
    }

    @Test("reaching the session goal keeps the session as a chapter; undo takes the chapter back")
    func chapterOnGoal() throws {
        let (lib, clock, ids, deck, s) = try Self.monthSession(3, goal: 2)
        let (a, b) = (ids[0], ids[1])
        try Review.decide(.keep, fileID: a, library: lib.library, clock: clock, session: s.id)
        let o = try Review.decide(.trash, fileID: b, library: lib.library, clock: clock, session: s.id)
        #expect(o.chapter != nil && o.session?.isFinished == true)
        let chapters = try Chapter.all(library: lib.library)
        #expect(chapters.count == 1 && chapters[0].decisions == 2 && chapters[0].bytes == 1000 && chapters[0].coverFileID == a)
        // The goal is met, the deck is not done: it resumes on its last card.
        let resumed = try #require(try DeckSession.open(deckID: deck.id.description, library: lib.library))
        #expect(resumed.id == s.id && resumed.remaining == 1)
        _ = try Review.undo(library: lib.library, clock: clock)
        #expect(try Chapter.all(library: lib.library).isEmpty)
        #expect(try DeckSession.load(id: s.id, library: lib.library)?.isFinished == false)
    }

    @Test("a card decided again in its session (a second tab, a changed mind) counts once, its bytes by its last verdict")
    func decidedAgainCountsOnce() throws {
        let (lib, clock, ids, _, s) = try Self.monthSession(2, goal: 25)
        let a = ids[0]
        try Review.decide(.trash, fileID: a, library: lib.library, clock: clock, session: s.id)
        let second = try Review.decide(.keep, fileID: a, library: lib.library, clock: clock, session: s.id)
        #expect(second.session?.decisions == 1 && second.session?.bytes == 0, "\(String(describing: second.session))")
        let third = try Review.decide(.trash, fileID: a, library: lib.library, clock: clock, session: s.id)
        #expect(third.session?.decisions == 1 && third.session?.bytes == 1000)
    }

    @Test("a file that is not in the library is refused")
    func notInLibrary() throws {
        let lib = try TestLibrary()
        #expect(throws: ReviewError.self) { try Review.decide(.keep, fileID: 999, library: lib.library, clock: .live) }
    }

    @Test("decisions follow a moved file (same row)")
    func decisionFollowsMove() throws {
        let lib = try ReviewFixture.scanned(["a.jpg"])
        let item = try #require(try lib.library.item(path: lib.root + "/a.jpg"))
        try Review.decide(.keep, fileID: item.id, library: lib.library, clock: .live)
        lib.dir.folder("Pictures/sub")
        try FileSystem.rename(lib.root + "/a.jpg", lib.root + "/sub/a.jpg")
        try lib.scan()
        let moved = try #require(try lib.library.item(path: lib.root + "/sub/a.jpg"))
        #expect(moved.id == item.id)
        #expect(try Review.decision(for: moved.id, library: lib.library)?.decision == .keep)
    }

    @Test("the terminal deck's picture: libchafa renders a photo as terminal text")
    func chafaRenders() {
        let bitmap = Fixtures.scene(width: 64, height: 48, seed: 3)
        let text = Chafa.render(bitmap, columns: 20, rows: 8, environment: ["TERM": "xterm-256color"], mode: .symbols)
        #expect(text.contains("\u{1B}[") && text.split(separator: "\n").count >= 4)
        #expect(Chafa.detectMode(environment: ["TERM": "dumb"]) == .symbols)
    }
}
