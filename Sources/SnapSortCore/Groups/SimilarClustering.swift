import Foundation

/// One Similar Shots set as computed: members with their keeper flag and original.
struct ComputedSet {
    struct Member {
        var id: Int64
        var isKeeper: Bool
        var duplicateOf: Int64?
        var score: Double
    }
    var members: [Member]
}

/// Clusters photos into Similar Shots sets (see `Grouper` for the region logic).
///
/// - Duplicate links first: the same content hash, or a pHash within `GroupRules.nearCopyRadius`
///   whose thumbnails agree unaligned (`nearCopyCorrelation`, `nearCopyColorDistance`) with the
///   same aspect ratio and sharpness (`GroupRules.sameSharpness`). A
///   duplicate cluster is one *picture*; its original (`GroupRules.originalOrder`) stands for it.
///   One picture is one capture: links are merged best first, and never across two capture
///   times (`GroupRules.separateCaptures`), so two frames of a static scene stay two pictures.
/// - Pictures taken at most `window` apart are compared by `Thumbnail.aligned`; pairs scoring at
///   least `similarThreshold` at an overlap of at least `minimumOverlap` are merged greedily, best first, by **complete linkage**: two
///   clusters join only when every cross pair scores at least `similarThreshold`, so A~B and B~C
///   never pull in a C unlike A. Remembered "not similar" verdicts forbid a merge outright.
struct SimilarClustering {
    let rules: GroupRules
    let verdicts: Set<FilePair>
    let keeperChoices: Set<Int64>
    let trace: ((String) -> Void)?
    let loadThumbnails: ([Int64]) throws -> [Int64: Thumbnail]
    /// Threads for the pairwise alignments.
    var workers = ProcessInfo.processInfo.activeProcessorCount
    private let byID: [Int64: GroupItem]
    private let timeline: [(t: Double, id: Int64)]
    private let position: [Int64: Int]
    /// Sessions: maximal runs of `timeline` whose neighbours are at most `rules.window` apart.
    private let sessionOf: [Int]
    private let sessionRanges: [Range<Int>]
    private let hashIndex: HashIndex
    private let indexIDs: [Int64]
    private let byContent: [[UInt8]: [Int64]]

    init(photos: [GroupItem], rules: GroupRules, verdicts: Set<FilePair>, keeperChoices: Set<Int64>,
         trace: ((String) -> Void)?, loadThumbnails: @escaping ([Int64]) throws -> [Int64: Thumbnail]) {
        self.rules = rules
        self.verdicts = verdicts
        self.keeperChoices = keeperChoices
        self.trace = trace
        self.loadThumbnails = loadThumbnails
        byID = Dictionary(uniqueKeysWithValues: photos.map { ($0.id, $0) })
        timeline = photos.map { (t: $0.taken ?? Double($0.mtime) / 1e9, id: $0.id) }.sorted { ($0.t, $0.id) < ($1.t, $1.id) }
        var pos: [Int64: Int] = [:]
        for (i, e) in timeline.enumerated() { pos[e.id] = i }
        position = pos
        var of = [Int](repeating: 0, count: timeline.count), ranges: [Range<Int>] = []
        var start = 0
        for i in 0..<timeline.count {
            if i > 0 && timeline[i].t - timeline[i - 1].t > rules.window {
                ranges.append(start..<i)
                start = i
            }
            of[i] = ranges.count
        }
        if !timeline.isEmpty { ranges.append(start..<timeline.count) }
        sessionOf = of
        sessionRanges = ranges
        var index = HashIndex()
        var ids: [Int64] = []
        var content: [[UInt8]: [Int64]] = [:]
        for p in photos {
            if let h = p.phash { index.insert(h); ids.append(p.id) }
            if let c = p.contentHash { content[c, default: []].append(p.id) }
        }
        hashIndex = index
        indexIDs = ids
        byContent = content
    }

    func time(_ id: Int64) -> Double { timeline[position[id]!].t }

    /// Possible duplicate partners of `id` (unconfirmed: same content or a close pHash).
    private func duplicateCandidates(_ id: Int64) -> [Int64] {
        guard let item = byID[id] else { return [] }
        var out: [Int64] = []
        if let c = item.contentHash { out += byContent[c, default: []].filter { $0 != id } }
        if let h = item.phash { out += hashIndex.neighbours(of: h, within: rules.nearCopyRadius).map { indexIDs[$0] }.filter { $0 != id } }
        return out
    }

    /// The files whose sets a change to `ids` can affect: closed over sessions (neighbours in
    /// time at most `window` apart) and duplicate candidates.
    func region(around ids: Set<Int64>) throws -> Set<Int64> {
        // Each session is taken whole, once: walking the neighbours of every member again made
        // this quadratic (a library shot every 97 s is one session of 100 000 photos).
        var out = Set<Int64>()
        var sessionsTaken = Set<Int>()
        var queue = ids.filter { byID[$0] != nil }.sorted()
        while let id = queue.popLast() {
            guard let p = position[id] else { out.insert(id); continue }
            guard sessionsTaken.insert(sessionOf[p]).inserted else { continue }
            for i in sessionRanges[sessionOf[p]] {
                let member = timeline[i].id
                guard out.insert(member).inserted else { continue }
                for d in duplicateCandidates(member) where !out.contains(d) { queue.append(d) }
            }
        }
        return out
    }

    /// Clusters `region` into sets of at least two files.
    func cluster(_ region: Set<Int64>) throws -> [ComputedSet] {
        let ids = region.filter { byID[$0] != nil }.sorted()
        let thumbs = try loadThumbnails(ids)
        // Duplicate clusters.
        var parent = Dictionary(uniqueKeysWithValues: ids.map { ($0, $0) })
        func find(_ x: Int64) -> Int64 {
            var x = x
            while parent[x]! != x { parent[x] = parent[parent[x]!]!; x = parent[x]! }
            return x
        }
        // Copy links, byte-identical ones first, then near-copies best first.
        var links: [(r: Double, a: Int64, b: Int64)] = []
        for id in ids {
            for d in Set(duplicateCandidates(id)) where d > id && region.contains(d) {
                guard !verdicts.contains(FilePair(id, d)), let r = copyScore(id, d, thumbs) else { continue }
                links.append((r, id, d))
            }
        }
        links.sort { ($0.r, $1.a, $1.b) > ($1.r, $0.a, $0.b) }
        // One picture is one capture: two clusters join only when no member of one says it was
        // taken at another time than a member of the other (`GroupRules.separateCaptures`), so a
        // file without a capture time of its own cannot bridge two captures either.
        // The same bytes are one file whatever their names say.
        var copyMembers = Dictionary(uniqueKeysWithValues: ids.map { ($0, [$0]) })
        for link in links {
            let (ra, rb) = (find(link.a), find(link.b))
            guard ra != rb else { continue }
            if link.r < 2 {
                let timed = { (root: Int64) in copyMembers[root]!.map { self.byID[$0]! }.filter { GroupRules.ownCaptureTime($0) != nil } }
                let (ta, tb) = (timed(ra), timed(rb))
                guard !ta.contains(where: { x in tb.contains { rules.separateCaptures(x, $0) } }) else { continue }
            }
            let (keep, drop) = (min(ra, rb), max(ra, rb))
            parent[drop] = keep
            copyMembers[keep]! += copyMembers[drop]!
            copyMembers[drop] = nil
        }
        var copies: [Int64: [Int64]] = [:]
        for id in ids { copies[find(id), default: []].append(id) }
        // The original of each duplicate cluster stands for the picture.
        var original: [Int64: Int64] = [:]  // cluster root -> original
        for (root, members) in copies {
            original[root] = members.min { rules.originalOrder(byID[$0]!, byID[$1]!) }!
        }
        let pictures = copies.keys.sorted()
        let pictureOf = Dictionary(uniqueKeysWithValues: pictures.map { (original[$0]!, $0) })
        let reps = pictures.map { original[$0]! }.sorted { (time($0), $0) < (time($1), $1) }

        // Pairwise scores among pictures close in time.
        var scores: [FilePair: Double] = [:]
        func score(_ a: Int64, _ b: Int64, aligned: (score: Double, overlap: Double)? = nil) -> Double {
            let key = FilePair(a, b)
            if let s = scores[key] { return s }
            var s = 0.0
            if let ta = thumbs[key.a], let tb = thumbs[key.b] {
                let r = aligned ?? ta.aligned(with: tb)
                s = r.overlap >= rules.minimumOverlap ? r.score : 0
                if let trace {
                    let ph = (byID[a]!.phash.map { p in byID[b]!.phash.map { (p ^ $0).nonzeroBitCount } ?? -1 }) ?? -1
                    trace("pair\t\(byID[key.a]!.path)\t\(byID[key.b]!.path)\tdt=\(Int(abs(time(a) - time(b))))\tscore=\(String(format: "%.3f", r.score))\toverlap=\(String(format: "%.2f", r.overlap))\tphash=\(ph)")
                }
            }
            scores[key] = s
            return s
        }
        // The alignments of every pair within the window, on all cores (they are most of a
        // regroup's time: a burst of n frames has n(n-1)/2 pairs); traced and cached in order.
        var windowPairs: [FilePair] = []
        for (i, a) in reps.enumerated() {
            var j = i + 1
            while j < reps.count && time(reps[j]) - time(a) <= rules.window {
                let key = FilePair(a, reps[j])
                if thumbs[key.a] != nil && thumbs[key.b] != nil { windowPairs.append(key) }
                j += 1
            }
        }
        let alignments = Parallel.map(windowPairs, threads: workers) { [thumbs] key in thumbs[key.a]!.aligned(with: thumbs[key.b]!) }
        for (key, r) in zip(windowPairs, alignments) { _ = score(key.a, key.b, aligned: r) }
        var candidates: [(Double, Int64, Int64)] = []
        for (i, a) in reps.enumerated() {
            var j = i + 1
            while j < reps.count && time(reps[j]) - time(a) <= rules.window {
                let b = reps[j]
                let s = score(a, b)
                if s >= rules.similarThreshold { candidates.append((s, min(a, b), max(a, b))) }
                j += 1
            }
        }
        candidates.sort { ($0.0, $1.1, $1.2) > ($1.0, $0.1, $0.2) }
        // Complete linkage over pictures.
        var clusterOf = Dictionary(uniqueKeysWithValues: reps.map { ($0, $0) })
        var members = Dictionary(uniqueKeysWithValues: reps.map { ($0, [$0]) })
        func files(_ rep: Int64) -> [Int64] { copies[pictureOf[rep]!]! }
        for (_, a, b) in candidates {
            let ca = clusterOf[a]!, cb = clusterOf[b]!
            guard ca != cb else { continue }
            var ok = true
            outer: for x in members[ca]! {
                for y in members[cb]! {
                    if score(x, y) < rules.similarThreshold { ok = false; break outer }
                    for fx in files(x) { for fy in files(y) where verdicts.contains(FilePair(fx, fy)) { ok = false; break outer } }
                }
            }
            guard ok else { continue }
            let (keep, drop) = (min(ca, cb), max(ca, cb))
            for x in members[drop]! { clusterOf[x] = keep }
            members[keep]! += members[drop]!
            members[drop] = nil
        }
        // Sets with their keeper.
        var out: [ComputedSet] = []
        for (_, reps) in members.sorted(by: { $0.key < $1.key }) {
            let all = reps.flatMap(files)
            guard all.count >= 2 else { continue }
            let items = all.map { byID[$0]! }
            let originals = Set(reps)
            let scoreOf = KeeperScore.scores(items.filter { originals.contains($0.id) }, rules: rules)
            var set = ComputedSet(members: [])
            for item in items {
                let root = original[find(item.id)]!
                let dup: Int64? = root == item.id ? nil : root
                // Copies rank below their original.
                set.members.append(.init(id: item.id, isKeeper: false, duplicateOf: dup, score: scoreOf[item.id] ?? ((scoreOf[root] ?? 0) - 1)))
            }
            let chosen = all.filter { keeperChoices.contains($0) }.min()
            let keeper = chosen ?? set.members.filter { $0.duplicateOf == nil }.max { ($0.score, -$0.id) < ($1.score, -$1.id) }!.id
            for i in set.members.indices { set.members[i].isKeeper = set.members[i].id == keeper }
            out.append(set)
        }
        return out
    }

    /// Whether `a` and `b` are copies of one picture (exact or near), and how sure: 2 for the same
    /// bytes, else the thumbnails' unaligned correlation; nil when they are not copies.
    private func copyScore(_ a: Int64, _ b: Int64, _ thumbs: [Int64: Thumbnail]) -> Double? {
        let x = byID[a]!, y = byID[b]!
        if let ca = x.contentHash, ca == y.contentHash { return 2 }
        guard !rules.separateCaptures(x, y) else { return nil }
        guard let pa = x.phash, let pb = y.phash, (pa ^ pb).nonzeroBitCount <= rules.nearCopyRadius,
              let wa = x.width, let ha = x.height, let wb = y.width, let hb = y.height, ha > 0, hb > 0,
              abs(Double(wa) / Double(ha) - Double(wb) / Double(hb)) <= 0.02 * Double(wa) / Double(ha),
              let ta = thumbs[a], let tb = thumbs[b] else { return nil }
        let r = ta.direct(with: tb), c = ta.colorDistance(to: tb)
        trace?("copy?\t\(x.path)\t\(y.path)\tr=\(String(format: "%.4f", r))\tcolor=\(String(format: "%.1f", c))\tphash=\((pa ^ pb).nonzeroBitCount)")
        return r >= rules.nearCopyCorrelation && c <= rules.nearCopyColorDistance && rules.sameSharpness(x, y) ? r : nil
    }
}
