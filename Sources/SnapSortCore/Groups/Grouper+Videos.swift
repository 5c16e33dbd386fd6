import SnapSortSystem

/// Duplicates of videos (`VideoCopies`): the same `similar_sets` rows and `duplicate` group as
/// photos' copies, never Similar Shots.
///
/// A full regroup (or new rules) compares the candidates of all videos at once (`HashIndex` over
/// their frames). Otherwise only what changed is compared: the changed videos, and the members
/// of a stored set that lost or changed a member (it may split), each against the videos whose
/// durations allow a copy — found by binary search over the videos sorted by duration, their
/// signatures read for those alone. Stored sets no change touches stand as they are. Adding one
/// video to a library of n costs O(log n) plus its few neighbours in duration, never n
/// comparisons. (Kept apart from the photos' grouper: `videoSets` is called once from
/// `regroup` and `storeVideoSets` once inside its transaction.)
extension Grouper {
    /// `agent_state` key: the `VideoCopies.Rules.key` the stored video sets were made under.
    public static let videoRulesKey = "video_copies_rules"

    /// The video sets to store and the videos whose stored rows they replace.
    struct VideoSets {
        var sets: [ComputedSet]
        /// nil: every video's rows (a full pass).
        var replacing: Set<Int64>?
    }

    /// The video duplicate sets to store, or nil when the stored ones stand (no video changed).
    func videoSets(items: ItemTable, changed: Set<Int64>, db: Database) throws -> VideoSets? {
        let stale = try library.agentState(Self.videoRulesKey) != rules.videoCopies.key
        let touched = changed.filter { items[$0].map { $0.kind == .video } ?? true }
        guard stale || !touched.isEmpty else { return nil }
        let live: [(id: Int64, duration: Double)] = items.all.filter { $0.kind == .video && $0.status == .ok }.map {
            (id: $0.id, duration: $0.duration ?? 0)
        }
        if stale || touched.count * 4 >= max(8, live.count) {
            return VideoSets(sets: try allVideoSets(items: items, db: db), replacing: nil)
        }
        return try changedVideoSets(items: items, touched: touched, live: live, db: db)
    }

    private static let videoQuery =
        "SELECT id, video_signature FROM files WHERE \(Library.live()) AND kind = \(MediaFormat.Kind.video.sql) AND status = \(ItemStatus.ok.sql) AND video_signature IS NOT NULL"

    /// Every video's candidates compared (a full regroup, new rules, or most videos changed).
    private func allVideoSets(items: ItemTable, db: Database) throws -> [ComputedSet] {
        var videos: [(id: Int64, sig: VideoCopies.Prepared)] = []
        try db.forEach(Self.videoQuery + " ORDER BY id") { r in
            guard let blob = r.blob(1), let sig = VideoSignature(encoded: blob) else { return }
            videos.append((r.int(0)!, VideoCopies.Prepared(sig)))
        }
        try checkpoint()
        let slot = Dictionary(uniqueKeysWithValues: videos.enumerated().map { ($1.id, $0) })
        var edges: [(FilePair, Double)] = []
        for (n, pair) in VideoCopies.candidatePairs(videos, rules: rules.videoCopies).enumerated() {
            if n % 64 == 63 { try checkpoint() }
            let (i, j) = (slot[pair.a]!, slot[pair.b]!)
            guard let s = VideoCopies.copyScore(videos[i].sig, videos[j].sig, rules: rules.videoCopies) else { continue }
            trace?("video-copy\t\(pair.a)\t\(pair.b)\t\(s)")
            edges.append((pair, s))
        }
        return videoComponents(ids: videos.map(\.id), edges: edges, stored: [], items: items)
    }

    /// Only the changed videos (and the stored sets they were in) compared again.
    private func changedVideoSets(items: ItemTable, touched: Set<Int64>, live: [(id: Int64, duration: Double)], db: Database) throws -> VideoSets {
        let videos = "(SELECT id FROM files WHERE kind = \(MediaFormat.Kind.video.sql))"
        var storedSet: [Int64: Int64] = [:], storedScore: [Int64: Double] = [:]
        try db.forEach("SELECT file_id, set_key, score FROM similar_sets WHERE file_id IN \(videos)") { r in
            storedSet[r.int(0)!] = r.int(1)!
            storedScore[r.int(0)!] = r.double(2) ?? 1
        }
        // A set that lost or changed a member is made again: all its members are compared anew.
        let brokenKeys = Set(touched.compactMap { storedSet[$0] })
        var dirty = touched
        for (id, key) in storedSet where brokenKeys.contains(key) { dirty.insert(id) }
        let liveIDs = Set(live.map(\.id))
        // The videos sorted by duration: a copy is at most `maxTrimSeconds` plus a share shorter.
        let byDuration = live.sorted { ($0.duration, $0.id) < ($1.duration, $1.id) }
        let r = rules.videoCopies
        func neighbours(of d: Double) -> ArraySlice<(id: Int64, duration: Double)> {
            let lo = d * (1 - r.durationSlack) - r.maxTrimSeconds - 0.5, hi = (d + r.maxTrimSeconds) / (1 - r.durationSlack) + 0.5
            func first(_ x: Double) -> Int {
                var (a, b) = (0, byDuration.count)
                while a < b {
                    let m = (a + b) / 2
                    if byDuration[m].duration < x { a = m + 1 } else { b = m }
                }
                return a
            }
            let (a, b) = (first(lo), first(hi))
            return a < b ? byDuration[a..<b] : []
        }
        var wanted = Set<Int64>()
        var pairs: [FilePair] = []
        for id in dirty.sorted() where liveIDs.contains(id) {
            wanted.insert(id)
            for n in neighbours(of: items[id]?.duration ?? 0) where n.id != id {
                // Two dirty videos are one pair, compared once.
                if dirty.contains(n.id) && n.id < id { continue }
                wanted.insert(n.id)
                pairs.append(FilePair(id, n.id))
            }
        }
        var sigs: [Int64: VideoCopies.Prepared] = [:]
        try Self.forEach(db, Self.videoQuery + " AND id", in: wanted.sorted()) { r in
            guard let blob = r.blob(1), let sig = VideoSignature(encoded: blob) else { return }
            sigs[r.int(0)!] = VideoCopies.Prepared(sig)
        }
        try checkpoint()
        var edges: [(FilePair, Double)] = []
        for (n, pair) in pairs.enumerated() {
            if n % 64 == 63 { try checkpoint() }
            guard let a = sigs[pair.a], let b = sigs[pair.b], VideoCopies.shareFrames(a, b, rules: r),
                let s = VideoCopies.copyScore(a, b, rules: r)
            else { continue }
            trace?("video-copy\t\(pair.a)\t\(pair.b)\t\(s)")
            edges.append((pair, s))
        }
        // The stored sets that stand join the new edges whole, their members' scores kept.
        var stored: [[(id: Int64, score: Double)]] = []
        var standing: [Int64: [(id: Int64, score: Double)]] = [:]
        for (id, key) in storedSet where !brokenKeys.contains(key) && liveIDs.contains(id) {
            standing[key, default: []].append((id, storedScore[id] ?? 1))
        }
        stored = standing.keys.sorted().map { standing[$0]!.sorted { $0.id < $1.id } }
        let ids = Array(Set(sigs.keys).union(stored.flatMap { $0.map(\.id) })).sorted()
        var sets = videoComponents(ids: ids, edges: edges, stored: stored, items: items)
        // Sets made of a standing set alone are stored already.
        let standingKeys = Set(stored.map { $0.map(\.id) })
        sets.removeAll { standingKeys.contains($0.members.map(\.id)) }
        var replacing = dirty
        for set in sets { replacing.formUnion(set.members.map(\.id)) }
        return VideoSets(sets: sets, replacing: replacing)
    }

    /// The connected components of `edges` and the `stored` sets (each joined whole) over
    /// `ids`, as sets with their originals (`videoOriginalOrder`) as keepers.
    private func videoComponents(
        ids: [Int64], edges: [(FilePair, Double)], stored: [[(id: Int64, score: Double)]], items: ItemTable
    ) -> [ComputedSet] {
        let slot = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        var parent = Array(0..<ids.count)
        func find(_ x: Int) -> Int {
            var x = x
            while parent[x] != x { parent[x] = parent[parent[x]]; x = parent[x] }
            return x
        }
        var scores: [FilePair: Double] = [:]
        var storedScore: [Int64: Double] = [:]
        for set in stored {
            for m in set {
                storedScore[m.id] = m.score
                if let a = slot[set[0].id], let b = slot[m.id] { parent[find(b)] = find(a) }
            }
        }
        for (pair, s) in edges {
            guard let a = slot[pair.a], let b = slot[pair.b] else { continue }
            scores[pair] = s
            parent[find(b)] = find(a)
        }
        var members: [Int: [Int64]] = [:]
        for (i, id) in ids.enumerated() { members[find(i), default: []].append(id) }
        var sets: [ComputedSet] = []
        for ids in members.values where ids.count >= 2 {
            let rows = ids.compactMap { items[$0] }
            guard rows.count == ids.count else { continue }
            let keeper = rows.min { rules.videoOriginalOrder($0, $1) }!.id
            sets.append(
                ComputedSet(
                    members: ids.sorted().map { id in
                        let score =
                            scores[FilePair(id, keeper)] ?? scores.filter { $0.key.a == id || $0.key.b == id }.values.max() ?? storedScore[id] ?? 1
                        return ComputedSet.Member(
                            id: id, isKeeper: id == keeper, duplicateOf: id == keeper ? nil : keeper, score: id == keeper ? 1 : score)
                    }))
        }
        return sets.sorted { $0.members[0].id < $1.members[0].id }
    }

    /// Replaces the stored video sets of `sets.replacing` (all videos' when nil) with
    /// `sets.sets` (inside the regroup's transaction).
    func storeVideoSets(_ sets: VideoSets, db: Database) throws {
        if let replacing = sets.replacing {
            for id in replacing.sorted() {
                try db.run("DELETE FROM similar_sets WHERE file_id = ?", id)
                try db.run("DELETE FROM group_members WHERE group_id IN \(GroupID.sql([.similar, .duplicate])) AND file_id = ?", id)
            }
        } else {
            let videos = "(SELECT id FROM files WHERE kind = \(MediaFormat.Kind.video.sql))"
            try db.run("DELETE FROM similar_sets WHERE file_id IN \(videos)")
            try db.run("DELETE FROM group_members WHERE group_id IN \(GroupID.sql([.similar, .duplicate])) AND file_id IN \(videos)")
        }
        for set in sets.sets {
            let key = set.members.map(\.id).min()!
            for m in set.members {
                try db.run(
                    "INSERT INTO similar_sets(file_id, set_key, keeper, duplicate_of, score) VALUES(?,?,?,?,?)",
                    m.id, key, m.isKeeper ? 1 : 0, m.duplicateOf, m.score)
                try db.run("INSERT OR REPLACE INTO group_members(group_id, file_id, score) VALUES(\(GroupID.duplicate.sql),?,?)", m.id, m.score)
            }
        }
        try library.setAgentState(Self.videoRulesKey, rules.videoCopies.key, at: clock.now())
    }
}

extension GroupRules {
    /// Which of two copies of a video is the original: the longer one (a trimmed copy lost its
    /// ends), then the larger picture, then the camera's file over a messenger's or a download's
    /// (`isDownloadedVideo`), then the larger file, then the first seen.
    func videoOriginalOrder(_ a: GroupItem, _ b: GroupItem) -> Bool {
        let da = a.duration ?? 0, db = b.duration ?? 0
        if abs(da - db) > 0.5 { return da > db }
        let pa = (a.width ?? 0) * (a.height ?? 0), pb = (b.width ?? 0) * (b.height ?? 0)
        if pa != pb { return pa > pb }
        let ma = isDownloadedVideo(a), mb = isDownloadedVideo(b)
        if ma != mb { return mb }
        if a.hasCamera != b.hasCamera { return a.hasCamera }
        if a.bytes != b.bytes { return a.bytes > b.bytes }
        return a.id < b.id
    }
}
