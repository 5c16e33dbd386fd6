import Foundation
import SnapSortSystem

/// One regroup (`Grouper.regroup`), phase by phase: each phase is a method that reads what the
/// earlier ones left and leaves what the later ones read. The phases, in order:
/// 1. `loadRows`: the live rows (`GroupItem`) — or, for a few changes, only the rows around them
///    (`sliceRows`, `RegroupSlice`);
/// 2. `findChanges`: the files whose fingerprint differs from the one the grouper stored;
/// 3. `judgeFiles`: the per-file groups of the changed files, their findings stored as judged;
/// 4. `makeClustering`: the Similar Shots index over the candidates;
/// 5. `readStoredPairs`: the pair scores and copy links kept from earlier regroups;
/// 6. `scorePairs`: the pairs of the changed files aligned and tested as copies;
/// 7. `clusterRegion`: the components of the change clustered into sets;
/// 8. `store`: everything else in one transaction (a stopped regroup stores no group).
final class RegroupRun {
    let grouper: Grouper
    let db: Database
    var rules: GroupRules { grouper.rules }
    var library: Library { grouper.library }
    /// Whether everything is regrouped (`regroup(changed: nil)`).
    let full: Bool
    private var lap = ContinuousClock.now
    private var lapCPU = CPUTime.process()

    // Left by `loadRows` (or `sliceRows`).
    var rows: ItemRows!
    var byID: ItemTable!
    /// The rows around the change, when only those are read (`sliceRows`).
    var slice: RegroupSlice?
    /// The highest `regroup_dirty.seq` read before the rows: the store clears up to it.
    var dirtySeq: Int64 = 0
    /// A part of `Grouper.regroupInParts` (its photos, or its videos): the videos are left to
    /// the videos' part, and the library is made sliceable by the whole run, not by this part.
    var part: PartKind?
    enum PartKind { case photos, videos }
    /// A part of `Grouper.regroupInParts` after the first: every stored pair with a changed
    /// file was scored by an earlier part of this run (the clearing removed the older ones), so
    /// it is kept, not scored again — a capped candidate list (16 content neighbours, 4 of a
    /// content) need not list the earlier photo back.
    var pairsOfThisRun = false
    /// The pairs earlier parts of this run aligned (a regroup in parts; `PartsLedger`).
    var ledger: PartsLedger?
    /// Which files were written at once with others (`WeakClock`), counted over the library
    /// (a part's rows hold no crowd whole); nil: counted over the rows read.
    var copiedAtOnce: ((Int64) -> Bool)?
    /// The names' memo of the whole run, when a regroup in parts gives one (else each
    /// clustering reads its own).
    var names: NameMemo?
    /// The rows in the library (`Int.max` when only a slice or a part was read: a read by id is
    /// then always the cheaper).
    var libraryRows: Int { slice == nil && part == nil ? rows.items.count : Int.max }
    // Left by `findChanges`.
    var changed = Set<Int64>()
    // Left by `judgeFiles`.
    var judged = Set<Int64>()
    var perFile: [(id: Int64, group: GroupID, score: Double)] = []
    /// The files whose findings this regroup made (stored as they were judged), and the text of
    /// those of them that read as pages.
    var newFindings = Set<Int64>()
    var newPageTexts: [Int64: String] = [:]
    /// The per-file Blurry and Oops of the files judged or re-clustered (only those that have
    /// them): the region's sets are judged against them.
    var blurOrOops: [Int64: [(GroupID, Double)]] = [:]
    // Left by `makeClustering`.
    var clustering: SimilarClustering!
    // Left by `readStoredPairs`.
    var rescore = false
    /// Whether every component is clustered again (pairs scored again, or the per-file rules
    /// changed).
    var recluster = false
    var edges: [FilePair: Double] = [:], copyLinks: [FilePair: Double] = [:]
    var scope: Set<Int64>? { rescore ? nil : changed }
    // Left by `scorePairs`.
    var aligned = 0
    /// The pairs an incremental regroup scored (it stores only those).
    var scoredKeys: [FilePair] = []
    // Left by `clusterRegion`.
    var region = Set<Int64>()
    var sets: [ComputedSet] = []
    var videoSets: Grouper.VideoSets?

    init(_ grouper: Grouper, full: Bool) {
        self.grouper = grouper
        db = grouper.library.db
        self.full = full
    }

    /// Tuning aid: how long each step took (wall, then the process's CPU: a loaded host's wall
    /// time says little), on the trace.
    func phase(_ name: String) {
        guard let trace = grouper.trace ?? grouper.phaseTrace else { return }
        let now = ContinuousClock.now, cpu = CPUTime.process()
        let mb = (Memory.residentBytes() ?? 0) >> 20
        trace(
            "phase\t\(name)\t\(String(format: "%.3f", (now - lap).seconds))\trss=\(mb)MB\theap=\(Memory.heapInUseBytes() >> 20)MB\tcpu=\(String(format: "%.3f", cpu - lapCPU))"
        )
        lap = now
        lapCPU = cpu
    }

    func checkpoint() throws { try grouper.checkpoint() }

    func needMetrics(_ ids: some Sequence<Int64>) throws { try rows.loadMetrics(ids, db: db) }

    var stats: Grouper.Stats {
        Grouper.Stats(
            changed: changed.count, aligned: aligned, region: region.count, sets: sets.count + (videoSets?.sets.count ?? 0),
            rowsRead: slice?.rowsRead ?? rows.items.count)
    }

    /// 1. The rows. A full regroup judges every file: every row's metrics at once. An
    /// incremental one decodes only those of the files it judges, compares or re-clusters
    /// (`needMetrics`).
    func loadRows() throws {
        dirtySeq = try RegroupSlice.dirtySeq(db)
        rows = ItemRows(try GroupItem.loadAll(db, metrics: full), metricsLoaded: full)
        phase("load rows")
        try checkpoint()
        byID = ItemTable(rows)
    }

    /// 2. What changed. Compared row by row as the stored fingerprints stream by (a dictionary
    /// of 100 000 of them held 26 MB): a file whose fingerprint differs, that was never grouped,
    /// or that was grouped and is gone has changed; `extra` files too (nil: every file).
    func findChanges(_ extra: Set<Int64>?) throws {
        if let extra {
            changed.formUnion(extra)
            var grouped = [Bool](repeating: false, count: rows.items.count)
            try db.forEach("SELECT file_id, fingerprint FROM grouped_files") { r in
                let id = r.int(0)!
                guard let i = rows.slot[id] else { changed.insert(id); return }
                grouped[i] = true
                if r.string(1) ?? "" != rows.items[i].fingerprint { changed.insert(id) }
            }
            for (i, was) in grouped.enumerated() where !was { changed.insert(rows.items[i].id) }
        } else {
            changed = Set(rows.items.map(\.id))
            try db.forEach("SELECT file_id FROM grouped_files") { changed.insert($0.int(0)!) }
        }
        phase("changes")
        try checkpoint()
    }

    /// 1–2 for a few changes: what changed from `regroup_dirty` (their fingerprints compared),
    /// and the rows around them (`RegroupSlice.readNeighbourhood`); false (nothing read) when
    /// this regroup must read every row: the library never sliced (`RegroupSlice.stateKey`),
    /// other rules, too many changes, or a change that is no live photo (a video's copies and a
    /// removed file's sets are found over every row).
    func sliceRows(_ extra: Set<Int64>) throws -> Bool {
        guard try library.agentState(RegroupSlice.stateKey) == "1", try !grouper.rulesChanged(),
            try library.agentState(Grouper.videoRulesKey) == rules.videoCopies.key
        else { return false }
        var dirty: [Int64] = [], seq: Int64 = 0
        try db.forEach("SELECT seq, file_id FROM regroup_dirty ORDER BY seq") { r in
            seq = r.int(0)!
            dirty.append(r.int(1)!)
        }
        guard dirty.count + extra.count <= RegroupSlice.maximumChanges * 4 else { return false }
        let slice = RegroupSlice(db: db, rules: rules, dirty: dirty, dirtySeq: seq)
        let asked = Set(dirty).union(extra)
        try slice.load(asked)
        var found = extra
        var seen = Set<Int64>()
        try Grouper.forEach(db, "SELECT file_id, fingerprint FROM grouped_files WHERE file_id", in: asked.sorted()) { r in
            let id = r.int(0)!
            seen.insert(id)
            if slice.item(id)?.fingerprint != r.string(1) { found.insert(id) }
        }
        for id in asked where !seen.contains(id) && slice.item(id) != nil { found.insert(id) }
        guard found.count <= RegroupSlice.maximumChanges, found.allSatisfy({ slice.item($0).map { $0.kind != .video } ?? false }) else {
            return false
        }
        changed = found
        dirtySeq = seq
        try slice.readNeighbourhood(of: changed)
        try use(slice, "sliced rows (\(slice.rowsRead))")
        return true
    }

    /// The rows `slice` read are this regroup's.
    private func use(_ slice: RegroupSlice, _ phaseName: String) throws {
        self.slice = slice
        rows = ItemRows(slice.rows, metricsLoaded: false, wholeLibrary: false)
        byID = ItemTable(rows)
        phase(phaseName)
        try checkpoint()
    }

    /// 1–2 for a part of `Grouper.regroupInParts`: its photos are what changed (as if just
    /// added; the later parts' files are there, not grouped yet), with the rows around them.
    /// Takes photos of `ids` in order, a batch at a time, until their neighbourhoods hold
    /// `rowBudget` rows (a crowd of pHashes or of one second may be thousands): returns how
    /// many it took, at least one batch.
    func readPart(_ ids: ArraySlice<Int64>, slice: RegroupSlice, rowBudget: Int) throws -> Int {
        part = .photos
        var taken = 0
        while taken < ids.count && (taken == 0 || slice.rowsRead < rowBudget) {
            let batch = ids.dropFirst(taken).prefix(256)
            try slice.load(batch)
            try slice.readNeighbourhood(of: Set(batch))
            changed.formUnion(batch)
            taken += batch.count
            try checkpoint()
        }
        try use(slice, "part's rows (\(taken) photos, \(slice.rowsRead) rows)")
        return taken
    }

    /// 1–2 for the videos' part of `Grouper.regroupInParts`: every live video (their copies are
    /// found among them all), `changed` those that changed or left.
    func readVideos(_ ids: [Int64], changed: Set<Int64>) throws {
        part = .videos
        rows = ItemRows(try GroupItem.load(db, ids: ids), metricsLoaded: false, wholeLibrary: false)
        byID = ItemTable(rows)
        self.changed = changed
        phase("videos (\(ids.count))")
        try checkpoint()
    }

    private func keepBlurOrOops(_ id: Int64, _ groups: [(GroupID, Double)]) {
        let kept = groups.filter { $0.0 == .blurry || $0.0 == .oops }
        if !kept.isEmpty { blurOrOops[id] = kept }
    }

    /// 3. Per-file groups, judged 2 000 files at a time with their stored findings (a full
    /// regroup of 100 000 files held every file's findings and groups twice, ~50 MB). Every file
    /// again when the per-file rules changed (an upgrade); else the changed ones. The findings
    /// a batch made are stored after it, in a transaction of their own: they are a cache of the
    /// file's analysis (`file_findings.analyzed_at`), not a group, and holding those of 100 000
    /// files until the last step was a large part of a first scan's peak.
    func judgeFiles() throws {
        judged = try library.agentState(Grouper.fileRulesKey) == rules.fileKey ? changed : changed.union(rows.items.map(\.id))
        try needMetrics(judged)
        var made: [(Int64, Findings)] = []
        try Grouper.withStoredFindings(db, of: judged.sorted(), among: libraryRows) { id, stored in
            try checkpoint()
            guard let item = byID[id] else { return }
            var f = stored ?? Findings()
            if f.analyzedAt != item.analyzedAt { f = Findings(analyzedAt: item.analyzedAt) }
            let before = f
            grouper.inspect(item, &f)
            if f != before || stored == nil { made.append((id, f)) }
            let groups = rules.categories(of: item, findings: f)
            for (g, score) in groups { perFile.append((id, g, score)) }
            keepBlurOrOops(id, groups)
        } afterBatch: {
            try storeFindings(made)
            made = []
        }
        phase("per-file groups")
    }

    /// Stores findings made now (`judgeFiles`), remembering which files have new ones and the
    /// text of those that read as pages (`pageWords`).
    private func storeFindings(_ made: [(Int64, Findings)]) throws {
        guard !made.isEmpty else { return }
        try db.transaction {
            for (id, f) in made {
                try db.run(
                    "INSERT OR REPLACE INTO file_findings(file_id, analyzed_at, ocr_words, ocr_text, qr_payload) VALUES(?,?,?,?,?)",
                    id, f.analyzedAt, f.ocrWords, f.ocrText, f.qrPayload)
            }
        }
        for (id, f) in made {
            newFindings.insert(id)
            if (f.ocrWords ?? 0) >= rules.minDocumentWords { newPageTexts[id] = f.ocrText ?? "" }
        }
    }

    /// 4. Similar Shots' index over the candidates, with what it reads on demand (`traced`
    /// false: made again over a slice's region, within the phase that asks for it).
    func makeClustering(traced: Bool = true) throws {
        let db = db
        let photos = ItemTable(rows) { self.rules.isSimilarCandidate($0) }
        var clustering = SimilarClustering(
            photos: photos, rules: rules, verdicts: try library.notSimilarPairs(),
            keeperChoices: try library.keeperChoices(), trace: grouper.trace, copiedAtOnce: copiedAtOnce
        ) { ids in
            try GroupItem.thumbnails(db, ids: ids)
        }
        clustering.checkpoint = grouper.checkpoint
        if let names { clustering.memo = names }
        clustering.identity = try Grouper.identities(db, of: clustering.sharedContentPhotos)
        if let matcher = grouper.frameMatcher { clustering.matchFrames = { matcher.match($0, $1) } }
        clustering.loadSignatures = { ids in
            var out: [Int64: [UInt8]] = [:]
            try Grouper.forEach(db, "SELECT id, signature FROM files WHERE id", in: ids) { r in
                if let blob = r.blob(1) { out[r.int(0)!] = blob }
            }
            return out
        }
        self.clustering = clustering
        if traced { phase("clustering index") }
        try checkpoint()
    }

    /// 5. Pair scores and copy links: kept from earlier regroups unless the rules that made them
    /// changed; the pairs of changed files are scored again. The pairs of the same bytes are
    /// never held: the clustering links them by their hashes.
    ///
    /// When only the components around the change are clustered again (`recluster` false),
    /// only their pairs are read, after the new ones are scored (`readPairsAround`): every
    /// stored pair was a dictionary of 175 000 entries at 200 000 rows for a photo added.
    func readStoredPairs() throws {
        let storedKey = try library.agentState(Grouper.pairRulesKey)
        rescore = full || storedKey != rules.pairKey
        recluster = rescore || judged.count > changed.count
        if !rescore && recluster {
            try db.forEach("SELECT a, b, similar, copy FROM similar_pairs") { r in keepStoredPair(r) }
        }
        phase("stored pairs")
    }

    /// Keeps a stored pair's score and copy link, unless it has a changed file (scored again)
    /// or joins two files of one content (the clustering links them by their hashes).
    private func keepStoredPair(_ r: Row) {
        let key = FilePair(r.int(0)!, r.int(1)!)
        guard pairsOfThisRun || (!changed.contains(key.a) && !changed.contains(key.b)), !clustering.sameContent(key) else { return }
        if let s = r.double(2) { edges[key] = s }
        if let c = r.double(3) { copyLinks[key] = c }
    }

    /// Reads the stored pairs of the components that hold any of `seeds`: a walk from the seeds
    /// over the stored pairs (`similar_pairs`' two indexes), the pairs scored now and the files
    /// of one content, through the similar candidates only — the links `components(around:)`
    /// follows, so it finds the same components as over every stored pair.
    private func readPairsAround(_ seeds: Set<Int64>) throws {
        var partners: [Int64: [Int64]] = [:]
        for key in edges.keys { partners[key.a, default: []].append(key.b); partners[key.b, default: []].append(key.a) }
        for key in copyLinks.keys { partners[key.a, default: []].append(key.b); partners[key.b, default: []].append(key.a) }
        var reached = seeds
        var frontier = seeds.sorted()
        while !frontier.isEmpty {
            var next: [Int64] = []
            func reach(_ id: Int64) {
                if clustering.isCandidate(id), reached.insert(id).inserted { next.append(id) }
            }
            for column in ["a", "b"] {
                try Grouper.forEach(db, "SELECT a, b, similar, copy FROM similar_pairs WHERE \(column)", in: frontier) { r in
                    keepStoredPair(r)
                    let (a, b) = (r.int(0)!, r.int(1)!)
                    guard pairsOfThisRun || (!changed.contains(a) && !changed.contains(b)), !clustering.sameContent(FilePair(a, b)) else {
                        return
                    }
                    reach(reached.contains(a) ? b : a)
                }
            }
            for id in frontier where clustering.isCandidate(id) {
                for other in partners[id, default: []] { reach(other) }
                for other in clustering.sameContentMates(of: id) { reach(other) }
            }
            frontier = next.sorted()
        }
    }

    /// 6. The pairs with a changed file (every pair, when all are scored again): the stored ones
    /// were read without them. They are stored from `edges` and `copyLinks` themselves (a
    /// dictionary of their own held every pair a second time); an incremental regroup lists the
    /// few it scores in `scoredKeys` (looking for them among every stored pair when storing
    /// them took seconds in a duplicate-heavy library). The pairs are scored a batch at a time as
    /// they are listed and kept as they are judged (`alignWindowPairs`, `copyScores`): a list of
    /// them all, millions of pairs in a library without capture times or a duplicate-heavy one,
    /// was most of a first scan's peak.
    func scorePairs() throws {
        let scope = scope, threshold = rules.similarThreshold
        let ledger = ledger
        aligned = try clustering.alignWindowPairs(of: scope, sameContent: false, passing: ledger.map { l in l.alignedBefore }) { key, score in
            ledger?.aligned(key)
            guard score >= threshold else { return }
            edges[key] = score
            if scope != nil { scoredKeys.append(key) }
        }
        for (key, score) in try clustering.mirrorEdges(of: scope) where score > edges[key] ?? 0 {
            edges[key] = score
            if scope != nil { scoredKeys.append(key) }
        }
        try clustering.copyScores(
            { take in try clustering.forEachDuplicatePair(of: scope, sameContent: false, take) },
            prepare: { part in try needMetrics(part.lazy.flatMap { [$0.a, $0.b] }) }
        ) { key, score in
            guard let score else { return }
            copyLinks[key] = score
            if scope != nil { scoredKeys.append(key) }
        }
        phase(ledger.map { "pairs scored (\($0.passed) aligned by earlier parts, \($0.recorded) for later ones)" } ?? "pairs scored")
    }

    /// 7. The components that hold a change (every component when pairs were scored again or
    /// the per-file rules changed — an upgrade: set members are judged against their sets, so
    /// every set is judged again), clustered into sets; and the videos' duplicate sets.
    func clusterRegion() throws {
        let seeds = recluster ? nil : changed.union(try previousSetMates())
        if let slice, let seeds {
            // The region's rows, then the clustering over them (its contents and places are the
            // library's where the region looks).
            var scored: [Int64: [Int64]] = [:]
            for key in Array(edges.keys) + Array(copyLinks.keys) {
                scored[key.a, default: []].append(key.b)
                scored[key.b, default: []].append(key.a)
            }
            try slice.readRegion(from: seeds, scored: scored)
            rows = ItemRows(slice.rows, metricsLoaded: false, wholeLibrary: false)
            byID = ItemTable(rows)
            try makeClustering(traced: false)
            phase("region's rows (\(slice.rowsRead))")
        }
        if let seeds, !rescore { try readPairsAround(seeds) }
        clustering.copyLinks = copyLinks
        clustering.edges = edges
        let components = clustering.components(around: seeds)
        region = Set(components.joined())
        try needMetrics(region)
        try Grouper.withStoredFindings(db, of: region.subtracting(judged).sorted(), among: libraryRows) { id, stored in
            guard let item = byID[id] else { return }
            keepBlurOrOops(id, rules.categories(of: item, findings: stored ?? Findings()))
        }
        clustering.pageWords = try pageWords()
        for component in components where component.count >= 2 {
            try checkpoint()
            sets += try clustering.cluster(component)
        }
        try checkpoint()
        if part != .photos { videoSets = try grouper.videoSets(items: byID, changed: changed, db: db) }
        phase("clustered")
    }

    /// Members of the stored sets that hold a changed file (a change may split their set).
    private func previousSetMates() throws -> Set<Int64> {
        var out = Set<Int64>()
        guard !changed.isEmpty else { return out }
        try Grouper.fillIDs(db, changed)
        try db.forEach(
            "SELECT file_id FROM similar_sets WHERE set_key IN (SELECT set_key FROM similar_sets WHERE file_id IN \(Grouper.ids))"
        ) { out.insert($0.int(0)!) }
        return out
    }

    /// The words of the region's pages that read: the stored ones of the files whose findings
    /// this regroup did not make, and those it made.
    private func pageWords() throws -> (Int64) -> Set<String>? {
        var pageWords: [Int64: Set<String>] = [:]
        try Grouper.forEach(db, "SELECT file_id, ocr_text, ocr_words, analyzed_at FROM file_findings WHERE file_id", in: region.sorted()) { r in
            let id = r.int(0)!
            guard !newFindings.contains(id), (r.int(2) ?? 0) >= rules.minDocumentWords, r.string(3) == byID[id]?.analyzedAt,
                let text = r.string(1)
            else { return }
            pageWords[id] = GroupRules.pageWords(text)
        }
        for (id, text) in newPageTexts where region.contains(id) { pageWords[id] = GroupRules.pageWords(text) }
        return { pageWords[$0] }
    }
}

extension RegroupRun {
    /// 8. Everything the regroup found, in one transaction: the pairs, the per-file groups, the
    /// region's sets with their Blurry and Oops, Heavy, and the fingerprints of what was seen.
    func store() throws {
        try library.withGroupCountsHeld {
            try storePairs()
            try storePerFileGroups()
            try clearRegionSets()
            try storeRegionBlurAndOops()
            try storeSets()
            if let videoSets { try grouper.storeVideoSets(videoSets, db: db) }
            phase("stored: sets")
            // A regroup in parts ranks Heavy once, at its end (each part's ranking read the whole
            // library's sizes: 0.17 s a part at a million rows).
            if part == nil { try grouper.rankHeavy(db, changed: full ? nil : changed) }
            // What a sliced regroup reads next time: `own_time` true for every row it read (every
            // row, when not sliced: the library is then sliceable), the dirty rows seen cleared.
            try RegroupSlice.store(db, rows: rows.items, dirtySeq: dirtySeq)
            if slice == nil && part == nil { try library.setAgentState(RegroupSlice.stateKey, "1", at: grouper.clock.now()) }
            // Remember what was seen.
            for id in changed {
                if let item = byID[id] {
                    try db.run("INSERT OR REPLACE INTO grouped_files(file_id, fingerprint) VALUES(?,?)", id, item.fingerprint)
                } else {
                    try db.run("DELETE FROM grouped_files WHERE file_id=?", id)
                    try db.run("DELETE FROM group_members WHERE file_id=?", id)
                }
            }
        }
        phase("stored")
    }

    /// The pairs scored now (all of them when every pair was scored again), and the links of
    /// the same bytes in the region.
    private func storePairs() throws {
        let scope = scope
        if rescore {
            try db.run("DELETE FROM similar_pairs")
        } else {
            for id in changed where !pairsOfThisRun { try db.run("DELETE FROM similar_pairs WHERE a=? OR b=?", id, id) }
            // The region's links of the same bytes (copy 2) are recorded again below.
            try Grouper.fillIDs(db, region)
            try db.run("DELETE FROM similar_pairs WHERE copy = 2 AND (a IN \(Grouper.ids) OR b IN \(Grouper.ids))")
        }
        var newPairs: [FilePair] = []
        if scope == nil {
            for key in edges.keys { newPairs.append(key) }
            for key in copyLinks.keys where edges[key] == nil { newPairs.append(key) }
        } else {
            newPairs = scoredKeys
        }
        // The files of one content are recorded by a link each to the content's first photo
        // (the clustering joins them by their hashes; the table says how every set was joined).
        newPairs += clustering.sameContentChains(touching: scope == nil ? nil : region)
        newPairs.sort { ($0.a, $0.b) < ($1.a, $1.b) }
        for (i, key) in newPairs.enumerated() where i == 0 || newPairs[i - 1] != key {
            let (similar, copy) = clustering.sameContent(key) ? (clustering.sameContentEdge(key.a, key.b), 2) : (edges[key], copyLinks[key])
            try db.run("INSERT OR REPLACE INTO similar_pairs(a, b, similar, copy) VALUES(?,?,?,?)", key.a, key.b, similar, copy)
        }
        try library.setAgentState(Grouper.pairRulesKey, rules.pairKey, at: grouper.clock.now())
    }

    /// The judged files' per-file groups in place of their old ones.
    private func storePerFileGroups() throws {
        let perFileGroups = GroupID.sql(GroupID.allCases.filter { ![.similar, .duplicate, .heavy, .people, .pets, .food, .scenery].contains($0) })
        try Grouper.fillIDs(db, judged)
        try db.run("DELETE FROM group_members WHERE file_id IN \(Grouper.ids) AND group_id IN \(perFileGroups)")
        phase("stored: pairs, findings, old per-file groups")
        try library.setAgentState(Grouper.fileRulesKey, rules.fileKey, at: grouper.clock.now())
        for p in perFile {
            try db.run("INSERT OR REPLACE INTO group_members(group_id, file_id, score) VALUES(?,?,?)", p.group.rawValue, p.id, p.score)
        }
        phase("stored: per-file groups")
    }

    /// Similar sets: the region's are replaced (and anything that left it: gone or no longer a
    /// candidate).
    private func clearRegionSets() throws {
        try Grouper.fillIDs(db, region.union(changed))
        try db.run("DELETE FROM similar_sets WHERE file_id IN \(Grouper.ids)")
        try db.run("DELETE FROM group_members WHERE file_id IN \(Grouper.ids) AND group_id IN \(GroupID.sql([.similar, .duplicate]))")
        // Set-relative blur (score > 1; the per-file rule scores ≤ 1 and stays).
        try db.run("DELETE FROM group_members WHERE file_id IN \(Grouper.ids) AND group_id=\(GroupID.blurry.sql) AND score > 1")
        phase("stored: the region's sets cleared")
    }

    /// Blurry and Oops in the region: members of a set are judged against their set (`storeSets`:
    /// blur only so, `relativelyBlurry`; Oops by its bright reading, `oopsInSet`); the per-file
    /// judgement (blur scores ≤ 1) stands for the others — also for files that just left a set
    /// without changing themselves.
    private func storeRegionBlurAndOops() throws {
        let inSet = Set(sets.flatMap { $0.members.map(\.id) })
        try Grouper.fillIDs(db, region)
        try db.run("DELETE FROM group_members WHERE file_id IN \(Grouper.ids) AND group_id=\(GroupID.blurry.sql) AND score <= 1")
        try db.run("DELETE FROM group_members WHERE file_id IN \(Grouper.ids) AND group_id=\(GroupID.oops.sql)")
        for id in region {
            guard !inSet.contains(id), byID[id] != nil else { continue }
            for (g, score) in blurOrOops[id] ?? [] where g == .blurry || g == .oops {
                try db.run("INSERT OR REPLACE INTO group_members(group_id, file_id, score) VALUES(?,?,?)", g.rawValue, id, score)
            }
        }
        phase("stored: the region's blur and oops")
    }

    /// The region's sets, each member's Blurry and Oops judged against its set.
    private func storeSets() throws {
        for set in sets {
            let key = set.members.map(\.id).min()!
            let items = set.members.compactMap { byID[$0.id] }
            for (id, stops) in rules.relativelyBlurry(items) {
                try db.run("INSERT OR IGNORE INTO group_members(group_id, file_id, score) VALUES(\(GroupID.blurry.sql),?,?)", id, 1 + stops)
            }
            for item in items {
                guard let oops = (blurOrOops[item.id] ?? []).first(where: { $0.0 == .oops }),
                    let score = rules.oopsInSet(item, score: oops.1, mates: items.filter { $0.id != item.id })
                else { continue }
                try db.run("INSERT OR REPLACE INTO group_members(group_id, file_id, score) VALUES(\(GroupID.oops.sql),?,?)", item.id, score)
            }
            let hasCopies = set.members.contains { $0.duplicateOf != nil }
            for m in set.members {
                try db.run(
                    "INSERT INTO similar_sets(file_id, set_key, keeper, duplicate_of, score) VALUES(?,?,?,?,?)",
                    m.id, key, m.isKeeper ? 1 : 0, m.duplicateOf, m.score)
                try db.run("INSERT OR REPLACE INTO group_members(group_id, file_id, score) VALUES(\(GroupID.similar.sql),?,?)", m.id, m.score)
                // A duplicate set is one picture to the user: its members carry both groups.
                if hasCopies && (m.duplicateOf != nil || set.members.contains { $0.duplicateOf == m.id }) {
                    try db.run("INSERT OR REPLACE INTO group_members(group_id, file_id, score) VALUES(\(GroupID.duplicate.sql),?,?)", m.id, m.score)
                }
            }
        }
    }
}
