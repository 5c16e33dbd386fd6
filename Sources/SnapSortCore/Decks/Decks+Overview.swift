import Foundation
import SnapSortSystem

/// The overview counted in SQL: the page's first screen and `snapsort decks` on a library of a
/// million rows (issue 40 item 3), with the answers of the straightforward count
/// (`overviewByCandidates`, every candidate read into Swift).
///
/// Every live row has a deck key (`DeckKey.columns`: its kind, capture date, camera and the
/// flags the named filters read), kept by SQLite in the index `files_deck` (migration 73) as
/// the row is written, so counting the keys reads the index, never the table. The key is exact
/// only for a plain row; the others are read whole and counted by the Swift rules, as before
/// (`special`): a row with a decision (its progress and waiting depend on the decision and on
/// now), a row in a pair (`sidecars`: not a card, a Live Photo, a rated RAW), a member of the
/// Screenshots group, and an odd row (`DeckKey.odd`: text the SQL rules would read otherwise
/// than Swift — not ASCII, a date not written as RFC 3339, a name an edit rule reads). The
/// scan of the index counts the special rows of each key apart, to take them out; all of it in
/// one read transaction.
extension Decks {
    /// The SQL text of a row's deck key (one definition: the index, the counts and the
    /// count of the special rows all use it, and SQLite uses an index on expressions only
    /// for the same expressions). Migration 73 holds the index's text as a fixed literal (what
    /// this key was then): changing the key, or a constant it reads (`FilterContext.editors`,
    /// `GroupRules.favouriteRating`, `screenshotWords`, `editWords`, `Library.live()`), needs a
    /// new migration that drops `files_deck` and creates it from `index` as a literal again
    /// (`DecksOverviewTests.theIndexIsTheKeyTheCountsRead` fails until there is one).
    enum DeckKey {
        /// The words a screenshot's name holds (`FilterContext.matches(.screenshots)`).
        static let screenshotWords = ["screenshot", "screen shot", "screen_shot", "bildschirmfoto", "capture d"]
        /// Words that make a name odd: where an edit rule (`.edited`, `GroupRules.editBase`)
        /// may read it (every suffix `editBase` knows holds `edit`, `bearbeitet` or
        /// `modificato`, or is not ASCII).
        static let editWords = ["edit", "bearbeitet", "img_e", "modificato"]

        /// The last path component (`Item.name` for a path without a trailing slash).
        static let name = "substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)"

        static func anyWord(_ text: String, _ words: [String]) -> String {
            "(" + words.map { "instr(\(text), '\($0)') > 0" }.joined(separator: " OR ") + ")"
        }
        static func nonASCII(_ column: String) -> String {
            "coalesce(length(\(column)) != length(CAST(\(column) AS BLOB)), 0)"
        }
        static let dated =
            "(taken_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' OR taken_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][T ]*')"

        /// 1 for a row whose key the SQL rules could read otherwise than the Swift ones.
        static let odd = """
            CASE WHEN typeof(path) != 'text' OR typeof(kind) != 'text' OR typeof(taken_at) NOT IN ('text', 'null')
                   OR typeof(make) NOT IN ('text', 'null') OR typeof(model) NOT IN ('text', 'null')
                   OR typeof(lens) NOT IN ('text', 'null') OR typeof(software) NOT IN ('text', 'null')
                   OR typeof(rating) NOT IN ('integer', 'null') THEN 1
                 WHEN (taken_at IS NOT NULL OR taken_ts IS NOT NULL) AND NOT coalesce(\(dated), 0) THEN 1
                 WHEN path GLOB '*/' OR \(nonASCII(name)) OR \(nonASCII("make")) OR \(nonASCII("model"))
                   OR \(nonASCII("lens")) OR \(nonASCII("software")) THEN 1
                 WHEN \(anyWord("lower(\(name))", editWords)) THEN 1
                 ELSE 0 END
            """

        /// The key's columns, in the index's order: odd, kind, screenshot by name, capture date
        /// (`YYYY-MM-DD`), camera model and make (trimmed as Swift's `.whitespaces` trims ASCII),
        /// selfie lens, favourite rating, editing software.
        static let columns: [String] = [
            odd,
            "kind",
            "CASE WHEN \(anyWord("lower(\(name))", screenshotWords)) THEN 1 ELSE 0 END",
            "CASE WHEN \(dated) THEN substr(taken_at, 1, 10) END",
            "trim(model, ' ' || char(9))",
            "trim(make, ' ' || char(9))",
            "coalesce(instr(lower(lens), 'front') > 0, 0)",
            "coalesce(rating, 0) >= \(GroupRules.favouriteRating)",
            "coalesce(\(anyWord("lower(software)", FilterContext.editors)), 0)",
        ]

        /// The index's statement as the key makes it now: a library's `files_deck` must say
        /// exactly this (migration 73 wrote it so, as a literal).
        static let index = "CREATE INDEX files_deck ON files(\(columns.joined(separator: ", "))) WHERE \(Library.live())"

        /// The rows counted by the Swift rules: decided, paired, in the Screenshots group, odd.
        static let special = """
            SELECT file_id FROM decisions UNION SELECT file_id FROM sidecars UNION SELECT sidecar_id FROM sidecars
            UNION SELECT file_id FROM group_members WHERE group_id = \(GroupID.screenshot.sql)
            UNION SELECT id FROM files WHERE \(Library.live()) AND \(odd) = 1
            """

        /// The live rows by key: how many, and how many of them special (one scan of the index:
        /// recomputing the special rows' keys from the table instead cost ~40 µs a row).
        static let counts = """
            SELECT \(columns.joined(separator: ", ")), count(*), sum(id IN (\(special))) FROM files WHERE \(Library.live())
            GROUP BY \(columns.joined(separator: ", "))
            """
    }

    /// A deck's count as the overview makes it: what `tally` counts.
    struct Tally {
        var waiting = 0
        var progress = DeckProgress(total: 0)

        /// `n` candidates without a decision: each in scope and waiting.
        mutating func addUndecided(_ n: Int) {
            progress.total += n
            waiting += n
        }

        mutating func add(_ c: Candidate, now: Date, includeKept: Bool = false) {
            progress.total += 1
            if let record = c.decision, record.decision.isVerdict, !record.trashOnChangedBytes(c.item) {
                progress.reviewed += 1
                if record.decision == .trash { progress.bytesToGain += c.item.bytes }
            }
            if c.waiting(now, includeKept: includeKept) { waiting += 1 }
        }
    }

    /// Which of `days` (`MM-DD`) a date (`YYYY-MM-DD…`) falls on, in a year before `year`.
    static func isOnThisDay(_ date: String, days: Set<String>, year: Int) -> Bool {
        guard let y = Int(date.prefix(4)) else { return false }
        return days.contains(String(date.dropFirst(5).prefix(5))) && y < year
    }

    /// The days On This Day shows at `now` (`MM-DD`) and the year: 29 February comes back on
    /// the 28th in the years without one.
    static func onThisDays(_ now: Date, _ timeZone: TimeZone) -> (days: Set<String>, year: Int) {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = timeZone
        let c = cal.dateComponents([.year, .month, .day], from: now)
        var days: Set<String> = [String(format: "%02d-%02d", c.month!, c.day!)]
        // A 29 February comes back on the 28th in the years without one (it never did).
        let leap = cal.range(of: .day, in: .month, for: cal.date(from: DateComponents(year: c.year!, month: 2))!)?.count == 29
        if c.month == 2 && c.day == 28 && !leap { days.insert("02-29") }
        return (days, c.year!)
    }

    /// The special rows' candidates (`DeckKey.special`), with their decisions.
    static func specialCandidates(_ library: Library) throws -> [Candidate] {
        var decisions: [Int64: DecisionRecord] = [:]
        try library.db.forEach("SELECT \(DecisionRecord.columns) FROM decisions") { r in
            if let d = DecisionRecord(r) { decisions[d.fileID] = d }
        }
        var out: [Candidate] = []
        try library.db.forEach(
            """
            SELECT \(Item.columns) FROM files WHERE id IN (\(DeckKey.special)) AND \(Library.live())
              AND kind IN \(MediaFormat.Kind.sql([.photo, .video])) AND id NOT IN (SELECT sidecar_id FROM sidecars)
            """
        ) { r in
            let item = Item(r)
            out.append(Candidate(item: item, decision: decisions[item.id]))
        }
        return out
    }

    /// Runs `body` in one read transaction (`Database.read`), so that counts taken in several
    /// statements see one state of the library.
    static func reading<T>(_ library: Library, _ body: () throws -> T) throws -> T {
        try library.db.read(body)
    }

    /// A plain row's key as the counts give it.
    struct PlainKey {
        var kind: MediaFormat.Kind?
        var screenshotName: Bool
        var date: String?
        var model: String?
        var make: String?
        var selfieLens: Bool
        var favourite: Bool
        var editor: Bool

        init(_ r: Row) {
            kind = r.string(1).flatMap(MediaFormat.Kind.init(rawValue:))
            screenshotName = r.int(2) == 1
            date = r.string(3)
            model = r.string(4)
            make = r.string(5)
            selfieLens = r.int(6) == 1
            favourite = r.int(7) == 1
            editor = r.int(8) == 1
        }

        /// Whether the filter takes a plain, undecided candidate with this key (what
        /// `FilterContext.matches` says of it: no plain row is a Live Photo, in the
        /// Screenshots group, decided or odd).
        func matches(_ f: LibraryFilter) -> Bool {
            switch f {
            case .all: return true
            case .photos: return kind == .photo
            case .videos: return kind == .video
            case .screenshots: return screenshotName
            case .selfies: return kind == .photo && selfieLens
            case .livePhotos: return false
            case .favourites: return favourite
            case .edited: return editor
            case .camera: return false  // not asked: the overview's camera decks are by model
            }
        }
    }

    /// The overview from the key counts and the special rows (see the extension's comment).
    static func countedOverview(
        library: Library, clock: Clock, timeZone: TimeZone, groups: GroupSource?
    ) throws -> [DeckSummary] {
        let now = clock.now()
        let (days, year) = onThisDays(now, timeZone)
        let named = LibraryFilter.named.map(\.1).filter { $0 != .all }
        var onThisDay = Tally(), later = Tally(), undecided = 0
        var filters = [Tally](repeating: Tally(), count: named.count)
        var byModel: [String: Tally] = [:]
        var makes: [String: [String: Int]] = [:]
        var byMonth: [String: Tally] = [:]
        var groupTallies: [(id: String, title: String, tally: Tally)] = []

        try reading(library) {
            // The plain rows: every live row's key counted, less the special rows'.
            var plain: [(key: PlainKey, n: Int)] = []
            let width = DeckKey.columns.count
            try library.db.forEach(DeckKey.counts) { r in
                guard r.int(0) == 0 else { return }  // odd rows are all special
                let n = Int(r.int(width) ?? 0) - Int(r.int(width + 1) ?? 0)
                if n > 0 { plain.append((PlainKey(r), n)) }
            }
            for (key, n) in plain {
                guard key.kind == .photo || key.kind == .video else { continue }
                undecided += n
                if let d = key.date {
                    byMonth[String(d.prefix(7)), default: Tally()].addUndecided(n)
                    if isOnThisDay(d, days: days, year: year) { onThisDay.addUndecided(n) }
                }
                for (i, f) in named.enumerated() where key.matches(f) { filters[i].addUndecided(n) }
                if let m = key.model, !m.isEmpty {
                    byModel[m, default: Tally()].addUndecided(n)
                    if let mk = key.make, !mk.isEmpty { makes[m, default: [:]][mk, default: 0] += n }
                }
            }

            // The special rows, by the Swift rules.
            let special = try specialCandidates(library)
            let ctx = try FilterContext([], library: library)
            for c in special {
                let d = c.localDate(timeZone)
                if let d {
                    byMonth[String(d.prefix(7)), default: Tally()].add(c, now: now)
                    if isOnThisDay(d, days: days, year: year) { onThisDay.add(c, now: now) }
                }
                if c.decision?.decision == .later { later.add(c, now: now) }
                if c.waiting(now) && c.decision?.decision != .later { undecided += 1 }
                for (i, f) in named.enumerated() where ctx.matches(f, c) { filters[i].add(c, now: now, includeKept: f == .favourites) }
                if let m = c.item.model?.trimmingCharacters(in: .whitespaces), !m.isEmpty {
                    byModel[m, default: Tally()].add(c, now: now)
                    if let mk = c.item.make?.trimmingCharacters(in: .whitespaces), !mk.isEmpty { makes[m, default: [:]][mk, default: 0] += 1 }
                }
            }

            if let groups {
                let byID = Dictionary(special.map { ($0.item.id, $0) }, uniquingKeysWith: { a, _ in a })
                groupTallies = try groupCounts(library, groups: groups, special: byID, now: now)
            }
        }

        var out: [DeckSummary] = []
        func summary(_ id: DeckID, _ title: String, _ t: Tally) {
            out.append(DeckSummary(id: id, title: title, waiting: t.waiting, progress: t.progress))
        }
        if onThisDay.waiting > 0 { summary(.onThisDay, "On this day", onThisDay) }
        if later.progress.total > 0 { summary(.later, "Later", later) }
        if undecided > 0 {
            out.append(
                DeckSummary(
                    id: .rediscovery(seed: 0), title: "Rediscover", waiting: min(rediscoverySize, undecided),
                    progress: DeckProgress(reviewed: 0, total: min(rediscoverySize, undecided))))
        }
        for g in groupTallies { summary(.group(g.id), g.title, g.tally) }
        for (i, f) in named.enumerated() where filters[i].progress.total > 0 { summary(.filter(f, year: nil), f.title, filters[i]) }
        let cameras = byModel.sorted(by: { ($0.value.progress.total, $1.key) > ($1.value.progress.total, $0.key) }).prefix(cameraDecks)
        for (model, t) in cameras {
            let f = LibraryFilter.camera(model)
            summary(.filter(f, year: nil), Decks.title(f, makes: makes[model] ?? [:]), t)
        }
        for m in byMonth.keys.sorted(by: >) {
            let p = m.split(separator: "-")
            guard p.count == 2, let y = Int(p[0]), let mo = Int(p[1]) else { continue }
            summary(.month(year: y, month: mo), monthTitle(y, mo), byMonth[m]!)
        }
        return out
    }

    /// The smart groups' decks counted: `Library.groupMembers`' rows, the plain candidates
    /// among them counted in SQL, the special ones by the Swift rules.
    static func groupCounts(
        _ library: Library, groups: GroupSource, special: [Int64: Candidate], now: Date
    ) throws -> [(id: String, title: String, tally: Tally)] {
        guard groups.isSmartGroups else {
            // Another source: its members as it gives them, the plain ones read by id.
            return try groups(library).map { g in
                var t = Tally()
                var plain: [Int64] = []
                for id in g.fileIDs {
                    if let c = special[id] { t.add(c, now: now) } else { plain.append(id) }
                }
                t.addUndecided(try plainCandidates(plain, library))
                return (g.id, g.title, t)
            }
        }
        let members = """
            FROM group_members m JOIN files f ON f.id = m.file_id LEFT JOIN similar_sets s ON s.file_id = m.file_id
            WHERE \(Library.live("f")) AND (m.group_id NOT IN \(GroupID.sql([.similar, .duplicate])) OR s.set_key IN (\(Library.liveSetKeys)))
            """
        var counts: [String: (members: Int, plain: Int)] = [:]
        try library.db.forEach(
            """
            SELECT m.group_id, count(*), sum(f.kind IN \(MediaFormat.Kind.sql([.photo, .video])) AND f.id NOT IN (\(DeckKey.special)))
            \(members) GROUP BY m.group_id
            """
        ) { r in counts[r.string(0) ?? ""] = (Int(r.int(1) ?? 0), Int(r.int(2) ?? 0)) }
        var specialMembers: [String: [Int64]] = [:]
        try library.db.forEach("SELECT m.group_id, m.file_id \(members) AND m.file_id IN (\(DeckKey.special))") { r in
            specialMembers[r.string(0) ?? "", default: []].append(r.int(1)!)
        }
        return GroupID.allCases.compactMap { g in
            guard let n = counts[g.rawValue], n.members > 0 else { return nil }
            var t = Tally()
            t.addUndecided(n.plain)
            for id in specialMembers[g.rawValue] ?? [] { if let c = special[id] { t.add(c, now: now) } }
            return (g.rawValue, g.title, t)
        }
    }

    /// How many of `ids` are candidates that are not special (plain: undecided, waiting).
    static func plainCandidates(_ ids: [Int64], _ library: Library) throws -> Int {
        guard !ids.isEmpty else { return 0 }
        let list = "[" + ids.map(String.init).joined(separator: ",") + "]"
        return Int(
            try library.db.scalar(
                """
                SELECT count(*) FROM json_each(?) j JOIN files f ON f.id = j.value
                WHERE \(Library.live("f")) AND f.kind IN \(MediaFormat.Kind.sql([.photo, .video]))
                  AND f.id NOT IN (\(DeckKey.special))
                """, list) ?? 0)
    }

    /// The Screenshots deck's cards without a verdict whose time (capture, else the file's)
    /// is more than `days` days old, in the deck's order: what the page's bulk action stages
    /// (`bulk/old-screenshots`). The plain rows come from the deck key's screenshot flag,
    /// the special ones through the Swift rules.
    public static func oldScreenshots(days: Int, library: Library, clock: Clock) throws -> [Item] {
        let now = clock.now()
        let cutoff = now.timeIntervalSince1970 - Double(max(0, days)) * 86_400
        func old(_ taken: Double?, _ mtime: Int64) -> Bool { (taken ?? Double(mtime) / 1e9) < cutoff }
        return try reading(library) {
            var ids: [Int64] = []
            // The key's columns by position: odd (0), kind (1), screenshot by name (2).
            try library.db.forEach(
                """
                SELECT id, taken_ts, mtime_ns FROM files
                WHERE \(Library.live()) AND \(DeckKey.columns[0]) = 0 AND \(DeckKey.columns[1]) IN \(MediaFormat.Kind.sql([.photo, .video]))
                  AND \(DeckKey.columns[2]) = 1 AND id NOT IN (\(DeckKey.special))
                """
            ) { r in if old(r.double(1), r.int(2) ?? 0) { ids.append(r.int(0)!) } }
            let ctx = try FilterContext([], library: library)
            for c in try specialCandidates(library) where ctx.matches(.screenshots, c) {
                // A card without a verdict: no decision, or a trash verdict on other bytes.
                guard c.decision.map({ $0.trashOnChangedBytes(c.item) }) ?? true else { continue }
                if old(c.item.takenTimestamp, c.item.mtimeNanoseconds) { ids.append(c.item.id) }
            }
            guard !ids.isEmpty else { return [] }
            let list = "[" + ids.map(String.init).joined(separator: ",") + "]"
            return try library.db.rows(
                "SELECT \(Item.columns) FROM files WHERE id IN (SELECT value FROM json_each(?)) ORDER BY taken_ts, path", list
            ).map(Item.init)
        }
    }
}
