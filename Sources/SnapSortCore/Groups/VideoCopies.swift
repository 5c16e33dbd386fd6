/// Copies of a video whatever their encoding (issue 44): a re-encoded, resized, re-containered
/// or bit-rate-reduced copy, one trimmed by a few seconds at either end, or one stretched or
/// squeezed to another aspect, is a duplicate of its original, compared through their
/// `VideoSignature`s.
///
/// Two videos are compared only when their durations allow a copy and at least
/// `minSharedFrames` of their frames' pHashes are near (a `HashIndex` over every informative
/// frame of every video): never all pairs. A comparison aligns their frames by their times with
/// an offset search (a trim at the start shifts every frame by the same amount) and asks each
/// informative frame of the sparser-sampled video whether the other shows the same picture then
/// (`matchAt`): near pHashes, and — the evidence of a copy — the same change against the clip's
/// own mean picture (`residualCorrelation`), so a static camera's empty scene, the same place at
/// another time, or a shared intro never make a copy. Black and flat frames carry no evidence,
/// and most informative frames across the length must match. Frames are compared on a square
/// grid (each frame squeezed to it whatever its aspect), so a stretched copy shows the same
/// pictures; the aspects are a prior only: videos of other aspects must match on strong evidence
/// over their whole length (`strongShare`, `strongEvidence`, `strongSpread`).
public enum VideoCopies {
    /// Tunables (fitted on the `fit` part of bench/make_video_set.sh and on its `held2` set; the
    /// `held` part and the `held3` set were never looked at while fitting).
    public struct Rules: Sendable, Equatable {
        /// The most seconds a copy may be shorter by (trims at either end) …
        public var maxTrimSeconds = 3.5
        /// … plus this share of the longer one (containers round durations differently).
        public var durationSlack = 0.03
        /// Aspects (width/height) further apart than this ratio need strong evidence (a
        /// stretched or squeezed copy shows the same pictures on the square grid; a different
        /// film of another aspect does not).
        public var maxAspectRatio = 1.12
        /// Frames nearer than this pHash distance may show the same picture.
        public var frameRadius = 14
        /// The frames' changes against their clips' means must correlate this much.
        public var minResidualCorrelation = 0.45
        /// A frame whose change against its clip's mean is below this (RMS grey levels) shows
        /// the clip's still background alone: no evidence either way.
        public var minResidualEnergy = 1.0
        /// The share of the compared informative frames that must match.
        public var minMatchShare = 0.75
        /// At least this many matching informative frames …
        public var minEvidence = 4
        /// … spread over at least this share of the shorter video's length.
        public var minSpread = 0.5
        /// Candidates share at least this many near frame hashes.
        public var minSharedFrames = 2
        /// Strong evidence (videos of other aspects): nine frames in ten match, …
        public var strongShare = 0.9
        /// … twice the evidence asked of videos of one aspect, …
        public var strongEvidence = 8
        /// … spread over four fifths of the length.
        public var strongSpread = 0.8
        public init() {}

        /// Goes into `GroupRules.pairKey`: stored copy links are scored again when it changes.
        public var key: String {
            "video2 trim=\(maxTrimSeconds),\(durationSlack) aspect=\(maxAspectRatio) r=\(frameRadius) corr=\(minResidualCorrelation),\(minResidualEnergy) share=\(minMatchShare) ev=\(minEvidence),\(minSpread) strong=\(strongShare),\(strongEvidence),\(strongSpread) times interpolated"
        }
    }

    /// A signature prepared for comparisons: each frame's change against the clip's mean.
    public struct Prepared: Sendable {
        public let signature: VideoSignature
        /// Per frame: its thumbnail minus the mean of the informative frames (nil: flat).
        let residuals: [[Float]?]
        let energies: [Double]
        /// The median time between two samples (how densely the video was sampled: a short
        /// MPEG-PS, a budget hit or a long GOP leave fewer samples than the slots).
        let sampleGap: Double

        public init(_ s: VideoSignature) {
            signature = s
            let n = VideoSignature.thumbSide * VideoSignature.thumbSide
            var mean = [Float](repeating: 0, count: n)
            let informative = s.frames.filter { !$0.flat }
            for f in informative { for i in 0..<n { mean[i] += Float(f.thumb[i]) } }
            if !informative.isEmpty { for i in 0..<n { mean[i] /= Float(informative.count) } }
            var residuals: [[Float]?] = []
            var energies: [Double] = []
            for f in s.frames {
                guard !f.flat else {
                    residuals.append(nil)
                    energies.append(0)
                    continue
                }
                let r = (0..<n).map { Float(f.thumb[$0]) - mean[$0] }
                residuals.append(r)
                energies.append(Self.energy(r))
            }
            self.residuals = residuals
            self.energies = energies
            let gaps = zip(s.frames.dropFirst(), s.frames).map { Double($0.seconds - $1.seconds) }.filter { $0 > 0 }.sorted()
            sampleGap = gaps.isEmpty ? s.durationSeconds : gaps[gaps.count / 2]
        }

        /// The RMS of a residual (grey levels).
        static func energy(_ r: [Float]) -> Double {
            (r.reduce(0) { $0 + Double($1 * $1) } / Double(max(1, r.count))).squareRoot()
        }
    }

    /// Whether the durations of two videos allow one to be the other's copy.
    public static func mayBeCopies(_ a: VideoSignature, _ b: VideoSignature, rules: Rules = Rules()) -> Bool {
        let long = max(a.durationSeconds, b.durationSeconds), short = min(a.durationSeconds, b.durationSeconds)
        return short > 0 && long - short <= rules.maxTrimSeconds + rules.durationSlack * long
    }

    /// Whether the aspects of two videos differ beyond `maxAspectRatio` (a copy then needs
    /// strong evidence).
    static func aspectsDiffer(_ a: VideoSignature, _ b: VideoSignature, rules: Rules) -> Bool {
        max(a.aspect, b.aspect) / max(0.01, min(a.aspect, b.aspect)) > rules.maxAspectRatio
    }

    /// The normalized correlation of two residuals.
    static func residualCorrelation(_ a: [Float], _ b: [Float]) -> Double {
        var ab = 0.0, aa = 0.0, bb = 0.0
        for i in 0..<a.count {
            ab += Double(a[i] * b[i])
            aa += Double(a[i] * a[i])
            bb += Double(b[i] * b[i])
        }
        return aa > 0 && bb > 0 ? ab / (aa * bb).squareRoot() : 0
    }

    /// What one frame of a video says about the other video at a time.
    enum Match {
        /// No sample of the other video near that time: no evidence either way.
        case notCompared
        case differs
        /// The same picture, with the same change against the clip's mean (`evidence`) or both
        /// showing their still background alone.
        case same(evidence: Bool)
    }

    /// Whether `ref` shows frame `i` of `probe` at `t` seconds (of `ref`). The two videos'
    /// samples fall at different times (other lengths, trims, other sampling), so the picture
    /// `ref` shows at `t` lies between its two samples around `t`: the pHash may differ from the
    /// nearer one by its share of how much `ref` changed between them, and the change against
    /// the mean is the two samples' blended by time. A sample farther than `tolerance` from `t`
    /// does not stand for it.
    static func matchAt(_ probe: Prepared, _ i: Int, in ref: Prepared, at t: Double, near j: Int, tolerance: Double, rules: Rules) -> Match {
        let f = probe.signature.frames[i], frames = ref.signature.frames
        let g = frames[j]
        guard abs(Double(g.seconds) - t) <= tolerance else { return .notCompared }
        guard !g.flat else { return .differs }
        var nearHash = VisualSignature.hamming(f.phash, g.phash) <= rules.frameRadius
        var residual = ref.residuals[j]!
        var energy = ref.energies[j]
        let k = Double(g.seconds) < t ? j + 1 : j - 1
        if k >= 0 && k < frames.count && !frames[k].flat && frames[k].seconds != g.seconds {
            let h = frames[k]
            let w = min(1, abs(t - Double(g.seconds)) / abs(Double(h.seconds - g.seconds)))
            let step = Double(VisualSignature.hamming(g.phash, h.phash))
            nearHash =
                nearHash || Double(VisualSignature.hamming(f.phash, g.phash)) <= Double(rules.frameRadius) + w * step
                || Double(VisualSignature.hamming(f.phash, h.phash)) <= Double(rules.frameRadius) + (1 - w) * step
            let other = ref.residuals[k]!
            residual = (0..<residual.count).map { Float(1 - w) * residual[$0] + Float(w) * other[$0] }
            energy = Prepared.energy(residual)
        }
        guard nearHash else { return .differs }
        let moves = (probe.energies[i] >= rules.minResidualEnergy, energy >= rules.minResidualEnergy)
        if moves.0 && moves.1 {
            return residualCorrelation(probe.residuals[i]!, residual) >= rules.minResidualCorrelation ? .same(evidence: true) : .differs
        }
        return moves.0 == moves.1 ? .same(evidence: false) : .differs  // one moves where the other stands still
    }

    /// How much `b` is a copy of `a` or `a` of `b`: the share of the sparser one's informative
    /// frames that match at the best offset (≥ `minMatchShare`), or nil when they are not copies.
    ///
    /// Samples are compared by their times, never by their index: the sparser-sampled video's
    /// frames are looked for in the denser one (a copy that gave fewer samples still finds each
    /// of them), and the offset says how far the shorter one starts into the longer one.
    public static func copyScore(_ a: Prepared, _ b: Prepared, rules: Rules = Rules()) -> Double? {
        guard mayBeCopies(a.signature, b.signature, rules: rules) else { return nil }
        let strong = aspectsDiffer(a.signature, b.signature, rules: rules)
        let (long, short) = a.signature.durationSeconds >= b.signature.durationSeconds ? (a, b) : (b, a)
        guard long.signature.frames.count >= 2, short.signature.frames.count >= 2 else { return nil }
        let probeIsShort = short.sampleGap >= long.sampleGap
        let (probe, ref) = probeIsShort ? (short, long) : (long, short)
        // The offset is the shorter video's start in the longer one: the probe's times move by
        // it into the reference's, forward when the probe is the shorter one.
        let sign = probeIsShort ? 1.0 : -1.0
        let spacing = ref.sampleGap
        // A sample stands for the times about half its gap around it, give or take half the
        // offset search's step; farther (a hole in its sampling, past its ends) it says nothing.
        let step = 0.25
        let tolerance = 0.55 * spacing + step / 2
        // The evidence must spread over the length both show: the shorter one's.
        let length = short.signature.durationSeconds
        let extra = long.signature.durationSeconds - short.signature.durationSeconds
        let pf = probe.signature.frames, rf = ref.signature.frames
        var best: Double? = nil
        var offset = -0.5
        while offset <= extra + 0.5 {
            defer { offset += step }
            var compared = 0, matched = 0, evidence = 0
            var first = Double.infinity, last = -Double.infinity
            var j = 0
            for (i, f) in pf.enumerated() where !f.flat {
                let t = Double(f.seconds) + sign * offset
                while j + 1 < rf.count && abs(Double(rf[j + 1].seconds) - t) <= abs(Double(rf[j].seconds) - t) { j += 1 }
                switch matchAt(probe, i, in: ref, at: t, near: j, tolerance: tolerance, rules: rules) {
                case .notCompared: continue
                case .differs: compared += 1
                case .same(let moving):
                    compared += 1
                    matched += 1
                    if moving {
                        evidence += 1
                        first = min(first, Double(f.seconds))
                        last = max(last, Double(f.seconds))
                    }
                }
            }
            guard compared > 0, evidence >= (strong ? max(rules.minEvidence, rules.strongEvidence) : rules.minEvidence) else { continue }
            let spread = strong ? max(rules.minSpread, rules.strongSpread) : rules.minSpread
            guard last - first >= spread * length - 2 * spacing else { continue }
            let share = Double(matched) / Double(compared)
            guard !strong || share >= rules.strongShare else { continue }
            if share > best ?? -1 { best = share }
        }
        guard let best, best >= rules.minMatchShare else { return nil }
        return best
    }

    /// Whether two videos share at least `minSharedFrames` near frame hashes (what
    /// `candidatePairs` asks of a pair through its index, asked of one pair directly).
    static func shareFrames(_ a: Prepared, _ b: Prepared, rules: Rules) -> Bool {
        let hashes = b.signature.frames.filter { !$0.flat }.map(\.phash)
        var n = 0
        for f in a.signature.frames where !f.flat && hashes.contains(where: { VisualSignature.hamming(f.phash, $0) <= rules.frameRadius }) {
            n += 1
            if n >= rules.minSharedFrames { return true }
        }
        return false
    }

    /// The pairs of `videos` (id and prepared signature) worth comparing: near durations and at
    /// least `minSharedFrames` near frame hashes, found through a `HashIndex` (never all pairs).
    static func candidatePairs(_ videos: [(id: Int64, sig: Prepared)], rules: Rules) -> [FilePair] {
        var index = HashIndex()
        var owner: [Int] = []
        for (v, video) in videos.enumerated() {
            for f in video.sig.signature.frames where !f.flat {
                index.insert(f.phash)
                owner.append(v)
            }
        }
        var out: [FilePair] = []
        for (v, video) in videos.enumerated() {
            var shared: [Int: Int] = [:]
            for f in video.sig.signature.frames where !f.flat {
                var seen = Set<Int>()
                for e in index.neighbours(of: f.phash, within: rules.frameRadius, limit: 512) where owner[e] > v {
                    if seen.insert(owner[e]).inserted { shared[owner[e], default: 0] += 1 }
                }
            }
            for (w, n) in shared where n >= rules.minSharedFrames {
                guard mayBeCopies(video.sig.signature, videos[w].sig.signature, rules: rules) else { continue }
                out.append(FilePair(video.id, videos[w].id))
            }
        }
        return out.sorted { ($0.a, $0.b) < ($1.a, $1.b) }
    }
}
