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

    /// A frame pushed two stops over its burst is no keeper, even sharper than the right
    /// exposure (here a little soft): a set's Oops Shot is never its keeper while another frame
    /// is none (as a frame the set calls blurry). Real photos of a façade, a second apart.
    @Test func aBurstsOopsShotIsNeverItsKeeper() throws {
        let t = try TestLibrary()
        let photo = try GroupsRulesTests.realPhoto("building.jpg")
        let exif = { (s: Int) in String(format: "2024:10:19 10:00:%02d", s) }
        let soft = GroupsRulesTests.boxBlur(photo, radius: 1)
        t.dir.write("Pictures/IMG_1.jpg", Fixtures.jpeg(soft, quality: 92, dateTimeOriginal: exif(1)))
        t.dir.write("Pictures/IMG_2.jpg", Fixtures.jpeg(GroupsRulesTests.exposed(photo, stops: 2.5), quality: 92, dateTimeOriginal: exif(2)))
        try t.scan()
        try Grouper(library: t.library).regroupAll()
        let set = try #require(try t.library.similarGroups().first, "the two frames are one set")
        let right = try #require(set.members.first { $0.path.hasSuffix("IMG_1.jpg") })
        #expect(right.isKeeper, "\(set.members.map { ($0.path, $0.isKeeper, $0.score) })")
        #expect(try t.library.groupMembers(.oops).map(\.item.path).contains { $0.hasSuffix("IMG_2.jpg") })
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

/// The keeper's reasons are true (issue 43, item 3), on real photos.
@Suite struct KeeperReasonsTests {
    static var helperPath: String { (SnapsortBinary.path as NSString).deletingLastPathComponent + "/snapsort-vision" }
    static let sameness: Set<String> = ["your choice", "the original", "a copy"]

    /// A frame with shut eyes (Megamind.avi's frame 33), a byte-identical copy in a backup and
    /// a PNG export of its pixels: one picture, so nothing but "the original" / "a copy" (and
    /// the user's choice) tells them apart — whichever of them the vision step has measured,
    /// and whichever is the keeper. With the copy the vision step had not reached chosen, it
    /// read "eyes open" and its identical original "eyes closed".
    @Test func identicalPixelsGetIdenticalReasons() throws {
        let t = try TestLibrary()
        let bytes = try FileSystem.readFile(VisionTests.fixtures + "/megamind-033.jpg", limit: 1 << 22)
        t.dir.write("Pictures/DCIM/IMG_0033.jpg", bytes)
        t.dir.write("Pictures/Backup/DCIM/IMG_0033.jpg", bytes)
        let pixels = try JPEG.decode(bytes, scaleNumerator: 8, smoothChroma: true, maxHeaderPixels: 1 << 24, maxOutputPixels: 1 << 24).bitmap
        t.dir.write("Pictures/Export/IMG_0033.png", Fixtures.png(pixels))
        try t.scan()
        try Grouper(library: t.library).regroupAll()
        let sets = try t.library.similarGroups()
        let set = try #require(sets.first { $0.members.count == 3 }, "\(sets)")
        // The vision step has seen one of them so far (the agent's slices): shut eyes.
        let helper = VisionHelper(executable: Self.helperPath)
        defer { helper.stop() }
        #expect(try VisionAnalyzer(library: t.library, helper: helper, logger: .silent).run(limit: 1).analyzed == 1)
        let measured = try KeeperScore.worstEyes(library: t.library)
        let seen = try #require(measured.first, "the vision step measured no eyes")
        #expect(VisionScore.eyes(worst: seen.value) <= -0.5, "frame 33's eyes must read shut (\(seen.value))")
        // The keeper is one the vision step has not measured (the user's choice, when needed).
        let unseen = try #require(set.members.first { measured[$0.fileID] == nil })
        if !unseen.isKeeper { _ = try SimilarReview.chooseKeeper(fileID: unseen.fileID, library: t.library, clock: .live) }
        let chosen = try #require(try t.library.similarGroup(containing: unseen.fileID))
        #expect(chosen.keeper.fileID == unseen.fileID)
        let why = try KeeperScore.reasons(chosen, library: t.library, eyes: measured)
        #expect(why.count == 3 && why.values.allSatisfy { Set($0).isSubset(of: Self.sameness) }, "\(why)")
        // Every one measured: the same words.
        _ = try VisionAnalyzer(library: t.library, helper: helper, logger: .silent).run()
        let all = try KeeperScore.worstEyes(library: t.library)
        #expect(all.count == 3)
        #expect(try KeeperScore.reasons(chosen, library: t.library, eyes: all) == why)
    }

    /// A 2019 camera file (q85) and a 2021 re-encode of it at q92 with its EXIF kept, in a
    /// "Trip2021" folder: the re-encode is larger, but the original is the earlier file, and
    /// the words say so ("the original" / "a copy"). The larger file was the original.
    @Test func theOriginalIsTheEarliestFileNotTheLatestReencode() throws {
        let t = try TestLibrary()
        let photo = try GroupsRulesTests.realPhoto("building.jpg")
        let original = Fixtures.jpeg(photo, quality: 85, dateTimeOriginal: "2019:06:01 10:00:00")
        let decoded = try JPEG.decode(original, scaleNumerator: 8, maxHeaderPixels: 1 << 24, maxOutputPixels: 1 << 24).bitmap
        let reencode = Fixtures.jpeg(decoded, quality: 92, dateTimeOriginal: "2019:06:01 10:00:00")
        #expect(reencode.count > original.count, "the re-encode must be the larger file")
        t.dir.write("Pictures/2019/IMG_1234.jpg", original)
        t.dir.write("Pictures/Trip2021/IMG_1234.jpg", reencode)
        let day = { (s: String) in ISO8601DateFormatter().date(from: s)! }
        try FileManager.default.setAttributes([.modificationDate: day("2019-06-01T10:00:00Z")], ofItemAtPath: t.dir.at("Pictures/2019/IMG_1234.jpg"))
        try FileManager.default.setAttributes(
            [.modificationDate: day("2021-08-14T18:30:00Z")], ofItemAtPath: t.dir.at("Pictures/Trip2021/IMG_1234.jpg"))
        try t.scan()
        try Grouper(library: t.library).regroupAll()
        let set = try #require(try t.library.similarGroups().first, "no set")
        let camera = try #require(set.members.first { $0.path.hasSuffix("2019/IMG_1234.jpg") })
        let copy = try #require(set.members.first { $0.path.hasSuffix("Trip2021/IMG_1234.jpg") })
        #expect(camera.duplicateOf == nil && copy.duplicateOf == camera.fileID && camera.isKeeper, "\(set.members)")
        let why = try KeeperScore.reasons(set, library: t.library, eyes: [:])
        #expect(why[camera.fileID]?.contains("the original") == true && why[copy.fileID]?.contains("a copy") == true, "\(why)")
    }
}
