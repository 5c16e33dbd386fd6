import Foundation
import SnapSortSystem

/// The rows an incremental regroup reads when it need not read the library (issue 40 item 3): a
/// photo added to a million rows is compared with its neighbours, not loaded with every row.
///
/// What the clustering asks of the rows it holds is answered from them alone when they are
/// complete where it looks (`SimilarClustering` over these rows then gives what it gives over
/// every row, `incrementalRegroupsOfRealPhotosEqualFullRegroups`):
/// - the **timeline** around a changed photo: every row within `window` seconds of it on the
///   timeline (`taken_ts`, else the mtime), so its places among them are its places in the
///   library (`windowNeighbours` counts places); the same around each photo of a shared content
///   in the region (`sameContentEdge` counts places between two copies);
/// - its **pHash neighbours**: every row within `similarRadius` of its pHash and within
///   `nearCopyRadius` of its mirrored pHash, through the pHash's chunk indexes (migration 82:
///   `HashIndex`'s multi-index hashing in SQLite); an index over them gives the same nearest
///   first, as the first of a hash value is its lowest id either way;
/// - the photos that say they were **taken** within `sameCaptureSeconds` of it (`files.own_time`,
///   true for every row not in `regroup_dirty`, and the dirty rows are read anyway);
/// - the **contents** of each of those (every row of the same bytes or pixels, and theirs in
///   turn), so the copies admitted per content (`candidatesPerContent`) are counted as over the
///   library;
/// - the **weak clock** of each photo a changed one is aligned with: every file within a second
///   of its mtime (`WeakClock` counts a crowd within a second);
/// - the **region**: the components the change touches (a walk over `similar_pairs`, the pairs
///   scored now and the contents), each with its own neighbourhood above.
/// What changed is read from `regroup_dirty` (migration 81, kept by triggers on every write), not
/// from every row's fingerprint. A regroup that cannot be sliced — never sliced before, rules
/// changed, a video or a removed file among the changes, too many changes — reads every row as
/// before (`RegroupRun.loadRows`), and makes the library sliceable for the next one.
final class RegroupSlice {
    let db: Database
    let rules: GroupRules
    /// The live rows read, by id.
    private(set) var items: [Int64: GroupItem] = [:]
    /// Ids asked for that have no live row.
    private var absent = Set<Int64>()
    /// The candidates whose contents have been read whole.
    private var closedContents = Set<Int64>()
    /// The highest `regroup_dirty.seq` this regroup read: the store clears up to it.
    let dirtySeq: Int64
    /// The ids in `regroup_dirty`.
    let dirty: [Int64]
    /// The pHash neighbours from an index in memory (`Grouper.regroupInParts`: a part of ten
    /// thousand photos would probe the chunk indexes 2 788 times a photo); nil: the indexes.
    /// With `timeless`, only the photos without a capture time of their own are asked for: a
    /// photo with one meets no other by its pHash (`SimilarClustering.contentCandidates`,
    /// `duplicateCandidates` look among the timeless), and a part of thousands of photos would
    /// otherwise read every crowd near their pHashes.
    var ball: (@Sendable (_ hash: UInt64, _ radius: Int, _ timeless: Bool) -> [Int64])?
    /// Threads for the pHash balls of a batch (`ball`, a pure query of an index in memory).
    var workers = ProcessInfo.processInfo.activeProcessorCount
    /// The stretches of the timeline whose rows are all read (`readTimeline(around:)`).
    private var timelineRead = Spans()
    /// Whether the crowds of the weak clocks are known without their rows
    /// (`RegroupRun.copiedAtOnce`): a crowd of 5 000 files copied in one second is then not read
    /// for each photo near it.
    var crowdsKnown = false

    /// `agent_state` key: "1" once a regroup has read every row and written `own_time` where it
    /// differed, so `own_time` is true for every row not in `regroup_dirty`.
    static let stateKey = "regroup_slices"
    /// More changes than this are regrouped by reading every row (a scan of a new folder).
    static let maximumChanges = 256

    init(db: Database, rules: GroupRules, dirty: [Int64], dirtySeq: Int64) {
        self.db = db
        self.rules = rules
        self.dirty = dirty
        self.dirtySeq = dirtySeq
    }

    /// How many rows this regroup read.
    var rowsRead: Int { items.count }

    /// The highest `regroup_dirty.seq` now (0: none).
    static func dirtySeq(_ db: Database) throws -> Int64 {
        try db.scalar("SELECT coalesce(max(seq), 0) FROM regroup_dirty") ?? 0
    }

    /// The rows read, in id order.
    var rows: [GroupItem] { items.values.sorted { $0.id < $1.id } }

    func item(_ id: Int64) -> GroupItem? { items[id] }

    func isCandidate(_ id: Int64) -> Bool { items[id].map(rules.isSimilarCandidate) ?? false }

    /// Reads the rows of `ids` not read yet.
    func load(_ ids: some Sequence<Int64>) throws {
        let wanted = Set(ids).filter { items[$0] == nil && !absent.contains($0) }
        guard !wanted.isEmpty else { return }
        for item in try GroupItem.load(db, ids: Array(wanted)) { items[item.id] = item }
        for id in wanted where items[id] == nil { absent.insert(id) }
    }

    /// Reads the rows `select` names (its first column an id).
    private func load(_ select: String, _ arguments: [SQLBindable]) throws -> [Int64] {
        var ids: [Int64] = []
        try db.forEach(select, arguments: arguments) { ids.append($0.int(0)!) }
        try load(ids)
        return ids
    }

    /// Every row on the timeline within `rules.window` of the time `t` (`taken_ts`, else the
    /// mtime, as `SimilarClustering`'s timeline; a second wider, the clustering keeps its own).
    func timeline(around t: Double) throws -> [Int64] {
        let (lo, hi) = (t - rules.window - 1, t + rules.window + 1)
        timelineRead.insert(lo, hi)
        return try load("SELECT id FROM files WHERE taken_ts BETWEEN ? AND ?", [lo, hi])
            + load("SELECT id FROM files WHERE mtime_ns BETWEEN ? AND ? AND taken_ts IS NULL", [Int64(lo * 1e9), Int64(hi * 1e9)])
    }

    /// Reads what `timeline(around:)` reads, asking only for the stretches of the timeline not
    /// read yet: the photos of one crowd (5 000 files a copy wrote within one second) each asked
    /// for the whole crowd and ±5 minutes around it, a part of ten thousand photos for tens of
    /// millions of ids (most of a part's reading at a million rows).
    func readTimeline(around t: Double) throws {
        let (lo, hi) = (t - rules.window - 1, t + rules.window + 1)
        for (a, b) in timelineRead.gaps(lo, hi) {
            _ = try load("SELECT id FROM files WHERE taken_ts BETWEEN ? AND ?", [a, b])
            _ = try load("SELECT id FROM files WHERE mtime_ns BETWEEN ? AND ? AND taken_ts IS NULL", [Int64(a * 1e9), Int64(b * 1e9)])
        }
        timelineRead.insert(lo, hi)
    }

    /// Every file within a second of the mtime `ns` (a weak clock's crowd, `WeakClock`).
    func clockNeighbours(of ns: Int64) throws {
        _ = try load("SELECT id FROM files WHERE mtime_ns BETWEEN ? AND ?", [ns - 1_000_000_000, ns + 1_000_000_000])
    }

    /// Every photo that says it was taken within `sameCaptureSeconds` of the own time `t`.
    func takenNear(_ t: Double) throws -> [Int64] {
        try load("SELECT id FROM files WHERE own_time BETWEEN ? AND ?", [t - rules.sameCaptureSeconds - 1, t + rules.sameCaptureSeconds + 1])
    }

    /// The keys of a 16-bit chunk within `bits` flipped bits of `key`.
    private static func flips(of key: UInt16, upTo bits: Int) -> [UInt16] {
        var out: [UInt16] = []
        for m in 0...Int(UInt16.max) where m.nonzeroBitCount <= bits { out.append(key ^ UInt16(m)) }
        return out
    }

    /// Every row whose pHash is within `radius` of `h`, from the four chunk indexes in SQLite (two
    /// hashes within 4k + 3 agree on some chunk up to k bits, as in `HashIndex`); with an index in
    /// memory (`ball`), `balls` answers instead.
    @discardableResult
    func phashBall(_ h: UInt64, radius: Int) throws -> [Int64] {
        precondition(radius <= HashIndex.maxRadius)
        let bits = max(1, radius / 4)
        var found = Set<Int64>()
        for c in 0..<4 {
            // The chunk's keys bound as one JSON array: one statement a chunk, prepared once per
            // connection (written into the text, each photo's 697 keys made new statements).
            let keys = "[" + Self.flips(of: HashIndex.chunk(h, c), upTo: bits).map(String.init).joined(separator: ",") + "]"
            try db.forEach("SELECT id, phash FROM files WHERE \(Schema.phashChunk(c)) IN (SELECT value FROM json_each(?))", arguments: [keys]) { r in
                guard let p = r.int(1), (UInt64(bitPattern: p) ^ h).nonzeroBitCount <= radius else { return }
                found.insert(r.int(0)!)
            }
        }
        try load(found)
        return found.sorted()
    }

    /// Reads the rows of a ball `ball` found; returns their ids, ascending (as `phashBall`).
    private func took(_ found: [Int64]) throws -> [Int64] {
        try load(found)
        return found.sorted()
    }

    /// `ball`'s answers to `asks` (hash, radius, timeless), asked on all cores; empty without
    /// `ball` (the chunk indexes in SQLite are asked one at a time, by `phashBall`).
    private func balls(_ asks: [(hash: UInt64, radius: Int, timeless: Bool)]) -> [[Int64]] {
        guard let ball else { return [] }
        return Parallel.map(asks, threads: workers) { ball($0.hash, $0.radius, $0.timeless) }
    }

    /// Reads, for each candidate of `ids`, every row of the same bytes or pixels, and theirs in
    /// turn (`SimilarClustering.contents` joins candidates only, so only candidates lead on).
    func closeContents(_ ids: some Sequence<Int64>) throws {
        var queue = Array(ids)
        while let id = queue.popLast() {
            guard isCandidate(id), closedContents.insert(id).inserted, let item = items[id] else { continue }
            var mates: [Int64] = []
            if let c = item.contentHash {
                mates += try load("SELECT id FROM files WHERE content_hash = ?", [c.bytes])
            }
            if let p = item.pixelHash {
                mates += try load("SELECT id FROM files WHERE pixel_hash = ?", [p.bytes])
            }
            queue += mates.filter { !closedContents.contains($0) }
        }
    }

    /// The rows the pairs of the changed candidates need (`scorePairs`): their timeline, pHash
    /// neighbours (direct and mirrored), the photos taken at their second, the contents of all
    /// of those, and the weak clocks of the photos they are aligned with.
    func readNeighbourhood(of changed: some Sequence<Int64>) throws {
        var partners = Set<Int64>()
        let subjects = changed.sorted().filter(isCandidate)
        let radius = max(rules.similarRadius, rules.nearCopyRadius)
        // The balls in memory are asked for all at once, on all cores (~40 % of a part's
        // reading at a million rows), and read in order as `phashBall` reads them.
        let withHash = subjects.filter { items[$0]!.phash != nil }
        var asked = Dictionary(
            uniqueKeysWithValues: zip(
                withHash, balls(withHash.map { (items[$0]!.phash!, radius, items[$0]!.ownCaptureTime != nil) })))
        for id in subjects {
            let item = items[id]!
            partners.insert(id)
            let t = item.taken ?? Double(item.mtime) / 1e9
            // The photos around it are asked for their weak clocks only when the crowds are not known.
            if crowdsKnown { try readTimeline(around: t) } else { partners.formUnion(try timeline(around: t)) }
            if let h = item.phash {
                if let found = asked[id] {
                    partners.formUnion(try took(found))
                } else {
                    partners.formUnion(try phashBall(h, radius: radius))
                }
            }
            if let t = item.ownCaptureTime { partners.formUnion(try takenNear(t)) }
        }
        // Mirrored copies (`mirrorEdges`): the pHash of each changed photo's mirror image.
        var signatures: [Int64: [UInt8]] = [:]
        try Grouper.forEach(db, "SELECT id, signature FROM files WHERE id", in: subjects) { r in
            if let blob = r.blob(1) { signatures[r.int(0)!] = blob }
        }
        let mirrored = subjects.compactMap { id in signatures[id].flatMap { Thumbnail.mirroredHash(signature: $0) }.map { (id: id, hash: $0) } }
        asked = Dictionary(uniqueKeysWithValues: zip(mirrored.map(\.id), balls(mirrored.map { ($0.hash, rules.nearCopyRadius, false) })))
        for m in mirrored {
            if let found = asked[m.id] { _ = try took(found) } else { try phashBall(m.hash, radius: rules.nearCopyRadius) }
        }
        try load(dirty)
        let core = Array(items.keys)
        try closeContents(core)
        // The weak clocks of the photos a changed one may be aligned with (`burst`, `verified`).
        for id in partners.sorted() where !crowdsKnown {
            guard let item = items[id], isCandidate(id), item.ownCaptureTime == nil, item.takenFromModification else { continue }
            try clockNeighbours(of: item.mtime)
        }
    }

    /// The region's rows (`clusterRegion`): a walk from `seeds` over the stored pairs, the pairs
    /// scored now (`scored`) and the contents, through the candidates — the links
    /// `RegroupRun.readPairsAround` follows, or more (every stored pair, before the clustering
    /// drops those it does not keep) — then the timeline around each photo of a shared content.
    func readRegion(from seeds: Set<Int64>, scored: [Int64: [Int64]]) throws {
        var reached = seeds
        var frontier = seeds.sorted()
        // The contents' partition does not depend on the rows' order: the rows as they are
        // held, not sorted (a sorted copy of ~40 000 rows each step was a fifth of this walk).
        let candidates = { [self] in items.values.filter { self.rules.isSimilarCandidate($0) } }
        while !frontier.isEmpty {
            try load(frontier)
            try closeContents(frontier)
            let contents = SimilarClustering.contents(of: candidates()).0
            var mates: [Int64: [Int64]] = [:]
            for members in contents { for m in members { mates[m] = members } }
            var next: [Int64] = []
            func reach(_ id: Int64) { if reached.insert(id).inserted { next.append(id) } }
            let walking = frontier.filter(isCandidate)
            for column in ["a", "b"] {
                try Grouper.forEach(db, "SELECT a, b FROM similar_pairs WHERE \(column)", in: walking) { r in
                    reach(r.int(0)!)
                    reach(r.int(1)!)
                }
            }
            for id in walking {
                for other in scored[id, default: []] { reach(other) }
                for other in mates[id, default: []] { reach(other) }
            }
            frontier = next.sorted()
        }
        try load(reached)
        let contents = SimilarClustering.contents(of: candidates()).0
        for members in contents where members.contains(where: reached.contains) {
            for id in members { if let item = items[id] { try readTimeline(around: item.taken ?? Double(item.mtime) / 1e9) } }
        }
    }

    /// Writes `own_time` where the rows read say otherwise (`GroupRules.ownCaptureTime`), and
    /// clears the dirty rows this regroup saw.
    static func store(_ db: Database, rows: some Sequence<GroupItem>, dirtySeq: Int64) throws {
        for item in rows where item.ownCaptureTime != item.storedOwnTime {
            try db.run("UPDATE files SET own_time = ? WHERE id = ?", item.ownCaptureTime, item.id)
        }
        try db.run("DELETE FROM regroup_dirty WHERE seq <= ?", dirtySeq)
    }
}

extension ContentKey {
    /// The 16 bytes, as stored (`files.content_hash`, `files.pixel_hash`).
    var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64($0))) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64($0))) }
    }
}

/// Closed stretches of a line (seconds), kept sorted and apart: what is covered, and what of
/// a new stretch is not.
struct Spans {
    private var spans: [(lo: Double, hi: Double)] = []

    /// The parts of [lo, hi] no stretch covers, in order (their ends shared with the stretches
    /// around them: a row at an end is read twice, never missed).
    func gaps(_ lo: Double, _ hi: Double) -> [(Double, Double)] {
        var out: [(Double, Double)] = []
        var from = lo
        for s in spans[first(endingFrom: lo)...] {
            if s.lo > hi { break }
            if s.lo > from { out.append((from, s.lo)) }
            from = max(from, s.hi)
            if from >= hi { return out }
        }
        // What is left after the last stretch met; a stretch of one point (lo = hi) not covered
        // is a gap of one point.
        if from < hi || lo == hi { out.append((from, hi)) }
        return out
    }

    /// Covers [lo, hi], merged with the stretches it meets.
    mutating func insert(_ lo: Double, _ hi: Double) {
        let i = first(endingFrom: lo)
        var j = i, merged = (lo: lo, hi: hi)
        while j < spans.count && spans[j].lo <= hi {
            merged = (min(merged.lo, spans[j].lo), max(merged.hi, spans[j].hi))
            j += 1
        }
        spans.replaceSubrange(i..<j, with: [merged])
    }

    /// The first stretch that ends at or after `x` (a binary search).
    private func first(endingFrom x: Double) -> Int {
        var lo = 0, hi = spans.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if spans[mid].hi < x { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
