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
        /// Whether the time budget cut the sampling short or to keyframes.
        public var budgetHit: Bool
        /// The video codec's short name ("h264", "mjpeg", "mpeg2video", …).
        public var codec: String
        /// The demuxer's short name ("mov,mp4,m4a,3gp,3g2,mj2", "avi", "mpeg", "mpegts", …).
        public var container: String
        /// The sampled frames in time order: `side`×`side` grey pixels each (the picture
        /// squeezed to a square) and its presentation time in seconds from the start.
        public var frames: [Frame]
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

    /// Opens `path` and samples `frames` frames at evenly spaced times (see
    /// `ss_video_probe_file`): a keyframe seek each, then decoding up to the time; past
    /// `budgetSeconds` of work keyframes alone, past twice it no more. Throws `.decode` when
    /// libavformat cannot open the file as a video.
    public static func probe(path: String, frames: Int, budgetSeconds: Double) throws -> Probe {
        let want = max(0, min(frames, maxFrames)), each = side * side
        var p = ss_video_probe()
        var times = [Double](repeating: 0, count: max(1, want))
        var pixels = [UInt8](repeating: 0, count: max(1, want) * each)
        var msg = [CChar](repeating: 0, count: Int(SS_VIDEO_MSG))
        let rc = times.withUnsafeMutableBufferPointer { t in
            pixels.withUnsafeMutableBufferPointer { px in
                ss_video_probe_file(path, Int32(want), budgetSeconds, &p, t.baseAddress, px.baseAddress, &msg)
            }
        }
        guard rc == 0 else { throw SystemError(.decode, String(cBuffer: msg), operation: "video probe") }
        let sampled = (0..<Int(p.frames)).map { i in Frame(seconds: times[i], pixels: Array(pixels[(i * each)..<((i + 1) * each)])) }
        return Probe(
            durationSeconds: p.duration > 0 ? p.duration : nil, width: Int(p.width), height: Int(p.height),
            rotation: Int(p.rotation), hasVideo: p.has_video != 0, decodable: p.decodable != 0, budgetHit: p.budget_hit != 0,
            codec: cString(p.codec), container: cString(p.container), frames: sampled)
    }

    /// The frame nearest the middle of the video as RGB, its long side at most `maxSide`.
    public static func poster(path: String, maxSide: Int) throws -> Bitmap {
        var out: UnsafeMutablePointer<UInt8>?
        var w: Int32 = 0, h: Int32 = 0
        var msg = [CChar](repeating: 0, count: Int(SS_VIDEO_MSG))
        let rc = ss_video_poster(path, Int32(maxSide), &out, &w, &h, &msg)
        defer { ss_video_free(out) }
        guard rc == 0, let out else { throw SystemError(.decode, String(cBuffer: msg), operation: "video poster") }
        return Bitmap(width: Int(w), height: Int(h), channels: 3, pixels: Array(UnsafeBufferPointer(start: out, count: Int(w) * Int(h) * 3)))
    }

    private static func cString<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
