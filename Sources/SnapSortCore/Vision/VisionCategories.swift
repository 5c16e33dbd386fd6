/// Pets, Food and Scenery from an ImageNet classifier's 1000 probabilities, summed over
/// documented class ranges (indices of share/models/imagenet_classes.txt, 0-based).
public enum VisionCategories {
    /// Animals: the whole animal part of ImageNet-1k (0 tench … 397 puffer): dogs 151–268, cats
    /// 281–285, birds, fish, reptiles… — pets and animals alike.
    public static let pets: [ClosedRange<Int>] = [0...397]
    /// Food 924–969 (guacamole … eggnog, without 958 hay: scenery) and the dishes it comes in: 923 plate,
    /// 809 soup bowl, 567 frying pan.
    public static let food: [ClosedRange<Int>] = [923...957, 959...969, 809...809, 567...567]
    /// Scenery: the geological classes (970 alp, 972 cliff … 980 volcano; not 971 bubble),
    /// landmarks (425 barn, 437 lighthouse, 449 boathouse, 460 breakwater, 483 castle, 497 church,
    /// 500 cliff dwelling, 525 dam, 536 dock, 538 dome, 562 fountain, 649 megalith, 663 monastery,
    /// 668 mosque, 682 obelisk, 698 palace, 718 pier, 727 planetarium, 821 steel arch bridge,
    /// 832 stupa, 839 suspension bridge, 873 triumphal arch, 888 viaduct, 900 water tower), and —
    /// where ImageNet has no class for the scene itself (a forest, a meadow, a lake at dusk) — the
    /// things it sees in one instead: 825 stone wall, 912 worm fence, 716 picket fence, 703 park
    /// bench, 646 maze (hedges), 958 hay, 472 canoe, 693 paddle, 914 yawl, 780 schooner,
    /// 484 catamaran, 576 gondola.
    public static let scenery: [ClosedRange<Int>] =
        [970...970, 972...980] + [425, 437, 449, 460, 483, 497, 500, 525, 536, 538, 562, 649, 663, 668, 682, 698, 718, 727,
                                  821, 832, 839, 873, 888, 900, 825, 912, 716, 703, 646, 958, 472, 693, 914, 780, 484, 576].map { $0...$0 }
    /// A photo joins Pets or Food when the category's summed probability reaches this.
    public static let threshold = 0.5
    /// Scenery spreads over many weak classes (a landscape scores a bit of lakeside, valley,
    /// fence, boat…), so it needs less: measured on Debian's wallpapers and OpenCV's samples,
    /// landscapes sum to 0.37–0.9 and objects, animals, food and people to ≤ 0.05.
    public static let sceneryThreshold = 0.3

    /// Whether a photo with these sums is in each category.
    public static func members(pets: Double, food: Double, scenery: Double) -> (pets: Bool, food: Bool, scenery: Bool) {
        (pets >= threshold, food >= threshold, scenery >= sceneryThreshold)
    }

    /// The summed probability of `ranges` in `scores`.
    public static func sum(_ scores: [Float], _ ranges: [ClosedRange<Int>]) -> Double {
        ranges.reduce(0) { total, r in
            total + r.clamped(to: 0...(scores.count - 1)).reduce(0) { $0 + Double(scores[$1]) }
        }
    }
}
