import SnapSortSystem

/// Duplicates of videos (`VideoCopies`): the same `similar_sets` rows and `duplicate` group as
/// photos' copies, never Similar Shots. Videos are few beside photos and their sets are made
/// over all of them at once, when a video changed (or one went) or the rules did.
extension Grouper {
    /// `agent_state` key: the `VideoCopies.Rules.key` the stored video sets were made under.
    public static let videoRulesKey = "video_copies_rules"

    /// The video duplicate sets, or nil when the stored ones stand (no video changed).
    func videoSets(items: ItemTable, changed: Set<Int64>, db: Database) throws -> [ComputedSet]? {
        let stale = try library.agentState(Self.videoRulesKey) != rules.videoCopies.key
        guard stale || changed.contains(where: { items[$0].map { $0.kind == .video } ?? true }) else { return nil }
        var videos: [(id: Int64, sig: VideoCopies.Prepared)] = []
        try db.forEach(
            "SELECT id, video_signature FROM files WHERE \(Library.live()) AND kind = \(MediaFormat.Kind.video.sql) AND status = \(ItemStatus.ok.sql) AND video_signature IS NOT NULL ORDER BY id"
        ) { r in
            guard let blob = r.blob(1), let sig = VideoSignature(encoded: blob) else { return }
            videos.append((r.int(0)!, VideoCopies.Prepared(sig)))
        }
        try checkpoint()
        let slot = Dictionary(uniqueKeysWithValues: videos.enumerated().map { ($1.id, $0) })
        var parent = Array(0..<videos.count)
        func find(_ x: Int) -> Int {
            var x = x
            while parent[x] != x { parent[x] = parent[parent[x]]; x = parent[x] }
            return x
        }
        var scores: [FilePair: Double] = [:]
        let candidates = VideoCopies.candidatePairs(videos, rules: rules.videoCopies)
        for (n, pair) in candidates.enumerated() {
            if n % 64 == 63 { try checkpoint() }
            let (i, j) = (slot[pair.a]!, slot[pair.b]!)
            guard let s = VideoCopies.copyScore(videos[i].sig, videos[j].sig, rules: rules.videoCopies) else { continue }
            trace?("video-copy\t\(pair.a)\t\(pair.b)\t\(s)")
            scores[pair] = s
            parent[find(j)] = find(i)
        }
        var members: [Int: [Int64]] = [:]
        for (i, v) in videos.enumerated() { members[find(i), default: []].append(v.id) }
        var sets: [ComputedSet] = []
        for ids in members.values where ids.count >= 2 {
            let items = ids.compactMap { items[$0] }
            guard items.count == ids.count else { continue }
            let keeper = items.min { rules.videoOriginalOrder($0, $1) }!.id
            sets.append(
                ComputedSet(
                    members: ids.sorted().map { id in
                        let score = scores[FilePair(id, keeper)] ?? scores.filter { $0.key.a == id || $0.key.b == id }.values.max() ?? 1
                        return ComputedSet.Member(
                            id: id, isKeeper: id == keeper, duplicateOf: id == keeper ? nil : keeper, score: id == keeper ? 1 : score)
                    }))
        }
        return sets.sorted { $0.members[0].id < $1.members[0].id }
    }

    /// Replaces the stored video sets with `sets` (inside the regroup's transaction).
    func storeVideoSets(_ sets: [ComputedSet], db: Database) throws {
        let videos = "(SELECT id FROM files WHERE kind = \(MediaFormat.Kind.video.sql))"
        try db.run("DELETE FROM similar_sets WHERE file_id IN \(videos)")
        try db.run("DELETE FROM group_members WHERE group_id IN ('similar', 'duplicate') AND file_id IN \(videos)")
        for set in sets {
            let key = set.members.map(\.id).min()!
            for m in set.members {
                try db.run(
                    "INSERT INTO similar_sets(file_id, set_key, keeper, duplicate_of, score) VALUES(?,?,?,?,?)",
                    m.id, key, m.isKeeper ? 1 : 0, m.duplicateOf, m.score)
                try db.run("INSERT OR REPLACE INTO group_members(group_id, file_id, score) VALUES('duplicate',?,?)", m.id, m.score)
            }
        }
        try library.setAgentState(Self.videoRulesKey, rules.videoCopies.key)
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
