import Foundation
import SnapSortSystem

/// Computes the smart groups and stores them (see `Schema.groups`), incrementally.
///
/// 1. **What changed**: `grouped_files` remembers a fingerprint (path, size, status, analysis time)
///    of every file the grouper saw; files whose fingerprint differs, new files and files gone
///    since are the *changed* set.
/// 2. **Per-file groups** (blurry, oops, screenshot, document, qr, long/downloaded video,
///    unreadable) are recomputed for changed files only; OCR and QR run only on candidates the
///    cheap gates select, and their results are cached in `file_findings`. Heavy is re-ranked
///    over the library (one query).
/// 3. **Similar Shots and duplicates**: pairs are scored once and remembered in `similar_pairs`:
///    the alignment of every two photos taken at most `window` apart (kept when it reaches the
///    threshold) and the copy test of every two duplicate candidates (same content hash, or a
///    pHash within `SimilarityRules.nearCopyRadius`, found through a `HashIndex`). A regroup
///    scores only the pairs of changed files, then re-clusters the *components* (under kept
///    pairs and copy links) that hold a changed file or a member of a set it was in: a photo
///    added to a day shot every minute aligns with its few neighbours and re-clusters what it
///    looks like, not the day, and incremental regrouping equals full regrouping. Blurry and
///    Oops are settled here for the re-clustered files: set members against their set
///    (`GroupRules.relativelyBlurry`, `GroupRules.oopsInSet`), the others by the per-file rules
///    (`GroupRules.blurScore`, `GroupRules.oopsScore`). When the per-file rules change (an
///    upgrade), every component is re-clustered, so every set judges its members again.
public struct Grouper {
    public let library: Library
    public var rules = GroupRules()
    /// Runs OCR and QR decoding on a candidate file (injectable for tests).
    public var inspector: FileInspector = .live
    /// When set, receives one line per compared pair (tuning aid).
    public var trace: ((String) -> Void)?
    /// The regroup's steps only (wall, CPU, memory after each; `trace` gives them too, among
    /// every pair): `SNAPSORT_GROUPS_TRACE=phases`, a bench's figures without 600 000 lines.
    public var phaseTrace: ((String) -> Void)?
    /// Geometric verification of the pairs of one moment the thumbnails reject
    /// (`GroupRules.verifySeconds`); nil without the vision helper.
    public var frameMatcher: FrameMatcher?
    /// Called between the steps of a regroup (each file judged, each batch of pairs, each
    /// component clustered; a few times a second at most matters to the caller): the agent serves
    /// its loop here (signals, events, the watchdog) and throws to stop — `Cancelled` on
    /// SIGTERM or a pause. Nothing is stored before the regroup's last step, one transaction, so a
    /// stopped regroup leaves the groups as they were and what changed still to regroup.
    public var checkpoint: () throws -> Void = {}
    /// Dates what a regroup records besides the groups (the rules keys in `agent_state`).
    public var clock: Clock = .live
    /// A regroup that would read every row of a library of more live rows than this regroups
    /// it in parts of `partSize` photos instead (`regroupInParts`).
    public var partsAbove = 150_000
    /// At most this many photos a part, fewer once their neighbourhoods hold `partRows` rows.
    public var partSize = 10_000
    public var partRows = 40_000
    /// At most this many pairs aligned by one part wait for their other photo's part
    /// (`PartsLedger`).
    public var ledgerCapacity = 4_000_000

    /// Thrown by a `checkpoint` that stops a regroup.
    public struct Cancelled: Error, CustomStringConvertible {
        public init() {}
        public var description: String { "grouping stopped before it stored anything" }
    }

    /// What a `regroup` did: files changed, pairs aligned, files re-clustered, sets found.
    public struct Stats: Equatable, Sendable {
        public var changed = 0
        public var aligned = 0
        public var region = 0
        public var sets = 0
        /// The rows read: every live row, or those around the change (`RegroupSlice`).
        public var rowsRead = 0
    }
    /// `agent_state` key: the `GroupRules.pairKey` the stored `similar_pairs` were scored under.
    public static let pairRulesKey = "similar_pairs_rules"
    /// `agent_state` key: the `GroupRules.fileKey` the stored per-file groups were judged under.
    public static let fileRulesKey = "file_groups_rules"

    public init(library: Library) {
        self.library = library
    }

    /// Regroups everything from scratch.
    @discardableResult
    public func regroupAll() throws -> Stats {
        try regroup(changed: nil)
    }

    /// Whether the stored groups were made under other rules than these (an upgrade, or a
    /// library never grouped): the next regroup then scores or judges again what they touch.
    public func rulesChanged() throws -> Bool {
        try library.agentState(Self.pairRulesKey) != rules.pairKey || library.agentState(Self.fileRulesKey) != rules.fileKey
    }

    /// Regroups what changed since the last regroup, plus `extra` files (nil: everything), in
    /// the phases of `RegroupRun`.
    @discardableResult
    public func regroup(changed extra: Set<Int64>? = []) throws -> Stats {
        let run = RegroupRun(self, full: extra == nil)
        run.phase("start")
        if let extra, try run.sliceRows(extra) {
            // Only the rows around the change.
        } else if try library.db.scalar("SELECT count(*) FROM files WHERE \(Library.live())") ?? 0 > partsAbove {
            return try regroupInParts(changed: extra, partSize: partSize)
        } else {
            try run.loadRows()
            try run.findChanges(extra)
        }
        try run.judgeFiles()
        try run.makeClustering()
        try run.readStoredPairs()
        try run.scorePairs()
        try run.clusterRegion()
        try run.store()
        return run.stats
    }

    /// The stored findings (without their text) of the files `ids`, read by id, or in one pass
    /// over the table when they are most of the `total` files.
    static func storedFindings(_ db: Database, of ids: Set<Int64>, among total: Int) throws -> [Int64: Findings] {
        var out: [Int64: Findings] = [:]
        guard !ids.isEmpty else { return out }
        let columns = "file_id, analyzed_at, ocr_words, qr_payload"
        func add(_ r: Row) {
            out[r.int(0)!] = Findings(analyzedAt: r.string(1), ocrWords: r.int(2).map(Int.init), qrPayload: r.string(3))
        }
        if ids.count * 4 > total {
            try db.forEach("SELECT \(columns) FROM file_findings") { r in if ids.contains(r.int(0)!) { add(r) } }
            return out
        }
        try forEach(db, "SELECT \(columns) FROM file_findings WHERE file_id", in: ids.sorted(), add)
        return out
    }

    /// Calls `body` with each of `ids` and its stored findings (nil: no row), read 2 000 files at
    /// a time: a regroup then holds one batch of findings, whatever the library's size.
    /// `afterBatch` is called after each batch.
    static func withStoredFindings(
        _ db: Database, of ids: [Int64], among total: Int, _ body: (Int64, Findings?) throws -> Void,
        afterBatch: () throws -> Void = {}
    ) throws {
        for start in stride(from: 0, to: ids.count, by: 2000) {
            let part = ids[start..<min(ids.count, start + 2000)]
            let stored = try storedFindings(db, of: Set(part), among: total)
            for id in part { try body(id, stored[id]) }
            try afterBatch()
        }
    }

    /// Where each of `ids` is on disk now (device and inode), those that say: one file under
    /// two names (a hard link, a folder known by two paths) is not its own copy — trashing one
    /// name frees nothing, and through a second path it took the file.
    static func identities(_ db: Database, of ids: [Int64]) throws -> [Int64: DiskIdentity] {
        var out: [Int64: DiskIdentity] = [:]
        try forEach(db, "SELECT id, device, inode FROM files WHERE id", in: ids.sorted()) { r in
            if let id = r.int(0), let d = r.int(1), let i = r.int(2) { out[id] = DiskIdentity(device: d, inode: i) }
        }
        return out
    }

    /// Runs `select` (ending in the id column it filters) `IN` each batch of 500 of `ids`:
    /// SQLite's bound-parameter limit, and a statement that stays cheap to prepare.
    static func forEach(_ db: Database, _ select: String, in ids: [Int64], _ body: (Row) throws -> Void) throws {
        for start in stride(from: 0, to: ids.count, by: 500) {
            let part = Array(ids[start..<min(ids.count, start + 500)])
            let marks = Array(repeating: "?", count: part.count).joined(separator: ",")
            try db.forEach("\(select) IN (\(marks))", arguments: part, body)
        }
    }

    /// Runs `select` (a query with a WHERE clause) with `AND column IN` each batch of `ids`, or
    /// once as it is when `ids` is nil.
    static func forEach(_ db: Database, _ select: String, column: String, in ids: [Int64]?, _ body: (Row) throws -> Void) throws {
        guard let ids else { return try db.forEach(select, body) }
        try forEach(db, "\(select) AND \(column)", in: ids.sorted(), body)
    }

    /// Runs the gated OCR and QR checks a file still needs (the scanner's workers usually ran
    /// them already: see `FileInspector.inspection`).
    func inspect(_ item: GroupItem, _ f: inout Findings) {
        guard item.status == .ok, let m = item.metrics else { return }
        inspector.run(item, m, rules: rules, &f)
    }

    /// The files a regroup's statement applies to, as a set: a full regroup clears the groups
    /// of 100 000 files, and a statement per file and group cost it ~4 s.
    static let ids = "(SELECT id FROM temp.regroup_ids)"

    /// Makes `ids` hold exactly `files` (a temporary table of this connection).
    static func fillIDs(_ db: Database, _ files: some Sequence<Int64>) throws {
        try db.execute("CREATE TEMP TABLE IF NOT EXISTS regroup_ids(id INTEGER PRIMARY KEY)")
        try db.run("DELETE FROM temp.regroup_ids")
        for id in files { try db.run("INSERT INTO temp.regroup_ids(id) VALUES(?)", id) }
    }

    /// `agent_state` key: the size from which the stored Heavy Photos were taken.
    static let heavyKey = "heavy_threshold"

    /// Heavy Photos: photos over `rules.heavyBytes`, or in the library's top `rules.heavyShare`
    /// by size when larger than `rules.heavyMinimumBytes`; scored by size. When the size they
    /// start from is the stored one, only the `changed` files can join or leave (nil: every
    /// file is ranked again): 50 000 members of a million rows were rewritten for a photo added.
    /// The counts read the photos' index by size (migration 83).
    func rankHeavy(_ db: Database, changed: Set<Int64>? = nil) throws {
        // The RAW of a pair is no photo of its own here (its JPEG stands for the shot).
        let photos = "\(Schema.heavyPhotos) AND id NOT IN (SELECT sidecar_id FROM sidecars)"
        let n = try db.scalar("SELECT count(*) FROM files WHERE \(photos)") ?? 0
        let top = Int64((Double(n) * rules.heavyShare).rounded(.up))
        let cutoff =
            top > 0
            ? try db.scalar("SELECT size FROM files WHERE \(photos) ORDER BY size DESC LIMIT 1 OFFSET ?", top - 1) ?? Int64.max
            : Int64.max
        let threshold = min(rules.heavyBytes, max(cutoff, rules.heavyMinimumBytes))
        let insert =
            "INSERT INTO group_members(group_id, file_id, score) SELECT \(GroupID.heavy.sql), id, size FROM files WHERE \(photos) AND size >= ?"
        if let changed, try library.agentState(Self.heavyKey) == String(threshold) {
            try Self.fillIDs(db, changed)
            try db.run("DELETE FROM group_members WHERE group_id=\(GroupID.heavy.sql) AND file_id IN \(Self.ids)")
            try db.run(insert + " AND id IN \(Self.ids)", threshold)
        } else {
            // Only the rows that leave, join or change (each row written pays the group counts'
            // triggers, migration 88: the threshold moves with most scans that add photos, and a
            // million rows hold 50 000 Heavy ones).
            let heavy = GroupID.heavy.sql
            try db.run(
                "DELETE FROM group_members WHERE group_id=\(heavy) AND file_id NOT IN (SELECT id FROM files WHERE \(photos) AND size >= ?)",
                threshold)
            try db.run(
                "INSERT OR REPLACE INTO group_members(group_id, file_id, score) SELECT \(heavy), id, size FROM files f WHERE \(photos) AND size >= ?"
                    + " AND NOT EXISTS (SELECT 1 FROM group_members m WHERE m.group_id=\(heavy) AND m.file_id=f.id AND m.score=f.size)",
                threshold)
        }
        try library.setAgentState(Self.heavyKey, String(threshold), at: clock.now())
    }
}

/// A file's 128-bit content hash (`ContentHash.content`), held inline: as a `[UInt8]` it was
/// a 48-byte heap block in each row.
struct ContentKey: Hashable, Sendable {
    let high: UInt64, low: UInt64

    /// Nil unless `bytes` holds the 16 bytes of a content hash.
    init?(_ bytes: [UInt8]?) {
        guard let bytes, bytes.count == 16 else { return nil }
        high = bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
        low = bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// What OCR and QR decoding found in a file (cached per analysis).
struct Findings: Equatable {
    var analyzedAt: String?
    var ocrWords: Int?
    var ocrText: String?
    /// The decoded payload; "" when decoding ran and found nothing; nil when it never ran.
    var qrPayload: String?
    var qrChecked: Bool { qrPayload != nil }

    init(analyzedAt: String? = nil, ocrWords: Int? = nil, qrPayload: String? = nil) {
        self.analyzedAt = analyzedAt
        self.ocrWords = ocrWords
        self.qrPayload = qrPayload
    }
}

/// The rows a regroup reads, once, shared by its tables (`ItemTable`): a `GroupItem` is about a
/// kilobyte, and a dictionary of 100 000 of them (one per view of the library) held 150 MB of a
/// regroup's peak. Metrics (the costliest columns to read and decode) may be left out and read
/// later for the files that need them (`loadMetrics`).
///
/// `@unchecked Sendable`: `loadMetrics` changes `items` only on the regroup's own thread between
/// its steps; the alignment threads never read rows (they get thumbnails).
final class ItemRows: @unchecked Sendable {
    private(set) var items: [GroupItem]
    let slot: [Int64: Int]
    /// Whether each row's metrics were read (nil: all of them).
    private var loaded: [Bool]?
    /// Whether these are every live row (else a slice: metrics are read by id, never in one
    /// pass over the table).
    private let wholeLibrary: Bool

    init(_ items: [GroupItem], metricsLoaded: Bool, wholeLibrary: Bool = true) {
        self.wholeLibrary = wholeLibrary
        self.items = items
        var slot: [Int64: Int] = [:]
        slot.reserveCapacity(items.count)
        for (i, item) in items.enumerated() { slot[item.id] = i }
        self.slot = slot
        loaded = metricsLoaded ? nil : Array(repeating: false, count: items.count)
    }

    /// Reads the metrics of the rows of `ids` that have not been read yet.
    func loadMetrics(_ ids: some Sequence<Int64>, db: Database) throws {
        guard var loaded else { return }
        var wanted: [Int64] = []
        for id in ids { if let i = slot[id], !loaded[i] { loaded[i] = true; wanted.append(id) } }
        guard !wanted.isEmpty else { return }
        if wholeLibrary && wanted.count * 4 > items.count {
            // Most of the library: one pass over the table beats the lookups.
            let before = self.loaded!
            try db.forEach("SELECT id, metrics FROM files WHERE \(Library.live())") { r in
                if let i = slot[r.int(0)!], !before[i] { items[i].metrics = r.string(1).flatMap(Metrics.decode) }
            }
            self.loaded = nil
            return
        }
        try Grouper.forEach(db, "SELECT id, metrics FROM files WHERE id", in: wanted.sorted()) { r in
            if let i = slot[r.int(0)!] { items[i].metrics = r.string(1).flatMap(Metrics.decode) }
        }
        self.loaded = loaded
    }
}

/// One row's metrics, shared by the copies of its `GroupItem`.
final class MetricsBox: Sendable {
    let value: Metrics
    init(_ value: Metrics) { self.value = value }
}

/// A view of `ItemRows` by id: all of them, or those `include` takes.
struct ItemTable {
    private let rows: ItemRows
    private let slot: [Int64: Int]?
    /// The indices of the rows in the table, in order.
    let members: [Int]

    init(_ rows: ItemRows, where include: ((GroupItem) -> Bool)? = nil) {
        self.rows = rows
        guard let include else {
            slot = nil
            members = Array(rows.items.indices)
            return
        }
        var slot: [Int64: Int] = [:], members: [Int] = []
        for (i, item) in rows.items.enumerated() where include(item) {
            slot[item.id] = i
            members.append(i)
        }
        self.slot = slot
        self.members = members
    }

    private func index(_ id: Int64) -> Int? { slot.map { $0[id] } ?? rows.slot[id] }
    subscript(id: Int64) -> GroupItem? { index(id).map { rows.items[$0] } }
    func contains(_ id: Int64) -> Bool { index(id) != nil }
    /// The items in the table, in order (each a copy: iterate, do not keep).
    var all: LazyMapSequence<[Int], GroupItem> { members.lazy.map { rows.items[$0] } }
}

/// The columns of a file the grouper reads (signatures are loaded only where needed).
struct GroupItem: Sendable {
    var id: Int64
    var path: String
    var kind: MediaFormat.Kind
    var format: String?
    var status: ItemStatus
    var bytes: Int64
    var width: Int?
    var height: Int?
    var taken: Double?
    private(set) var takenSource: String?
    var make: String?
    var model: String?
    var software: String?
    var rating: Int?
    var orientation: Int?
    var duration: Double?
    /// Boxed: an incremental regroup holds every file's row but the metrics of only the few it
    /// judges, and 208 bytes inline in each of 100 000 rows were a third of their size.
    private var metricsBox: MetricsBox?
    var metrics: Metrics? {
        get { metricsBox?.value }
        set { metricsBox = newValue.map(MetricsBox.init) }
    }
    var phash: UInt64?
    var dhash: UInt64?
    var contentHash: ContentKey?
    /// `files.pixel_hash` (`PixelHash`): the same pixels whatever the metadata.
    var pixelHash: ContentKey?
    var analyzedAt: String?
    var mtime: Int64
    /// The eye openness of the photo's worst face (tier 2); nil without faces or models.
    var worstEyes: Double? = nil
    /// How much the classifier sees a page (tier 2, photos without faces); nil without models.
    var pageScore: Double? = nil
    /// The sheet of paper the helper found in the photo (tier 2, photos without faces); nil
    /// without one or without models.
    var sheet: VisionDocuments.Sheet? = nil
    /// Its part in a RAW+JPEG pair (`Library.pairSidecars`): the pair is one item, the JPEG (or
    /// HEIC) standing for it.
    var rawPair: RawPair = .none
    enum RawPair: String { case none, owner, sidecar }
    /// Why it could not be read, for an unreadable file (`files.reason_code`).
    var reasonCode: ReasonCode? = nil
    /// `GroupRules.ownCaptureTime`, read once from `files.taken_at` (RFC 3339, the wall clock
    /// first), `takenSource` and the name: the text was a heap block in each of 100 000 rows, and
    /// the clustering and the copy rules parsed it again for every pair.
    private(set) var ownCaptureTime: Double?
    /// `files.own_time` as read (what a regroup last wrote; `RegroupSlice` writes it where it
    /// differs from `ownCaptureTime`).
    var storedOwnTime: Double? = nil

    init(
        id: Int64, path: String, kind: MediaFormat.Kind, format: String?, status: ItemStatus, bytes: Int64, width: Int?, height: Int?,
        taken: Double?, takenSource: String?, make: String?, model: String?, software: String?, rating: Int?,
        orientation: Int?, duration: Double?, metrics: Metrics?, phash: UInt64?, dhash: UInt64?, contentHash: [UInt8]?,
        analyzedAt: String?, mtime: Int64, worstEyes: Double? = nil, pageScore: Double? = nil, takenAt: String? = nil
    ) {
        self.id = id
        self.path = path
        self.kind = kind
        self.format = format
        self.status = status
        self.bytes = bytes
        self.width = width
        self.height = height
        self.taken = taken
        self.takenSource = takenSource
        self.make = make
        self.model = model
        self.software = software
        self.rating = rating
        self.orientation = orientation
        self.duration = duration
        self.metricsBox = metrics.map(MetricsBox.init)
        self.phash = phash
        self.dhash = dhash
        self.contentHash = ContentKey(contentHash)
        self.analyzedAt = analyzedAt
        self.mtime = mtime
        self.worstEyes = worstEyes
        self.pageScore = pageScore
        self.ownCaptureTime = nil
        setTaken(takenAt, source: takenSource)
    }

    /// Sets `takenSource` and the capture time written for the file (`files.taken_at`).
    mutating func setTaken(_ takenAt: String?, source: String?) {
        takenSource = source
        ownCaptureTime = GroupRules.ownCaptureTime(takenAt: takenAt, source: source, name: name)
    }

    /// The last path component (what `path.split(separator: "/").last` gives, without splitting
    /// the whole path: the per-file rules ask for it for every file of a full regroup).
    var name: String {
        var end = path.endIndex
        while end > path.startIndex && path[path.index(before: end)] == "/" { end = path.index(before: end) }
        let start = path[..<end].lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        return String(path[start..<end])
    }
    /// What the grouper saw of the file; the capture time places it among its neighbours (a file
    /// without EXIF moves on the timeline when its mtime changes, without a new analysis).
    var fingerprint: String {
        "\(path)|\(bytes)|\(status.rawValue)|\(analyzedAt ?? "")|\(taken ?? Double(mtime) / 1e9)" + (rawPair == .none ? "" : "|\(rawPair.rawValue)")
    }
    var hasCamera: Bool { make != nil || model != nil }
    /// Whether its capture time is its mtime (`CaptureTime.Source.mtime`): nothing in the file
    /// or its name said when it was taken.
    var takenFromModification: Bool { takenSource == CaptureTime.Source.mtime.rawValue }
    /// Whether the format keeps every pixel (PNG; the WebP we read may be either, so it counts
    /// as lossy).
    var isLossless: Bool { format == "png" }

    /// Every live row; without `metrics`, their metrics are left out (`ItemRows.loadMetrics`).
    static func loadAll(_ db: Database, metrics: Bool = true) throws -> [GroupItem] {
        var out: [GroupItem] = []
        // The exact size: grown by doubling, 100 000 rows held room for 131 072, and the copy at
        // each step held both buffers.
        out.reserveCapacity(Int(try db.scalar("SELECT count(*) FROM files WHERE \(Library.live())") ?? 0))
        var reader = RowReader(metrics: metrics)
        try db.forEach("SELECT \(reader.columns) FROM files WHERE \(Library.live()) ORDER BY id") { out.append(reader.item($0)) }
        try addVision(db, to: &out, of: nil)
        return out
    }

    /// Every live row in id order, one at a time — without metrics or tier-2 results, with its
    /// RAW+JPEG part — and the fingerprint the grouper stored for it (nil: never grouped):
    /// `Grouper.regroupInParts`' one pass over a library too large to hold.
    static func forEachLive(_ db: Database, _ body: (GroupItem, String?) throws -> Void) throws {
        var pairs: [Int64: RawPair] = [:]
        try db.forEach("SELECT file_id, sidecar_id FROM sidecars") { r in
            pairs[r.int(0)!] = .owner
            pairs[r.int(1)!] = .sidecar
        }
        var reader = RowReader(metrics: false)
        let stored = "(SELECT fingerprint FROM grouped_files WHERE file_id = files.id)"
        try db.forEach("SELECT \(reader.columns), \(stored) FROM files WHERE \(Library.live()) ORDER BY id") { r in
            var item = reader.item(r)
            item.rawPair = pairs[item.id] ?? .none
            try body(item, r.string(RowReader.columnCount))
        }
    }

    /// The live rows of `ids` (those that are live), in id order, as `loadAll` reads them —
    /// without metrics (`ItemRows.loadMetrics`). A sliced regroup (`RegroupSlice`) reads these.
    static func load(_ db: Database, ids: [Int64]) throws -> [GroupItem] {
        var out: [GroupItem] = []
        var reader = RowReader(metrics: false)
        try Grouper.forEach(db, "SELECT \(reader.columns) FROM files WHERE \(Library.live()) AND id", in: ids.sorted()) {
            out.append(reader.item($0))
        }
        out.sort { $0.id < $1.id }
        try addVision(db, to: &out, of: ids)
        return out
    }

    /// Reads rows into items, sharing the strings that repeat.
    private struct RowReader {
        let columns: String
        /// How many columns `columns` names (the stored fingerprint `forEachLive` reads follows them).
        static let columnCount = RowReader(metrics: false).columns.split(separator: ",").count
        init(metrics: Bool) {
            columns = """
                id, path, kind, format, status, size, width, height, taken_ts, taken_source, make, model, software, rating,
                duration_s, \(metrics ? "metrics" : "NULL"), phash, dhash, content_hash, analyzed_at, mtime_ns, orientation, taken_at,
                reason_code, pixel_hash, own_time
                """
        }
        // The columns that repeat (a camera's make and model, the software, the second of the
        // analysis) share one string each: a text of more than 15 bytes is a heap block, and
        // `analyzed_at` alone was one in every row.
        private var seen: [String: String] = [:]
        private mutating func shared(_ text: String?) -> String? {
            guard let text, text.utf8.count > 15 else { return text }
            if let kept = seen[text] { return kept }
            if seen.count < 65_536 { seen[text] = text }
            return text
        }

        mutating func item(_ r: Row) -> GroupItem {
            var item = GroupItem(
                id: r.int(0)!, path: r.string(1) ?? "", kind: r.string(2).flatMap(MediaFormat.Kind.init) ?? .other,
                format: shared(r.string(3)),
                status: ItemStatus(rawValue: r.string(4) ?? "") ?? .pending, bytes: r.int(5) ?? 0,
                width: r.int(6).map(Int.init), height: r.int(7).map(Int.init), taken: r.double(8), takenSource: shared(r.string(9)),
                make: shared(r.string(10)), model: shared(r.string(11)), software: shared(r.string(12)), rating: r.int(13).map(Int.init),
                orientation: r.int(21).map(Int.init),
                duration: r.double(14), metrics: r.string(15).flatMap(Metrics.decode),
                phash: r.int(16).map { UInt64(bitPattern: $0) }, dhash: r.int(17).map { UInt64(bitPattern: $0) },
                contentHash: r.blob(18), analyzedAt: shared(r.string(19)), mtime: r.int(20) ?? 0, takenAt: r.string(22))
            item.reasonCode = r.string(23).map(ReasonCode.init)
            item.pixelHash = ContentKey(r.blob(24))
            item.storedOwnTime = r.double(25)
            return item
        }
    }

    /// The tier-2 results, RAW+JPEG pairs and RAW ratings of `items` (read for `ids` only, or
    /// the whole tables when nil).
    private static func addVision(_ db: Database, to items: inout [GroupItem], of ids: [Int64]?) throws {
        let eyes = try VisionScore.worstEyes(db, of: ids)
        let pages = try VisionDocuments.pageScores(db, of: ids)
        let sheets = try VisionDocuments.sheets(db, of: ids)
        var pairs: [Int64: RawPair] = [:]
        func pair(_ r: Row) {
            pairs[r.int(0)!] = .owner
            pairs[r.int(1)!] = .sidecar
        }
        if let ids {
            try Grouper.forEach(db, "SELECT file_id, sidecar_id FROM sidecars WHERE file_id", in: ids.sorted(), pair)
            try Grouper.forEach(db, "SELECT file_id, sidecar_id FROM sidecars WHERE sidecar_id", in: ids.sorted(), pair)
        } else {
            try db.forEach("SELECT file_id, sidecar_id FROM sidecars", pair)
        }
        // A RAW+JPEG pair's rating is the JPEG's, else its RAW's.
        let rawRatings = try Library.rawRatings(in: db, of: ids)
        for i in items.indices {
            items[i].worstEyes = eyes[items[i].id]
            items[i].pageScore = pages[items[i].id]
            items[i].sheet = sheets[items[i].id]
            items[i].rawPair = pairs[items[i].id] ?? .none
            if (items[i].rating ?? 0) == 0, let r = rawRatings[items[i].id] { items[i].rating = r }
        }
    }

    static func thumbnails(_ db: Database, ids: [Int64]) throws -> [Int64: Thumbnail] {
        var out: [Int64: Thumbnail] = [:]
        try Grouper.forEach(db, "SELECT id, signature FROM files WHERE id", in: ids) { r in
            if let blob = r.blob(1), let t = Thumbnail(signature: blob) { out[r.int(0)!] = t }
        }
        return out
    }
}

extension Item {
    /// How many columns `Item.columns` selects.
    static var columnCount: Int { columns.split(separator: ",").count }
}
