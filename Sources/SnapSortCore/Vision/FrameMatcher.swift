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

    public static func == (a: FrameMatch, b: FrameMatch) -> Bool {
        a.keypoints == b.keypoints && a.matches == b.matches && a.inliers == b.inliers && a.shared == b.shared
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
        return helper.match(fa, fb)
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
