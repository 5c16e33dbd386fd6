import Foundation
import SnapSortSystem

/// The overview counted in SQL: the page's first screen and `snapsort decks` on a library of a
/// million rows (issue 40 item 3), with the answers of the straightforward count
/// (`overviewByCandidates`, every candidate read into Swift).
///
/// Every live row has a deck key (`DeckKey.columns`: its kind, capture date, camera and the
/// flags the named filters read), kept by SQLite in the index `files_deck` (migration 73) and,
/// with how many rows have each key, in `deck_keys` and `deck_counts` (migration 89, kept by
/// triggers) as the row is written: the overview reads a row per key, never the table. The key
/// is exact only for a plain row. A decided row is counted in SQL from its key and its decision
/// (`Decided`) where the SQL and the Swift rules read the decision alike, and those counts are
/// kept by triggers too (`decided_counts`, migration 90: by key and case, by group and case; a
/// deferral's time read for the few still cooling down), so the overview never reads every
/// decision. The other rows are read whole and counted by the Swift rules, as before
/// (`special`): a decision the SQL would read otherwise, a row in a pair (`sidecars`: not a
/// card, a Live Photo, a rated RAW), a member of the Screenshots group, and an odd row
/// (`DeckKey.odd`: text the SQL rules would read otherwise than Swift — not ASCII, a date not
/// written as RFC 3339, a name an edit rule reads). All of it in one read transaction.
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

        /// The rows counted by the Swift rules: paired, in the Screenshots group, odd, or decided
        /// where the SQL would read the decision otherwise (`Decided.plain`).
        static let special = special()

        /// `special` with the decided rows the SQL would read otherwise selected by `oddDecided`
        /// (`Decided.special`, or their ids as `Decided.list` writes them once read).
        static func special(_ oddDecided: String = Decided.special) -> String {
            """
            \(oddDecided) UNION SELECT file_id FROM sidecars UNION SELECT sidecar_id FROM sidecars
            UNION SELECT file_id FROM group_members WHERE group_id = \(GroupID.screenshot.sql)
            UNION SELECT id FROM files WHERE \(Library.live()) AND \(odd) = 1
            """
        }

        /// The names of the key's columns in `deck_keys` and `deck_counts` (migration 89), in
        /// `columns`' order.
        static let names = ["odd", "kind", "shot", "date", "model", "make", "selfie", "favourite", "editor"]

        /// The key as one text (`deck_counts.key`) of the `deck_keys` row named `k`.
        static func text(_ k: String) -> String { names.map { "quote(\(k).\($0))" }.joined(separator: " || ',' || ") }

        /// The rows taken out of the kept counts besides the decided ones `decidedKept` counts:
        /// paired, in the Screenshots group, decided where the SQL would read the decision
        /// otherwise (the odd ones have keys of their own, never counted as plain).
        static func notPlain(_ oddDecided: String) -> String {
            """
            SELECT file_id FROM sidecars UNION SELECT sidecar_id FROM sidecars
            UNION SELECT file_id FROM group_members WHERE group_id = \(GroupID.screenshot.sql) UNION \(oddDecided)
            """
        }

        /// Every live row's key and how many have it, kept by triggers (`deck_counts`): a row a
        /// key, ~1 300 at a million rows, where the index scan read a million entries.
        static let counts = "SELECT key, \(names.joined(separator: ", ")), n FROM deck_counts"

        /// The rows of `notPlain` by key, to take out.
        static func notPlainCounts(_ oddDecided: String = Decided.special) -> String {
            """
            SELECT \(text("k")), \(names.map { "k." + $0 }.joined(separator: ", ")), count(*) FROM deck_keys k
            WHERE k.file_id IN (\(notPlain(oddDecided))) GROUP BY 1
            """
        }

        /// The decided rows counted in SQL (plain, in no pair nor the Screenshots group, not odd)
        /// by key and `Decided` case, with the bytes of their trash verdicts; `?1`: now. The
        /// definition the kept counts are held to (`decided_counts`, migration 90:
        /// `decidedByKey`; `DecidedCountsTests`): every decision read, each file and key found
        /// by its id, grouped by the key's columns.
        static func decidedByScan(_ oddDecided: String = Decided.specialByScan) -> String {
            """
            SELECT \(text("k")), \(names.map { "k." + $0 }.joined(separator: ", ")), \(Decided.sql()) AS class, count(*),
                   sum(CASE WHEN d.decision = \(Decision.trash.sql) THEN f.size ELSE 0 END)
            FROM decisions d CROSS JOIN files f INDEXED BY files_decided ON f.id = d.file_id CROSS JOIN deck_keys k ON k.file_id = d.file_id
            WHERE \(Library.live("f")) AND k.odd = 0 AND d.file_id NOT IN (\(oddDecided))
              AND d.file_id NOT IN (SELECT file_id FROM sidecars UNION SELECT sidecar_id FROM sidecars
                                    UNION SELECT file_id FROM group_members WHERE group_id = \(GroupID.screenshot.sql))
            GROUP BY \(names.map { "k." + $0 }.joined(separator: ", ")), class
            """
        }

        /// The same rows as kept (`decided_counts`, migration 90) with their key's columns: a
        /// row per key and case, a deferral's case (5) holding the due and the cooling ones.
        static let decidedKept = """
            SELECT c.key, \(names.map { "c." + $0 }.joined(separator: ", ")), s.class, s.n, s.bytes
            FROM decided_counts s JOIN deck_counts c ON c.key = s.name WHERE s.scope = 'key' AND s.n > 0
            """
    }

    /// A decided row counted in SQL (issue 40 item 3: read whole and counted in Swift, each cost
    /// ~50–80 µs, 2.5–4 s for 50 000 decisions): what its decision makes of it in a deck, as
    /// `Tally.add` and `Candidate.waiting` say it. Only where the SQL and the Swift rules read
    /// the row alike (`plain`: every value of the type the Swift rules read, no empty hash);
    /// any other decided row is special, read whole and counted by the Swift rules.
    enum Decided: Int, CaseIterable {
        /// Kept: reviewed; waiting only where kept items are shown (Favourites).
        case keep = 1
        /// Staged for the Trash, on the bytes the file has: reviewed, its bytes to gain.
        case trash
        /// Staged for the Trash on other bytes (`trashOnChangedBytes`): no verdict, waiting.
        case trashChanged
        /// Skipped: no verdict, waiting.
        case skip
        /// Deferred, its cool-down over: reviewed, waiting again.
        case laterDue
        /// Deferred, cooling down: reviewed.
        case later

        var reviewed: Bool { self != .trashChanged && self != .skip }
        func waiting(includeKept: Bool) -> Bool { self == .trashChanged || self == .skip || self == .laterDue || (includeKept && self == .keep) }
        var isLater: Bool { self == .laterDue || self == .later }

        /// Whether the SQL below reads decision `d` of file `f` as `DecisionRecord` and `Item`
        /// do: the four words, integers where Swift reads integers, hashes that are blobs.
        static let plain = plain("f")

        /// `plain` for the `files` row named `f`.
        static func plain(_ f: String) -> String {
            """
            d.decision IN \(Decision.sql(Decision.allCases)) AND typeof(\(f).size) = 'integer' AND typeof(\(f).device) = 'integer'
            AND typeof(\(f).inode) = 'integer' AND typeof(\(f).btime_ns) IN ('integer', 'null')
            AND (\(f).content_hash IS NULL OR (typeof(\(f).content_hash) = 'blob' AND length(\(f).content_hash) > 0))
            AND typeof(d.reviewed_size) IN ('integer', 'null')
            AND (d.reviewed_hash IS NULL OR (typeof(d.reviewed_hash) = 'blob' AND length(d.reviewed_hash) > 0))
            AND ((d.reviewed_device IS NULL AND d.reviewed_inode IS NULL)
                 OR (typeof(d.reviewed_device) = 'integer' AND typeof(d.reviewed_inode) = 'integer'))
            AND typeof(d.reviewed_btime_ns) IN ('integer', 'null') AND typeof(d.later_until) IN ('integer', 'real', 'null')
            """
        }

        /// A plain decided row's case (its raw value), with `?1`: now, in seconds; `f` names
        /// its `files` row.
        static func sql(_ f: String = "f") -> String {
            """
            CASE d.decision WHEN \(Decision.keep.sql) THEN 1 WHEN \(Decision.skip.sql) THEN 4
              WHEN \(Decision.later.sql) THEN CASE WHEN coalesce(d.later_until, 0) <= ?1 THEN 5 ELSE 6 END
              WHEN \(Decision.trash.sql) THEN CASE WHEN \(DecisionRecord.trashChangedSQL(f)) THEN 3 ELSE 2 END END
            """
        }

        /// The decided rows the SQL does not count (special, counted by the Swift rules), by
        /// definition: every decision read (`special` is it as kept).
        static let specialByScan =
            "SELECT d.file_id FROM decisions d CROSS JOIN files f INDEXED BY files_decided ON f.id = d.file_id WHERE NOT (\(plain))"

        /// The decided rows the SQL does not count, as kept (`decided_counted.special`, migration
        /// 90): a partial index of the few.
        static let special = "SELECT file_id FROM decided_counted WHERE special = 1"

        /// The ids of `special`'s rows, read once, as SQL that selects them: the queries of one
        /// overview name it several times. Decisions this build writes are all plain, so the
        /// list is empty but for rows an older build or a hand wrote; past `listLimit` of them,
        /// `special` itself (the statements are cached by their text: a long list would be a
        /// long text).
        static func list(_ library: Library) throws -> String {
            var ids: [String] = []
            try library.db.forEach(special) { ids.append(String($0.int(0)!)) }
            if ids.count > listLimit { return special }
            return ids.isEmpty ? "SELECT NULL WHERE 0" : "SELECT value FROM json_each('[\(ids.joined(separator: ","))]')"
        }

        /// The most ids `list` writes into the statements' text.
        static let listLimit = 1_000

        /// The deferrals still cooling down at `?1` (now) among the rows the overview counts by
        /// key, by key: from the index of the deferrals (`decided_later`), the few deferred
        /// within a cool-down read, never the decisions. A plain deferral without its end is due.
        static let coolingByKey =
            "SELECT key, count(*) FROM decided_counted WHERE later = 1 AND later_until > ?1 AND key IS NOT NULL GROUP BY key"

        /// The same among the plain cards, by group.
        static let coolingByGroup = """
            SELECT j.value, count(*) FROM decided_counted c, json_each(c.groups) j
            WHERE c.later = 1 AND c.later_until > ?1 AND c.special = 0 GROUP BY j.value
            """

        /// A kept count of case `d` as counts at a time: a deferral's (kept as `laterDue`, due or
        /// not) split into the due ones and the `cooling` ones; none of zero.
        static func split(_ d: Decided, _ n: Int, cooling: Int) -> [(Decided, Int)] {
            let parts = d == .laterDue ? [(Decided.laterDue, n - cooling), (.later, cooling)] : [(d, n)]
            return parts.filter { $0.1 > 0 }
        }
    }

    /// A count of decided rows: of a key (`name`: its text) or a group, in one case.
    struct DecidedCount: Hashable {
        var name: String
        /// The case, or minus the file's id for a card the SQL would read otherwise (counted by
        /// the Swift rules, `groupCounts`).
        var decided: Int64
        var n: Int
        var bytes: Int64
    }

    /// The plain decided rows the overview counts by key, by key and case at `now`, with their
    /// keys: the kept counts (`decided_counts`, migration 90), the deferrals split at `now`.
    static func decidedByKey(_ library: Library, now: Date) throws -> [(count: DecidedCount, key: PlainKey)] {
        var cooling: [String: Int] = [:]
        try library.db.forEach(Decided.coolingByKey, arguments: [now.timeIntervalSince1970]) { r in
            cooling[r.string(0) ?? ""] = Int(r.int(1) ?? 0)
        }
        var out: [(count: DecidedCount, key: PlainKey)] = []
        try library.db.forEach(DeckKey.decidedKept) { r in
            guard let k = r.string(0), let d = r.int(10).flatMap({ Decided(rawValue: Int($0)) }) else { return }
            let key = PlainKey(r, from: 1)
            for (d, n) in Decided.split(d, Int(r.int(11) ?? 0), cooling: cooling[k] ?? 0) {
                out.append((DecidedCount(name: k, decided: Int64(d.rawValue), n: n, bytes: r.int(12) ?? 0), key))
            }
        }
        return out
    }

    /// `decidedByKey` by definition (`DeckKey.decidedByScan`): every decision read.
    static func decidedByKeyScan(_ library: Library, now: Date) throws -> [DecidedCount] {
        try library.db.rows(DeckKey.decidedByScan(), arguments: [now.timeIntervalSince1970]).map {
            DecidedCount(name: $0.string(0) ?? "", decided: $0.int(10) ?? 0, n: Int($0.int(11) ?? 0), bytes: $0.int(12) ?? 0)
        }
    }

    /// The decided cards of every smart group by case at `now`, and each special one (minus
    /// its id), as kept (`decided_counts`, `decided_counted.groups`): a row per group and case.
    static func decidedByGroup(_ library: Library, now: Date) throws -> [DecidedCount] {
        var cooling: [String: Int] = [:]
        try library.db.forEach(Decided.coolingByGroup, arguments: [now.timeIntervalSince1970]) { r in
            cooling[r.string(0) ?? ""] = Int(r.int(1) ?? 0)
        }
        var out: [DecidedCount] = []
        try library.db.forEach("SELECT name, class, n, bytes FROM decided_counts WHERE scope = 'group' AND n > 0") { r in
            guard let g = r.string(0), let d = r.int(1).flatMap({ Decided(rawValue: Int($0)) }) else { return }
            for (d, n) in Decided.split(d, Int(r.int(2) ?? 0), cooling: cooling[g] ?? 0) {
                out.append(DecidedCount(name: g, decided: Int64(d.rawValue), n: n, bytes: r.int(3) ?? 0))
            }
        }
        try library.db.forEach("SELECT c.file_id, j.value, c.bytes FROM decided_counted c, json_each(c.groups) j WHERE c.special = 1") { r in
            out.append(DecidedCount(name: r.string(1) ?? "", decided: -(r.int(0) ?? 0), n: 1, bytes: r.int(2) ?? 0))
        }
        return out
    }

    /// `decidedByGroup` by definition: every decision joined to its file and its groups.
    static func decidedByGroupScan(_ library: Library, now: Date) throws -> [DecidedCount] {
        try library.db.rows(
            """
            SELECT m.group_id, CASE WHEN d.file_id IN (\(Decided.specialByScan)) THEN -d.file_id ELSE \(Decided.sql()) END AS class, count(*),
                   sum(CASE WHEN d.decision = \(Decision.trash.sql) THEN f.size ELSE 0 END)
            FROM decisions d CROSS JOIN files f INDEXED BY files_decided ON f.id = d.file_id
            CROSS JOIN group_members m ON m.file_id = d.file_id LEFT JOIN similar_sets s ON s.file_id = m.file_id
            WHERE \(Library.live("f")) AND f.kind IN \(MediaFormat.Kind.sql([.photo, .video])) AND f.id NOT IN (SELECT sidecar_id FROM sidecars)
              AND (m.group_id NOT IN \(GroupID.sql([.similar, .duplicate])) OR (SELECT live FROM group_sets WHERE set_key = s.set_key) >= 2)
            GROUP BY m.group_id, class
            """, arguments: [now.timeIntervalSince1970]
        ).map { DecidedCount(name: $0.string(0) ?? "", decided: $0.int(1) ?? 0, n: Int($0.int(2) ?? 0), bytes: $0.int(3) ?? 0) }
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

        /// `n` plain rows decided so (`bytes`: the sizes of the trash verdicts among them).
        mutating func add(_ d: Decided, _ n: Int, bytes: Int64 = 0, includeKept: Bool = false) {
            progress.total += n
            if d.reviewed { progress.reviewed += n }
            if d == .trash { progress.bytesToGain += bytes }
            if d.waiting(includeKept: includeKept) { waiting += n }
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
    static func specialCandidates(_ library: Library, oddDecided: String = Decided.special) throws -> [Candidate] {
        var items: [Item] = []
        try library.db.forEach(
            """
            SELECT \(Item.columns) FROM files WHERE id IN (\(DeckKey.special(oddDecided))) AND \(Library.live())
              AND kind IN \(MediaFormat.Kind.sql([.photo, .video])) AND id NOT IN (SELECT sidecar_id FROM sidecars)
            """
        ) { items.append(Item($0)) }
        guard !items.isEmpty else { return [] }
        // Their decisions only (every decision read into Swift cost ~0.15 s for 50 000).
        var decisions: [Int64: DecisionRecord] = [:]
        try library.db.forEach(
            "SELECT \(DecisionRecord.columns) FROM decisions WHERE file_id IN (SELECT value FROM json_each(?))",
            arguments: ["[" + items.map { String($0.id) }.joined(separator: ",") + "]"]
        ) { r in
            if let d = DecisionRecord(r) { decisions[d.fileID] = d }
        }
        return items.map { Candidate(item: $0, decision: decisions[$0.id]) }
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

        /// The key of a row whose columns from `offset` on are the key's (`DeckKey.names`).
        init(_ r: Row, from offset: Int = 0) {
            kind = r.string(offset + 1).flatMap(MediaFormat.Kind.init(rawValue:))
            screenshotName = r.int(offset + 2) == 1
            date = r.string(offset + 3)
            model = r.string(offset + 4)
            make = r.string(offset + 5)
            selfieLens = r.int(offset + 6) == 1
            favourite = r.int(offset + 7) == 1
            editor = r.int(offset + 8) == 1
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
            let oddDecided = try Decided.list(library)
            // The plain rows: every live row's key counted (kept by triggers), less the decided,
            // paired and Screenshots-group rows; then the decided ones the SQL reads as Swift does.
            var keys: [String: PlainKey] = [:]
            var counts: [String: Int] = [:]
            try library.db.forEach(DeckKey.counts) { r in
                guard r.int(1) == 0, let k = r.string(0) else { return }  // odd rows are all special
                keys[k] = PlainKey(r, from: 1)
                counts[k, default: 0] += Int(r.int(10) ?? 0)
            }
            try library.db.forEach(DeckKey.notPlainCounts(oddDecided)) { r in
                guard r.int(1) == 0, let k = r.string(0) else { return }
                counts[k, default: 0] -= Int(r.int(10) ?? 0)
            }
            var decided: [(key: PlainKey, Decided, n: Int, bytes: Int64)] = []
            for (c, key) in try decidedByKey(library, now: now) {
                guard let d = Decided(rawValue: Int(c.decided)) else { continue }
                counts[c.name, default: 0] -= c.n
                decided.append((key, d, c.n, c.bytes))
            }
            for (k, n) in counts where n > 0 {
                guard let key = keys[k], key.kind == .photo || key.kind == .video else { continue }
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
            for (key, d, n, bytes) in decided {
                guard key.kind == .photo || key.kind == .video else { continue }
                if d.waiting(includeKept: false) && !d.isLater { undecided += n }
                if d.isLater { later.add(d, n) }
                if let date = key.date {
                    byMonth[String(date.prefix(7)), default: Tally()].add(d, n, bytes: bytes)
                    if isOnThisDay(date, days: days, year: year) { onThisDay.add(d, n, bytes: bytes) }
                }
                for (i, f) in named.enumerated() where key.matches(f) || (f == .favourites && d == .keep) {
                    filters[i].add(d, n, bytes: bytes, includeKept: f == .favourites)
                }
                if let m = key.model, !m.isEmpty {
                    byModel[m, default: Tally()].add(d, n, bytes: bytes)
                    if let mk = key.make, !mk.isEmpty { makes[m, default: [:]][mk, default: 0] += n }
                }
            }

            // The special rows, by the Swift rules.
            let special = try specialCandidates(library, oddDecided: oddDecided)
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
                groupTallies = try groupCounts(library, groups: groups, special: byID, oddDecided: oddDecided, now: now)
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
        _ library: Library, groups: GroupSource, special specialByID: [Int64: Candidate], oddDecided: String = Decided.special, now: Date
    ) throws -> [(id: String, title: String, tally: Tally)] {
        guard groups.isSmartGroups else {
            // Another source: its members as it gives them, the plain ones read by id.
            return try groups(library).map { g in
                var t = Tally()
                var plain: [Int64] = []
                for id in g.fileIDs {
                    if let c = specialByID[id] { t.add(c, now: now) } else { plain.append(id) }
                }
                try addPlainCandidates(plain, to: &t, library, oddDecided: oddDecided, now: now)
                return (g.id, g.title, t)
            }
        }
        // The members and the cards among them, from the totals the triggers keep (`group_totals`,
        // migration 88); the decided cards by their decision as kept too (`decided_counts`,
        // migration 90), in SQL where it reads them as Swift does, the others (special) by the
        // Swift rules.
        var totals: [String: (members: Int, candidates: Int)] = [:]
        try library.db.forEach("SELECT group_id, items, candidates FROM group_totals") { r in
            totals[r.string(0) ?? ""] = (Int(r.int(1) ?? 0), Int(r.int(2) ?? 0))
        }
        var decided: [String: [(class: Int64, n: Int, bytes: Int64)]] = [:]
        for c in try decidedByGroup(library, now: now) { decided[c.name, default: []].append((c.decided, c.n, c.bytes)) }
        return GroupID.allCases.compactMap { g in
            guard let n = totals[g.rawValue], n.members > 0 else { return nil }
            var t = Tally()
            var undecided = n.candidates
            for (c, count, bytes) in decided[g.rawValue] ?? [] {
                undecided -= count
                if let d = Decided(rawValue: Int(c)) {
                    t.add(d, count, bytes: bytes)
                } else if c < 0, let special = specialByID[-c] {
                    t.add(special, now: now)
                }
            }
            t.addUndecided(undecided)
            return (g.rawValue, g.title, t)
        }
    }

    /// Counts the candidates among `ids` that are not special (plain: undecided, or decided
    /// as `Decided` reads it) into `t`.
    static func addPlainCandidates(
        _ ids: [Int64], to t: inout Tally, _ library: Library, oddDecided: String = Decided.special, now: Date
    ) throws {
        guard !ids.isEmpty else { return }
        let list = "[" + ids.map(String.init).joined(separator: ",") + "]"
        try library.db.forEach(
            """
            SELECT CASE WHEN d.file_id IS NULL THEN 0 ELSE \(Decided.sql()) END AS class, count(*),
                   sum(CASE WHEN d.decision = \(Decision.trash.sql) THEN f.size ELSE 0 END)
            FROM json_each(?2) j JOIN files f ON f.id = j.value LEFT JOIN decisions d ON d.file_id = f.id
            WHERE \(Library.live("f")) AND f.kind IN \(MediaFormat.Kind.sql([.photo, .video])) AND f.id NOT IN (\(DeckKey.special(oddDecided)))
            GROUP BY class
            """, arguments: [now.timeIntervalSince1970, list]
        ) { r in
            let n = Int(r.int(1) ?? 0)
            if let d = r.int(0).flatMap({ Decided(rawValue: Int($0)) }) { t.add(d, n, bytes: r.int(2) ?? 0) } else { t.addUndecided(n) }
        }
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
            let oddDecided = try Decided.list(library)
            var ids: [Int64] = []
            // The key's columns by position: odd (0), kind (1), screenshot by name (2); the rows
            // that are not special (`DeckKey.special`) tested one by one, not listed.
            try library.db.forEach(
                """
                SELECT files.id, files.taken_ts, files.mtime_ns FROM files LEFT JOIN decisions d ON d.file_id = files.id
                WHERE \(Library.live()) AND \(DeckKey.columns[0]) = 0 AND \(DeckKey.columns[1]) IN \(MediaFormat.Kind.sql([.photo, .video]))
                  AND \(DeckKey.columns[2]) = 1 AND NOT EXISTS (SELECT 1 FROM sidecars WHERE file_id = files.id)
                  AND NOT EXISTS (SELECT 1 FROM sidecars WHERE sidecar_id = files.id)
                  AND NOT EXISTS (SELECT 1 FROM group_members WHERE group_id = \(GroupID.screenshot.sql) AND file_id = files.id)
                  AND (d.file_id IS NULL
                       OR (d.file_id NOT IN (\(oddDecided)) AND d.decision = \(Decision.trash.sql) AND \(DecisionRecord.trashChangedSQL("files"))))
                """
            ) { r in if old(r.double(1), r.int(2) ?? 0) { ids.append(r.int(0)!) } }
            let ctx = try FilterContext([], library: library)
            for c in try specialCandidates(library, oddDecided: oddDecided) where ctx.matches(.screenshots, c) {
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
