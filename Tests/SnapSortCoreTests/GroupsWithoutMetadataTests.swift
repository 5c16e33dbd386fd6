import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// Similar Shots from the pixels alone (issue 39): real frames written without EXIF and with names
/// that carry no time (`IMG_nnnn.JPG`), as a messenger, a download or `jpegtran -copy none` leaves
/// them, their mtimes set as `strip_metadata.py` sets them — the old capture time (a folder copied
/// with `cp -p`), a chat's saving minutes, or one copy's second.
@Suite struct GroupsWithoutMetadataTests {
    static let base = 1_718_445_600.0  // 2024-06-15 10:00 UTC

    /// Writes `frames` as `IMG_24nn.JPG` without EXIF, each with its mtime (seconds after `base`).
    static func write(_ t: TestLibrary, _ frames: [(name: String, bitmap: Bitmap, at: Double)]) throws {
        for f in frames {
            let path = t.dir.write("Pictures/DCIM/\(f.name)", Fixtures.jpeg(f.bitmap, quality: 90))
            try FileSystem.setTimes(path, secondsSince1970: base + f.at)
        }
    }

    static func scene(_ name: String) throws -> Bitmap { try GroupsFrameMatchTests.scene(name) }

    /// Frames of real bursts — a handheld camera before a cockatoo (0.3 s and 1.15 s apart),
    /// a fixed camera over a mall's floor (1 s), a still table with a coin pushed over it (0.5 s)
    /// — and two frames of a pan over dune grass 3 s apart, 40 s between the bursts, no EXIF.
    static func bursts() throws -> [(name: String, bitmap: Bitmap, at: Double)] {
        let dune = try scene("dune.jpg")
        return [
            ("IMG_2401.JPG", try scene("cockatoo-94.jpg"), 0.2), ("IMG_2402.JPG", try scene("cockatoo-100.jpg"), 0.5),
            ("IMG_2403.JPG", try scene("cockatoo-250.jpg"), 40.1), ("IMG_2404.JPG", try scene("cockatoo-273.jpg"), 41.25),
            ("IMG_2405.JPG", try scene("mall-burst-0.jpg"), 80), ("IMG_2406.JPG", try scene("mall-burst-1.jpg"), 81),
            ("IMG_2407.JPG", try scene("coin-burst-0.jpg"), 120), ("IMG_2408.JPG", try scene("coin-burst-1.jpg"), 120.5),
            ("IMG_2409.JPG", GroupsFrameMatchTests.frame(dune, x: 20, width: 480), 160),
            ("IMG_2410.JPG", GroupsFrameMatchTests.frame(dune, x: 260, width: 480), 163),
        ]
    }

    /// A camera folder copied with its times: the mtimes are the capture times, and the bursts
    /// are the sets they are with EXIF — the zoom and the shift of the handheld burst too, which
    /// only a clock lets through — while the pan's frames, 3 s apart, stay apart.
    @Test func aBurstWithoutExifIsOneSetAndAPanIsNot() throws {
        let t = try TestLibrary()
        try Self.write(t, try Self.bursts())
        try t.scan()
        let (sets, verified) = try GroupsFrameMatchTests.regroupWithTheHelper(t.library, rules: GroupRules())
        #expect(
            sets == [
                ["IMG_2401.JPG", "IMG_2402.JPG"], ["IMG_2403.JPG", "IMG_2404.JPG"], ["IMG_2405.JPG", "IMG_2406.JPG"],
                ["IMG_2407.JPG", "IMG_2408.JPG"],
            ],
            "\(sets): \(verified)")
    }

    /// A chat's photos saved at once: each written within a second of the others (no clock,
    /// `WeakClock`), or over ten minutes in no order. The still camera's bursts are one set each
    /// by their pixels alone (the unchanged share of the frame), wherever their mtimes put them;
    /// the pan's frames and a scene cut (two shots of a film) stay apart.
    @Test(arguments: [false, true])
    func aChatDumpOfABurstIsOneSet(spread: Bool) throws {
        let t = try TestLibrary()
        let cut = [("IMG_2411.JPG", try Self.scene("megamind-089.jpg")), ("IMG_2412.JPG", try Self.scene("megamind-164.jpg"))]
        var frames = try Self.bursts().filter { !$0.name.hasPrefix("IMG_240") || $0.name >= "IMG_2405" }
        frames += cut.map { ($0.0, $0.1, 0) }
        // Over ten minutes in a shuffled order, or 0.05 s apart.
        let order = [7, 2, 5, 0, 8, 3, 6, 1, 4]
        for (i, k) in order.enumerated() where k < frames.count { frames[k].at = spread ? Double(i) * 67 : Double(i) * 0.05 }
        try Self.write(t, frames)
        try t.scan()
        let (sets, verified) = try GroupsFrameMatchTests.regroupWithTheHelper(t.library, rules: GroupRules())
        #expect(sets == [["IMG_2405.JPG", "IMG_2406.JPG"], ["IMG_2407.JPG", "IMG_2408.JPG"]], "\(sets): \(verified)")
    }

    /// The weak clock: files of one folder that a copy wrote within a second of each other say
    /// nothing of when they were taken; a camera's, seconds apart, keep their mtimes.
    @Test func filesWrittenAtOnceHaveNoClock() throws {
        let t = try TestLibrary()
        let dune = try Self.scene("dune.jpg")
        var frames: [(name: String, bitmap: Bitmap, at: Double)] = []
        for i in 0..<6 { frames.append(("IMG_25\(i)0.JPG", GroupsFrameMatchTests.frame(dune, x: 20 * i, width: 240, height: 200), Double(i) * 0.1)) }
        for i in 0..<3 {
            frames.append(("IMG_26\(i)0.JPG", GroupsFrameMatchTests.frame(dune, x: 30 * i, width: 240, height: 200), 100 + Double(i) * 2))
        }
        try Self.write(t, frames)
        try t.scan()
        let rows = ItemRows(try GroupItem.loadAll(t.library.db, metrics: false), metricsLoaded: false)
        var clocks: [String: Double?] = [:]
        let timeline = rows.items.sorted { $0.id < $1.id }
        var position: [Int64: Int] = [:]
        for (i, item) in timeline.enumerated() { position[item.id] = i }
        let times = WeakClock.times(
            of: timeline, ownTimes: Array(repeating: nil, count: timeline.count), position: position, crowd: GroupRules().copiedAtOnce)
        for (i, item) in timeline.enumerated() { clocks[String(item.path.split(separator: "/").last!)] = times[i] }
        for i in 0..<6 { #expect(clocks["IMG_25\(i)0.JPG"]! == nil) }
        for i in 0..<3 { #expect(clocks["IMG_26\(i)0.JPG"]! == Self.base + 100 + Double(i) * 2) }
    }

    /// The keeper of a burst without EXIF is its sharpest frame: the mall's second frame shaken
    /// (a box blur), the first as it was.
    @Test func theKeeperOfAStrippedBurstIsItsSharpestFrame() throws {
        let t = try TestLibrary()
        let sharp = try Self.scene("mall-burst-0.jpg"), next = try Self.scene("mall-burst-1.jpg")
        try Self.write(
            t,
            [
                ("IMG_2701.JPG", GroupsGrouperTests.soften(sharp, radius: 2), 0), ("IMG_2702.JPG", next, 1),
                ("IMG_2703.JPG", GroupsGrouperTests.soften(next, radius: 3), 2),
            ])
        try t.scan()
        _ = try GroupsFrameMatchTests.regroupWithTheHelper(t.library, rules: GroupRules())
        let set = try #require(try t.library.similarGroups().first)
        #expect(set.members.count == 3)
        #expect(set.keeper.path.hasSuffix("IMG_2702.JPG"), "\(set.members.map(\.path))")
    }

    /// A lossless JPEG transform drops an edge's partial block column (`jpegtran -trim`, as a
    /// metadata stripper turning a photo upright does): the camera's file, stripped so, is 2 px
    /// narrower than the PNG exported from it before. Both keep the camera-style name; the
    /// camera folder's file is still the original and the keeper, the export its copy (it was
    /// the original, for its 2 px more, and the camera file offered for the Trash).
    @Test func aLosslessTrimLeavesTheCameraFileTheOriginal() throws {
        let t = try TestLibrary()
        func jpegtran(_ arguments: [String], _ from: String, _ to: String) throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/jpegtran")
            p.arguments = arguments + ["-copy", "none", "-outfile", to, from]
            try p.run()
            p.waitUntilExit()
            #expect(p.terminationStatus == 0, "jpegtran \(arguments)")
        }
        // A real photo's 594 × 440 (594 = 37 × 16 + 2), and the PNG exported from it.
        let camera = t.dir.at("Pictures/Phone/DCIM/Camera/20240925_232014.jpg"), first = t.dir.at("first.jpg")
        try FileManager.default.createDirectory(atPath: t.dir.at("Pictures/Phone/DCIM/Camera"), withIntermediateDirectories: true)
        try jpegtran(["-crop", "594x440+16+16"], VisionTests.fixtures + "/kite.jpg", camera)
        let decoded = try JPEG.decode(
            try FileSystem.readFile(camera, limit: 1 << 24), scaleNumerator: 8, smoothChroma: true, maxHeaderPixels: 1 << 24, maxOutputPixels: 1 << 24
        ).bitmap
        t.dir.write("Pictures/Export/20240925_232014.png", Fixtures.png(decoded))
        // Flipped and back: the same picture, its last partial MCU column gone.
        try jpegtran(["-flip", "horizontal", "-trim"], camera, first)
        try jpegtran(["-flip", "horizontal", "-trim"], first, camera)
        try t.scan()
        try Grouper(library: t.library).regroupAll()
        let size = try #require(try t.library.db.row("SELECT width, height FROM files WHERE path = ?", camera))
        #expect(size.int(0) == 592 && size.int(1) == 440, "the trimmed camera file")
        let set = try #require(try t.library.similarGroups().first)
        #expect(set.members.count == 2)
        let png = try #require(set.members.first { $0.path.hasSuffix(".png") })
        #expect(set.keeper.path == camera && png.duplicateOf == set.keeper.fileID, "\(set.members.map { ($0.path, $0.duplicateOf) })")
    }

    /// `touch -d` on a photo dated by its mtime moves it: its capture time, its month's deck and
    /// its place on the timeline follow, though its bytes are the same (the scan reads it as
    /// touched, not decoded again).
    @Test func aTouchMovesAPhotoWithoutExifToItsNewMonth() throws {
        let t = try TestLibrary()
        let path = t.dir.write("Pictures/saved/photo.jpg", Fixtures.jpeg(try Self.scene("dune.jpg"), quality: 90))
        try FileSystem.setTimes(path, secondsSince1970: Self.base)  // June 2024
        try t.scan()
        func taken() throws -> String? { try t.library.db.row("SELECT taken_at FROM files WHERE path = ?", path)?.string(0) }
        #expect(try taken()?.hasPrefix("2024-06") == true)
        try Grouper(library: t.library).regroup()
        let march2021 = 1_615_000_000.0  // 2021-03-06
        try FileSystem.setTimes(path, secondsSince1970: march2021)
        let summary = try t.scan()
        #expect(summary.touched == 1)
        let retaken = try taken()
        #expect(retaken?.hasPrefix("2021-03") == true, "\(retaken ?? "-")")
        let clock = Clock.manual(Date(timeIntervalSince1970: 1_800_000_000)).0
        let utc = TimeZone(identifier: "UTC")!
        let deck = try Decks.build(.month(year: 2021, month: 3), library: t.library, clock: clock, timeZone: utc, groups: nil)
        #expect(deck.items.map(\.item.path) == [path])
        #expect(try Decks.build(.month(year: 2024, month: 6), library: t.library, clock: clock, timeZone: utc, groups: nil).items.isEmpty)
        // The grouper sees it changed (its time is part of what it remembers).
        #expect(try Grouper(library: t.library).regroup().changed == 1)
    }
}
