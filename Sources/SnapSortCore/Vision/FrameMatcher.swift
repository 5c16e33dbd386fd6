import SnapSortSystem

/// What geometric verification found between two frames: ORB keypoints matched both ways and a
/// RANSAC homography over them (the helper's `match` request, `ssv_match_frames`).
public struct FrameMatch: Sendable, Equatable {
    /// Keypoints found in the first and the second frame.
    public var keypoints: (Int, Int)
    /// Mutual best descriptor matches passing the ratio test.
    public var matches: Int
    /// Matches the homography explains.
    public var inliers: Int
    /// The smaller of the two frames' shares that the other covers under the homography (0…1).
    public var shared: Double
    /// The share of the frame that is unchanged where it stands (`FrameMatcher.stillShare`; 0
    /// for frames of two sizes): a camera that did not move.
    public var still: Double = 0

    public static func == (a: FrameMatch, b: FrameMatch) -> Bool {
        a.keypoints == b.keypoints && a.matches == b.matches && a.inliers == b.inliers && a.shared == b.shared
            && a.still == b.still
    }
}

/// Matches two photos' frames through the vision helper: each photo decoded as tier 2 reads it
/// (`VisionImage`, upright), grey at `longSide`, the last few kept (a burst's frames are each
/// matched with their neighbours).
public final class FrameMatcher: @unchecked Sendable {
    /// The side the frames are matched at (the helper reduces larger ones to it): the softest
    /// frames of a blur ladder keep their corners at 256 px, not at 512 (bench/match_pairs.py).
    static let longSide = 256
    /// Frames kept decoded (~50 KB each).
    static let cached = 16
    private let helper: VisionHelper
    private var frames: [(id: Int64, frame: Bitmap?)] = []
    /// Pairs matched so far (for the trace and the measurements).
    public private(set) var pairs = 0

    /// A matcher over `helper` (started on the first pair).
    public init(helper: VisionHelper) {
        self.helper = helper
    }

    /// Whether the helper runs (it is started on the first call).
    public var available: Bool { helper.start() }

    /// The two photos' match, or nil when either cannot be read or the helper fails.
    func match(_ a: GroupItem, _ b: GroupItem) -> FrameMatch? {
        guard let fa = frame(a), let fb = frame(b) else { return nil }
        pairs += 1
        guard var m = helper.match(fa, fb) else { return nil }
        m.still = FrameMatcher.stillShare(fa, fb)
        return m
    }

    /// Blocks on each side of the grid `stillShare` compares.
    static let stillGrid = 16
    /// The mean absolute difference, in grey levels at `longSide`, under which a block is
    /// unchanged (JPEG noise and a still camera's sensor noise stay under it).
    static let stillDifference = 4.0

    /// The share of the frame that is unchanged where it stands: the two grey frames reduced to
    /// `longSide`, cut into `stillGrid` × `stillGrid` blocks, the second's exposure scaled by the
    /// median of the blocks' mean ratios; a block is unchanged when its mean absolute difference
    /// is at most `stillDifference`. No alignment: a camera that stood still while a subject
    /// moved keeps most blocks, whatever the scene's texture (a plain table has too few corners
    /// for a homography); a moved camera, a pan or another scene keeps few. The median, not the
    /// frames' means: a large subject moving in (a pen pushed over a plain table, a third of
    /// the frame) moves the mean by more than `stillDifference` on the table's level, and every
    /// block of the table read as changed (node-opencv's `motion.mov`: 0.48 of the frame kept
    /// against 0.80). 0 for frames of two sizes.
    static func stillShare(_ a: Bitmap, _ b: Bitmap) -> Double {
        let a = VisionImage.shrink(a, longSide: longSide), b = VisionImage.shrink(b, longSide: longSide)
        let w = a.width, h = a.height, n = stillGrid
        guard a.channels == 1, b.channels == 1, w == b.width, h == b.height, w >= n, h >= n else { return 0 }
        var sumsA = [Int](repeating: 0, count: n * n), sumsB = sumsA, counts = sumsA
        for y in 0..<h {
            let row = y * n / h * n
            for x in 0..<w {
                let i = y * w + x, block = row + x * n / w
                sumsA[block] += Int(a.pixels[i])
                sumsB[block] += Int(b.pixels[i])
                counts[block] += 1
            }
        }
        // The blocks' mean ratios (+1: a black block), their median (the upper one of an even count).
        let ratios = (0..<(n * n)).map { k in
            (Double(sumsA[k]) / Double(counts[k]) + 1) / (Double(sumsB[k]) / Double(counts[k]) + 1)
        }
        let gain = ratios.sorted()[ratios.count / 2]
        var differences = [Double](repeating: 0, count: n * n)
        for y in 0..<h {
            let row = y * n / h * n
            for x in 0..<w {
                let i = y * w + x
                differences[row + x * n / w] += abs(Double(a.pixels[i]) - gain * Double(b.pixels[i]))
            }
        }
        let unchanged = zip(differences, counts).filter { $0.0 <= stillDifference * Double($0.1) }.count
        return Double(unchanged) / Double(n * n)
    }

    private func frame(_ item: GroupItem) -> Bitmap? {
        if let hit = frames.firstIndex(where: { $0.id == item.id }) { return frames[hit].frame }
        let frame: Bitmap? = item.format.flatMap { format in
            guard VisionImage.formats.contains(format),
                let rgb = try? VisionImage.load(path: item.path, format: format, orientation: item.orientation ?? 1, side: FrameMatcher.longSide)
            else { return nil }
            return VisionImage.grey(rgb)
        }
        if frames.count >= FrameMatcher.cached { frames.removeFirst() }
        frames.append((item.id, frame))
        return frame
    }
}
