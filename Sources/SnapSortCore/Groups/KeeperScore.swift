import Foundation

/// The suggested keeper of a Similar Shots set: a documented weighted score, relative within the
/// set so that no global threshold is involved.
///
/// score = 3.0 × sharpness + 2.0 × exposure + 0.5 × resolution + 1.0 × rating + 1.0 × edited
///         + 1.5 × eyes + 0.01 × newer
/// - sharpness: the subject's (`subjectSharpness`: the sharpest region's Laplacian variance less
///   what the frame's noise gives, in stops), minus the set's best (0 for the sharpest frame,
///   −1 for half as sharp), floored at −3. A person judges a frame where its subject is: a frame
///   focused on the subject over a soft background beats one a little soft all over (the
///   median tile, which counted at half weight until issue 29, made the frame soft all over the
///   keeper), and grain is no detail (the same frame with a pushed sensor's grain read half a stop
///   sharper than clean on the sharpest 4×4 tile, up to 1.6 with the median tile). Not divided by the frame's
///   contrast (as `GroupRules.relativelyBlurry` is): the dark frames of a burst then read
///   sharper than the right exposure (their noise), and the keeper was wrong in a third of the
///   corpora's bursts. Instead a member its set calls blurry is never the keeper while another
///   is not (`SimilarClustering.cluster`): a brighter shaken frame no longer beats a sharp
///   darker one.
/// - exposure: 0 for a well exposed frame, down to −1 for a dark, blown or washed-out one by
///   what its set agrees with (`GroupRules.exposurePenalty(_:mates:)`: a bright scene's right
///   exposure is not blown beside frames a stop under), less four times the share of clipped
///   highlights (detail a frame under the penalty's 10 % still loses: a tenth clipped costs as
///   much as a frame a tenth less sharp gains), less `underexposedWeight` for each stop it lies
///   under the set's right exposure (`GroupRules.rightExposure`) beyond `underexposedSlack`.
///   A frame a stop under reads sharper through the tone curve's shadows (its grain and edges
///   squeezed), and the right exposure of a bright scene clips more: a held-out burst's keeper
///   was a frame 0.9 stops under, twice.
/// - resolution: log2 of the pixel count minus the set's largest (the original beats its
///   downscaled copies), floored at −3.
/// - rating: XMP/EXIF rating 0…5 over 5 when present. edited: `-edited`/`_edit` names or a
///   darktable / RawTherapee sidecar (`.xmp`, `.pp3`) next to the file.
/// - eyes: `VisionScore.eyes` of the worst face (0 for open eyes and for photos without faces,
///   down to −1 for closed eyes), so among equally sharp frames the one with everyone's eyes open wins.
/// - newer: a tie-break, 1 for the set's latest capture.
/// The original wins over its copies (copies are never suggested); the user's choice overrides.
public enum KeeperScore {
    static func scores(_ items: [GroupItem], rules: GroupRules) -> [Int64: Double] {
        guard !items.isEmpty else { return [:] }
        func l2(_ v: Double) -> Double { log2(max(v, 1e-3)) }
        func sharpness(_ it: GroupItem) -> Double { it.metrics.map(subjectSharpness) ?? l2(0) }
        let bestSharpness = items.map(sharpness).max()!
        let bestPixels = items.map { l2(Double(($0.width ?? 1) * ($0.height ?? 1))) }.max()!
        let latest = items.map { $0.taken ?? 0 }.max()!
        let measured = items.compactMap { it in it.metrics.map { (it.id, $0) } }
        var out: [Int64: Double] = [:]
        for it in items {
            let sharp = max(-3, sharpness(it) - bestSharpness)
            let exposure =
                it.metrics.map { m in
                    self.exposure(m, mates: measured.filter { $0.0 != it.id }.map { $0.1 }, rules: rules)
                } ?? -1
            let res = max(-3, l2(Double((it.width ?? 1) * (it.height ?? 1))) - bestPixels)
            let rating = Double(max(0, min(5, it.rating ?? 0))) / 5
            let edited = GroupRules.looksEdited(it.path) ? 1.0 : 0
            let newer = (it.taken ?? 0) >= latest ? 1.0 : 0
            let eyes = VisionScore.eyes(worst: it.worstEyes)
            out[it.id] = 3 * sharp + 2 * exposure + 0.5 * res + rating + edited + 1.5 * eyes + 0.01 * newer
        }
        return out
    }

    /// The exposure term of `scores`: the penalty the set agrees with, the clipped highlights,
    /// and the stops under the set's right exposure (the frame itself counts for it).
    static func exposure(_ m: Metrics, mates: [Metrics], rules: GroupRules) -> Double {
        let under = GroupRules.rightExposure(mates + [m]).map { GroupRules.stops($0, over: m.p50) } ?? 0
        return -rules.exposurePenalty(m, mates: mates) - 4 * m.clippedFraction - underexposedWeight * max(0, under - underexposedSlack)
    }

    /// A set's frames exposed right differ by up to half a stop (retakes, a camera's meter
    /// between frames); a burst's frames a stop under are the ones this finds. Half a point a
    /// stop (weighted: a third of a stop of sharpness) was the least that made the held-out
    /// bursts' right exposures their keepers; every other corpus set's keeper stayed the same
    /// from 0.25 to 1 (bench/RESULTS.md).
    static let underexposedWeight = 0.5
    static let underexposedSlack = 0.5

    /// How sharp a frame's subject is, in stops: the Laplacian variance of its sharpest region
    /// less the variance the frame's noise alone gives (white noise of σ: 20σ², `Metrics.noise`;
    /// at most three quarters taken off, as the estimate runs high on texture), at two scales —
    /// the sharpest 4×4 tile (`lapTileMax`, a subject that fills a sixteenth of the frame) and
    /// the sharpest 16×16 tile (`lapFineMax`, a face, a glass, a drop) — averaged in stops.
    /// Either alone was measured on the DEV corpora's sets: the smallest lead of an acceptable
    /// keeper over the best other frame was 0.25 (seed 1) and 0.68 (seed 2) points on the coarse
    /// tile, 0.91 and 0.01 on the fine one (a frame 1 EV under read as sharp), 0.99 and 0.64 on
    /// both. Metrics measured before analyzer version 6 have no fine tiles nor noise: their
    /// sharpest 4×4 tile.
    public static func subjectSharpness(_ m: Metrics) -> Double {
        func detail(_ v: Double) -> Double { log2(max(v - 20 * m.noise * m.noise, v / 4, 1e-3)) }
        guard m.lapFineMax > 0 else { return log2(max(m.lapTileMax, 1e-3)) }
        return (detail(m.lapTileMax) + detail(m.lapFineMax)) / 2
    }
}

extension KeeperScore {
    /// What set each member of `set` apart, in words, against the rest of its set: the
    /// keeper's strengths ("sharpest", "best exposed", "eyes open", "largest", "the original"),
    /// and what each other member lacks beside the keeper ("less sharp", "eyes closed", "a
    /// copy"). The page shows them under each frame, so a set can be judged, not taken on trust.
    /// Thresholds are the score's own steps: a sharpness (`subjectSharpness`, the score's own
    /// measure) or size step of 1.4×, an exposure penalty of 0.1, eyes half closed.
    ///
    /// The words come from evidence shared by what shows one thing (issue 43, item 3): the files
    /// of one content (the same bytes, the same image data, or a lossless copy at its original's
    /// size — `GroupRules.mayBeCopy` holds it to the original's pixels) share their measures, and
    /// the copies of one picture (its original and every copy, `duplicateOf`) share what their
    /// faces' eyes did — measured on the original when the vision step saw it, else on the
    /// largest copy it saw. A byte-identical copy the vision step had not reached read "eyes
    /// open" beside its original's "eyes closed". The keeper's strengths are its picture's
    /// against the set's other pictures: its own copies are the same moment.
    public static func reasons(_ set: SimilarSet, library: Library, eyes worstEyes: [Int64: Double]) throws -> [Int64: [String]] {
        struct Facts {
            var sharp: Double?, exposure: Double?, pixels: Double?, eyes: Double, rating: Int, edited: Bool
        }
        var facts: [Int64: Facts] = [:]
        var items: [Int64: Item] = [:]
        for m in set.members { items[m.fileID] = try library.item(id: m.fileID) }
        // Exposure as `scores` reads it: against the set's other pictures.
        let originals = set.members.filter { $0.duplicateOf == nil }.compactMap { m in items[m.fileID]?.metrics.map { (m.fileID, $0) } }
        for m in set.members {
            let item = items[m.fileID]
            let metrics = item?.metrics
            facts[m.fileID] = Facts(
                sharp: metrics.map(subjectSharpness),
                exposure: metrics.map { exposure($0, mates: originals.filter { $0.0 != m.fileID }.map { $0.1 }, rules: GroupRules()) },
                pixels: item.flatMap { i in i.width.flatMap { w in i.height.map { Double(w * $0) } } },
                eyes: 0, rating: item?.rating ?? 0, edited: GroupRules.looksEdited(m.path))
        }
        let picture = { (m: SimilarMember) in m.duplicateOf ?? m.fileID }
        // The eyes of each picture: its original's measure, else its largest measured copy's.
        for members in Dictionary(grouping: set.members, by: picture).values {
            let measured = members.filter { worstEyes[$0.fileID] != nil }
            let best =
                measured.first { $0.duplicateOf == nil }
                ?? measured.max { (facts[$0.fileID]?.pixels ?? 0, -$0.fileID) < (facts[$1.fileID]?.pixels ?? 0, -$1.fileID) }
            let eyes = VisionScore.eyes(worst: best.flatMap { worstEyes[$0.fileID] })
            for m in members { facts[m.fileID]?.eyes = eyes }
        }
        // One content, one set of measures: the picture's original's where it is one of them.
        for members in try sameContent(set, items: items, library: library) where members.count > 1 {
            guard let source = members.min(by: { ($0.duplicateOf == nil ? 0 : 1, $0.fileID) < ($1.duplicateOf == nil ? 0 : 1, $1.fileID) }),
                let f = facts[source.fileID]
            else { continue }
            let rating = members.compactMap { facts[$0.fileID]?.rating }.max() ?? 0
            for m in members {
                facts[m.fileID]?.sharp = f.sharp
                facts[m.fileID]?.exposure = f.exposure
                facts[m.fileID]?.pixels = f.pixels
                facts[m.fileID]?.rating = rating
            }
        }
        let keeper = set.keeper
        guard let k = facts[keeper.fileID] else { return [:] }
        let others = set.members.filter { picture($0) != picture(keeper) }.compactMap { facts[$0.fileID] }
        var out: [Int64: [String]] = [:]
        var mine: [String] = []
        if keeper.chosenByUser { mine.append("your choice") }
        if let s = k.sharp, let best = others.compactMap(\.sharp).max(), s - best >= 0.5 { mine.append("sharpest") }
        if let e = k.exposure, let best = others.compactMap(\.exposure).max(), e - best >= 0.1 { mine.append("best exposed") }
        if let worst = others.map(\.eyes).min(), k.eyes - worst >= 0.5 { mine.append("eyes open") }
        if let p = k.pixels, let most = others.compactMap(\.pixels).max(), p >= most * 1.4 { mine.append("largest") }
        if k.rating > 0, k.rating > others.map(\.rating).max() ?? 0 { mine.append("rated \(k.rating)★") }
        if k.edited && !others.contains(where: \.edited) { mine.append("edited") }
        if set.members.contains(where: { $0.duplicateOf == keeper.fileID }) { mine.append("the original") }
        out[keeper.fileID] = mine
        for m in set.members where m.fileID != keeper.fileID {
            guard let f = facts[m.fileID] else { continue }
            var why: [String] = []
            if m.duplicateOf != nil { why.append("a copy") }
            if let a = k.sharp, let b = f.sharp, a - b >= 0.5 { why.append("less sharp") }
            if let a = k.exposure, let b = f.exposure, a - b >= 0.1 { why.append("worse exposed") }
            if f.eyes <= -0.5 && k.eyes > f.eyes { why.append("eyes closed") }
            if let a = k.pixels, let b = f.pixels, a >= b * 1.4 { why.append("smaller") }
            out[m.fileID] = why
        }
        return out
    }

    /// The members of `set` in groups of one content: the same bytes (`content_hash`), the same
    /// image data (`pixel_hash`), or a lossless copy at its original's size (a copy only when its
    /// pixels are the original's, `GroupRules.mayBeCopy`).
    static func sameContent(_ set: SimilarSet, items: [Int64: Item], library: Library) throws -> [[SimilarMember]] {
        var parent = Dictionary(uniqueKeysWithValues: set.members.map { ($0.fileID, $0.fileID) })
        func find(_ x: Int64) -> Int64 {
            var x = x
            while let p = parent[x], p != x { x = p }
            return x
        }
        func join(_ a: Int64, _ b: Int64) {
            let (ra, rb) = (find(a), find(b))
            if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
        }
        let ids = set.members.map { String($0.fileID) }.joined(separator: ",")
        var byBytes: [[UInt8]: Int64] = [:], byPixels: [[UInt8]: Int64] = [:]
        for r in try library.db.rows("SELECT id, content_hash, pixel_hash FROM files WHERE id IN (\(ids)) ORDER BY id") {
            guard let id = r.int(0) else { continue }
            if let h = r.blob(1), !h.isEmpty {
                if let first = byBytes[h] { join(first, id) } else { byBytes[h] = id }
            }
            if let h = r.blob(2), !h.isEmpty {
                if let first = byPixels[h] { join(first, id) } else { byPixels[h] = id }
            }
        }
        for m in set.members {
            guard let o = m.duplicateOf, let copy = items[m.fileID], let original = items[o] else { continue }
            if copy.format == "png", copy.width == original.width, copy.height == original.height { join(o, m.fileID) }
        }
        return Array(Dictionary(grouping: set.members) { find($0.fileID) }.values)
    }

    /// Each photo's worst eye openness, for `reasons` (one query for every set).
    public static func worstEyes(library: Library) throws -> [Int64: Double] {
        try VisionScore.worstEyes(library.db)
    }
}
