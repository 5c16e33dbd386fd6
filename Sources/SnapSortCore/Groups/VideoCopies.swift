/// Copies of a video whatever their encoding (issue 44): a re-encoded, resized, re-containered
/// or bit-rate-reduced copy, or one trimmed by a few seconds at either end, is a duplicate of its
/// original, compared through their `VideoSignature`s.
///
/// Two videos are compared only when their durations and aspects allow a copy and at least
/// `minSharedFrames` of their frames' pHashes are near (a `HashIndex` over every informative
/// frame of every video): never all pairs. A comparison aligns their frames by time with an
/// offset search (a trim at the start shifts every frame by the same amount) and asks each
/// informative frame of the shorter video whether the longer one shows the same picture then:
/// near pHashes, and — the evidence of a copy — the same change against the clip's own mean
/// picture (`residualCorrelation`), so a static camera's empty scene, the same place at another
/// time, or a shared intro never make a copy. Black and flat frames carry no evidence, and most
/// informative frames across the length must match.
public enum VideoCopies {
    /// Tunables (fitted on the `fit` part of bench/make_video_set.sh; the `held` part was never
    /// looked at while fitting).
    public struct Rules: Sendable, Equatable {
        /// The most seconds a copy may be shorter by (trims at either end) …
        public var maxTrimSeconds = 3.5
        /// … plus this share of the longer one (containers round durations differently).
        public var durationSlack = 0.03
        /// Aspects (width/height) further apart than this ratio are other pictures.
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
        public init() {}

        /// Goes into `GroupRules.pairKey`: stored copy links are scored again when it changes.
        public var key: String {
            "video1 trim=\(maxTrimSeconds),\(durationSlack) aspect=\(maxAspectRatio) r=\(frameRadius) corr=\(minResidualCorrelation),\(minResidualEnergy) share=\(minMatchShare) ev=\(minEvidence),\(minSpread)"
        }
    }

    /// A signature prepared for comparisons: each frame's change against the clip's mean.
    public struct Prepared: Sendable {
        public let signature: VideoSignature
        /// Per frame: its thumbnail minus the mean of the informative frames (nil: flat).
        let residuals: [[Float]?]
        let energies: [Double]

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
                energies.append((r.reduce(0) { $0 + Double($1 * $1) } / Double(n)).squareRoot())
            }
            self.residuals = residuals
            self.energies = energies
        }
    }

    /// Whether the durations and aspects of two videos allow one to be the other's copy.
    public static func mayBeCopies(_ a: VideoSignature, _ b: VideoSignature, rules: Rules = Rules()) -> Bool {
        let long = max(a.durationSeconds, b.durationSeconds), short = min(a.durationSeconds, b.durationSeconds)
        guard short > 0, long - short <= rules.maxTrimSeconds + rules.durationSlack * long else { return false }
        let ratio = max(a.aspect, b.aspect) / max(0.01, min(a.aspect, b.aspect))
        return ratio <= rules.maxAspectRatio
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

    /// How much `b` is a copy of `a` or `a` of `b`: the share of the shorter one's informative
    /// frames that match at the best offset (≥ `minMatchShare`), or nil when they are not copies.
    public static func copyScore(_ a: Prepared, _ b: Prepared, rules: Rules = Rules()) -> Double? {
        guard mayBeCopies(a.signature, b.signature, rules: rules) else { return nil }
        let (long, short) = a.signature.durationSeconds >= b.signature.durationSeconds ? (a, b) : (b, a)
        let lf = long.signature.frames, sf = short.signature.frames
        guard lf.count >= 2, sf.count >= 2 else { return nil }
        let spacing = long.signature.durationSeconds / Double(lf.count)
        // A frame of the other clip may be this far in time from the matching moment: the
        // samples of two clips of different lengths fall at different times.
        let tolerance = max(0.6, 0.55 * spacing)
        let extra = long.signature.durationSeconds - short.signature.durationSeconds
        var best: (share: Double, evidence: Int)? = nil
        var offset = -0.5
        while offset <= extra + 0.5 {
            defer { offset += 0.25 }
            var compared = 0, matched = 0, evidence = 0
            var first = Double.infinity, last = -Double.infinity
            var j = 0
            for (i, f) in sf.enumerated() where !f.flat {
                let t = Double(f.seconds) + offset
                while j + 1 < lf.count && abs(Double(lf[j + 1].seconds) - t) <= abs(Double(lf[j].seconds) - t) { j += 1 }
                let g = lf[j]
                guard abs(Double(g.seconds) - t) <= tolerance else { continue }
                compared += 1
                guard !g.flat, VisualSignature.hamming(f.phash, g.phash) <= rules.frameRadius else { continue }
                let (es, el) = (short.energies[i], long.energies[j])
                if es >= rules.minResidualEnergy && el >= rules.minResidualEnergy {
                    guard residualCorrelation(short.residuals[i]!, long.residuals[j]!) >= rules.minResidualCorrelation else { continue }
                    evidence += 1
                    first = min(first, Double(f.seconds))
                    last = max(last, Double(f.seconds))
                } else if (es >= rules.minResidualEnergy) != (el >= rules.minResidualEnergy) {
                    continue  // one moves where the other stands still
                }
                matched += 1
            }
            guard compared > 0, evidence >= rules.minEvidence else { continue }
            guard last - first >= rules.minSpread * short.signature.durationSeconds - 2 * spacing else { continue }
            let share = Double(matched) / Double(compared)
            if share > best?.share ?? -1 { best = (share, evidence) }
        }
        guard let best, best.share >= rules.minMatchShare else { return nil }
        return best.share
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
