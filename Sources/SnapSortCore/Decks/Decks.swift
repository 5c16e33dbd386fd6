import Foundation
import SnapSortSystem

/// Builds decks: finite lists of live photos and videos, the same for every front end.
///
/// A card is waiting when the item has no verdict (undecided or skipped — skipped ones come
/// last) or was deferred and its cool-down ended (shown as "seen before"). Items staged for
/// the Trash, kept, or deferred and still cooling down are not shown.
public enum Decks {
    /// Cards in a rediscovery deck (the spec asks for 20–30).
    public static let rediscoverySize = 25

    /// A source of smart-group decks: (id, title, member file ids in the group's order).
    public struct GroupSource: Sendable {
        let decks: @Sendable (Library) throws -> [(id: String, title: String, fileIDs: [Int64])]
        /// Whether these are `Library.groupMembers`' groups, which the overview counts in SQL.
        let isSmartGroups: Bool

        public init(_ decks: @escaping @Sendable (Library) throws -> [(id: String, title: String, fileIDs: [Int64])]) {
            self.init(decks, isSmartGroups: false)
        }
        init(_ decks: @escaping @Sendable (Library) throws -> [(id: String, title: String, fileIDs: [Int64])], isSmartGroups: Bool) {
            self.decks = decks
            self.isSmartGroups = isSmartGroups
        }
        /// The decks, each with its members in the group's order.
        public func callAsFunction(_ library: Library) throws -> [(id: String, title: String, fileIDs: [Int64])] { try decks(library) }
    }

    /// The smart groups of the groups feature (`Library.groupMembers`), best or largest first.
    public static let smartGroups = GroupSource(
        { library in
            try GroupID.allCases.compactMap { g in
                let ids = try library.groupMembers(g).map(\.item.id)
                return ids.isEmpty ? nil : (id: g.rawValue, title: g.title, fileIDs: ids)
            }
        }, isSmartGroups: true)

    /// Builds one deck. `rediscovery(seed: 0)` draws with a fresh seed (the returned deck's id
    /// carries it).
    public static func build(
        _ id: DeckID, library: Library, clock: Clock, timeZone: TimeZone = .current,
        groups: GroupSource? = smartGroups, size: Int = rediscoverySize
    ) throws -> Deck {
        let now = clock.now()
        let all = try candidates(library)
        switch id {
        case .month(let y, let m):
            let prefix = String(format: "%04d-%02d", y, m)
            let scope = all.filter { $0.month(timeZone) == prefix }
            return deck(id, title: monthTitle(y, m), scope: scope, now: now)
        case .filter(let f, let year):
            let ctx = try FilterContext(all, library: library)
            let scope = all.filter { ctx.matches(f, $0) && (year == nil || $0.year(timeZone) == year) }
            return deck(
                id, title: Decks.title(f, scope) + (year.map { " \($0)" } ?? ""), scope: scope, now: now,
                includeKept: f == .favourites)
        case .onThisDay:
            let (days, year) = onThisDays(now, timeZone)
            let scope = all.filter { e in e.localDate(timeZone).map { isOnThisDay($0, days: days, year: year) } ?? false }
            return deck(id, title: "On this day", scope: scope, now: now)
        case .later:
            let scope = all.filter { $0.decision?.decision == .later }
            var d = deck(id, title: "Later", scope: scope, now: now)
            d.items.sort { ($0.item.takenTimestamp ?? 0) < ($1.item.takenTimestamp ?? 0) }
            return d
        case .rediscovery(let requested):
            // "Any rediscovery deck": the one a session is going through, when one is (the
            // review resumes it), else a fresh draw; it was a new draw at every look.
            let open = requested == 0 ? try DeckSession.open(deckID: id.description, library: library).flatMap { DeckID($0.deckID) } : nil
            let resumed: UInt64? = open.flatMap { if case .rediscovery(let s) = $0 { s } else { nil } }
            let seed = requested != 0 ? requested : resumed ?? UInt64.random(in: 1 ... .max)
            return rediscovery(seed: seed, all: all, now: now, size: size)
        case .group(let gid):
            guard let groups, let g = try groups(library).first(where: { $0.id == gid }) else {
                // A group with nothing in it now (People without the local models, Blurry
                // once cleared) is an empty deck, like the later stack; only a typo is an error.
                if let known = GroupID(rawValue: gid) { return deck(id, title: known.title, scope: [], now: now) }
                throw ReviewError(.noSuchDeck, "no smart group '\(gid)'")
            }
            let byID = Dictionary(all.map { ($0.item.id, $0) }, uniquingKeysWith: { a, _ in a })
            let scope = g.fileIDs.compactMap { byID[$0] }
            var d = deck(id, title: g.title, scope: scope, now: now, keepOrder: true)
            d.title = g.title
            return d
        }
    }

    /// Every deck worth showing, with progress: months (newest first), filters with items, On
    /// This Day, the later stack, rediscovery, and smart groups when a source is given.
    /// How many camera decks the overview lists (the cameras with the most photos).
    public static let cameraDecks = 6

    public static func overview(
        library: Library, clock: Clock, timeZone: TimeZone = .current,
        groups: GroupSource? = smartGroups
    ) throws -> [DeckSummary] {
        try countedOverview(library: library, clock: clock, timeZone: timeZone, groups: groups)
    }

    /// The overview from every candidate read into Swift: the definition `overview` counts
    /// faster (`DecksOverviewTests` holds the two to the same answers).
    static func overviewByCandidates(
        library: Library, clock: Clock, timeZone: TimeZone = .current,
        groups: GroupSource? = smartGroups
    ) throws -> [DeckSummary] {
        let now = clock.now()
        let all = try candidates(library)
        var out: [DeckSummary] = []
        // Counted, not built: a deck's cards for every summary made the first screen of a
        // 100 000-file library take 22 s (bench/first_screen.py).
        func summary<S: Sequence<Candidate>>(_ id: DeckID, _ title: String, _ scope: S, includeKept: Bool = false) {
            let t = tally(scope, now: now, includeKept: includeKept)
            out.append(DeckSummary(id: id, title: title, waiting: t.waiting, progress: t.progress))
        }
        let onThisDay = try build(.onThisDay, library: library, clock: clock, timeZone: timeZone)
        if !onThisDay.items.isEmpty {
            out.append(DeckSummary(id: .onThisDay, title: onThisDay.title, waiting: onThisDay.items.count, progress: onThisDay.progress))
        }
        let later = all.filter { $0.decision?.decision == .later }
        if !later.isEmpty { summary(.later, "Later", later) }
        let undecided = all.filter { $0.waiting(now) && $0.decision?.decision != .later }.count
        if undecided > 0 {
            out.append(
                DeckSummary(
                    id: .rediscovery(seed: 0), title: "Rediscover", waiting: min(rediscoverySize, undecided),
                    progress: DeckProgress(reviewed: 0, total: min(rediscoverySize, undecided))))
        }
        if let groups {
            let byID = Dictionary(all.map { ($0.item.id, $0) }, uniquingKeysWith: { a, _ in a })
            for g in try groups(library) {
                summary(.group(g.id), g.title, g.fileIDs.compactMap { byID[$0] })
            }
        }
        let ctx = try FilterContext(all, library: library)
        for (_, f) in LibraryFilter.named where f != .all {
            let scope = all.lazy.filter { ctx.matches(f, $0) }
            if !scope.isEmpty { summary(.filter(f, year: nil), f.title, scope, includeKept: f == .favourites) }
        }
        // The cameras that took most of the library (at most `cameraDecks`), by model: indices
        // into `all`, not copies of its candidates.
        var byModel: [String: [Int]] = [:]
        for (i, c) in all.enumerated() {
            if let m = c.item.model?.trimmingCharacters(in: .whitespaces), !m.isEmpty { byModel[m, default: []].append(i) }
        }
        for (model, scope) in byModel.sorted(by: { ($0.value.count, $1.key) > ($1.value.count, $0.key) }).prefix(cameraDecks) {
            let f = LibraryFilter.camera(model)
            let members = scope.lazy.map { all[$0] }
            summary(.filter(f, year: nil), Decks.title(f, members), members)
        }
        var byMonth: [String: [Int]] = [:]
        for (i, c) in all.enumerated() { if let m = c.month(timeZone) { byMonth[m, default: []].append(i) } }
        for m in byMonth.keys.sorted(by: >) {
            let p = m.split(separator: "-")
            guard p.count == 2, let y = Int(p[0]), let mo = Int(p[1]) else { continue }
            summary(.month(year: y, month: mo), monthTitle(y, mo), byMonth[m]!.lazy.map { all[$0] })
        }
        return out
    }

    /// A filter's title; a camera's as EXIF names it, make and model ("Shot with Xiaomi
    /// 2201117TG", not the bare model code), the make the most of `scope` carry.
    static func title<S: Sequence<Candidate>>(_ f: LibraryFilter, _ scope: S) -> String {
        guard case .camera = f else { return f.title }
        var makes: [String: Int] = [:]
        for c in scope { if let m = c.item.make?.trimmingCharacters(in: .whitespaces), !m.isEmpty { makes[m, default: 0] += 1 } }
        return title(f, makes: makes)
    }

    /// A filter's title from how many of its items each make (trimmed, not empty) carries.
    static func title(_ f: LibraryFilter, makes: [String: Int]) -> String {
        guard case .camera(let model) = f else { return f.title }
        guard let make = makes.max(by: { ($0.value, $1.key) < ($1.value, $0.key) })?.key,
            !model.lowercased().hasPrefix(make.lowercased().split(separator: " ").first.map(String.init) ?? make.lowercased())
        else { return f.title }
        return "Shot with \(make) \(model)"
    }

    /// Items waiting for a verdict across the library (the status file's `awaiting_review`).
    public static func awaitingReview(library: Library, clock: Clock) throws -> Int {
        // Counted as sets: the live photos and videos from the kept key counts (`deck_counts`,
        // migration 89: a row per key; the index of kinds was a million entries), less those
        // that are a sidecar (by id: few) and the decided cards that do not wait — from the kept
        // counts of the decided cards by how they wait (`decided_counts`, migration 90: every
        // decision read twice was ~0.13 s of CPU at 50 000), less the deferred ones still cooling
        // down (the few deferred within a cool-down, from their index). `awaitingReviewByScan`
        // is the definition (`DecidedCountsTests`).
        let kinds = MediaFormat.Kind.sql([.photo, .video])
        return Int(
            try library.db.scalar(
                """
                SELECT (SELECT coalesce(sum(n), 0) FROM deck_counts WHERE kind IN \(kinds))
                     - (SELECT count(*) FROM files WHERE id IN (SELECT sidecar_id FROM sidecars) AND \(Library.live()) AND kind IN \(kinds))
                     - (SELECT coalesce(sum(n), 0) FROM decided_counts WHERE scope = 'cards' AND name = '' AND class = 0)
                     - (SELECT count(*) FROM decided_counted WHERE later = 1 AND later_until > ?1 AND card = 1)
                     - (SELECT count(*) FROM decided_counted WHERE later = 1 AND later_until IS NULL AND card = 1)
                """, clock.now().timeIntervalSince1970) ?? 0)
    }

    /// `awaitingReview` by definition: every decision read, each with its file.
    static func awaitingReviewByScan(library: Library, clock: Clock) throws -> Int {
        let now = clock.now().timeIntervalSince1970
        let kinds = MediaFormat.Kind.sql([.photo, .video])
        return Int(
            try library.db.scalar(
                """
                SELECT (SELECT coalesce(sum(n), 0) FROM deck_counts WHERE kind IN \(kinds))
                     - (SELECT count(*) FROM files WHERE id IN (SELECT sidecar_id FROM sidecars UNION SELECT file_id FROM decisions)
                          AND \(Library.live()) AND kind IN \(kinds))
                     + (SELECT count(*) FROM decisions d CROSS JOIN files f INDEXED BY files_decided ON f.id = d.file_id
                        WHERE \(Library.live("f")) AND f.kind IN \(kinds)
                          AND f.id NOT IN (SELECT sidecar_id FROM sidecars) AND \(DecisionRecord.waitingSQL))
                """, now) ?? 0)
    }

    /// What a reminder may say is waiting, from the items still waiting for a verdict (as
    /// `awaitingReview` counts them): Similar Shots and screenshots, and the bytes a session
    /// could free — each file once: the members of Similar Shots sets but their keepers
    /// (copies included) and the Blurry, Oops, Screenshots and Unreadable items. The groups'
    /// own totals counted kept items and overlapping groups (more than the whole library).
    public static func waitingClutter(library: Library, clock: Clock) throws -> (similarShots: Int, screenshots: Int, bytes: Int64) {
        let now = clock.now().timeIntervalSince1970
        let waiting = DecisionRecord.waitingSQL
        let counts = try library.db.row(
            """
            SELECT count(DISTINCT CASE WHEN m.group_id=\(GroupID.similar.sql) THEN f.id END), count(DISTINCT CASE WHEN m.group_id=\(GroupID.screenshot.sql) THEN f.id END)
            FROM group_members m JOIN files f ON f.id=m.file_id LEFT JOIN decisions d ON d.file_id=f.id
            LEFT JOIN similar_sets s ON s.file_id=m.file_id
            WHERE m.group_id IN \(GroupID.sql([.similar, .screenshot])) AND \(Library.live("f")) AND \(waiting)
              AND (m.group_id != \(GroupID.similar.sql) OR s.set_key IN (\(Library.liveSetKeys)))
            """, now)
        let bytes =
            try library.db.scalar(
                """
                SELECT COALESCE(sum(f.size), 0) FROM files f LEFT JOIN decisions d ON d.file_id=f.id
                WHERE \(Library.live("f")) AND \(waiting) AND f.id NOT IN (SELECT sidecar_id FROM sidecars) AND f.id IN (
                    SELECT file_id FROM similar_sets WHERE keeper = 0 AND set_key IN (\(Library.liveSetKeys))
                    UNION SELECT file_id FROM group_members WHERE group_id IN \(GroupID.sql([.blurry, .oops, .screenshot, .unreadable])))
                """, now) ?? 0
        return (Int(counts?.int(0) ?? 0), Int(counts?.int(1) ?? 0), bytes)
    }

    // MARK: - Building

    struct Candidate {
        var item: Item
        var decision: DecisionRecord?

        func localDate(_ tz: TimeZone) -> String? {
            if let t = item.takenAt, t.count >= 10 { return String(t.prefix(10)) }
            guard let ts = item.takenTimestamp else { return nil }
            var cal = Calendar(identifier: .gregorian)
            cal.timeZone = tz
            let c = cal.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: ts))
            return String(format: "%04d-%02d-%02d", c.year!, c.month!, c.day!)
        }
        func month(_ tz: TimeZone) -> String? { localDate(tz).map { String($0.prefix(7)) } }
        func year(_ tz: TimeZone) -> Int? { localDate(tz).flatMap { Int($0.prefix(4)) } }

        /// Whether the card waits for a verdict.
        func waiting(_ now: Date, includeKept: Bool = false) -> Bool {
            guard let d = decision else { return true }
            return d.waits(at: now, item: item) || (includeKept && d.decision == .keep)
        }
    }

    /// Every photo and video that can be a card; the RAW of a RAW+JPEG pair is none (it goes
    /// with its JPEG: one shot, one decision).
    static func candidates(_ library: Library) throws -> [Candidate] {
        var decisions: [Int64: DecisionRecord] = [:]
        try library.db.forEach("SELECT \(DecisionRecord.columns) FROM decisions") { r in
            if let d = DecisionRecord(r) { decisions[d.fileID] = d }
        }
        return try library.db.rows(
            """
            SELECT \(Item.columns) FROM files WHERE \(Library.live()) AND kind IN \(MediaFormat.Kind.sql([.photo, .video]))
              AND id NOT IN (SELECT sidecar_id FROM sidecars) ORDER BY taken_ts, path
            """
        ).map { r in
            let item = Item(r)
            return Candidate(item: item, decision: decisions[item.id])
        }
    }

    static func card(_ c: Candidate, now: Date) -> DeckItem {
        let d = c.decision
        // A trash verdict on bytes the file no longer has is no verdict (it waits again).
        return DeckItem(
            item: c.item, decision: d.flatMap { $0.trashOnChangedBytes(c.item) ? nil : $0.decision },
            seenBefore: d?.decision == .later || (d?.laterCount ?? 0) > 0,
            deferrals: d?.laterCount ?? 0, suggestKeep: d?.suggestsKeep ?? false)
    }

    /// What `deck` would count of `scope` — its cards waiting and its progress — without
    /// making the cards (the overview's summaries).
    static func tally<S: Sequence<Candidate>>(_ scope: S, now: Date, includeKept: Bool = false) -> (waiting: Int, progress: DeckProgress) {
        var t = Tally()
        for c in scope { t.add(c, now: now, includeKept: includeKept) }
        return (t.waiting, t.progress)
    }

    static func deck(
        _ id: DeckID, title: String, scope: [Candidate], now: Date, includeKept: Bool = false,
        keepOrder: Bool = false
    ) -> Deck {
        var progress = DeckProgress(total: scope.count)
        var fresh: [DeckItem] = []
        var skipped: [DeckItem] = []
        for c in scope {
            if let record = c.decision, record.decision.isVerdict, !record.trashOnChangedBytes(c.item) {
                let d = record.decision
                progress.reviewed += 1
                if d == .trash { progress.bytesToGain += c.item.bytes }
            }
            guard c.waiting(now, includeKept: includeKept) else { continue }
            if c.decision?.decision == .skip { skipped.append(card(c, now: now)) } else { fresh.append(card(c, now: now)) }
        }
        _ = keepOrder  // scope order is the deck order (time order, or the group's best-first order)
        return Deck(id: id, title: title, items: fresh + skipped, progress: progress)
    }

    static func rediscovery(seed: UInt64, all: [Candidate], now: Date, size: Int) -> Deck {
        // Already-decided items are out (skipped ones may come back; deferred ones have their
        // own stack).
        let pool = all.filter { $0.decision == nil || $0.decision?.decision == .skip }
        let nowTS = now.timeIntervalSince1970
        let weights = pool.map { c in Rediscovery.weight(ageDays: max(0, nowTS - (c.item.takenTimestamp ?? nowTS)) / 86_400) }
        var rng = SeededRandom(seed: seed)
        // Draw a margin so that dropping back-to-back frames of one moment still fills the deck.
        let picks = Rediscovery.draw(weights: weights, count: size * 2, using: &rng)
        // Moments over the whole library, so two frames of a burst are one moment even when
        // the frames between them were not drawn.
        let moments = Rediscovery.moments(all.map(\.item.takenTimestamp))
        let indexInAll = Dictionary(all.enumerated().map { ($0.element.item.id, $0.offset) }, uniquingKeysWith: { a, _ in a })
        let ordered = Rediscovery.separate(picks) { moments[indexInAll[pool[$0].item.id]!] }
        let cards = ordered.prefix(size).map { card(pool[$0], now: now) }
        return Deck(
            id: .rediscovery(seed: seed), title: "Rediscover", items: Array(cards),
            progress: DeckProgress(reviewed: 0, total: cards.count))
    }

    static func monthTitle(_ y: Int, _ m: Int) -> String {
        let names = [
            "January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
            "November", "December",
        ]
        return "\(names[m - 1]) \(y)"
    }

    /// What library filters need beyond one row: which photos carry their Live Photo clip.
    struct FilterContext {
        /// The photos whose motion clip is paired with them (`Library.pairSidecars`): reviewed
        /// and trashed as one. A photo beside a video of its name that is not its clip (another
        /// time) is none: that video is a card of its own and stays at the photo's commit.
        var livePhotos: Set<Int64>
        /// The Screenshots group's files (its rules: tool names, the folder, screen sizes that
        /// look rendered), so the filter deck and the group agree.
        var screenshotGroup: Set<Int64>

        init(_ all: [Candidate], library: Library) throws {
            var live = Set<Int64>()
            try library.db.forEach("SELECT file_id FROM sidecars WHERE kind = 'live'") { live.insert($0.int(0)!) }
            livePhotos = live
            var shots = Set<Int64>()
            try library.db.forEach("SELECT file_id FROM group_members WHERE group_id = \(GroupID.screenshot.sql)") { shots.insert($0.int(0)!) }
            screenshotGroup = shots
            // A RAW+JPEG pair is rated where the user rated it: darktable and Lightroom rate the
            // RAW (its own XMP), and the pair is one card, the JPEG's.
            rawRatings = try Library.rawRatings(in: library.db)
        }

        /// The rating of a JPEG's RAW, by the JPEG's id (only pairs whose RAW is rated).
        var rawRatings: [Int64: Int]

        /// The item's rating, its RAW's when the item has none of its own (as the keeper reads it).
        func rating(_ item: Item) -> Int {
            if let own = item.rating, own != 0 { return own }
            return rawRatings[item.id] ?? 0
        }

        static let editors = [
            "photoshop", "lightroom", "gimp", "snapseed", "darktable", "rawtherapee", "affinity",
            "pixelmator", "vsco", "picasa", "digikam", "shotwell", "luminar", "capture one", "photos 1",
            "instagram", "edited",
        ]

        func matches(_ f: LibraryFilter, _ c: Candidate) -> Bool {
            let item = c.item
            // The name only where a filter reads it: made for every candidate and filter, it was
            // half of the first screen's time on a 100 000-file library.
            var name: String { item.name.lowercased() }
            switch f {
            case .all: return true
            case .photos: return item.kind == .photo
            case .videos: return item.kind == .video
            case .screenshots:
                // Not every PNG without a camera: exports, scans and wallpapers are none.
                return screenshotGroup.contains(item.id)
                    || ["screenshot", "screen shot", "screen_shot", "bildschirmfoto", "capture d"].contains(where: name.contains)
            case .selfies:
                return item.kind == .photo && (item.lens?.lowercased().contains("front") ?? false)
            case .livePhotos:
                return item.kind == .photo && livePhotos.contains(item.id)
            case .favourites:
                return c.decision?.decision == .keep || rating(item) >= GroupRules.favouriteRating
            case .edited:
                // By name as the groups read it (iOS's IMG_E1234, Google's -edited and its
                // translations, _edit), then by the software that wrote it.
                let name = name
                if name.contains("edited") || name.contains("bearbeitet") || GroupRules.editBase(item.name) != nil { return true }
                guard let s = item.software?.lowercased() else { return false }
                return FilterContext.editors.contains(where: s.contains)
            case .camera(let name):
                // The model ("Pixel 7"), the maker ("Xiaomi": all of its), or both as `snapsort
                // info` prints them ("Xiaomi 2201117TG"), in any case.
                guard item.make != nil || item.model != nil else { return false }
                let wanted = name.trimmingCharacters(in: .whitespaces).lowercased()
                let make = item.make?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
                let model = item.model?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
                return wanted == model || wanted == make || wanted == "\(make) \(model)"
            }
        }
    }
}
