import Foundation
import SnapSortSystem

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
/// - Pair scores: every two photos taken at most `window` apart are aligned once
///   (`windowPairs`, `align`) and the pairs that score at least `similarThreshold` are kept as
///   *edges* (`Grouper` stores them in `similar_pairs`, so a regroup aligns only the pairs of
///   files that changed). A pair within the window without an edge scored below the threshold.
/// - Components: edges and copy links join photos; a set never leaves its component,
///   so each component is clustered on its own and a lone photo costs nothing
///   (`components(around:)`).
///
/// - Duplicate links first: the same content hash, or a pHash within `GroupRules.nearCopyRadius`
///   whose thumbnails agree unaligned (`nearCopyCorrelation`, `nearCopyColorDistance`) with the
///   same aspect ratio and sharpness (`GroupRules.sameSharpness`), when one of the two can be
///   the other's copy (`GroupRules.mayBeCopy`: a copy never gains a capture record or pixels). A
///   duplicate cluster is one *picture*; its original (`GroupRules.originalOrder`) stands for it.
///   One picture is one capture: links are merged best first, and never across two capture
///   times (`GroupRules.separateCaptures`), so two frames of a static scene stay two pictures.
/// - The files of one content need no pairs: every two of them are copies (score 2) and align
///   perfectly (1) — but two names of one file (`identity`) and pairs the user called not
///   similar — so their links follow from the hashes (`sameContentParts`, `sameContentEdge`).
///   A content is the same bytes (`contentHash`), or the same pixels (`pixelHash`: the bytes
///   but the metadata) of files nothing else the copy rules read tells apart (`PixelClass`):
///   every two such files would be linked as near copies anyway, at a cost that grew with the
///   square of their number (1 205 photos × 83 copies whose metadata a tagger rewrote held
///   4 million copy links).
///   A duplicate-heavy library (1 205 photos × 83 copies) held 4.1 million such pairs (2.6
///   million alignments, 3.9 million copy links), most of its regroup's memory; `windowPairs(of:sameContent:)` and `duplicatePairs(of:sameContent:)`
///   leave them out for the grouper.
/// - Pictures taken at most `window` apart are compared by `Thumbnail.aligned`; pairs scoring at
///   least `similarThreshold` at an overlap of at least `minimumOverlap` (at any overlap for a
///   burst's frames, `GroupRules.burstSeconds`) are merged greedily, best first, by **complete linkage**: two
///   clusters join only when every cross pair scores at least `similarThreshold`, so A~B and B~C
///   never pull in a C unlike A. Remembered "not similar" verdicts forbid a merge outright.
struct SimilarClustering {
    let rules: GroupRules
    let verdicts: Set<FilePair>
    let keeperChoices: Set<Int64>
    let trace: ((String) -> Void)?
    let loadThumbnails: ([Int64]) throws -> [Int64: Thumbnail]
    /// Whether two files hold the same pixels (`SamePixels`; asked of a lossless file at the
    /// size of a lossy one that looks the same, see `GroupRules.mayBeCopy`).
    var samePixels: (GroupItem, GroupItem) -> Bool = SamePixels.files
    /// The words a page read (OCR) by the photos that read as documents (`GroupRules.pageWords`);
    /// nil for the others. Two pages that both read are Similar Shots only when they share most
    /// of their words (`GroupRules.maySimilar`).
    var pageWords: (Int64) -> Set<String>? = { _ in nil }
    /// Geometric verification of two photos' frames (`FrameMatcher`), asked of the window pairs
    /// the thumbnails reject (`verified`); nil: none (no vision helper).
    var matchFrames: ((GroupItem, GroupItem) -> FrameMatch?)?
    /// The stored signatures of photos (`files.signature`), for their mirrored pHashes
    /// (`mirrorEdges`); nil: mirrors are not looked for.
    var loadSignatures: (([Int64]) throws -> [Int64: [UInt8]])?
    /// Threads for the pairwise alignments.
    var workers = ProcessInfo.processInfo.activeProcessorCount
    /// Called on the calling thread between batches of pairs and every few thousand steps of a
    /// clustering (`Grouper.checkpoint`); throws to stop.
    var checkpoint: () throws -> Void = {}
    /// Pairs within the window or found by content (`candidatePairs`) scoring at least
    /// `rules.similarThreshold`, with their score.
    var edges: [FilePair: Double] = [:] {
        didSet {
            edgePartners = [:]
            for key in edges.keys {
                edgePartners[key.a, default: []].append(key.b)
                edgePartners[key.b, default: []].append(key.a)
            }
        }
    }
    /// Confirmed copy links (`copyScore`): 2 for the same bytes, else the unaligned correlation.
    var copyLinks: [FilePair: Double] = [:] {
        didSet {
            copyPartners = [:]
            for key in copyLinks.keys {
                copyPartners[key.a, default: []].append(key.b)
                copyPartners[key.b, default: []].append(key.a)
            }
        }
    }
    private var copyPartners: [Int64: [Int64]] = [:]
    /// Pairs scored similar (`edges`) by photo: the clustering takes a region's pairs from
    /// them wherever they stand on the timeline (content found them, `contentPairs`).
    private var edgePartners: [Int64: [Int64]] = [:]
    /// Where each photo of a shared content is on disk (device, inode; set by the caller): two
    /// names of one file are not its copies — trashing one frees nothing.
    var identity: [Int64: DiskIdentity] = [:]
    /// The files the user's "not similar" verdicts name.
    private let judged: Set<Int64>
    /// `GroupRules.ownCaptureTime` of each photo, by its place on the `timeline`.
    private let ownTimes: [Double?]
    /// The weak clock of each photo without a capture time of its own (`WeakClock`), by its
    /// place on the `timeline`; nil where its mtime tells nothing.
    private let weakTimes: [Double?]
    private let byID: ItemTable
    private let timeline: [(t: Double, id: Int64)]
    private let position: [Int64: Int]
    /// Every photo's pHash (built when first asked: only photos without a capture time of their
    /// own search the whole library, and an incremental regroup seldom has one), and the photos
    /// without a capture time of their own.
    private let wholeIndex: LazyIndex
    /// `GroupRules.namedAsEdit` and `looksEdited` of each photo asked about, read once (a photo
    /// is asked about by each of its ~16 content neighbours, and the originals' order looked for
    /// sidecars on disk at each comparison: 5 % of a million rows' regroup); a regroup in parts
    /// gives every part's clusterings its one memo (a photo is in the rows of ~8 parts).
    var memo = NameMemo()
    private let timelessIndex: HashIndex
    private let timelessIDs: [Int64]
    /// The photos with a capture time of their own, by that time.
    private let byOwnTime: [(t: Double, id: Int64)]
    /// The photos of each content that more than one photo has (in id order), and the content
    /// of each of those photos (its place in `contents`).
    private let contents: [[Int64]]
    private let contentOf: [Int64: Int]

    /// `GroupRules.ownCaptureTime` of the photo `id`.
    private func ownTime(_ id: Int64) -> Double? { position[id].flatMap { ownTimes[$0] } }

    /// When the photo `id` was taken as far as any clock tells: its own capture time, else its
    /// weak clock (`WeakClock`); nil when neither says.
    func clock(_ id: Int64) -> Double? { position[id].flatMap { ownTimes[$0] ?? weakTimes[$0] } }

    /// How far apart two photos' clocks (`clock`) put them; nil when one of them has none.
    func clockGap(_ key: FilePair) -> Double? {
        guard let ta = clock(key.a), let tb = clock(key.b) else { return nil }
        return abs(ta - tb)
    }

    init(
        photos: ItemTable, rules: GroupRules, verdicts: Set<FilePair>, keeperChoices: Set<Int64>,
        trace: ((String) -> Void)?, copiedAtOnce: ((Int64) -> Bool)? = nil,
        loadThumbnails: @escaping ([Int64]) throws -> [Int64: Thumbnail]
    ) {
        self.rules = rules
        self.verdicts = verdicts
        self.keeperChoices = keeperChoices
        self.trace = trace
        self.loadThumbnails = loadThumbnails
        judged = Set(verdicts.lazy.flatMap { [$0.a, $0.b] })
        byID = photos
        let timeline = photos.all.map { (t: $0.taken ?? Double($0.mtime) / 1e9, id: $0.id) }.sorted { ($0.t, $0.id) < ($1.t, $1.id) }
        self.timeline = timeline
        var pos: [Int64: Int] = [:]
        pos.reserveCapacity(timeline.count)
        for (i, e) in timeline.enumerated() { pos[e.id] = i }
        position = pos
        var own = [Double?](repeating: nil, count: timeline.count)
        var timeless = HashIndex()
        var timelessIDs: [Int64] = []
        for p in photos.all {
            own[pos[p.id]!] = p.ownCaptureTime
            if let h = p.phash, p.ownCaptureTime == nil {
                timeless.insert(h)
                timelessIDs.append(p.id)
            }
        }
        (contents, contentOf) = Self.contents(of: photos.all)
        ownTimes = own
        weakTimes = WeakClock.times(of: photos.all, ownTimes: own, position: pos, crowd: rules.copiedAtOnce, copiedAtOnce: copiedAtOnce)
        wholeIndex = LazyIndex(photos.all.compactMap { p in p.phash.map { (p.id, $0) } })
        timeless.freeze()
        timelessIndex = timeless
        self.timelessIDs = timelessIDs
        byOwnTime = zip(own, timeline).compactMap { t, e in t.map { (t: $0, id: e.id) } }.sorted { ($0.t, $0.id) < ($1.t, $1.id) }
    }

    /// What of a file decides, besides its pixels, whether it may be a copy of another
    /// (`mayBeCopies`, `copyScore`, `GroupRules.mayBeCopy`, `separateCaptures`): files of one
    /// pixel class share all of it, so every two of them would be linked as copies (identical
    /// thumbnails, metrics and sizes). Nil for a file whose name makes it an edit of another
    /// (`GroupRules.editBase`): edits and originals are told apart by name, pair by pair.
    struct PixelClass: Hashable {
        let pixels: ContentKey
        let orientation: Int, width: Int, height: Int
        let capture: Double?
        let camera: Bool, edited: Bool, lossless: Bool

        init?(_ p: GroupItem) {
            guard let pixels = p.pixelHash, let width = p.width, let height = p.height, GroupRules.editBase(p.name) == nil else { return nil }
            self.pixels = pixels
            orientation = p.orientation ?? 1
            self.width = width
            self.height = height
            capture = p.ownCaptureTime
            camera = p.hasCamera
            edited = GroupRules.looksEdited(p.path)
            lossless = p.isLossless
        }
    }

    /// The contents that more than one photo has: the photos joined by the same bytes or by one
    /// `PixelClass` (a file of the same bytes as one class's file joins that class), each content
    /// in id order, and each such photo's content. Only contents two photos share are kept: a
    /// list for each of 100 000 contents was ~7 MB.
    static func contents(of photos: some Sequence<GroupItem>) -> ([[Int64]], [Int64: Int]) {
        var up: [Int64: Int64] = [:]
        func root(_ x: Int64) -> Int64 {
            var x = x
            while let p = up[x], p != x {
                let next = up[p] ?? p
                up[x] = next
                x = next
            }
            return x
        }
        func join(_ a: Int64, _ b: Int64) {
            if up[a] == nil { up[a] = a }
            if up[b] == nil { up[b] = b }
            let (ra, rb) = (root(a), root(b))
            if ra != rb { up[max(ra, rb)] = min(ra, rb) }
        }
        do {
            // A pixel class joins only photos of one pixel hash, and is asked only of those whose
            // bytes do not join them already (one pixel hash, more than one content or none): it
            // reads the name and looks for the file's sidecars on disk, two `stat`s a photo — a
            // third of the CPU of one photo added to 100 000 files.
            var pixelBytes: [ContentKey: (count: Int, bytes: ContentKey?, mixed: Bool)] = [:]
            for p in photos {
                guard let px = p.pixelHash else { continue }
                if var e = pixelBytes[px] {
                    e.count += 1
                    if p.contentHash == nil || p.contentHash != e.bytes { e.mixed = true }
                    pixelBytes[px] = e
                } else {
                    pixelBytes[px] = (1, p.contentHash, p.contentHash == nil)
                }
            }
            var firstWithBytes: [ContentKey: Int64] = [:], firstWithPixels: [PixelClass: Int64] = [:]
            for p in photos {
                if let c = p.contentHash {
                    if let first = firstWithBytes[c] { join(first, p.id) } else { firstWithBytes[c] = p.id }
                }
                guard let px = p.pixelHash, let e = pixelBytes[px], e.count > 1, e.mixed else { continue }
                if let k = PixelClass(p) {
                    if let first = firstWithPixels[k] { join(first, p.id) } else { firstWithPixels[k] = p.id }
                }
            }
        }
        var byRoot: [Int64: Int] = [:], out: [[Int64]] = [], of: [Int64: Int] = [:]
        for id in up.keys.sorted() {
            let r = root(id)
            let slot = byRoot[r] ?? out.count
            if slot == out.count {
                byRoot[r] = slot
                out.append([])
            }
            out[slot].append(id)
            of[id] = slot
        }
        return (out, of)
    }

    func time(_ id: Int64) -> Double { timeline[position[id]!].t }

    /// Whether `id` is one of the photos clustered (`GroupRules.isSimilarCandidate`).
    func isCandidate(_ id: Int64) -> Bool { byID.contains(id) }

    /// The photos of `id`'s content, itself included (none when no other photo shares it).
    func sameContentMates(of id: Int64) -> [Int64] { contentOf[id].map { contents[$0] } ?? [] }

    /// The photos of every content that more than one photo has (whose identities the caller
    /// reads into `identity`).
    var sharedContentPhotos: [Int64] { contents.flatMap { $0 } }

    /// Whether two rows are one file now (the same device and inode).
    func sameFile(_ a: Int64, _ b: Int64) -> Bool {
        guard let x = identity[a], let y = identity[b] else { return false }
        return x == y
    }

    /// The pairs that record in `similar_pairs` what the hashes join: each photo of a shared
    /// content with the content's first photo, for the contents with a photo in `ids` (nil: all).
    func sameContentChains(touching ids: Set<Int64>?) -> [FilePair] {
        var out: [FilePair] = []
        for members in contents where ids.map({ members.contains(where: $0.contains) }) ?? true {
            for m in members.dropFirst() { out.append(FilePair(members[0], m)) }
        }
        return out
    }

    /// The alignment score `windowPairs` and `align` give two files of the same bytes (1) when
    /// the window takes them (at most `windowNeighbours` places and `window` apart on the
    /// timeline) and it reaches the threshold; nil for other pairs and two names of one file.
    func sameContentEdge(_ a: Int64, _ b: Int64) -> Double? {
        guard 1 >= rules.similarThreshold, sameContent(FilePair(a, b)), !sameFile(a, b),
            let pa = position[a], let pb = position[b], abs(pa - pb) <= rules.windowNeighbours,
            abs(timeline[pa].t - timeline[pb].t) <= rules.window
        else { return nil }
        return 1
    }

    /// `ids` (files of one content) in the parts their byte-identical links join: every two are
    /// linked but two names of one file and a pair the user called not similar. Without either
    /// (nearly always) they are one part; else a walk that takes, from each file reached, every
    /// file not yet reached that it links to.
    func sameContentParts(_ ids: [Int64]) -> [[Int64]] {
        let names = Set(ids.map { identity[$0] })
        if names.count == 1, names.first! != nil { return ids.map { [$0] } }
        if !ids.contains(where: judged.contains) && (names.count > 1 || names.first! == nil) { return [ids] }
        var left = ids[...]
        var out: [[Int64]] = []
        while let start = left.popFirst() {
            var part = [start], queue = [start]
            while let v = queue.popLast() {
                var kept: [Int64] = []
                for u in left {
                    if sameFile(u, v) || verdicts.contains(FilePair(u, v)) { kept.append(u) } else { part.append(u); queue.append(u) }
                }
                left = kept[...]
            }
            out.append(part.sorted())
        }
        return out
    }

    /// The two files of a pair in the order they are aligned: the earlier photo first, then the
    /// smaller path. Alignment is not exactly symmetric (the best transform one way round is not
    /// quite the inverse of the other's), so the order must not come from the ids, which follow
    /// the order the scan's workers happened to finish the files.
    func alignmentOrder(_ key: FilePair) -> (Int64, Int64) {
        let a = key.a, b = key.b
        let ta = position[a] != nil ? time(a) : 0, tb = position[b] != nil ? time(b) : 0
        if ta != tb { return ta < tb ? (a, b) : (b, a) }
        let pa = byID[a]?.path ?? "", pb = byID[b]?.path ?? ""
        return (pa, a) <= (pb, b) ? (a, b) : (b, a)
    }

    /// Possible duplicate partners of `id` (unconfirmed: same content, or a close pHash of a
    /// file that may be the same capture). Two files that both say when they were taken are one
    /// capture only within `sameCaptureSeconds` (`separateCaptures`), so a photo with a capture
    /// time looks among the photos taken then and the photos that say nothing; only those look
    /// through the whole library's pHashes.
    /// The near copies are looked for outside `id`'s own content, and at most
    /// `candidatesPerContent` files of any one content are taken (its hash joins them all, so a
    /// link to one reaches every one): a picture with more than 64 copies of the same bytes or
    /// pixels filled its lists with them and never met its re-encoded copies, whose own crowd
    /// filled theirs (agent_bench's 20 000 files: a photo's 1 539 copies and its re-encode's
    /// 3 078 made two sets, not one).
    static let candidatesPerContent = 4

    /// Which of `id`'s candidates take a place: not itself, none of its own content, and at most
    /// `candidatesPerContent` files of any other content (each call a fresh count).
    private func admission(for id: Int64) -> (Int64) -> Bool {
        let own = contentOf[id]
        var taken: [Int: Int] = [:]
        return { other in
            guard other != id else { return false }
            guard let c = self.contentOf[other] else { return true }
            let n = taken[c, default: 0]
            guard c != own, n < Self.candidatesPerContent else { return false }
            taken[c] = n + 1
            return true
        }
    }

    private func duplicateCandidates(_ id: Int64) -> [Int64] {
        guard let item = byID[id] else { return [] }
        var out: [Int64] = []
        let limit = rules.copyCandidates + 1
        let own = contentOf[id]
        if let c = own { out += contents[c].prefix(limit).filter { $0 != id } }
        guard let h = item.phash else { return out }
        let admit = admission(for: id)
        let radius = rules.nearCopyRadius
        guard let t = ownTime(id) else {
            let whole = wholeIndex.built
            return out + whole.index.neighbours(of: h, within: radius, limit: limit) { admit(whole.ids[$0]) }.map { whole.ids[$0] }
        }
        var near = timelessIndex.neighbours(of: h, within: radius, limit: limit) { admit(timelessIDs[$0]) }.map { timelessIDs[$0] }
        // The photos taken within `sameCaptureSeconds` of t (a binary search, then a walk).
        var lo = 0, hi = byOwnTime.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if byOwnTime[mid].t < t - rules.sameCaptureSeconds { lo = mid + 1 } else { hi = mid }
        }
        // The nearest pHashes first, then the nearest in time: the first ones in time were taken
        // before (a crowd of 1 500 copies of one picture left no room for another picture's
        // copies a second later, whose pHash is a bit or two away, and they were never linked;
        // nor for those of a blurred frame two seconds later, whose pHash is the same: a copy
        // keeps its picture's capture time to the subsecond).
        var window: [(d: Int, dt: Double, id: Int64)] = []
        while lo < byOwnTime.count && byOwnTime[lo].t <= t + rules.sameCaptureSeconds {
            let other = byOwnTime[lo].id
            if other != id, contentOf[other] == nil || contentOf[other] != own, let ph = byID[other]?.phash {
                let d = (ph ^ h).nonzeroBitCount
                if d <= radius { window.append((d, abs(byOwnTime[lo].t - t), other)) }
            }
            lo += 1
        }
        // Stable: among equals, the walk's (time) order.
        window = window.enumerated().sorted { ($0.element.d, $0.element.dt, $0.offset) < ($1.element.d, $1.element.dt, $1.offset) }.map(\.element)
        for candidate in window where near.count < 2 * limit && admit(candidate.id) { near.append(candidate.id) }
        return out + near
    }

    /// Every pair of candidates taken at most `window` apart with at least one file in `ids`
    /// (nil: every such pair), in timeline order, then the pairs content finds
    /// (`contentPairs`).
    func windowPairs(of ids: Set<Int64>?) throws -> [FilePair] { try windowPairs(of: ids, sameContent: true).pairs }

    /// The photos whose pixels may show the moment `id`'s show, wherever they are on the
    /// timeline: for a photo without a capture time of its own, the nearest pHashes of the whole
    /// library within `GroupRules.similarRadius` (at most `contentNeighbours`, outside its own
    /// content and a few of any one content); for a photo with one, the nearest among the photos
    /// without. Two photos that both say when they were taken are the window's to pair: their
    /// times are evidence the content does not overrule. A messenger's or a download's copies
    /// keep no time, and only their pixels can find their moment (issue 39).
    private func contentCandidates(_ id: Int64) -> [Int64] {
        guard rules.contentNeighbours > 0, let item = byID[id], let h = item.phash else { return [] }
        let counted = admission(for: id)
        // A file named as an edit (`-edited`, `_edit`, `IMG_E…`) was made on purpose from a picture
        // its pixels show: what its content finds is its original under another name, and an
        // edit and its original are never offered against each other (`GroupRules.isEditPair`).
        let edit = memo.namedAsEdit(item)
        let admit = { (other: Int64) in
            guard let o = self.byID[other], self.memo.namedAsEdit(o) == edit else { return false }
            return counted(other)
        }
        let limit = rules.contentNeighbours
        if ownTime(id) == nil {
            let whole = wholeIndex.built
            return whole.index.neighbours(of: h, within: rules.similarRadius, limit: limit) { admit(whole.ids[$0]) }.map { whole.ids[$0] }
        }
        guard !timelessIDs.isEmpty else { return [] }
        return timelessIndex.neighbours(of: h, within: rules.similarRadius, limit: limit) { admit(self.timelessIDs[$0]) }.map {
            timelessIDs[$0]
        }
    }

    /// The pairs `contentCandidates` gives the photos in `ids` (nil: every photo) that the window
    /// does not hold already (`inWindow`), each once, handed to `body` as they are found.
    func forEachContentPair(
        of ids: Set<Int64>?, sameContent: Bool, excluding inWindow: (FilePair) -> Bool, _ body: (FilePair) throws -> Void
    ) rethrows {
        var once = PairsOnce { other in (ids?.contains(other) ?? true) && self.byID.contains(other) }
        for id in (ids.map { Array($0) } ?? timeline.map(\.id)).sorted() {
            once.turn(of: id)
            for other in contentCandidates(id) {
                let key = FilePair(id, other)
                guard !inWindow(key), sameContent || !self.sameContent(key), once.first(other) else { continue }
                try body(key)
            }
        }
    }

    /// Mirrored copies (issue 44): the photos whose pHash is within `nearCopyRadius` of the
    /// mirrored pHash of a photo in `ids` (nil: every photo; `Thumbnail.mirroredHash`, from the
    /// stored signature) and whose thumbnail agrees with its mirrored one as a copy's does
    /// (`mirrorCorrelation`, `nearCopyColorDistance`), with the same aspect. A mirror is a
    /// similar shot of its picture, not a duplicate (the flip was made on purpose, or by a front
    /// camera: the person chooses), and never its keeper (`mirrorOf`). A picture that is its own
    /// mirror (a symmetric façade) meets its copies the usual way. The relation is its own
    /// inverse, so a changed photo finds the unchanged ones it mirrors, and they it.
    func mirrorEdges(of ids: Set<Int64>?) throws -> [FilePair: Double] {
        guard let loadSignatures else { return [:] }
        let whole = wholeIndex.built
        var out: [FilePair: Double] = [:]
        let subjects = (ids.map { Array($0) } ?? timeline.map(\.id)).filter { byID.contains($0) }.sorted()
        for start in stride(from: 0, to: subjects.count, by: 256) {
            try checkpoint()
            let part = Array(subjects[start..<min(subjects.count, start + 256)])
            let signatures = try loadSignatures(part)
            var wanted: [(id: Int64, mirror: Thumbnail, near: [Int64])] = []
            var others = Set<Int64>()
            for id in part {
                guard let sig = signatures[id], let hash = Thumbnail.mirroredHash(signature: sig) else { continue }
                // The neighbours first: most photos have none, and need no thumbnail made.
                let near = whole.index.neighbours(of: hash, within: rules.nearCopyRadius, limit: rules.contentNeighbours).map { whole.ids[$0] }
                    .filter { $0 != id && sameAspect(id, $0) }
                guard !near.isEmpty, let own = Thumbnail(signature: sig) else { continue }
                let mirror = own.mirrored
                if own.direct(with: mirror) >= rules.mirrorCorrelation { continue }
                wanted.append((id, mirror, near))
                others.formUnion(near)
            }
            let thumbs = try loadThumbnails(others.sorted())
            for w in wanted {
                for other in w.near {
                    guard let t = thumbs[other] else { continue }
                    let r = w.mirror.direct(with: t)
                    guard r >= rules.mirrorCorrelation, w.mirror.colorDistance(to: t) <= rules.nearCopyColorDistance else { continue }
                    trace?("mirror\t\(byID[w.id]!.path)\t\(byID[other]!.path)\tr=\(String(format: "%.4f", r))")
                    out[FilePair(w.id, other)] = r
                }
            }
        }
        return out
    }

    /// Whether two photos have one aspect ratio (within 2 %).
    private func sameAspect(_ a: Int64, _ b: Int64) -> Bool {
        guard let x = byID[a], let y = byID[b], let wa = x.width, let ha = x.height, let wb = y.width, let hb = y.height, ha > 0, hb > 0
        else { return false }
        return abs(Double(wa) / Double(ha) - Double(wb) / Double(hb)) <= 0.02 * Double(wa) / Double(ha)
    }

    /// Whether the window pairs two photos: at most `windowNeighbours` places and `window`
    /// seconds apart on the timeline.
    private func inWindow(_ key: FilePair) -> Bool {
        guard let pa = position[key.a], let pb = position[key.b] else { return false }
        return abs(pa - pb) <= places(pa, pb) && abs(timeline[pa].t - timeline[pb].t) <= rules.window
    }

    /// How many places apart on the timeline the window pairs the photos at places `p` and `q`:
    /// `windowNeighbours` when both have a clock (`clock`), `crowdNeighbours` when one was
    /// written by a copy with its crowd and stands where the copy put it.
    private func places(_ p: Int, _ q: Int) -> Int {
        ownTimes[p] == nil && weakTimes[p] == nil || ownTimes[q] == nil && weakTimes[q] == nil ? rules.crowdNeighbours : rules.windowNeighbours
    }

    /// `windowPairs(of:)`, with or without the pairs of the same bytes (`sameContentEdge` gives
    /// their scores), and how many of those there were.
    func windowPairs(of ids: Set<Int64>?, sameContent: Bool) throws -> (pairs: [FilePair], sameContent: Int) {
        var out: [FilePair] = []
        let skipped = try forEachWindowPair(of: ids, sameContent: sameContent) { out.append($0) }
        return (out, skipped)
    }

    /// `windowPairs(of:sameContent:)`'s pairs in its order, handed to `body` one at a time as
    /// the walk finds them (no list of them all); returns how many pairs of one content it left
    /// out.
    @discardableResult
    func forEachWindowPair(of ids: Set<Int64>?, sameContent: Bool, _ body: (FilePair) throws -> Void) throws -> Int {
        var skipped = 0
        func walk(from p: Int, _ step: Int, _ take: (FilePair) throws -> Void) throws {
            var j = p + step
            while j >= 0 && j < timeline.count && abs(j - p) <= rules.windowNeighbours && abs(timeline[j].t - timeline[p].t) <= rules.window {
                if abs(j - p) <= places(p, j) { try take(FilePair(timeline[p].id, timeline[j].id)) }
                j += step
            }
        }
        func take(_ key: FilePair) throws {
            if !sameContent && self.sameContent(key) { skipped += 1 } else { try body(key) }
        }
        guard let ids else {
            for p in timeline.indices { try walk(from: p, 1, take) }
            try forEachContentPair(of: nil, sameContent: sameContent, excluding: inWindow, body)
            return skipped
        }
        var unique = Set<FilePair>()
        for p in ids.compactMap({ position[$0] }).sorted() {
            try walk(from: p, -1) { if unique.insert($0).inserted { try take($0) } }
            try walk(from: p, 1) { if unique.insert($0).inserted { try take($0) } }
        }
        try forEachContentPair(of: ids, sameContent: sameContent, excluding: { unique.contains($0) }, body)
        return skipped
    }

    /// The alignment score of each pair (0 below `minimumOverlap` but for a `burst`'s frames, or
    /// without thumbnails), on all cores (`align(_:scored:)`).
    func align(_ pairs: [FilePair]) throws -> [Double] {
        var scores: [FilePair: Double] = [:]
        try align({ take in for key in pairs { try take(key) } }) { scores[$0] = $1 }
        return pairs.map { scores[$0]! }
    }

    /// The window's pairs and those content finds of the photos in `ids` (nil: all;
    /// `forEachWindowPair`) aligned as the walk lists them (`align(_:scored:)`); returns how
    /// many pairs it listed, those of one content it left out included.
    /// `passing` names the pairs aligned already (by an earlier part of the run, `PartsLedger`):
    /// they are listed but not aligned again.
    func alignWindowPairs(
        of ids: Set<Int64>?, sameContent: Bool, passing: ((FilePair) -> Bool)? = nil, _ scored: (FilePair, Double) throws -> Void
    ) throws -> Int {
        var listed = 0, skipped = 0
        try align(
            { take in
                skipped = try forEachWindowPair(of: ids, sameContent: sameContent) { key in
                    listed += 1
                    if let passing, passing(key) { return }
                    try take(key)
                }
            }, scored: scored)
        return listed + skipped
    }

    /// The alignment score of each pair `pairs` lists (it calls its argument with each), handed to
    /// `scored` as its batch is aligned, on all cores: no list of every pair is held. Thumbnails
    /// are loaded a batch of pairs at a time (`inBatches`), so aligning the window pairs of a
    /// whole library holds a few thousand of them, not the library's. The 3 million pairs of a
    /// 100 000-file library without capture times were listed before and held with a slot, a
    /// copy and a score each: ~100 MB of a first scan's peak.
    /// Two files of the same bytes align perfectly (1; the alignment gives them 1 up to its float
    /// sums' rounding) without their thumbnails, at once: 2 000 copies of one file made 63 000
    /// such pairs, 10 s of a regroup.
    func align(_ pairs: (_ take: (FilePair) throws -> Void) throws -> Void, scored: (FilePair, Double) throws -> Void) throws {
        // The closures are called only while this call runs (Swift cannot see it through the
        // listing's argument).
        // A batch aligns on other threads while this one lists and loads the next (the listing,
        // the thumbnails' reading and the second opinions are this thread's: ~40 % of the
        // pairs' time at a million rows, when it waited for each batch).
        var inFlight: (part: [FilePair], alignment: AlignmentInFlight)?
        defer { _ = inFlight?.alignment.results() }
        func finish() throws {
            guard let (part, alignment) = inFlight else { return }
            inFlight = nil
            for (key, score) in zip(part, scoreBatch(part, alignment.thumbs, alignment.results())) { try scored(key, score) }
        }
        try withoutActuallyEscaping(scored) { scored in
            try inBatches({ batch in
                try withoutActuallyEscaping(batch) { batch in
                    try pairs { key in
                        if sameContent(key) { try scored(key, 1) } else { try batch(key) }
                    }
                }
            }) { part, thumbs in
                let next = AlignmentInFlight(part.map(alignmentOrder), thumbs, threshold: rules.similarThreshold, threads: workers)
                try finish()
                inFlight = (part, next)
            }
        }
        try finish()
    }

    /// A batch's thumbnails aligned pair by pair on other threads (`Parallel.map` over the
    /// pairs by the photo aligned second, whose zooms the coarse search shares), started at
    /// once; `results()` waits for them.
    private final class AlignmentInFlight: @unchecked Sendable {
        typealias Result = (score: Double, overlap: Double, refined: Bool)
        let thumbs: [Int64: Thumbnail]
        private let done = DispatchSemaphore(value: 0)
        private var aligned: [Result?]?

        init(_ ordered: [(Int64, Int64)], _ thumbs: [Int64: Thumbnail], threshold: Double, threads: Int) {
            self.thumbs = thumbs
            var bySecond: [Int64: [Int]] = [:]
            for (i, pair) in ordered.enumerated() { bySecond[pair.1, default: []].append(i) }
            let groups = bySecond.values.sorted { $0[0] < $1[0] }
            let thread = Thread { [self] in
                let done = Parallel.map(groups, threads: threads) { [thumbs] members -> [(Int, Result?)] in
                    guard let tb = thumbs[ordered[members[0]].1] else { return members.map { ($0, nil) } }
                    let zooms = Thumbnail.CoarseZooms(tb)
                    return members.map { i in (i, thumbs[ordered[i].0].map { $0.aligned(with: tb, zooms: zooms, reaching: threshold) }) }
                }
                var results = [Result?](repeating: nil, count: ordered.count)
                for group in done { for (i, r) in group { results[i] = r } }
                self.aligned = results
                self.done.signal()
            }
            thread.stackSize = 4 << 20
            thread.start()
        }

        /// Whether the caller has waited (the caller's thread alone reads it).
        private var waited = false

        /// The alignments, in the batch's order (nil: a thumbnail missing); waits for them once.
        func results() -> [Result?] {
            if !waited {
                done.wait()
                waited = true
            }
            return aligned!
        }
    }

    /// `align`'s scores of one batch of pairs, all of them of two contents, from their
    /// thumbnails' alignments.
    private func scoreBatch(_ part: [FilePair], _ thumbs: [Int64: Thumbnail], _ results: [AlignmentInFlight.Result?]) -> [Double] {
        let threshold = rules.similarThreshold
        var out = [Double](repeating: 0, count: part.count)
        for (i, (key, r)) in zip(part, results).enumerated() {
            guard let r else { continue }
            out[i] = r.refined && (r.overlap >= rules.minimumOverlap || burst(key)) ? r.score : 0
            tracePair(key, (r.score, r.overlap), refined: r.refined)
        }
        // A second opinion, one pair at a time (the helper is one process): the frames
        // themselves, for the pairs of one moment the thumbnails reject.
        guard matchFrames != nil else { return out }
        for (i, key) in part.enumerated() where out[i] < threshold {
            let still = thumbs[key.a].flatMap { a in thumbs[key.b].map { a.stillShare(with: $0) } } ?? 0
            if verified(key, thumbnailScore: results[i]?.score ?? 0, thumbnailStill: still) { out[i] = threshold }
        }
        return out
    }

    /// Whether `key`'s two photos are frames of one burst: at most `GroupRules.burstSeconds`
    /// apart by their clocks (`clock`: their own capture times, or a weak clock — the mtime of a
    /// file no copy wrote at once with its folder's others, `WeakClock`).
    func burst(_ key: FilePair) -> Bool {
        guard let dt = clockGap(key) else { return false }
        return dt <= rules.burstSeconds
    }

    /// Whether geometric verification (`matchFrames`) finds `key`'s two photos one moment: taken
    /// at most `GroupRules.verifySeconds` apart by their own capture times, with thumbnails that
    /// still score `verifyFloor`, and a homography over at least `verifyInliers` keypoint
    /// matches that keeps `verifyShared` of each frame inside the other, or frames whose
    /// `verifyStill` share is unchanged where it stands (a still camera, a subject moved); a
    /// burst's frames (`burst`) with a homography over `burstInliers` matches, whatever it shares.
    func verified(_ key: FilePair, thumbnailScore: Double, thumbnailStill: Double = 0) -> Bool {
        // Capture times further apart than a minute (a burst, a blur ladder, a few retakes) say
        // the two are two moments. A weak clock may be a chat's saving time, minutes off the
        // moment (`WeakClock`): it says so only a day apart. Without a clock the content alone
        // decides.
        // Without both capture times the keypoints are asked of the pairs the content found
        // (pHashes within `similarRadius`, `contentPairs`) or a weak clock puts within a minute:
        // every window pair of a library without EXIF would be a helper call.
        let dt = clockGap(key)
        let bothOwn = ownTime(key.a) != nil && ownTime(key.b) != nil
        guard let matchFrames, thumbnailScore >= rules.verifyFloor, let x = byID[key.a], let y = byID[key.b] else { return false }
        if bothOwn {
            guard let dt, dt <= rules.verifySeconds else { return false }
        } else {
            // …or whose thumbnails keep most of the frame where it stands (`Thumbnail.stillShare`:
            // a still camera's frames, a subject moved over a plain scene, whatever their pHashes).
            let near = x.phash.flatMap { a in y.phash.map { ($0 ^ a).nonzeroBitCount <= rules.similarRadius } } ?? false
            let still = thumbnailStill >= rules.thumbnailStill
            guard ((near || still) && (dt ?? 0) <= rules.weakClockApart) || (dt.map { $0 <= rules.verifySeconds } ?? false) else { return false }
        }
        guard let m = alignmentOrder(key).0 == key.a ? matchFrames(x, y) : matchFrames(y, x) else { return false }
        let yes =
            (m.inliers >= rules.verifyInliers && m.shared >= rules.verifyShared) || m.still >= rules.verifyStill
            || (dt.map { $0 <= rules.burstSeconds } ?? false && m.inliers >= rules.burstInliers)
        trace?(
            "verify\t\(x.path)\t\(y.path)\tdt=\(dt.map { String(Int($0)) } ?? "-")\tscore=\(String(format: "%.3f", thumbnailScore))\tkeypoints=\(m.keypoints.0),\(m.keypoints.1)\tmatches=\(m.matches)\tinliers=\(m.inliers)\tshared=\(String(format: "%.2f", m.shared))\tstill=\(String(format: "%.2f", m.still))\t\(yes ? "same" : "no")"
        )
        return yes
    }

    /// Whether the pair's two files are of one content: the same bytes (their content hashes),
    /// or the same pixels of one `PixelClass`.
    func sameContent(_ key: FilePair) -> Bool {
        guard let c = contentOf[key.a] else { return false }
        return c == contentOf[key.b]
    }

    /// Calls `body` for consecutive batches of the pairs `pairs` lists (it calls its argument
    /// with each) with the thumbnails of their files (a batch's worth in memory at a time,
    /// whatever the number of pairs). A thumbnail with its
    /// summed planes is ~30 KB: with 1 024 pairs a batch a full regroup of 100 000 photos peaked
    /// 43 MB higher than with 256, which cost ~2 % more CPU (a file in pairs of two batches is loaded twice).
    /// What the batches free (thumbnails, the aligning threads' working planes, each thread's
    /// heap arena) the heap keeps for reuse, up to 256 MB (`Memory.keepLargeBlocksInTheHeap`):
    /// the alignment of a 100 000-file library without capture times peaked ~100 MB of resident
    /// set above its heap in use. It is given back once a second (`Memory.releaseFreeMemory`).
    private func inBatches(
        _ pairs: (_ add: (FilePair) throws -> Void) throws -> Void, _ body: ([FilePair], [Int64: Thumbnail]) throws -> Void
    ) throws {
        let batch = 256
        var part: [FilePair] = [], batches = 0
        part.reserveCapacity(batch)
        var released = ContinuousClock.now
        try withoutActuallyEscaping(body) { body in
            func run() throws {
                try checkpoint()
                try body(part, try loadThumbnails(Array(Set(part.flatMap { [$0.a, $0.b] })).sorted()))
                part.removeAll(keepingCapacity: true)
                batches += 1
                if ContinuousClock.now - released > .seconds(1) {
                    Memory.releaseFreeMemory()
                    released = ContinuousClock.now
                }
            }
            try pairs { key in
                part.append(key)
                if part.count == batch { try run() }
            }
            if !part.isEmpty { try run() }
        }
        if batches > 1 { Memory.releaseFreeMemory() }
    }

    /// Every pair with at least one file in `ids` (nil: every pair) that may be two copies of
    /// one picture: the same content, or pHashes within `nearCopyRadius` of files that do not say
    /// they were taken at different times and have one aspect ratio (`mayBeCopies`). The
    /// thumbnails decide (`copyScores`). A library of crops of a few scenes holds thousands of
    /// close pHashes per scene; the capture times rule most of them out before any thumbnail.
    func duplicatePairs(of ids: Set<Int64>?) -> [FilePair] { duplicatePairs(of: ids, sameContent: true) }

    /// `duplicatePairs(of:)`, with or without the pairs of the same bytes (`sameContentParts`
    /// links them).
    func duplicatePairs(of ids: Set<Int64>?, sameContent: Bool) -> [FilePair] {
        var out: [FilePair] = []
        forEachDuplicatePair(of: ids, sameContent: sameContent) { out.append($0) }
        return out
    }

    /// `duplicatePairs(of:sameContent:)`'s pairs in its order, handed to `body` as they are found.
    func forEachDuplicatePair(of ids: Set<Int64>?, sameContent: Bool, _ body: (FilePair) throws -> Void) rethrows {
        var once = PairsOnce { other in (ids?.contains(other) ?? true) && self.byID.contains(other) }
        for id in (ids.map { Array($0) } ?? timeline.map(\.id)).sorted() {
            once.turn(of: id)
            for other in duplicateCandidates(id) where mayBeCopies(id, other) {
                let key = FilePair(id, other)
                guard sameContent || !self.sameContent(key), once.first(other) else { continue }
                try body(key)
            }
        }
    }

    /// The checks of `copyScore` that need no thumbnail.
    private func mayBeCopies(_ a: Int64, _ b: Int64) -> Bool {
        guard let x = byID[a], let y = byID[b] else { return false }
        if sameContent(FilePair(a, b)) { return true }
        guard !rules.separateCaptures(ownTime(a), ownTime(b)),
            let pa = x.phash, let pb = y.phash, (pa ^ pb).nonzeroBitCount <= rules.nearCopyRadius,
            let wa = x.width, let ha = x.height, let wb = y.width, let hb = y.height, ha > 0, hb > 0
        else { return false }
        return abs(Double(wa) / Double(ha) - Double(wb) / Double(hb)) <= 0.02 * Double(wa) / Double(ha)
    }

    /// `copyScore` of each pair, thumbnails loaded a batch of pairs at a time.
    /// Pairs of the same bytes score 2 without loading their thumbnails.
    func copyScores(_ pairs: [FilePair]) throws -> [Double?] {
        var scores: [FilePair: Double?] = [:]
        try copyScores({ take in for key in pairs { try take(key) } }) { scores[$0] = $1 }
        return pairs.map { scores[$0]! }
    }

    /// `copyScore` of each pair `pairs` lists (it calls its argument with each), handed to
    /// `scored` as its batch is done (`inBatches`; `prepare` is given each batch first, as the
    /// grouper reads the metrics its files need): no list of every pair is held. Pairs of the
    /// same bytes score 2 at once, without their thumbnails.
    func copyScores(
        _ pairs: (_ take: (FilePair) throws -> Void) throws -> Void, prepare: ([FilePair]) throws -> Void = { _ in },
        scored: (FilePair, Double?) throws -> Void
    ) throws {
        try withoutActuallyEscaping(scored) { scored in
            try inBatches({ batch in
                try withoutActuallyEscaping(batch) { batch in
                    try pairs { key in
                        if sameContent(key) { try scored(key, 2) } else { try batch(key) }
                    }
                }
            }) { part, thumbs in
                try prepare(part)
                for key in part { try scored(key, copyScore(key.a, key.b, thumbs)) }
            }
        }
    }

    private func tracePair(_ key: FilePair, _ r: (score: Double, overlap: Double), refined: Bool = true) {
        guard let trace, let x = byID[key.a], let y = byID[key.b] else { return }
        let ph = (x.phash.map { p in y.phash.map { (p ^ $0).nonzeroBitCount } ?? -1 }) ?? -1
        trace(
            "pair\t\(x.path)\t\(y.path)\tdt=\(Int(abs(time(key.a) - time(key.b))))\tscore=\(String(format: "%.3f", r.score))\toverlap=\(String(format: "%.2f", r.overlap))\tphash=\(ph)\(refined ? "" : "\tcoarse only")"
        )
    }

    /// The connected components, under edges and copy links, that hold any of `seeds`
    /// (nil: every component). A change to a file can only change the sets of its component (and
    /// of the component it left, whose members the caller adds to `seeds`).
    func components(around seeds: Set<Int64>?) -> [[Int64]] {
        // A union-find over the photos, not an adjacency list of every pair: the copies of a
        // duplicate-heavy library (600 photos × 83 copies) make ~3 million pairs, and their
        // lists (with two arrays of the keys to build them) were ~150 MB of a regroup's peak.
        // A file outside the table (`byID`) joins a component but links nothing through it;
        // such pairs are rare and kept aside (`outside`), so the components are the walk's.
        var parent: [Int64: Int64] = [:]
        func find(_ x: Int64) -> Int64 {
            var x = x
            while let p = parent[x], p != x {
                let up = parent[p] ?? p
                parent[x] = up
                x = up
            }
            return x
        }
        var outside: [Int64: [Int64]] = [:]
        func link(_ key: FilePair) {
            let (ia, ib) = (byID.contains(key.a), byID.contains(key.b))
            guard ia && ib else {
                outside[key.a, default: []].append(key.b)
                outside[key.b, default: []].append(key.a)
                return
            }
            if parent[key.a] == nil { parent[key.a] = key.a }
            if parent[key.b] == nil { parent[key.b] = key.b }
            let (ra, rb) = (find(key.a), find(key.b))
            if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
        }
        for key in edges.keys { link(key) }
        for key in copyLinks.keys { link(key) }
        // The files of one content are linked by their hash (two names of one file too: a
        // component may hold files no link joins, which cluster apart).
        for members in contents { for m in members.dropFirst() { link(FilePair(members[0], m)) } }
        var classes: [Int64: [Int64]] = [:]
        for id in parent.keys { classes[find(id), default: []].append(id) }
        var out: [[Int64]] = []
        var taken = Set<Int64>()
        for seed in (seeds.map { Array($0) } ?? timeline.map(\.id)).sorted() where !taken.contains(seed) {
            guard byID.contains(seed) else {
                // The walk takes such a file and goes no further.
                taken.insert(seed)
                out.append([seed])
                continue
            }
            var component = classes[find(seed)] ?? [seed]
            taken.formUnion(component)
            if !outside.isEmpty {
                for id in component {
                    for other in outside[id, default: []] where taken.insert(other).inserted { component.append(other) }
                }
            }
            out.append(component.sorted())
        }
        return out
    }

    /// Clusters one component (or a union of components) into sets of at least two files: its
    /// copies into pictures (`copyClusters`), the pictures by complete linkage over their scores
    /// (`linkPictures`), each set with its keeper (`makeSet`).
    func cluster(_ region: [Int64]) throws -> [ComputedSet] {
        let ids = region.filter { byID.contains($0) }.sorted()
        guard ids.count >= 2 else { return [] }
        // Names read once for the region: the merges below ask of every pair of files.
        let editNames = Dictionary(uniqueKeysWithValues: ids.map { ($0, GroupRules.EditName(byID[$0]!)) })
        let (copies, rootOf) = try copyClusters(ids, editNames)
        // The original of each duplicate cluster stands for the picture.
        var original: [Int64: Int64] = [:]  // cluster root -> original
        for (root, members) in copies {
            original[root] = members.min { rules.originalOrder(byID[$0]!, byID[$1]!, edited: memo.edited) }!
        }
        let pictures = copies.keys.sorted()
        let pictureOf = Dictionary(uniqueKeysWithValues: pictures.map { (original[$0]!, $0) })
        let reps = pictures.map { original[$0]! }.sorted { (time($0), $0) < (time($1), $1) }
        // The pictures' thumbnails only (the scores below compare pictures): a region of one
        // picture's 4 600 copies held all their thumbnails, ~140 MB, for none of them.
        let scores = PictureScores(self, thumbnails: try loadThumbnails(reps.sorted()))
        let members = try linkPictures(reps, scores: scores, editNames: editNames) { copies[pictureOf[$0]!]! }
        // Sets with their keeper.
        var out: [ComputedSet] = []
        for (_, reps) in members.sorted(by: { $0.key < $1.key }) {
            let all = reps.flatMap { copies[pictureOf[$0]!]! }
            guard all.count >= 2 else { continue }
            out.append(makeSet(all, pictures: reps, original: { original[rootOf[$0]!]! }, thumbs: scores.thumbnails))
        }
        // Tuning aid: the pairs this region asked `score` of (its cost grows with them).
        trace?("region\tfiles=\(ids.count)\tpictures=\(reps.count)\tscored=\(scores.cache.count)\tsets=\(out.count)")
        return out
    }

    /// The duplicate clusters of `ids` (each a picture): the copies of each cluster by its root,
    /// and each file's root. Byte-identical links first, then near-copies best first; one picture
    /// is one capture.
    private func copyClusters(_ ids: [Int64], _ editNames: [Int64: GroupRules.EditName]) throws -> ([Int64: [Int64]], [Int64: Int64]) {
        let region = Set(ids)
        var parent = Dictionary(uniqueKeysWithValues: ids.map { ($0, $0) })
        func find(_ x: Int64) -> Int64 {
            var x = x
            while parent[x]! != x { parent[x] = parent[parent[x]!]!; x = parent[x]! }
            return x
        }
        // Copy links, byte-identical ones first, then near-copies best first.
        var links: [(r: Double, a: Int64, b: Int64)] = []
        for id in ids {
            for d in copyPartners[id, default: []] where d > id && region.contains(d) {
                guard !verdicts.contains(FilePair(id, d)), let r = copyLinks[FilePair(id, d)] else { continue }
                links.append((r, id, d))
            }
        }
        links.sort { ($0.r, $1.a, $1.b) > ($1.r, $0.a, $0.b) }
        // One picture is one capture: two clusters join only when no member of one says it was
        // taken at another time than a member of the other (`GroupRules.separateCaptures`), so a
        // file without a capture time of its own cannot bridge two captures either.
        // The same bytes are one file whatever their names say.
        var copyMembers = Dictionary(uniqueKeysWithValues: ids.map { ($0, [$0]) })
        // The byte-identical links first (score 2, above every other): the files of one content
        // in the region, in the parts those links join.
        var ofContent: [Int: [Int64]] = [:]
        for id in ids { if let c = contentOf[id] { ofContent[c, default: []].append(id) } }
        for members in ofContent.values where members.count > 1 {
            for part in sameContentParts(members) where part.count > 1 {
                for m in part.dropFirst() { parent[m] = part[0] }
                copyMembers[part[0]] = part
                for m in part.dropFirst() { copyMembers[m] = nil }
            }
        }
        for (n, link) in links.enumerated() {
            if n % 1024 == 1023 { try checkpoint() }
            let (ra, rb) = (find(link.a), find(link.b))
            guard ra != rb else { continue }
            if link.r < 2 {
                let timed = { (root: Int64) in copyMembers[root]!.compactMap { self.ownTime($0) } }
                let (ta, tb) = (timed(ra), timed(rb))
                guard !ta.contains(where: { x in tb.contains { rules.separateCaptures(x, $0) } }) else { continue }
                // Nor does a third copy bridge an edit and its original.
                guard !holdsEditPair(copyMembers[ra]!, copyMembers[rb]!, editNames) else { continue }
            }
            let (keep, drop) = (min(ra, rb), max(ra, rb))
            parent[drop] = keep
            copyMembers[keep]! += copyMembers[drop]!
            copyMembers[drop] = nil
        }
        var copies: [Int64: [Int64]] = [:], rootOf: [Int64: Int64] = [:]
        for id in ids {
            let root = find(id)
            copies[root, default: []].append(id)
            rootOf[id] = root
        }
        return (copies, rootOf)
    }

    /// The scores of a region's pictures, each pair asked once: pairs within the window were
    /// aligned when either file last changed (`edges`); a complete-linkage check can ask for a
    /// pair further apart, aligned here.
    private final class PictureScores {
        let clustering: SimilarClustering
        let thumbnails: [Int64: Thumbnail]
        var cache: [FilePair: Double] = [:]

        init(_ clustering: SimilarClustering, thumbnails: [Int64: Thumbnail]) {
            self.clustering = clustering
            self.thumbnails = thumbnails
        }

        func score(_ a: Int64, _ b: Int64) -> Double {
            let key = FilePair(a, b)
            if let s = cache[key] { return s }
            let c = clustering, rules = c.rules
            var s = 0.0
            if !rules.maySimilar(c.byID[a]!, c.byID[b]!, pageWords: c.pageWords) {
                s = 0
            } else if let e = c.edges[key] {
                s = e
            } else if abs(c.time(a) - c.time(b)) <= rules.window {
                s = c.edges[key] ?? c.sameContentEdge(a, b) ?? 0
            } else if case (let x, let y) = c.alignmentOrder(key), let ta = thumbnails[x], let tb = thumbnails[y] {
                let r = ta.aligned(with: tb)
                s = r.overlap >= rules.minimumOverlap ? r.score : 0
                c.tracePair(key, r)
            }
            cache[key] = s
            return s
        }

        /// The pair's thumbnails' best score at any overlap the alignment searches (a burst's
        /// frames are judged at any overlap, `GroupRules.burstSeconds`); 0 without thumbnails,
        /// and for two files of one content (the same bytes, a hard link: never aligned, their
        /// hashes say what they are).
        func anyOverlap(_ a: Int64, _ b: Int64) -> Double {
            let key = FilePair(a, b)
            if let s = anyOverlapCache[key] { return s }
            let c = clustering
            var s = 0.0
            if !c.sameContent(key), c.rules.maySimilar(c.byID[a]!, c.byID[b]!, pageWords: c.pageWords),
                case (let x, let y) = c.alignmentOrder(key),
                let ta = thumbnails[x], let tb = thumbnails[y]
            {
                let r = ta.aligned(with: tb)
                s = r.score
                c.tracePair(key, r)
            }
            anyOverlapCache[key] = s
            return s
        }
        private var anyOverlapCache: [FilePair: Double] = [:]
    }

    /// Whether `x` and `y` are frames of one burst that `cluster` and `other` (pictures, the two
    /// clusters a merge would join) show whole: their clocks at most
    /// `GroupRules.burstSpanSeconds` apart, and every frame of the two between them at most
    /// `burstSeconds` from the one before. A camera swung after a subject while
    /// the exposure rises (a held-out diver clip: frames a second apart, each with the next one
    /// moment, the first and the third half in common) keeps its burst: complete linkage asked
    /// the first and third frames the overlap of two separate moments.
    private func burstChained(_ x: Int64, _ y: Int64, in cluster: [Int64], _ other: [Int64]) -> Bool {
        guard let tx = clock(x), let ty = clock(y), abs(tx - ty) <= rules.burstSpanSeconds else { return false }
        let (lo, hi) = (min(tx, ty), max(tx, ty))
        var between: [Double] = []
        for id in [cluster, other].joined() {
            guard let t = clock(id) else { continue }
            if t >= lo && t <= hi { between.append(t) }
        }
        between.sort()
        for i in between.indices.dropFirst() where between[i] - between[i - 1] > rules.burstSeconds { return false }
        return true
    }

    /// The region's pictures (`reps`, in time order) merged greedily, best pair first, by
    /// complete linkage; the pictures of each cluster by its first picture. `files` gives a
    /// picture's files.
    private func linkPictures(
        _ reps: [Int64], scores: PictureScores, editNames: [Int64: GroupRules.EditName], files: (Int64) -> [Int64]
    ) throws -> [Int64: [Int64]] {
        let isPicture = Set(reps)
        var candidates: [(Double, Int64, Int64)] = []
        for (i, a) in reps.enumerated() {
            if i % 256 == 255 { try checkpoint() }
            var j = i + 1
            while j < reps.count && time(reps[j]) - time(a) <= rules.window {
                let b = reps[j]
                j += 1
                // Within the window a pair scores through its alignment (`edges`) or its bytes
                // alone: without either it is no candidate, and asking `score` (the rules on
                // names, a cached 0) of every two files of a crowded second — thousands of
                // files copied at once, timed by their mtime — cost quadratic time and memory.
                let key = FilePair(a, b)
                guard edges[key] != nil || sameContent(key) else { continue }
                let s = scores.score(a, b)
                if s >= rules.similarThreshold { candidates.append((s, min(a, b), max(a, b))) }
            }
            // The pairs content found beyond the window (`contentPairs`), once each.
            for b in edgePartners[a, default: []] where isPicture.contains(b) && time(b) - time(a) > rules.window {
                let s = scores.score(a, b)
                if s >= rules.similarThreshold { candidates.append((s, min(a, b), max(a, b))) }
            }
        }
        candidates.sort { ($0.0, $1.1, $1.2) > ($1.0, $0.1, $0.2) }
        // Complete linkage over pictures.
        var clusterOf = Dictionary(uniqueKeysWithValues: reps.map { ($0, $0) })
        var members = Dictionary(uniqueKeysWithValues: reps.map { ($0, [$0]) })
        for (n, (_, a, b)) in candidates.enumerated() {
            if n % 1024 == 1023 { try checkpoint() }
            let ca = clusterOf[a]!, cb = clusterOf[b]!
            guard ca != cb else { continue }
            var ok = true
            outer: for x in members[ca]! {
                for y in members[cb]! {
                    if scores.score(x, y) < rules.similarThreshold {
                        // Frames of one burst the merge shows whole are alike at any overlap.
                        guard burstChained(x, y, in: members[ca]!, members[cb]!), scores.anyOverlap(x, y) >= rules.similarThreshold else {
                            ok = false; break outer
                        }
                    }
                    for fx in files(x) { for fy in files(y) where verdicts.contains(FilePair(fx, fy)) { ok = false; break outer } }
                    // An edit and its original are never in one set, whichever copies of them
                    // bring them close (a re-saved export of the original beside the crop).
                    if holdsEditPair(files(x), files(y), editNames) { ok = false; break outer }
                }
            }
            guard ok else { continue }
            let (keep, drop) = (min(ca, cb), max(ca, cb))
            for x in members[drop]! { clusterOf[x] = keep }
            members[keep]! += members[drop]!
            members[drop] = nil
        }
        return members
    }

    /// One set of the files `all` (its `pictures` and their copies; `original` gives a file's
    /// picture's original), with its keeper.
    private func makeSet(_ all: [Int64], pictures reps: [Int64], original: (Int64) -> Int64, thumbs: [Int64: Thumbnail]) -> ComputedSet {
        let items = all.map { byID[$0]! }
        let originals = Set(reps)
        let scoreOf = KeeperScore.scores(items.filter { originals.contains($0.id) }, rules: rules)
        var set = ComputedSet(members: [])
        for item in items {
            let root = original(item.id)
            let dup: Int64? = root == item.id ? nil : root
            // Copies rank below their original.
            set.members.append(.init(id: item.id, isKeeper: false, duplicateOf: dup, score: scoreOf[item.id] ?? ((scoreOf[root] ?? 0) - 1)))
        }
        let chosen = all.filter { keeperChoices.contains($0) }.min()
        // A mirrored copy is never the keeper over the picture it mirrors.
        let mirrors = mirrorsAmong(reps, thumbs)
        // Never a member its own set calls blurry (`relativelyBlurry`) or an Oops Shot
        // (`oopsInSet`) while another is neither: a frame pushed two stops over the rest reads
        // sharper (its edges' contrast doubled) than the right exposure. Failing that, never an
        // Oops Shot while another is not, then never a blurry one.
        let pictures = items.filter { originals.contains($0.id) }
        let blurry = Set(rules.relativelyBlurry(pictures).map(\.0))
        let oops = Set(pictures.filter { rules.isOopsInSet($0, mates: pictures) }.map(\.id))
        let originalsFirst = set.members.filter { $0.duplicateOf == nil }
        let tiers = [
            originalsFirst.filter { !blurry.contains($0.id) && !oops.contains($0.id) }, originalsFirst.filter { !oops.contains($0.id) },
            originalsFirst.filter { !blurry.contains($0.id) },
        ]
        var pool = tiers.first { !$0.isEmpty } ?? originalsFirst
        if pool.contains(where: { !mirrors.contains($0.id) }) { pool = pool.filter { !mirrors.contains($0.id) } }
        // The user's own word first: the frames rated highest, when that is a favourite
        // (4 or 5 stars, in darktable, digiKam or the camera), even one the set calls blurry;
        // a frame rejected there (−1) only when every frame is.
        func rating(_ m: ComputedSet.Member) -> Int { byID[m.id]?.rating ?? 0 }
        if let top = originalsFirst.map(rating).max(), top >= GroupRules.favouriteRating {
            pool = originalsFirst.filter { rating($0) == top }
        } else if pool.contains(where: { rating($0) >= 0 }) {
            pool = pool.filter { rating($0) >= 0 }
        }
        let keeper = chosen ?? pool.max { ($0.score, -$0.id) < ($1.score, -$1.id) }!.id
        for i in set.members.indices { set.members[i].isKeeper = set.members[i].id == keeper }
        return set
    }

    /// The pictures among `reps` that mirror another of them (`mirrorEdges`' test on their
    /// thumbnails), the one of each such pair that is less the original (`originalOrder`).
    private func mirrorsAmong(_ reps: [Int64], _ thumbs: [Int64: Thumbnail]) -> Set<Int64> {
        guard loadSignatures != nil, reps.count <= 64 else { return [] }
        var out = Set<Int64>()
        for (i, a) in reps.enumerated() {
            guard let ta = thumbs[a] else { continue }
            for b in reps[(i + 1)...] {
                guard let tb = thumbs[b], edges[FilePair(a, b)] != nil, ta.direct(with: tb) < rules.mirrorCorrelation,
                    ta.mirrored.direct(with: tb) >= rules.mirrorCorrelation
                else { continue }
                out.insert(rules.originalOrder(byID[a]!, byID[b]!, edited: memo.edited) ? b : a)
            }
        }
        return out
    }

    /// Whether a file of `a` is, by its name, the edit or the original of a file of `b`.
    private func holdsEditPair(_ a: [Int64], _ b: [Int64], _ names: [Int64: GroupRules.EditName]) -> Bool {
        a.contains { x in b.contains { y in GroupRules.isEditPair(names[x]!, names[y]!) } }
    }

    /// Whether `a` and `b` are copies of one picture (exact or near), and how sure: 2 for the same
    /// bytes, else the thumbnails' unaligned correlation; nil when they are not copies.
    private func copyScore(_ a: Int64, _ b: Int64, _ thumbs: [Int64: Thumbnail]) -> Double? {
        let x = byID[a]!, y = byID[b]!
        if sameContent(FilePair(a, b)) { return 2 }
        // `duplicatePairs` gave only pairs that pass `mayBeCopies`: the thumbnails decide.
        guard let pa = x.phash, let pb = y.phash, let ta = thumbs[a], let tb = thumbs[b] else { return nil }
        let r = ta.direct(with: tb), c = ta.colorDistance(to: tb)
        trace?("copy?\t\(x.path)\t\(y.path)\tr=\(String(format: "%.4f", r))\tcolor=\(String(format: "%.1f", c))\tphash=\((pa ^ pb).nonzeroBitCount)")
        guard r >= rules.nearCopyCorrelation && c <= rules.nearCopyColorDistance && rules.sameSharpness(x, y) else { return nil }
        // The pictures look the same; one must be able to be the other's copy.
        var same: Bool?
        let samePixels = {
            same
                ?? {
                    same = self.samePixels(x, y); return same!
                }()
        }
        guard
            rules.mayBeCopy(x, of: y, samePixels: samePixels, edited: memo.edited)
                || rules.mayBeCopy(y, of: x, samePixels: samePixels, edited: memo.edited)
        else {
            trace?("copy?\t\(x.path)\t\(y.path)\tno direction\tsame pixels=\(same.map(String.init) ?? "-")")
            return nil
        }
        return r
    }
}

/// Whether a pair is listed for the first time, when photos take turns in ascending id order,
/// each listing its partners (`forEachContentPair`, `forEachDuplicatePair`): a pair of two photos
/// that both take a turn may come from either side, and is remembered only until its later
/// photo's turn — not for the whole walk, as a set of every pair listed was (a pair and the set's
/// room, ~40 bytes, for each of the up to 16 a photo without a capture time lists).
struct PairsOnce {
    /// Whether a photo takes a turn (only its partners listed before it can come again).
    let takesATurn: (Int64) -> Bool
    /// The earlier photos that listed each photo whose turn is still to come.
    private var waiting: [Int64: [Int64]] = [:]
    private var current: Int64 = .min
    /// The earlier photos that listed the photo whose turn it is, and the partners it listed.
    private var earlier = Set<Int64>()
    private var taken = Set<Int64>()

    init(takesATurn: @escaping (Int64) -> Bool) {
        self.takesATurn = takesATurn
    }

    /// `id`'s turn begins (each photo's once, in ascending order).
    mutating func turn(of id: Int64) {
        precondition(id > current, "PairsOnce: the photos take their turns in ascending id order")
        current = id
        earlier = Set(waiting.removeValue(forKey: id) ?? [])
        taken.removeAll(keepingCapacity: true)
    }

    /// Whether the photo whose turn it is, listing `other`, lists their pair for the first time.
    mutating func first(_ other: Int64) -> Bool {
        guard taken.insert(other).inserted else { return false }
        if other < current { return !earlier.contains(other) }
        if takesATurn(other) { waiting[other, default: []].append(current) }
        return true
    }

    /// How many pairs wait for their later photo's turn (a tuning aid, and the tests').
    var waitingPairs: Int { waiting.values.reduce(0) { $0 + $1.count } }
}

/// A pHash multi-index over many photos, built the first time it is asked for.
private final class LazyIndex {
    private var entries: [(id: Int64, hash: UInt64)]
    private var made: (index: HashIndex, ids: [Int64])?

    init(_ entries: [(Int64, UInt64)]) {
        self.entries = entries.map { (id: $0.0, hash: $0.1) }
    }

    var built: (index: HashIndex, ids: [Int64]) {
        if let made { return made }
        var index = HashIndex()
        for e in entries { index.insert(e.hash) }
        index.freeze()
        let result = (index, entries.map(\.id))
        made = result
        entries = []
        return result
    }
}

/// `GroupRules.namedAsEdit` and `GroupRules.looksEdited` by photo, each computed the first time
/// it is asked for (asked on the clustering's calling thread only).
final class NameMemo {
    /// Whether each is known, and its answer, a bit a file id (a million rows: 0.5 MB).
    private let namedKnown = IDBits(), named = IDBits(), looksKnown = IDBits(), looks = IDBits()

    func namedAsEdit(_ item: GroupItem) -> Bool {
        if namedKnown.contains(item.id) { return named.contains(item.id) }
        let k = GroupRules.namedAsEdit(item.path)
        namedKnown.insert(item.id)
        if k { named.insert(item.id) }
        return k
    }

    func edited(_ item: GroupItem) -> Bool {
        if looksKnown.contains(item.id) { return looks.contains(item.id) }
        let k = GroupRules.looksEdited(item.path)
        looksKnown.insert(item.id)
        if k { looks.insert(item.id) }
        return k
    }
}

/// Where a file is on disk: its device and inode (`files.device`, `files.inode`).
struct DiskIdentity: Hashable {
    let device: Int64, inode: Int64
}
