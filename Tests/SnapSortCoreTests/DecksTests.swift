import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Testing

@Suite("Decks")
struct DecksTests {
    @Test(
        "deck ids round-trip through text",
        arguments: [
            "month:2024-05", "group:blurry", "filter:screenshots", "filter:selfies@2023", "filter:camera=Pixel 7@2022",
            "on-this-day", "rediscover:42", "later",
        ])
    func deckIDs(_ text: String) {
        #expect(DeckID(text)?.description == text)
    }

    @Test("the age-weighted draw follows max(1, age_days)^0.55 (chi-square, fixed seed)")
    func weightedDrawDistribution() {
        let ages: [Double] = [0, 1, 10, 100, 1000, 5000]
        let weights = ages.map { Rediscovery.weight(ageDays: $0) }
        #expect(weights[0] == 1 && weights[1] == 1)
        var rng = SeededRandom(seed: 20_261_129)
        let trials = 30_000
        var counts = [Int](repeating: 0, count: ages.count)
        for _ in 0..<trials { counts[Rediscovery.draw(weights: weights, count: 1, using: &rng)[0]] += 1 }
        let total = weights.reduce(0, +)
        var chi2 = 0.0
        for (i, w) in weights.enumerated() {
            let expected = Double(trials) * w / total
            chi2 += (Double(counts[i]) - expected) * (Double(counts[i]) - expected) / expected
        }
        // 5 degrees of freedom: p = 0.001 at 20.52.
        #expect(chi2 < 20.52, "chi2 \(chi2), counts \(counts)")
    }

    @Test("rediscovery: 20–30 cards, age-weighted, undecided only, never two frames of one moment back to back")
    func rediscoveryDeck() throws {
        let lib = try TestLibrary()
        let now = ReviewFixture.date("2026-11-29 12:00:00")
        let (clock, _) = Clock.manual(now)
        var decided: Set<Int64> = []
        // 40 bursts of 5 frames one second apart, half of them old (~8 years), half last week.
        for b in 0..<40 {
            let base = b < 20 ? now.addingTimeInterval(-Double(2900 + b) * 86_400) : now.addingTimeInterval(-Double(b - 19) * 3600 * 5)
            for f in 0..<5 {
                let id = try ReviewFixture.insert(lib.library, path: lib.root + "/b\(b)_\(f).jpg", taken: base.addingTimeInterval(Double(f)))
                if f == 0 && b % 4 == 0 {
                    try Review.decide(.keep, fileID: id, library: lib.library, clock: clock)
                    decided.insert(id)
                }
            }
        }
        var oldCards = 0, cards = 0
        for seed in 1...40 {
            let deck = try Decks.build(.rediscovery(seed: UInt64(seed)), library: lib.library, clock: clock)
            #expect(deck.id == .rediscovery(seed: UInt64(seed)))
            #expect((20...30).contains(deck.items.count))
            let ts = deck.items.map { $0.item.takenTimestamp! }
            for (a, b) in zip(ts, ts.dropFirst()) {
                // Frames of one burst are ≤ 4 s apart; bursts are hours or days apart.
                #expect(abs(a - b) > 3600, "frames of one moment back to back in seed \(seed)")
            }
            #expect(deck.items.allSatisfy { !decided.contains($0.item.id) })
            cards += deck.items.count
            oldCards += deck.items.filter { $0.item.takenTimestamp! < now.timeIntervalSince1970 - 365 * 86_400 }.count
            // Same seed, same deck.
            let again = try Decks.build(.rediscovery(seed: UInt64(seed)), library: lib.library, clock: clock)
            #expect(again.items.map(\.item.id) == deck.items.map(\.item.id))
        }
        // Old frames weigh (2900)^0.55 ≈ 80× a day-old frame: they dominate the draw.
        #expect(Double(oldCards) / Double(cards) > 0.8)
        // "Any rediscovery deck" while a session goes through one is that one (it was a new draw
        // at every look, and the review resumed another, review 8); with none, a fresh draw.
        let drawn = try Decks.build(.rediscovery(seed: 0), library: lib.library, clock: clock)
        _ = try DeckSession.start(drawn, library: lib.library, clock: clock)
        for _ in 0..<3 {
            #expect(try Decks.build(.rediscovery(seed: 0), library: lib.library, clock: clock).id == drawn.id)
        }
    }

    @Test("months with progress, filters with a year, On This Day")
    func monthFilterOnThisDay() throws {
        let lib = try TestLibrary()
        let (clock, _) = Clock.manual(ReviewFixture.date("2026-11-29 09:00:00"))
        let l = lib.library, r = lib.root
        let a = try ReviewFixture.insert(l, path: r + "/a.jpg", taken: ReviewFixture.date("2020-11-29 10:00:00"), bytes: 500)
        _ = try ReviewFixture.insert(l, path: r + "/Screenshot 2020.png", taken: ReviewFixture.date("2020-11-02 10:00:00"), format: "png")
        // A PNG without a camera is not a screenshot unless the Screenshots group says so.
        _ = try ReviewFixture.insert(l, path: r + "/export.png", taken: ReviewFixture.date("2020-11-03 10:00:00"), format: "png")
        let shot = try ReviewFixture.insert(l, path: r + "/IMG_0001.PNG", taken: ReviewFixture.date("2020-11-04 10:00:00"), format: "png")
        try l.db.run("INSERT INTO group_members(group_id, file_id, score) VALUES('screenshot', ?, 1)", shot)
        _ = try ReviewFixture.insert(
            l, path: r + "/selfie.jpg", taken: ReviewFixture.date("2021-11-29 10:00:00"), lens: "iPhone 12 front camera 2.71mm f/2.2")
        _ = try ReviewFixture.insert(l, path: r + "/today.jpg", taken: ReviewFixture.date("2026-11-29 08:00:00"))
        _ = try ReviewFixture.insert(l, path: r + "/IMG_1.jpg", taken: ReviewFixture.date("2021-11-28 10:00:00"), make: "Google", model: "Pixel 7")
        _ = try ReviewFixture.insert(l, path: r + "/IMG_1.mov", taken: ReviewFixture.date("2021-11-28 10:00:00"), kind: .video, format: "mov")
        try Review.decide(.trash, fileID: a, library: l, clock: clock)

        let nov2020 = try Decks.build(.month(year: 2020, month: 11), library: l, clock: clock)
        #expect(nov2020.progress == DeckProgress(reviewed: 1, total: 4, bytesToGain: 500))
        #expect(nov2020.items.map(\.item.name).sorted() == ["IMG_0001.PNG", "Screenshot 2020.png", "export.png"])
        #expect(
            try Decks.build(.filter(.screenshots, year: 2020), library: l, clock: clock).items.map(\.item.name).sorted()
                == ["IMG_0001.PNG", "Screenshot 2020.png"])
        #expect(try Decks.build(.filter(.screenshots, year: 2021), library: l, clock: clock).items.isEmpty)
        #expect(try Decks.build(.filter(.selfies, year: nil), library: l, clock: clock).items.map(\.item.name) == ["selfie.jpg"])
        // A photo beside a video of its name that is not its clip is no Live Photo (the video is
        // a card of its own and stays at the photo's commit); one whose clip is paired is.
        #expect(try Decks.build(.filter(.livePhotos, year: nil), library: l, clock: clock).items.isEmpty)
        let still = try ReviewFixture.insert(l, path: r + "/IMG_2.heic", taken: ReviewFixture.date("2022-03-01 10:00:00"), format: "heic")
        let clip = try ReviewFixture.insert(
            l, path: r + "/IMG_2.mov", taken: ReviewFixture.date("2022-03-01 10:00:00"), kind: .video, format: "mov")
        try l.db.run("INSERT INTO sidecars(file_id, sidecar_id, kind) VALUES(?, ?, 'live')", still, clip)
        #expect(try Decks.build(.filter(.livePhotos, year: nil), library: l, clock: clock).items.map(\.item.name) == ["IMG_2.heic"])
        // Edits by name as the groups read them (review 8): iOS's IMG_E…, _edit.
        _ = try ReviewFixture.insert(l, path: r + "/IMG_E7002.HEIC", taken: ReviewFixture.date("2022-04-01 10:00:00"), format: "heic")
        _ = try ReviewFixture.insert(l, path: r + "/IMG_3_edit.png", taken: ReviewFixture.date("2022-04-02 10:00:00"), format: "png")
        #expect(
            try Decks.build(.filter(.edited, year: nil), library: l, clock: clock).items.map(\.item.name).sorted() == [
                "IMG_3_edit.png", "IMG_E7002.HEIC",
            ])
        #expect(try Decks.build(.filter(.camera("pixel 7"), year: 2021), library: l, clock: clock).items.map(\.item.name) == ["IMG_1.jpg"])
        // The maker and model as `info` prints them, or the maker alone.
        for name in ["Google Pixel 7", "google", " PIXEL 7 "] {
            #expect(try Decks.build(.filter(.camera(name), year: nil), library: l, clock: clock).items.map(\.item.name) == ["IMG_1.jpg"], "\(name)")
        }
        #expect(try Decks.build(.filter(.camera("Pixel"), year: nil), library: l, clock: clock).items.isEmpty)
        #expect(try Decks.build(.filter(.videos, year: nil), library: l, clock: clock).items.map(\.item.name) == ["IMG_1.mov"])
        // On this day: 29 November of earlier years, undecided ones.
        #expect(try Decks.build(.onThisDay, library: l, clock: clock).items.map(\.item.name) == ["selfie.jpg"])
        // A 29 February comes back on the 28th in a year without one, and only then (review 8).
        _ = try ReviewFixture.insert(l, path: r + "/leap.jpg", taken: ReviewFixture.date("2024-02-29 10:00:00"))
        for (day, shown) in [("2026-02-28", true), ("2026-03-01", false), ("2028-02-28", false), ("2028-02-29", true)] {
            let (on, _) = Clock.manual(ReviewFixture.date(day + " 09:00:00"))
            #expect(try Decks.build(.onThisDay, library: l, clock: on).items.map(\.item.name).contains("leap.jpg") == shown, "\(day)")
        }
        let overview = try Decks.overview(library: l, clock: clock, groups: nil)
        let ids = overview.map(\.id.description)
        #expect(ids.contains("on-this-day") && ids.contains("month:2020-11") && ids.contains("filter:screenshots"))
        #expect(ids.contains("filter:camera=Pixel 7"), "\(ids)")
        // A camera is named as EXIF gives it, make and model (the review issue: "Shot with
        // 2201117TG"); a model that carries its make already is not named twice.
        #expect(overview.first { $0.id.description == "filter:camera=Pixel 7" }?.title == "Shot with Google Pixel 7")
        _ = try ReviewFixture.insert(l, path: r + "/x.jpg", taken: ReviewFixture.date("2022-01-02 10:00:00"), make: "Canon", model: "Canon EOS R5")
        #expect(try Decks.build(.filter(.camera("Canon EOS R5"), year: nil), library: l, clock: clock).title == "Shot with Canon EOS R5")
        #expect(try Decks.build(.filter(.camera("Pixel 7"), year: 2021), library: l, clock: clock).title == "Shot with Google Pixel 7 2021")
        #expect(overview.first { $0.id == .month(year: 2020, month: 11) }?.progress.reviewed == 1)
        // The overview counts its decks without building them: every summary says what the deck
        // it opens holds (its cards, its progress), whatever the decisions in it.
        let counted = try Decks.overview(library: l, clock: clock, groups: nil)
        #expect(counted.count > 5)
        for s in counted where s.id != .onThisDay && s.id != .rediscovery(seed: 0) {
            let built = try Decks.build(s.id, library: l, clock: clock)
            #expect(s.waiting == built.items.count && s.progress == built.progress, "\(s.id)")
        }
    }

    @Test("a smart group with nothing in it is an empty deck; only an unknown group is an error")
    func emptyAndUnknownGroupDecks() throws {
        let lib = try TestLibrary()
        let (clock, _) = Clock.manual(ReviewFixture.date("2026-11-29 09:00:00"))
        _ = try ReviewFixture.insert(lib.library, path: lib.root + "/a.jpg", taken: ReviewFixture.date("2020-11-29 10:00:00"))
        let people = try Decks.build(.group("people"), library: lib.library, clock: clock)
        #expect(people.items.isEmpty && people.title == GroupID.people.title)
        #expect(throws: ReviewError.self) { try Decks.build(.group("nope"), library: lib.library, clock: clock) }
    }

    @Test("moments chain frames within 3 seconds; separation never puts two of one moment side by side")
    func separation() {
        let times: [Double?] = [0, 1, 2, 100, 103, 104, 500, nil]
        let m = Rediscovery.moments(times)
        #expect(m[0] == m[1] && m[1] == m[2] && m[3] == m[4] && m[4] == m[5] && m[0] != m[3] && m[6] != m[3] && m[7] != m[6])
        let order = Rediscovery.separate([0, 1, 2, 3, 6, 4]) { m[$0] }
        for (a, b) in zip(order, order.dropFirst()) { #expect(m[a] != m[b]) }
    }
}
