import CVideo

/// Video files through FFmpeg's libavformat and libavcodec (`Sources/CVideo`): what the
/// container and the stream say, and a few small grey frames spread over the whole length.
/// libav's own logging is silenced: a damaged file never writes to our stderr.
public enum Video {
    /// What a probe learned of one file.
    public struct Probe: Sendable, Equatable {
        /// Seconds; nil when neither the container nor the stream says.
        public var durationSeconds: Double?
        public var width: Int
        public var height: Int
        /// Clockwise degrees the display matrix turns the picture (0, 90, 180, 270).
        public var rotation: Int
        public var hasVideo: Bool
        /// Whether a decoder for the codec is at hand (false: duration and size only).
        public var decodable: Bool
        /// Whether the time budget cut the sampling short.
        public var budgetHit: Bool
        /// Frames decoded in all: the work the probe did (a long GOP must not multiply it).
        public var decodedFrames: Int
        /// The video codec's short name ("h264", "mjpeg", "mpeg2video", …).
        public var codec: String
        /// The demuxer's short name ("mov,mp4,m4a,3gp,3g2,mj2", "avi", "mpeg", "mpegts", …).
        public var container: String
        /// The sampled frames in time order: `side`×`side` grey pixels each (the picture
        /// squeezed to a square) and its presentation time in seconds from the start.
        public var frames: [Frame]
        /// The frame nearest the middle as RGB, upright (the display rotation applied), its long
        /// side at most `posterSide`; nil when none decodes or none was asked for.
        public var poster: Bitmap?
    }

    /// One sampled frame.
    public struct Frame: Sendable, Equatable {
        public var seconds: Double
        public var pixels: [UInt8]
    }

    /// The side of a sampled frame.
    public static let side = Int(SS_VIDEO_SIDE)
    /// The most frames one probe samples.
    public static let maxFrames = Int(SS_VIDEO_MAX_FRAMES)
    /// The long side of the poster a probe makes.
    public static let posterSide = Int(SS_VIDEO_POSTER_SIDE)

    /// Opens `path` and samples up to `frames` frames at evenly spaced times (see
    /// `ss_video_probe_file`): the middle first, then ever finer, a keyframe seek each and the
    /// frames up to the time decoded, at most a few hundred a time (a long GOP); in order where
    /// that costs less; none past `budgetSeconds` of work. With `poster`, the frame nearest the
    /// middle as an upright RGB picture too. Throws `.decode` when libavformat cannot open the
    /// file as a video.
    public static func probe(path: String, frames: Int, budgetSeconds: Double, poster: Bool = false) throws -> Probe {
        let want = max(0, min(frames, maxFrames)), each = side * side
        var p = ss_video_probe()
        var times = [Double](repeating: 0, count: max(1, want))
        var pixels = [UInt8](repeating: 0, count: max(1, want) * each)
        var msg = [CChar](repeating: 0, count: Int(SS_VIDEO_MSG))
        var rgb: UnsafeMutablePointer<UInt8>?
        let rc = times.withUnsafeMutableBufferPointer { t in
            pixels.withUnsafeMutableBufferPointer { px in
                ss_video_probe_file(path, Int32(want), budgetSeconds, poster ? Int32(posterSide) : 0, &p, t.baseAddress, px.baseAddress, &rgb, &msg)
            }
        }
        defer { ss_video_free(rgb) }
        // -2: FFmpeg's libraries could not be opened (none of the file's doing).
        guard rc != -2 else { throw SystemError(.unsupported, String(cBuffer: msg), operation: "video libraries") }
        guard rc == 0 else { throw SystemError(.decode, String(cBuffer: msg), operation: "video probe") }
        let sampled = (0..<Int(p.frames)).map { i in Frame(seconds: times[i], pixels: Array(pixels[(i * each)..<((i + 1) * each)])) }
        let (pw, ph) = (Int(p.poster_width), Int(p.poster_height))
        let picture = rgb.flatMap { px in
            pw > 0 && ph > 0 ? Bitmap(width: pw, height: ph, channels: 3, pixels: Array(UnsafeBufferPointer(start: px, count: pw * ph * 3))) : nil
        }
        return Probe(
            durationSeconds: p.duration > 0 ? p.duration : nil, width: Int(p.width), height: Int(p.height),
            rotation: Int(p.rotation), hasVideo: p.has_video != 0, decodable: p.decodable != 0, budgetHit: p.budget_hit != 0,
            decodedFrames: Int(p.decoded), codec: cString(p.codec), container: cString(p.container), frames: sampled, poster: picture)
    }

    private static func cString<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
