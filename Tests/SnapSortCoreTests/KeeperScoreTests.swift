import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// The keeper's sharpness (issue 29, item 2): a frame is judged sharp where its subject is, on
/// real photos (Tests/Fixtures/vision) edited as a camera would have taken them.
@Suite struct KeeperScoreTests {
    static func frame(_ id: Int64, _ metrics: Metrics) -> GroupItem {
        var it = GroupsRulesTests.item("/p/DCIM/Camera/IMG_\(id).jpg")
        it.id = id
        it.taken = 100
        it.metrics = metrics
        return it
    }

    /// The photo with everything but its middle ninth blurred (a box of `radius`, twice):
    /// focus on the subject, a shallow depth of field.
    static func focusedOnTheMiddle(_ b: Bitmap, radius: Int) -> Bitmap {
        var out = GroupsRulesTests.boxBlur(b, radius: radius)
        for y in (b.height / 3)..<(2 * b.height / 3) {
            for x in (b.width / 3)..<(2 * b.width / 3) {
                for k in 0..<3 { out.pixels[(y * b.width + x) * 3 + k] = b.pixels[(y * b.width + x) * 3 + k] }
            }
        }
        return out
    }

    /// A frame focused on its subject (the middle ninth sharp, the rest soft) is the keeper over
    /// the same frame a little soft all over (a box of radius 1): the person picks the subject
    /// in focus. On the building the median tile, which the keeper counted until issue 29, made
    /// the soft frame the keeper (its sharpest 4×4 tiles read alike, its median tile 5 stops
    /// sharper).
    @Test(arguments: ["building.jpg", "astronaut.jpg", "coffee.jpg", "chelsea.jpg"])
    func aFrameFocusedOnItsSubjectBeatsOneSoftAllOver(_ photo: String) throws {
        let focused = Self.frame(1, try GroupsRulesTests.realMetrics(photo) { b in b = Self.focusedOnTheMiddle(b, radius: 8) })
        let soft = Self.frame(2, try GroupsRulesTests.realMetrics(photo) { b in b = GroupsRulesTests.boxBlur(b, radius: 1) })
        let scores = KeeperScore.scores([focused, soft], rules: GroupRules())
        #expect(
            scores[1]! > scores[2]!,
            "\(scores); subject \(KeeperScore.subjectSharpness(focused.metrics!)) vs \(KeeperScore.subjectSharpness(soft.metrics!))")
    }

    /// Grain is no detail: the same frame with a pushed sensor's grain (σ = 5 levels) reads
    /// half a stop sharper on its sharpest 4×4 tile, but its subject is as sharp as the clean
    /// frame's (within a tenth of a stop), and a grainy frame a little soft is never the keeper
    /// over the clean one.
    @Test(arguments: ["building.jpg", "fallen-leaf.jpg"])
    func grainIsNoSharpness(_ photo: String) throws {
        let clean = try GroupsRulesTests.realMetrics(photo)
        let grainy = try GroupsRulesTests.realMetrics(photo) { b in b = GroupsRulesTests.darkened(b, by: 1, noise: 5, seed: 3) }
        #expect(log2(grainy.lapTileMax / clean.lapTileMax) >= 0.4, "the grain must show on the raw Laplacian")
        #expect(abs(KeeperScore.subjectSharpness(grainy) - KeeperScore.subjectSharpness(clean)) < 0.1)
        let soft = try GroupsRulesTests.realMetrics(photo) { b in
            b = GroupsRulesTests.darkened(GroupsRulesTests.boxBlur(b, radius: 1), by: 1, noise: 4, seed: 3)
        }
        let scores = KeeperScore.scores([Self.frame(1, clean), Self.frame(2, soft)], rules: GroupRules())
        #expect(scores[1]! > scores[2]!, "\(scores)")
    }

    /// The page's words follow the score: the keeper is "sharpest" and the soft frame "less
    /// sharp" by the subject's sharpness, the measure the score ranks them by.
    @Test func theReasonsSayWhatTheScoreMeasured() throws {
        let t = try TestLibrary()
        let sharp = try GroupsRulesTests.realPhoto("building.jpg")
        let exif = { (s: Int) in String(format: "2024:10:19 10:00:%02d", s) }
        t.dir.write("Pictures/IMG_1.jpg", Fixtures.jpeg(Self.focusedOnTheMiddle(sharp, radius: 8), quality: 92, dateTimeOriginal: exif(1)))
        t.dir.write("Pictures/IMG_2.jpg", Fixtures.jpeg(GroupsRulesTests.boxBlur(sharp, radius: 1), quality: 92, dateTimeOriginal: exif(2)))
        try t.scan()
        try Grouper(library: t.library).regroupAll()
        let set = try #require(try t.library.similarGroups().first)
        let focused = try #require(set.members.first { $0.path.hasSuffix("IMG_1.jpg") })
        let soft = try #require(set.members.first { $0.path.hasSuffix("IMG_2.jpg") })
        #expect(focused.isKeeper)
        let why = try KeeperScore.reasons(set, library: t.library, eyes: [:])
        #expect(why[focused.fileID]?.contains("sharpest") == true && why[soft.fileID]?.contains("less sharp") == true, "\(why)")
    }
}
