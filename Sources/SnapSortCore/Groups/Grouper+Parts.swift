import SnapSortSystem

/// A regroup of a library too large to hold (issue 40 item 3: a full regroup of 1 000 000 rows
/// held every row, its metrics and the clustering's tables — ~1.3 KB a row, 1.3 GB): the
/// changed files are regrouped **a part at a time**, each part as an incremental regroup of its
/// photos through the sliced regroup (`RegroupSlice`: the rows around a change, read by id),
/// with the whole library in view — the files of later parts are there as files not grouped
/// yet, so every photo's candidates, places and crowds are those a full regroup sees — and
/// incremental regroups give what full regroups give (`incrementalRegroupsOfRealPhotosEqualFullRegroups`,
/// `GrouperPartsTests`). What it holds at once is one part and the rows around it, plus a
/// compact index of every pHash (the content search's neighbours, which the chunk indexes would
/// answer with 2 788 probes a photo). A pair across two parts is scored in the earlier one and
/// kept by the later one (`RegroupRun.pairsOfThisRun`): the candidate lists are capped, so the
/// later photo may not list the earlier one, and a whole regroup keeps the pairs either lists.
///
/// 1. One pass over the live rows (`GroupItem.forEachLive`): which changed (their fingerprint,
///    or every row when the rules changed), which left, `own_time` made true, the pHash index.
/// 2. One transaction clears what the changed files and their set mates had (pairs, sets,
///    grouped fingerprints) and what the files gone had, and sets the rules keys: from there
///    on, each part is an incremental regroup of a library whose other changed files have no
///    pairs or sets yet.
/// 3. The photos in parts of `partSize`, in their order on the timeline (capture time, else
///    mtime): a moment's photos and their copies in other folders, which keep their capture
///    time, fall in one part, so a part reads fewer rows around it and fewer of its pairs span
///    two parts (in id order — the walk's, a folder at a time — a 100 000-photo mix took 30
///    parts, by time 26, and 13 % less CPU, every pair and set the same); each
///    part is stored in its own transaction.
/// 4. The videos, all of them in one part (their copies are compared among every video).
/// 5. The library is marked sliceable and the dirty rows read at the start cleared.
/// A stop between parts keeps what the parts stored; the files not yet regrouped have no
/// grouped fingerprint, so the next regroup finds them changed and goes on with them (and does
/// not slice until a run has ended).
extension Grouper {
    /// Regroups what changed (`extra` besides; nil: everything) in parts of `partSize` photos.
    func regroupInParts(changed extra: Set<Int64>?, partSize: Int) throws -> Stats {
        let rulesChanged = try extra == nil || self.rulesChanged()
        let dirtySeq = try RegroupSlice.dirtySeq(library.db)
        // The files marked dirty by a decision while an earlier run was unfinished
        // (`Library.regroupMarked`) are regrouped too, though their fingerprints were grouped
        // (when everything is, they are anyway).
        let dirty = IDBits()
        if !rulesChanged {
            try library.db.forEach("SELECT file_id FROM regroup_dirty WHERE seq <= ?", arguments: [dirtySeq]) { dirty.insert($0.int(0)!) }
        }
        let pass = try PartsPass.read(library.db, rules: rules, everything: rulesChanged, extra: extra ?? [], dirty: dirty)
        try checkpoint()
        try clearForParts(pass)
        var stats = Stats()
        var photos = pass.changedPhotos[...]
        let names = NameMemo()
        let ledger = PartsLedger(pass.changedPhotos, capacity: ledgerCapacity)
        while !photos.isEmpty {
            let run = RegroupRun(self, full: false)
            run.pairsOfThisRun = true
            run.names = names
            run.ledger = ledger
            let slice = RegroupSlice(db: library.db, rules: rules, dirty: [], dirtySeq: 0)
            slice.crowdsKnown = true
            run.copiedAtOnce = { pass.copiedAtOnce.contains($0) }
            let (phashes, phashIDs, timeless) = (pass.phashes, pass.phashIDs, pass.timeless)
            slice.ball = { h, radius, onlyTimeless in
                phashes.neighbours(of: h, within: radius).compactMap {
                    onlyTimeless && !timeless.contains(Int64($0)) ? nil : phashIDs[$0]
                }
            }
            let taken = try run.readPart(photos.prefix(partSize), slice: slice, rowBudget: partRows)
            ledger.begin(run.changed)
            photos = photos.dropFirst(taken)
            try run.finish(into: &stats)
            ledger.end(run.changed)
            // What the part's rows and the alignment's threads held goes back (the heap of each
            // part is alike, but the threads' arenas kept their peaks: RSS crept 194 → 315 MB
            // over three parts of a million rows with the heap at ~170 MB).
            Memory.releaseFreeMemory()
        }
        if try !pass.changedVideos.isEmpty || library.agentState(Self.videoRulesKey) != rules.videoCopies.key {
            let run = RegroupRun(self, full: false)
            try run.readVideos(pass.videos, changed: pass.changedVideos)
            try run.finish(into: &stats)
        }
        // Heavy over the whole library, once (the parts left it: its threshold is the library's,
        // and a run stopped before here leaves the next run's end to do it).
        try library.withGroupCountsHeld { try rankHeavy(library.db) }
        try library.db.transaction {
            try library.db.run("DELETE FROM regroup_dirty WHERE seq <= ?", dirtySeq)
            try library.setAgentState(RegroupSlice.stateKey, "1", at: clock.now())
        }
        return stats
    }

    /// Step 2: the changed files' and their set mates' pairs, sets and fingerprints cleared
    /// (the mates are regrouped with them: their set may split), the gone files' groups, and
    /// the rules keys set — in one transaction.
    private func clearForParts(_ pass: PartsPass) throws {
        let db = library.db
        let pending = IDBits()
        try library.withGroupCountsHeld {
            try Self.fillIDs(db, Set(pass.changedPhotos).union(pass.changedVideos).union(pass.gone))
            var mates: [Int64] = []
            try db.forEach(
                "SELECT file_id FROM similar_sets WHERE set_key IN (SELECT set_key FROM similar_sets WHERE file_id IN \(Self.ids))"
            ) { mates.append($0.int(0)!) }
            for id in mates { try db.run("INSERT OR IGNORE INTO temp.regroup_ids(id) VALUES(?)", id) }
            try db.run("DELETE FROM similar_pairs WHERE a IN \(Self.ids) OR b IN \(Self.ids)")
            try db.run("DELETE FROM similar_sets WHERE file_id IN \(Self.ids)")
            try db.run("DELETE FROM group_members WHERE file_id IN \(Self.ids) AND group_id IN \(GroupID.sql([.similar, .duplicate]))")
            try db.run("DELETE FROM group_members WHERE file_id IN \(Self.ids) AND group_id=\(GroupID.blurry.sql) AND score > 1")
            try db.run("DELETE FROM grouped_files WHERE file_id IN \(Self.ids)")
            for id in pass.gone { try db.run("DELETE FROM group_members WHERE file_id = ?", id) }
            for (id, t) in pass.ownTimes { try db.run("UPDATE files SET own_time = ? WHERE id = ?", t, id) }
            pass.ownTimesWritten()
            try library.setAgentState(RegroupSlice.stateKey, "0", at: clock.now())
            // A stop before the end leaves this mark: the next `regroupIfPending` goes on (the
            // rules keys below no longer say an upgrade is pending, and the groups are cleared).
            try library.setAgentState(LibraryScanner.regroupPendingKey, "1", at: clock.now())
            try library.setAgentState(Self.pairRulesKey, rules.pairKey, at: clock.now())
            try library.setAgentState(Self.fileRulesKey, rules.fileKey, at: clock.now())
            try db.forEach("SELECT id FROM temp.regroup_ids") { pending.insert($0.int(0)!) }
        }
        // The mates that are live photos join the photos to regroup (a video's mates are among
        // the videos, all read by their part).
        pass.addMates(pending)
    }
}

extension RegroupRun {
    /// Steps 3–8 of a part, its figures added to `stats`.
    func finish(into stats: inout Grouper.Stats) throws {
        try judgeFiles()
        try makeClustering()
        try readStoredPairs()
        try scorePairs()
        try clusterRegion()
        try store()
        let mine = self.stats
        stats.changed += mine.changed
        stats.aligned += mine.aligned
        stats.region += mine.region
        stats.sets += mine.sets
        stats.rowsRead = max(stats.rowsRead, mine.rowsRead)
        try checkpoint()
    }
}

/// The pairs a regroup in parts aligned in one part whose other photo's part is still to come,
/// so that the later part does not align them again (a pair is listed from both its photos, and
/// a library's copies sit in other folders — other parts: at a million rows of the `mix` tree
/// nearly every pair spans two parts, and half the pairs step aligned a pair a second time).
/// The later part lists the pair again and passes it over (`alignedBefore`): its earlier score
/// is stored when it met the threshold (and kept, `RegroupRun.pairsOfThisRun`), and an
/// alignment is a function of the two photos, so the result is the one aligning it again gave.
/// A pair not on the ledger is aligned as before — the ledger holds at most `capacity` pairs
/// (8 bytes each and the set's slack: 4 million, ~50 MB at its fullest; when full, the pairs
/// whose later photo did not list them back are swept out, and if that frees too little it
/// records no more), and ids over 32 bits are never on it.
final class PartsLedger {
    private let pending = IDBits(), done = IDBits()
    private var part = Set<Int64>()
    private var ahead = Set<UInt64>()
    /// Whether the ledger stopped recording (full of pairs still to come).
    private var closed = false
    let capacity: Int
    /// Pairs aligned and passed over (a tuning aid, the trace's).
    private(set) var recorded = 0, passed = 0

    init(_ photos: [Int64], capacity: Int = 4_000_000) {
        for id in photos { pending.insert(id) }
        self.capacity = capacity
    }

    /// A part of `photos` begins.
    func begin(_ photos: Set<Int64>) { part = photos }

    /// The part stored its pairs: its photos are done (`photos`: the part's changed photos).
    func end(_ photos: some Sequence<Int64>) {
        for id in photos {
            pending.remove(id)
            done.insert(id)
        }
        part = []
    }

    private static func packed(_ key: FilePair) -> UInt64? {
        guard key.a >= 0, key.b < 1 << 32 else { return nil }
        return UInt64(key.a) << 32 | UInt64(key.b)
    }

    /// `key` was aligned in this part: on the ledger when its other photo's part is to come.
    func aligned(_ key: FilePair) {
        let later = part.contains(key.a) ? key.b : key.a
        guard !closed, !part.contains(later), pending.contains(later), let k = Self.packed(key) else { return }
        if ahead.count >= capacity {
            sweep()
            // Still mostly pairs to come: no more are recorded (a sweep a pair would be
            // quadratic); they are aligned again, as without a ledger.
            if ahead.count > capacity * 3 / 4 {
                closed = true
                return
            }
        }
        if ahead.insert(k).inserted { recorded += 1 }
    }

    /// Drops the pairs both of whose photos' parts are done (the later photo's capped candidate
    /// list did not list them back: they will not be asked for).
    private func sweep() {
        ahead = ahead.filter { k in pending.contains(Int64(k >> 32)) || pending.contains(Int64(k & 0xFFFF_FFFF)) }
    }

    /// Whether an earlier part aligned `key` (then it leaves the ledger: a pair is listed by
    /// each of its photos' parts once).
    func alignedBefore(_ key: FilePair) -> Bool {
        guard done.contains(key.a) || done.contains(key.b), let k = Self.packed(key), ahead.remove(k) != nil else { return false }
        passed += 1
        return true
    }
}

/// What `Grouper.regroupInParts` learns in its one pass over the live rows.
final class PartsPass {
    /// The live photos (and other files that are no video) to regroup: in id order, then
    /// (`addMates`) in their order on the timeline.
    private(set) var changedPhotos: [Int64] = []
    /// Every live video, and those of them to regroup.
    private(set) var videos: [Int64] = []
    private(set) var changedVideos = Set<Int64>()
    /// Files grouped before and gone now.
    private(set) var gone: [Int64] = []
    /// `own_time` where the stored one is not the row's own capture time.
    private(set) var ownTimes: [(Int64, Double?)] = []
    /// Every live row's pHash, the id of each entry, and whether it has no capture time of its
    /// own (a bit an entry).
    private(set) var phashes = HashIndex()
    private(set) var phashIDs: [Int64] = []
    let timeless = IDBits()
    /// The similar candidates written at once with others (`WeakClock.copiedAtOnce` over the
    /// library's candidates timed by their mtime).
    let copiedAtOnce = IDBits()
    private var clockIDs: [Int64] = [], clockTimes: [Int64] = []
    private let photos = IDBits(), videoIDs = IDBits()

    static func read(_ db: Database, rules: GroupRules, everything: Bool, extra: Set<Int64>, dirty: IDBits) throws -> PartsPass {
        let pass = PartsPass()
        try GroupItem.forEachLive(db) { item, stored in
            let changed = everything || extra.contains(item.id) || dirty.contains(item.id) || stored != item.fingerprint
            if item.kind == .video {
                pass.videos.append(item.id)
                pass.videoIDs.insert(item.id)
                if changed { pass.changedVideos.insert(item.id) }
            } else {
                pass.photos.insert(item.id)
                if changed {
                    pass.changedPhotos.append(item.id)
                    pass.places.append(item.taken ?? Double(item.mtime) / 1e9)
                }
            }
            if item.ownCaptureTime == nil, item.takenFromModification, rules.isSimilarCandidate(item) {
                pass.clockIDs.append(item.id)
                pass.clockTimes.append(item.mtime)
            }
            if item.ownCaptureTime != item.storedOwnTime { pass.ownTimes.append((item.id, item.ownCaptureTime)) }
            if let h = item.phash {
                if item.ownCaptureTime == nil { pass.timeless.insert(Int64(pass.phashIDs.count)) }
                pass.phashes.insert(h)
                pass.phashIDs.append(item.id)
            }
        }
        try db.forEach(
            "SELECT file_id FROM grouped_files g WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.id = g.file_id AND \(Library.live("f")))"
        ) { pass.gone.append($0.int(0)!) }
        pass.phashes.freeze()
        for (k, copied) in WeakClock.copiedAtOnce(pass.clockTimes, crowd: rules.copiedAtOnce).enumerated() where copied {
            pass.copiedAtOnce.insert(pass.clockIDs[k])
        }
        pass.clockIDs = []
        pass.clockTimes = []
        // A gone video leaves a set among the videos: its part compares the set's others anew.
        pass.changedVideos.formUnion(pass.gone)
        return pass
    }

    /// Each changed photo's place on the timeline (`changedPhotos`' order), until `addMates`.
    private var places: [Double] = []

    /// Drops the own times once written (a million on a library's first run).
    func ownTimesWritten() { ownTimes = [] }

    /// Adds the live photos among `pending` (the changed files and their set mates) to the
    /// photos to regroup (after them, in id order), and orders the photos by their place on the
    /// timeline; the live videos among them to the videos to regroup.
    func addMates(_ pending: IDBits) {
        var all = Set(changedPhotos)
        var mates: [Int64] = []
        for id in pending.members where !all.contains(id) {
            if photos.contains(id) {
                all.insert(id)
                mates.append(id)
            } else if videoIDs.contains(id) {
                changedVideos.insert(id)
            }
        }
        // The changed photos by their place on the timeline, then the mates (a few).
        let order = changedPhotos.indices.sorted { (places[$0], changedPhotos[$0]) < (places[$1], changedPhotos[$1]) }
        changedPhotos = order.map { changedPhotos[$0] } + mates.sorted()
        places = []
    }
}

/// A set of file ids as one bit each (ids are dense: a million rows, 125 KB).
final class IDBits: @unchecked Sendable {
    private var words: [UInt64] = []

    func insert(_ id: Int64) {
        guard id >= 0 else { return }
        let w = Int(id >> 6)
        if w >= words.count { words += Array(repeating: 0, count: w + 1 - words.count) }
        words[w] |= 1 << UInt64(id & 63)
    }

    func remove(_ id: Int64) {
        let w = Int(id >> 6)
        guard id >= 0, w < words.count else { return }
        words[w] &= ~(1 << UInt64(id & 63))
    }

    func contains(_ id: Int64) -> Bool {
        let w = Int(id >> 6)
        guard id >= 0, w < words.count else { return false }
        return words[w] & (1 << UInt64(id & 63)) != 0
    }

    /// The ids in the set, ascending.
    var members: [Int64] {
        var out: [Int64] = []
        for (w, word) in words.enumerated() where word != 0 {
            for b in 0..<64 where word & (1 << UInt64(b)) != 0 { out.append(Int64(w << 6 | b)) }
        }
        return out
    }
}
