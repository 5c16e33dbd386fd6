import SnapSortSystem

/// What a video looks like over its whole length, compactly: a few small grey frames sampled at
/// evenly spaced times (`Video.probe`), each with its time, its 64-bit DCT pHash, whether it is
/// black or flat (no evidence of anything) and a 16×16 thumbnail, plus the duration and the
/// picture's aspect. Computed once, in tier 1, by `VideoHandler`; compared by `VideoCopies`.
public struct VideoSignature: Sendable, Equatable {
    /// One sampled frame.
    public struct Frame: Sendable, Equatable {
        /// Seconds from the start.
        public var seconds: Float
        public var phash: UInt64
        /// Black or flat (a fade, a title card's empty background): it carries no evidence.
        public var flat: Bool
        /// `thumbSide`² grey pixels (the frame squeezed to a square).
        public var thumb: [UInt8]
    }

    public var durationSeconds: Double
    /// Display width over height (1 when unknown).
    public var aspect: Double
    public var frames: [Frame]

    /// How many frames a video is sampled at.
    public static let sampledFrames = 32
    /// The side of a frame's stored thumbnail.
    public static let thumbSide = 16
    /// A frame whose grey levels spread less than this (standard deviation, 0–255) is flat.
    static let flatSpread: Double = 6
    /// The encoding's version byte.
    static let encodingVersion: UInt8 = 1

    public init(durationSeconds: Double, aspect: Double, frames: [Frame]) {
        self.durationSeconds = durationSeconds
        self.aspect = aspect
        self.frames = frames
    }

    /// The signature of a probe's frames (32×32 grey each).
    public init(durationSeconds: Double, aspect: Double, sampled: [Video.Frame]) {
        let side = Video.side
        var frames: [Frame] = []
        for f in sampled where f.pixels.count == side * side {
            let px = f.pixels.map(Float.init)
            let coeffs = MetricsComputer.dct8x8(px)
            let median = coeffs.sorted()[32]
            var ph: UInt64 = 0
            for c in coeffs { ph = (ph << 1) | (c > median ? 1 : 0) }
            let mean = px.reduce(0, +) / Float(px.count)
            let spread = (px.reduce(0) { $0 + Double(($1 - mean) * ($1 - mean)) } / Double(px.count)).squareRoot()
            let t = VideoSignature.thumbSide, k = side / t
            var thumb = [UInt8](repeating: 0, count: t * t)
            for y in 0..<t {
                for x in 0..<t {
                    var s = 0
                    for dy in 0..<k { for dx in 0..<k { s += Int(f.pixels[(y * k + dy) * side + x * k + dx]) } }
                    thumb[y * t + x] = UInt8((s + k * k / 2) / (k * k))
                }
            }
            frames.append(Frame(seconds: Float(f.seconds), phash: ph, flat: spread < VideoSignature.flatSpread, thumb: thumb))
        }
        self.init(durationSeconds: durationSeconds, aspect: aspect, frames: frames)
    }

    /// The stored form (`files.video_signature`): version, duration and aspect (Float32 each),
    /// frame count, then per frame its time (Float32), pHash (8 bytes), flags and thumbnail;
    /// little-endian. About 8.6 KB for 32 frames.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = [VideoSignature.encodingVersion]
        func put32(_ v: UInt32) { for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) } }
        func put64(_ v: UInt64) { for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) } }
        put32(Float(durationSeconds).bitPattern)
        put32(Float(aspect).bitPattern)
        out.append(UInt8(min(frames.count, 255)))
        for f in frames.prefix(255) {
            put32(f.seconds.bitPattern)
            put64(f.phash)
            out.append(f.flat ? 1 : 0)
            out += f.thumb
        }
        return out
    }

    /// Reads the stored form; nil for anything else (another version, a cut blob).
    public init?(encoded b: [UInt8]) {
        guard b.count >= 10, b[0] == VideoSignature.encodingVersion else { return nil }
        func get32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(b[at + $1]) << (8 * UInt32($1)) } }
        func get64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(b[at + $1]) << (8 * UInt64($1)) } }
        let n = Int(b[9]), t = VideoSignature.thumbSide * VideoSignature.thumbSide
        let each = 4 + 8 + 1 + t
        guard b.count == 10 + n * each else { return nil }
        var frames: [Frame] = []
        for i in 0..<n {
            let at = 10 + i * each
            frames.append(
                Frame(
                    seconds: Float(bitPattern: get32(at)), phash: get64(at + 4), flat: b[at + 12] != 0,
                    thumb: Array(b[(at + 13)..<(at + 13 + t)])))
        }
        self.init(durationSeconds: Double(Float(bitPattern: get32(1))), aspect: Double(Float(bitPattern: get32(5))), frames: frames)
    }
}
