/// Pets, Food and Scenery from an ImageNet classifier's 1000 probabilities, summed over
/// documented class ranges (indices of share/models/imagenet_classes.txt, 0-based).
public enum VisionCategories {
    /// Animals: the animal part of ImageNet-1k (0 tench … 397 puffer): dogs 151–268, cats
    /// 281–285, birds, fish, reptiles… — pets and animals alike — without `glowOnBlack`.
    public static let pets: [ClosedRange<Int>] = [0...106, 108...109, 112...397]
    /// The animal classes ImageNet pictures as faint light on black: 107 jellyfish (glowing in
    /// dark water), 110 flatworm and 111 nematode (under a microscope's dark field). Nobody
    /// photographs a nematode; what tops them in a library is a night sky — telescope photos
    /// (nebulae, galaxies: 38 of `stellarium-data`'s 333 summed 0.70–0.96 here with one of the
    /// three leading, `bench/wallpapers.py --all-nebulae`). No photo of an animal in DEV, DEV2 or
    /// DEV3 leads with them. They are no Pets.
    public static let glowOnBlack = [107, 110, 111]
    /// The dogs (151–268) and cats (281–285): the animals whose faces a face detector takes
    /// for a person's (`VisionRules.animalFaceScore`).
    public static let dogsAndCats: [ClosedRange<Int>] = [151...268, 281...285]
    /// Food: the food itself (`dishes`) and the tableware it comes in (`tableware`).
    public static let food: [ClosedRange<Int>] = dishes + tableware
    /// The food itself, 924–969 (guacamole … eggnog) without 958 hay (scenery) and 968 cup.
    public static let dishes: [ClosedRange<Int>] = [924...957, 959...967, 969...969]
    /// What food comes in: 923 plate, 809 soup bowl, 567 frying pan, 968 cup (ImageNet files
    /// it under beverages; its pictures are cups, and empty ones — rows of plastic cups scored
    /// 0.7–0.84 of it). A photo of tableware alone is no food: it counts towards Food only
    /// under a dish (`members`).
    public static let tableware: [ClosedRange<Int>] = [923, 809, 567, 968].map { $0...$0 }
    /// Scenery: the geological classes (970 alp, 972 cliff … 980 volcano; not 971 bubble),
    /// landmarks (425 barn, 437 lighthouse, 449 boathouse, 460 breakwater, 483 castle, 497 church,
    /// 500 cliff dwelling, 525 dam, 536 dock, 538 dome, 562 fountain, 649 megalith, 663 monastery,
    /// 668 mosque, 682 obelisk, 698 palace, 718 pier, 727 planetarium, 821 steel arch bridge,
    /// 832 stupa, 839 suspension bridge, 873 triumphal arch, 888 viaduct, 900 water tower), and —
    /// where ImageNet has no class for the scene itself (a forest, a meadow, a lake at dusk) — the
    /// things it sees in one instead: 825 stone wall, 912 worm fence, 716 picket fence, 703 park
    /// bench, 646 maze (hedges), 958 hay, 472 canoe, 693 paddle, 914 yawl, 780 schooner,
    /// 484 catamaran, 576 gondola. Plus `town`.
    public static let scenery: [ClosedRange<Int>] =
        [970...970, 972...980]
        + ([
            425, 437, 449, 460, 483, 497, 500, 525, 536, 538, 562, 649, 663, 668, 682, 698, 718, 727,
            821, 832, 839, 873, 888, 900, 825, 912, 716, 703, 646, 958, 472, 693, 914, 780, 484, 576,
        ]
        + town).map { $0...$0 }
    /// A street or a town has no ImageNet class either: it spreads over the buildings and street
    /// furniture ImageNet photographs from outside — 442 bell cote, 743 prison, 858 tile roof,
    /// 853 thatch, 498 cinema, 624 library, 580 greenhouse, 660 mobile home, 915 yurt, 706 patio,
    /// 919 street sign, 920 traffic light (a façade under a blue sky scores cinema 0.10, library
    /// 0.09; objects, animals, food and people ≤ 0.04 together). Vehicles are subjects of their
    /// own and stay out.
    public static let town = [442, 743, 858, 853, 498, 624, 580, 660, 915, 706, 919, 920]
    /// Things ImageNet photographs against the sky: 701 parachute (paragliders, kites), 908 wing
    /// (the view from a plane), 405 airship, 404 airliner, 895 warplane. They count towards
    /// Scenery only when the sky fills at least half of the frame (`VisionSky`), where the
    /// picture is of the sky rather than of the thing. (417 balloon is left out: party balloons
    /// and abstract renders score it too.)
    public static let skyObjects: [ClosedRange<Int>] = [701, 908, 405, 404, 895].map { $0...$0 }
    /// A photo joins Food when the category's summed probability reaches this (and a dish leads,
    /// `members`); a photo whose most likely class reaches it has a subject (not Scenery).
    public static let threshold = 0.5
    /// A photo joins Pets when the animal classes sum to this: they then outweigh everything
    /// else by 0.4 at least. Animals are a third of ImageNet's classes, and a spiky plant, a
    /// leaf or moss spreads a third to two thirds of its probability over spiders, insects and
    /// reptiles that look alike (fitted on DEV, seed 1: an aloe 0.58, a harvestman leading; a
    /// blown-out leaf 0.67, a bee leading; a pocket shot 0.52); a photo of an animal sums to
    /// 0.78–0.98 (a dog, a mandrill, a squirrel, a butterfly, cropped, re-encoded and blurred),
    /// except the mandrill's most blurred frame (0.50).
    public static let petsThreshold = 0.7
    /// Scenery spreads over many weak classes (a landscape scores a bit of lakeside, valley,
    /// fence, boat…), so it needs less: measured on Debian's wallpapers and OpenCV's samples,
    /// landscapes sum to 0.37–0.9 and objects, animals, food and people to ≤ 0.05.
    public static let sceneryThreshold = 0.3
    /// The sky share of the top third (over textured ground, `VisionSky.horizon`) that makes a
    /// photo Scenery when nothing else is clearly its subject.
    public static let horizonThreshold = 0.6
    /// The sky share of the frame from which `skyObjects` count.
    public static let skyFrameThreshold = 0.5

    /// The Scenery score: the summed probability of `scenery`, plus that of `skyObjects` when the
    /// sky fills at least `skyFrameThreshold` of the frame.
    public static func sceneryScore(_ scores: [Float], sky: VisionSky.Cue) -> Double {
        sum(scores, scenery) + (sky.share >= skyFrameThreshold ? sum(scores, skyObjects) : 0)
    }

    /// Whether a photo with these sums is in each category. Scenery: a score of at least
    /// `sceneryThreshold`, or a horizon (`VisionSky`) under a sky of at least `horizonThreshold`
    /// of the top third when nothing else is clearly the subject — no face in People, neither
    /// Pets nor Food, and no ImageNet class at `threshold` or more (`topScore`).
    /// Pets and Food also want their most likely class among theirs (`topClass`, when known): a
    /// plain or noisy frame spreads its probability thin over the thousand classes, and the
    /// hundred-odd dog and cat breeds summed to half of it with no breed above 0.16 — a lavender
    /// wall, a 32×32 icon were "pets". For Food that class must be a dish, not tableware.
    public static func members(
        pets: Double, food: Double, scenery: Double, horizon: Double = 0, topScore: Double = 1,
        peopleFaces: Int = 0, topClass: Int? = nil
    ) -> (pets: Bool, food: Bool, scenery: Bool) {
        func leads(_ ranges: [ClosedRange<Int>]) -> Bool { topClass.map { c in ranges.contains { $0.contains(c) } } ?? true }
        let isPets = pets >= petsThreshold && leads(self.pets), isFood = food >= threshold && leads(dishes)
        let subject = isPets || isFood || peopleFaces > 0 || topScore >= threshold
        return (isPets, isFood, scenery >= sceneryThreshold || (horizon >= horizonThreshold && !subject))
    }

    /// The summed probability of `ranges` in `scores`.
    public static func sum(_ scores: [Float], _ ranges: [ClosedRange<Int>]) -> Double {
        ranges.reduce(0) { total, r in
            total + r.clamped(to: 0...(scores.count - 1)).reduce(0) { $0 + Double(scores[$1]) }
        }
    }
}
