import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// The per-file rules of `GroupRules`, one table per rule.
@Suite struct GroupsRulesTests {
    static func item(
        _ path: String, kind: MediaFormat.Kind = .photo, format: String? = "jpeg", width: Int = 4000, height: Int = 3000,
        make: String? = "Google", duration: Double? = nil, status: ItemStatus = .ok
    ) -> GroupItem {
        GroupItem(
            id: 1, path: path, kind: kind, format: format, status: status, bytes: 1000, width: width, height: height,
            taken: 0, takenSource: "exif", make: make, model: nil, software: nil, rating: nil, orientation: 1,
            duration: duration, metrics: nil, phash: nil, dhash: nil, contentHash: nil, analyzedAt: nil, mtime: 0,
            takenAt: "1970-01-01T00:00:00")
    }

    /// Metrics of a real scene after `transform`, measured by the analyzer's own code.
    static func metrics(_ transform: (inout Bitmap) -> Void = { _ in }) -> Metrics {
        var b = Fixtures.scene(width: 640, height: 480, seed: 11)
        transform(&b)
        return MetricsComputer.measure(b, orientation: 1, decodeScale: 8).0
    }

    @Test(arguments: [
        (59.0, false), (59.99, false), (60.0, true), (61.0, true), (3600.0, true),
    ])
    func longVideosStartAtSixtySeconds(_ seconds: Double, _ long: Bool) {
        let v = Self.item("/p/DCIM/Camera/VID_20241020_021403.mp4", kind: .video, format: "mp4", duration: seconds, status: .unsupported)
        let groups = GroupRules().categories(of: v, findings: Findings()).map(\.0)
        #expect(groups.contains(.longVideo) == long)
    }

    @Test(arguments: [
        ("/p/Download/funny.mp4", nil as String?, true),
        ("/p/Telegram/Telegram Video/video_2024-10-19_22-38-48.mp4", nil, true),
        ("/p/WhatsApp/Media/WhatsApp Video/VID-20241020-WA0003.mp4", nil, true),
        ("/p/Videos/clip.mp4", "yt-dlp", true),
        ("/p/Videos/clip.mp4", nil, true),  // no camera metadata, no camera-style name
        ("/p/DCIM/Camera/VID_20241020_021403.mp4", nil, false),  // Android camera mp4: never by brand alone
        ("/p/DCIM/Camera/PXL_20241019_154511948.mp4", nil, false),
        ("/p/DCIM/100APPLE/IMG_6820.MOV", nil, false),
    ])
    func downloadedVideos(_ path: String, _ software: String?, _ downloaded: Bool) {
        var v = Self.item(path, kind: .video, format: "mp4", make: nil, duration: 5)
        v.software = software
        #expect(GroupRules().isDownloadedVideo(v) == downloaded)
    }

    @Test(arguments: [
        ("/p/Pictures/Screenshots/Screenshot from 2024-10-19 22-38-48.png", "png", 1920, 1080, false, true),
        ("/p/Pictures/Screenshot_20241019_231338.png", "png", 2560, 1600, false, true),
        ("/p/DCIM/Screenshots/Screenshot_20241019-204829_Settings.jpg", "jpeg", 1080, 2400, false, true),
        ("/p/Pictures/20241019_22h38m48s_grim.png", "png", 1920, 1080, false, true),
        ("/p/DCIM/100APPLE/IMG_6818.PNG", "png", 1170, 2532, true, true),  // iOS name, rendered, no camera EXIF
        // A photo saved as PNG at a screen size without camera EXIF (a wallpaper, an export).
        ("/p/Pictures/Wallpapers/coffee.png", "png", 1920, 1080, false, false),
        ("/p/DCIM/Camera/IMG_20241019_055346.jpg", "jpeg", 4000, 3000, false, false),
    ])
    func screenshots(_ path: String, _ format: String, _ w: Int, _ h: Int, _ rendered: Bool, _ expected: Bool) throws {
        let it = Self.item(path, format: format, width: w, height: h, make: nil)
        // A rendered page is flat almost everywhere; a real photo has texture and noise
        // everywhere (the synthetic scene's flat ramps are as flat as a page).
        let m =
            rendered
            ? Self.metrics { b in for i in 0..<b.pixels.count { b.pixels[i] = i % 3000 < 2990 ? 240 : 20 } } : try Self.realMetrics("coffee.jpg")
        #expect(GroupRules().isScreenshot(it, m) == expected)
    }

    /// Real photographs (Tests/Fixtures/vision: scikit-image's astronaut, coffee and cat), not
    /// the synthetic scene: its smooth ramps and flat blobs keep most of their local variation
    /// under a 9-tap blur, so the re-blur measure calls it soft whatever its focus, as it would
    /// a real photo of a smooth subject.
    static let realPhotos = ["astronaut.jpg", "coffee.jpg", "chelsea.jpg"]

    static func realPhoto(_ name: String) throws -> Bitmap {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fixtures/vision/\(name)").standardized.path
        return try JPEG.decode(FileSystem.readFile(path, limit: 1 << 24), scaleNumerator: 8, maxHeaderPixels: 1 << 24, maxOutputPixels: 1 << 24)
            .bitmap
    }

    /// `ownCaptureTime` reads the scanner's "YYYY-MM-DDTHH:MM:SS" without splitting it: the
    /// fields are the split's, and any other text is left to the split.
    @Test(arguments: [
        "2024-10-19T12:32:31", "2024-10-19T12:32:31+02:00", "2024-10-19T12:32:31.120", "2024-10-19 12:32:31",
        "2024-10-19T12:32:3", "2024-10-19T12:32:31\u{301}", "2024-1-19T12:32:31", "+024-10-19T12:32:31", "",
    ])
    func captureTimesAreReadWithoutSplitting(_ text: String) {
        let split = text.prefix(19).split(whereSeparator: { "-T:".contains($0) }).compactMap { Int($0) }
        let fast = ["2024-10-19T12:32:31", "2024-10-19T12:32:31+02:00", "2024-10-19T12:32:31.120"].contains(text)
        #expect((GroupRules.fixedTimestamp(text) != nil) == fast)
        if let fixed = GroupRules.fixedTimestamp(text) { #expect(fixed == split) }
    }

    static func realMetrics(_ name: String, _ transform: (inout Bitmap) -> Void = { _ in }) throws -> Metrics {
        var b = try realPhoto(name)
        transform(&b)
        return MetricsComputer.measure(b, orientation: 1, decodeScale: 8).0
    }

    /// A set member `id` (`IMG_<id>.jpg`, 640×480) measured from the real photo `name` after
    /// `transform`.
    static func frame(_ id: Int64, _ name: String, _ transform: (inout Bitmap) -> Void = { _ in }) throws -> GroupItem {
        var it = item("/p/DCIM/Camera/IMG_\(id).jpg", width: 640, height: 480)
        it.id = id
        it.metrics = try realMetrics(name, transform)
        return it
    }

    @Test(arguments: realPhotos, ["sharp", "blurred"])
    func blurFollowsTheSharpestRegion(_ photo: String, _ variant: String) throws {
        let m = try Self.realMetrics(photo) { b in if variant == "blurred" { b = Self.boxBlur(b, radius: 6) } }
        #expect((GroupRules().blurScore(m) != nil) == (variant == "blurred"), "reblur tile \(m.reblurTile), frame \(m.reblur)")
    }

    @Test(arguments: realPhotos)
    func aSharpSubjectOnASoftBackgroundIsNotBlurry(_ photo: String) throws {
        // Blur everything but the middle ninth: shallow depth of field.
        let m = try Self.realMetrics(photo) { b in
            let sharp = b
            b = Self.boxBlur(b, radius: 8)
            for y in (b.height / 3)..<(2 * b.height / 3) {
                for x in (b.width / 3)..<(2 * b.width / 3) {
                    for k in 0..<3 { b.pixels[(y * b.width + x) * 3 + k] = sharp.pixels[(y * b.width + x) * 3 + k] }
                }
            }
        }
        #expect(GroupRules().blurScore(m) == nil, "reblur tile \(m.reblurTile), frame \(m.reblur)")
    }

    /// Real photos judged on their own (issue 29, item 3): a real shallow depth of field (a
    /// maple leaf sharp on leaves in soft focus; the re-blur of the sharpest 4×4 tile reads it as
    /// soft) is not blurry, a real motion-blurred photo is.
    @Test(arguments: [("fallen-leaf.jpg", false), ("licenseplate-motion.jpg", true)])
    func aRealShallowDepthOfFieldIsNotBlurryARealMotionBlurIs(_ photo: String, _ blurry: Bool) throws {
        let m = try Self.realMetrics(photo)
        #expect((GroupRules().blurScore(m) != nil) == blurry, "reblur tile \(m.reblurTile), subject \(GroupRules.subjectDetail(m)), noise \(m.noise)")
    }

    /// Mild motion blur in a set (issue 29, item 3): 0.7 % of the width along 30° over a real
    /// photo leaves the sharpest tile's Laplacian within the stop the set asks, but takes the
    /// detail along the motion; a frame shifted by 2 % or a stop darker with a pushed sensor's
    /// grain is as sharp as its set.
    @Test(arguments: [("motion", true), ("shifted", false), ("underexposed", false)])
    func mildMotionBlurIsBlurryInItsSet(_ variant: String, _ blurry: Bool) throws {
        var sharp = Self.item("/p/DCIM/Camera/IMG_1.jpg"), other = Self.item("/p/DCIM/Camera/IMG_2.jpg")
        other.id = 2
        sharp.metrics = try Self.realMetrics("fallen-leaf.jpg")
        other.metrics = try Self.realMetrics("fallen-leaf.jpg") { b in
            switch variant {
            case "motion": b = Self.motionBlur(b, length: Double(b.width) * 0.007, degrees: 30)
            case "shifted": b = Self.shifted(b, dx: b.width / 50, dy: b.height / 100)
            default: b = Self.darkened(b, by: 0.5, noise: 2, seed: 7)
            }
        }
        let flagged = GroupRules().relativelyBlurry([sharp, other]).map(\.0)
        #expect(flagged == (blurry ? [2] : []), "tile \(other.metrics!.lapTileMax) of \(sharp.metrics!.lapTileMax)")
    }

    /// A pocket shot of a scene (blurred through fabric, a few levels bright, grain) is no
    /// sharpness reference for its set (a held-out corpus without EXIF): its detail over its
    /// contrast is grain over a spread of three levels, which read a sharp real photo more than
    /// four stops blurry beside it — and lost it the keeper to the pocket shot. The sharp photo
    /// is no blurrier than its own set, and keeps the better keeper score.
    @Test(arguments: ["kite.jpg", "fallen-leaf.jpg"])
    func aPocketShotIsNoSharpnessReferenceInItsSet(_ photo: String) throws {
        var sharp = Self.item("/p/DCIM/Camera/IMG_1.jpg"), pocket = Self.item("/p/DCIM/Camera/IMG_2.jpg")
        pocket.id = 2
        sharp.metrics = try Self.realMetrics(photo)
        pocket.metrics = try Self.realMetrics(photo) { b in
            b = Self.boxBlur(b, radius: max(2, b.width / 33))
            let mean = Double(b.pixels.reduce(0) { $0 + Int($1) }) / Double(b.pixels.count)
            b = Self.darkened(b, by: 5 / mean, noise: 3, seed: 11)
        }
        let rules = GroupRules()
        let p = try #require(pocket.metrics)
        #expect(rules.oopsScore(p) != nil, "a pocket shot: mean \(p.meanLuma), spread \(p.stdLuma)")
        #expect(rules.relativelyBlurry([sharp, pocket]).isEmpty)
        let scores = KeeperScore.scores([sharp, pocket], rules: rules)
        #expect(scores[1]! > scores[2]!)
    }

    /// A bright scene's right exposure, an Oops Shot on its own only by its bright tone scale,
    /// is its set's sharpness reference when the set says it is exposed right: beside it a
    /// frame shaken and a stop under is blurry (a held-out burst's was judged against nothing
    /// sharper than itself and stayed out of Blurry). A real photo exposed as a camera does.
    @Test func aBrightScenesRightExposureIsItsSetsSharpnessReference() throws {
        var right = Self.item("/p/DCIM/Camera/IMG_1.jpg"), shaken = Self.item("/p/DCIM/Camera/IMG_2.jpg")
        right.id = 1
        shaken.id = 2
        right.metrics = try Self.realMetrics("cameraman.jpg") { b in b = Self.exposed(b, stops: 0.6) }
        shaken.metrics = try Self.realMetrics("cameraman.jpg") { b in b = Self.exposed(Self.boxBlur(b, radius: 3), stops: -0.4) }
        let rules = GroupRules()
        #expect(rules.oopsScore(right.metrics!) != nil, "an Oops Shot on its own: p50 \(right.metrics!.p50)")
        #expect(!rules.isOopsInSet(right, mates: [right, shaken]), "not in its set")
        #expect(rules.relativelyBlurry([right, shaken]).map(\.0) == [2])
    }

    /// A sheet the helper found filling the frame (no outline inside it) is a document only when
    /// the frame looks like paper (its 95th percentile bright) with ink on it (its darkest 1 %
    /// well under its median): a grey, low-contrast real scene (a held-out corpus's moon: p95
    /// 124, 11–21 "lines" of craters) is none, nor a pale band without ink (a held-out corpus's
    /// wood grain, shaken: 15–19 "lines" along the grain); the same frame at a page's levels,
    /// and a sheet with an outline of its own inside a dim frame, are.
    @Test(arguments: [("grey", 0.9954, false), ("paper", 0.9954, true), ("pale", 0.9954, false), ("grey", 0.6, true)])
    func aWholeFrameSheetMustLookLikePaper(_ levels: String, _ share: Double, _ document: Bool) throws {
        var item = Self.item("/p/DCIM/Camera/IMG_1.jpg", width: 586, height: 440)
        item.metrics = try Self.realMetrics("storm.jpg") { b in
            // Squeezed into a grey band (94–124, as the moon's), a page's (165–200, its darkest
            // detail inked at 60) or a pale band (140–180, as the wood's), colourless.
            let (low, high) = ["grey": (94.0, 124.0), "paper": (165.0, 200.0), "pale": (140.0, 180.0)][levels]!
            for i in stride(from: 0, to: b.pixels.count, by: b.channels) {
                var y = 0.0
                for c in 0..<b.channels { y += Double(b.pixels[i + c]) }
                y /= Double(b.channels)
                let v = levels == "paper" && y < 30 ? 60 : UInt8(low + (high - low) * y / 255)
                for c in 0..<b.channels { b.pixels[i + c] = v }
            }
        }
        item.sheet = VisionDocuments.Sheet(share: share, lines: 15)
        let m = try #require(item.metrics)
        #expect((m.p95 >= GroupRules.paperLevel) == (levels != "grey"), "p95 \(m.p95)")
        let groups = GroupRules().categories(of: item, findings: Findings()).map(\.0)
        #expect(groups.contains(.document) == document, "\(groups): p01 \(m.p01), p50 \(m.p50), p95 \(m.p95)")
    }

    /// The classifier sees the whole frame: a sheet the helper found over most of it (a shaken
    /// wood grain's 13 "lines" over 84 % of the frame, in a held-out corpus) is no document when
    /// the classifier gives the frame next to no page (0.003, as it gave that grain; a page of
    /// text filling the frame reads 0.05 and up). A small sheet — a receipt held over a scene —
    /// leaves the classifier the scene, and without models there is no say.
    @Test(arguments: [
        (0.84, 0.003 as Double?, false), (0.84, 0.06, true), (0.84, nil, true), (0.24, 0.003, true),
    ])
    func theClassifierRulesOutAPageOverMostOfTheFrame(_ share: Double, _ page: Double?, _ document: Bool) throws {
        var item = Self.item("/p/DCIM/Camera/IMG_1.jpg", width: 640, height: 480)
        item.metrics = try Self.realMetrics("wood.jpg") { _ in }
        item.sheet = VisionDocuments.Sheet(share: share, lines: 13)
        item.pageScore = page
        let groups = GroupRules().categories(of: item, findings: Findings()).map(\.0)
        #expect(groups.contains(.document) == document, "\(groups)")
    }

    /// A pale texture two stops over — most of it clipped, its median in the clip — is an
    /// Oops Shot, not a soft page: its histogram packed against white looked like paper with
    /// soft ink (a held-out corpus's pebbles: p50 252, p95 255, 59 % clipped), which put it in
    /// Docs and kept it out of Oops. A page's paper sits below white.
    @Test func aBlownOutPaleTextureIsAnOopsShotNotASoftPage() throws {
        var item = Self.item("/p/DCIM/Camera/IMG_1.jpg", width: 640, height: 480)
        item.metrics = try Self.realMetrics("wood.jpg") { b in
            // Colourless (as the pebbles, saturation 0.07), pushed until its median clips.
            for i in stride(from: 0, to: b.pixels.count, by: b.channels) {
                var y = 0.0
                for c in 0..<b.channels { y += Double(b.pixels[i + c]) }
                let v = UInt8(max(0, min(255, (y / Double(b.channels)) * 1.6 - 60)))
                for c in 0..<b.channels { b.pixels[i + c] = v }
            }
        }
        let m = try #require(item.metrics)
        #expect(m.p50 >= 250 && m.clippedFraction > 0.5 && GroupRules.isWashedOut(m), "blown: p50 \(m.p50), clipped \(m.clippedFraction)")
        let groups = GroupRules().categories(of: item, findings: Findings()).map(\.0)
        #expect(groups.contains(.oops), "\(groups)")
        #expect(!groups.contains(.document), "\(groups)")
    }

    /// Oops tells an accident from a dark subject (issue 29, item 4): a bright subject on black
    /// that fills half a percent of a real photo's frame (the moon on a night sky: even the
    /// brightest 1 % is black) is no Oops Shot; the same photo underexposed by four stops, with
    /// the grain a sensor pushed in the dark adds, or blurred and dark in a pocket, is.
    @Test(arguments: [("moon", false), ("underexposed", true), ("pocket", true)])
    func aDarkSubjectIsNoOopsShotAnUnderexposedFrameIs(_ variant: String, _ oops: Bool) throws {
        let m = try Self.realMetrics("fallen-leaf.jpg") { b in
            switch variant {
            case "moon":
                // A disc of the photo around the leaf's stem, black around it.
                let cx = Double(b.width) * 0.7, cy = Double(b.height) * 0.55
                let r = (0.005 * Double(b.width * b.height) / Double.pi).squareRoot()
                for y in 0..<b.height {
                    for x in 0..<b.width where (Double(x) - cx) * (Double(x) - cx) + (Double(y) - cy) * (Double(y) - cy) > r * r {
                        for k in 0..<3 { b.pixels[(y * b.width + x) * 3 + k] = 2 }
                    }
                }
            case "underexposed": b = Self.darkened(b, by: 1.0 / 16, noise: 3, seed: 5)
            default: b = Self.darkened(Self.boxBlur(b, radius: 12), by: 1.0 / 24, noise: 3, seed: 6)
            }
        }
        #expect((GroupRules().oopsScore(m) != nil) == oops, "p99 \(m.p99), subject \(GroupRules.subjectDetail(m)), noise \(m.noise)")
    }

    /// A sensor clips each channel on its own: a kite before a blue sky pushed three stops
    /// clips the blue over the whole frame while its luma clips a tenth and only a sixth of it
    /// is over 232 (a held-out corpus's blown wings: 7 % of the luma clipped, no Oops Shot). The
    /// same photo as taken and 0.4 stops over is none; the channels' shares are measured.
    @Test(arguments: [(0.0, false), (0.4, false), (3.0, true)])
    func aFramePushedUntilItsChannelsClipIsBlown(_ stops: Double, _ oops: Bool) throws {
        let m = try Self.realMetrics("kite.jpg") { b in b = Self.exposed(b, stops: stops) }
        if oops {
            #expect(
                m.channelClippedFraction > 0.9 && m.clippedFraction < 0.5,
                "the blue clips, the luma does not: \(m.channelClippedFraction), \(m.clippedFraction)")
        }
        #expect(
            (GroupRules().oopsScore(m) != nil) == oops,
            "p50 \(m.p50), luma \(m.clippedFraction)/\(m.brightFraction), channels \(m.channelClippedFraction)/\(m.channelBrightFraction)")
    }

    /// Oops tells an accident from a bright subject (issue 29, item 4), on real photos exposed
    /// again in linear light: a light box clipped over a third of a frame exposed for the shapes
    /// on it (a stop over its first exposure: the scene keeps its dark median), and a snow
    /// field over a real scene (the upper two thirds bright and textured, a ninth of the frame
    /// clipped: its highlights keep their gradation under white) are no Oops Shots — both
    /// were before; a portrait
    /// two stops over (clipped over 60 %), a street a stop and a half over and a cup two stops
    /// over (the whole tone scale pushed up, the highlights piled against white) are.
    @Test(arguments: [
        ("lightbox.jpg", "+1", false), ("dune.jpg", "snow", false),
        ("cameraman.jpg", "+2", true), ("building.jpg", "+1.5", true), ("coffee.jpg", "+2", true),
    ])
    func aBrightSubjectIsNoOopsShotABlownFrameIs(_ photo: String, _ variant: String, _ oops: Bool) throws {
        let m = try Self.realMetrics(photo) { b in
            if variant == "snow" {
                // Snow over the lower third: around 241 levels, a quarter of the photo's own
                // texture and a grain of σ = 8 (a fifth of its highlights clipped).
                var rng = SplitMix(seed: 9)
                for i in 0..<(b.pixels.count * 2 / 3) {
                    let u1 = max(Double(rng.next() >> 11) / Double(1 << 53), 1e-12), u2 = Double(rng.next() >> 11) / Double(1 << 53)
                    let g = (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
                    b.pixels[i] = UInt8(max(0, min(255, (241 + (Double(b.pixels[i]) - 144) * 0.25 + g * 8).rounded())))
                }
            } else {
                b = Self.exposed(b, stops: Double(variant)!)
            }
        }
        #expect(
            (GroupRules().oopsScore(m) != nil) == oops,
            "clipped \(m.clippedFraction), bright \(m.brightFraction), p50 \(m.p50), p01 \(m.p01) p99 \(m.p99)")
    }

    /// Oops tells a veil from a pale subject (issue 29, item 4), on real photos: the grain of
    /// pale wood photographed close (Debian's `mate-backgrounds`, a 58-level band at 173–230,
    /// washed out by the histogram alone) was an Oops Shot; its detail stands far above its
    /// grain. The same wood, a street and a maple leaf under the corpora's fog (a fifth of the
    /// contrast kept around a bright haze, then a sensor's grain) are Oops Shots: the veil takes
    /// the detail with the contrast. A veil is bright (light scattered towards the lens): the
    /// same fifth of the contrast around a mid-grey is a dull scene, not fog (a held-out
    /// corpus's blurred grey gravel, median 128, was an Oops Shot).
    @Test(
        arguments: [
            ("wood.jpg", nil, false), ("wood.jpg", 190, true), ("building.jpg", 190, true), ("fallen-leaf.jpg", 190, true),
            ("building.jpg", 128, false),
        ] as [(String, Double?, Bool)])
    func aPaleSubjectIsNoOopsShotAVeiledFrameIs(_ photo: String, _ haze: Double?, _ oops: Bool) throws {
        let m = try Self.realMetrics(photo) { b in if let haze { b = Self.veiled(b, contrast: 0.2, haze: haze, noise: 1, seed: 8) } }
        #expect(
            (GroupRules().oopsScore(m) != nil) == oops,
            "p01 \(m.p01) p99 \(m.p99), subject \(GroupRules.subjectDetail(m)), noise \(m.noise)")
    }

    /// `b` under the corpora's fog (`../shared/eval/make_corpus.py`): `contrast` of its
    /// deviation from its mean kept around `haze`, then Gaussian grain of `noise` levels.
    static func veiled(_ b: Bitmap, contrast: Double, haze: Double, noise: Double, seed: UInt64) -> Bitmap {
        let mean = b.pixels.reduce(0.0) { $0 + Double($1) } / Double(max(1, b.pixels.count))
        var out = b
        for i in 0..<b.pixels.count {
            out.pixels[i] = UInt8(max(0, min(255, (haze + (Double(b.pixels[i]) - mean) * contrast).rounded())))
        }
        return darkened(out, by: 1, noise: noise, seed: seed)
    }

    /// `b` exposed `stops` more: the sRGB values to linear light, times 2^stops, clipped at
    /// white, and back.
    static func exposed(_ b: Bitmap, stops: Double) -> Bitmap {
        let gain = pow(2, stops)
        let table = (0..<256).map { v -> UInt8 in
            let s = Double(v) / 255
            let linear = min(1, gain * (s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4)))
            let out = linear <= 0.0031308 ? linear * 12.92 : 1.055 * pow(linear, 1 / 2.4) - 0.055
            return UInt8((out * 255).rounded())
        }
        var out = b
        for i in 0..<b.pixels.count { out.pixels[i] = table[Int(b.pixels[i])] }
        return out
    }

    /// `b` blurred along a line of `length` pixels at `degrees` (nearest samples, clamped).
    static func motionBlur(_ b: Bitmap, length: Double, degrees: Double) -> Bitmap {
        var out = b
        let n = max(2, Int(length.rounded()))
        let dx = cos(degrees * .pi / 180), dy = -sin(degrees * .pi / 180)
        let offsets = (0..<n).map { i -> (Int, Int) in
            let t = Double(i) - Double(n - 1) / 2
            return (Int((t * dx).rounded()), Int((t * dy).rounded()))
        }
        for y in 0..<b.height {
            for x in 0..<b.width {
                for k in 0..<b.channels {
                    var sum = 0
                    for (ox, oy) in offsets {
                        let xx = min(b.width - 1, max(0, x + ox)), yy = min(b.height - 1, max(0, y + oy))
                        sum += Int(b.pixels[(yy * b.width + xx) * b.channels + k])
                    }
                    out.pixels[(y * b.width + x) * b.channels + k] = UInt8(sum / n)
                }
            }
        }
        return out
    }

    /// `b` moved by (`dx`, `dy`) pixels, the edge repeated.
    static func shifted(_ b: Bitmap, dx: Int, dy: Int) -> Bitmap {
        var out = b
        for y in 0..<b.height {
            for x in 0..<b.width {
                let xx = min(b.width - 1, max(0, x + dx)), yy = min(b.height - 1, max(0, y + dy))
                for k in 0..<b.channels { out.pixels[(y * b.width + x) * b.channels + k] = b.pixels[(yy * b.width + xx) * b.channels + k] }
            }
        }
        return out
    }

    /// `b` scaled by `factor` with Gaussian grain of `noise` levels added (the sensor's, pushed).
    static func darkened(_ b: Bitmap, by factor: Double, noise: Double, seed: UInt64) -> Bitmap {
        var out = b
        var rng = SplitMix(seed: seed)
        for i in 0..<b.pixels.count {
            // Box–Muller.
            let u1 = max(Double(rng.next() >> 11) / Double(1 << 53), 1e-12), u2 = Double(rng.next() >> 11) / Double(1 << 53)
            let g = (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
            out.pixels[i] = UInt8(max(0, min(255, (Double(b.pixels[i]) * factor + g * noise).rounded())))
        }
        return out
    }

    @Test(arguments: [
        ("normal", false), ("dark", true), ("pocket", true), ("blown", true), ("fog", true), ("night sky", false),
        ("overexposed", true),  // +1.5 EV: a sixth clipped, the median in the highlights
        ("bright sky", false),  // a fifth of the frame clipped over a normally exposed scene
        ("light fog", true),  // a veil that keeps 30 % of the range
        ("overcast", false),  // lifted blacks, but more than half of the range
    ])
    func oopsUsesTheHistogramShape(_ variant: String, _ oops: Bool) {
        let m = Self.metrics { b in
            for i in 0..<b.pixels.count {
                let v = Double(b.pixels[i])
                switch variant {
                case "dark": b.pixels[i] = UInt8(v * 0.12)
                case "pocket": b.pixels[i] = UInt8(3 + (i % 7))
                case "blown": b.pixels[i] = UInt8(min(255, v * 3 + 120))
                case "fog": b.pixels[i] = UInt8(170 + v * 0.2)
                case "night sky": b.pixels[i] = (i / 3) % 37 == 0 ? 250 : UInt8(v * 0.06)  // a moon: 2.7 % bright
                case "overexposed": b.pixels[i] = UInt8(min(255, v * 1.3 + 95))
                case "bright sky": if i < b.pixels.count / 5 { b.pixels[i] = 255 }
                case "light fog": b.pixels[i] = UInt8(150 + v * 0.3)
                case "overcast": b.pixels[i] = UInt8(70 + v * 0.6)
                default: break
                }
            }
        }
        #expect((GroupRules().oopsScore(m) != nil) == oops, "\(variant): p01 \(m.p01) p99 \(m.p99) clipped \(m.clippedFraction)")
    }

    /// In a set, the set tells a bright scene from a bright exposure (`GroupRules.oopsInSet`): a
    /// frame that is an Oops Shot only by its bright tone scale stays one when its mates are a
    /// stop darker, not when they are as bright (a white façade, snow); a failed exposure (dark,
    /// mostly clipped) stays one whatever its mates.
    @Test(arguments: [
        ("overexposed", "normal", true), ("overexposed", "overexposed", false),
        ("blown", "blown", true), ("dark", "dark", true), ("dark", "normal", true),
    ])
    func aSetTellsABrightSceneFromABrightExposure(_ variant: String, _ mates: String, _ oops: Bool) throws {
        func item(_ id: Int64, _ look: String) -> GroupItem {
            var it = Self.item("/p/DCIM/Camera/IMG_\(id).jpg")
            it.id = id
            it.metrics = Self.metrics { b in
                for i in 0..<b.pixels.count {
                    let v = Double(b.pixels[i])
                    switch look {
                    case "overexposed": b.pixels[i] = UInt8(min(255, v * 1.3 + 95))
                    case "blown": b.pixels[i] = UInt8(min(255, v * 3 + 120))
                    case "dark": b.pixels[i] = UInt8(v * 0.12)
                    default: break
                    }
                }
            }
            return it
        }
        let rules = GroupRules()
        let member = item(1, variant)
        let score = try #require(rules.oopsScore(member.metrics!), "\(variant) is an Oops Shot on its own")
        let result = rules.oopsInSet(member, score: score, mates: [item(2, mates), item(3, mates)])
        #expect((result != nil) == oops, "\(variant) among \(mates): p50 \(member.metrics!.p50)")
    }

    /// The keeper of a burst of a bright scene whose other frames came out a stop under is its
    /// right exposure, though it clips more and a frame under reads sharper through the tone
    /// curve (a held-out corpus's two bursts kept a frame 0.9 stops under). A real photo of a
    /// man before a bright sky, exposed so that it clips an eighth of the frame with its median
    /// at 182 (an Oops Shot on its own, as the held-out bird was).
    @Test func aBurstsKeeperIsItsRightExposureNotAFrameAStopUnder() throws {
        func item(_ id: Int64, _ ev: Double) throws -> GroupItem { try Self.frame(id, "cameraman.jpg") { b in b = Self.exposed(b, stops: ev) } }
        let burst = try [item(1, 0.6), item(2, -0.3), item(3, -0.5), item(4, -0.2)]
        let scores = KeeperScore.scores(burst, rules: GroupRules())
        let best = try #require(scores.max { $0.value < $1.value })
        #expect(best.key == 1, "\(scores.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" })")
    }

    /// In a set, a washed-out frame is fog when it lost most of the contrast its mates show of
    /// the same scene; a pale wood grain shaken and a stop under beside a sharp frame of it
    /// keeps most of it (a held-out corpus's burst of four such frames was four Oops Shots).
    @Test(arguments: [("wood.jpg", false), ("building.jpg", true)])
    func aSetTellsAVeilFromAPaleSoftScene(_ photo: String, _ oops: Bool) throws {
        let member = try Self.frame(1, photo) { b in
            b = oops ? Self.veiled(b, contrast: 0.2, haze: 190, noise: 1, seed: 8) : Self.exposed(Self.boxBlur(b, radius: 4), stops: -0.9)
        }
        let mate = try Self.frame(2, photo)
        let m = try #require(member.metrics)
        let rules = GroupRules()
        #expect(GroupRules.veilPenalty(m) >= 0.5, "washed out on its own: p01 \(m.p01) p50 \(m.p50) p99 \(m.p99)")
        let score = try #require(rules.oopsScore(m))
        #expect(
            (rules.oopsInSet(member, score: score, mates: [mate]) != nil) == oops,
            "contrast \(GroupRules.contrast(m)) beside \(GroupRules.contrast(mate.metrics!))")
    }

    /// The set's right exposure is its brightest frame that is no Oops Shot on its own, not its
    /// frames' median: a burst whose other frames came out a stop under leaves its one right
    /// exposure of a bright scene at the top (a held-out corpus's bird before a bright, soft
    /// background was its set's Oops Shot, and its darkest frame the keeper). A real photo of a
    /// bright façade exposed as a camera and the corpus generator do (gamma 2.2, clipped at
    /// white); a frame two stops over its set's right exposure is still an Oops Shot, also
    /// when a second pushed frame is its mate.
    @Test(arguments: [
        (0.5, [0.2, -0.6, -0.9, -1.1], false), (0.5, [-0.6, -0.9, -1.1], false), (0.5, [-2.0, -2.2], true),
        (0.5, [-2.2, 0.6, -2.0], true),
    ])
    func aSetsRightExposureIsItsBrightestFrameExposedRight(_ ev: Double, _ mates: [Double], _ oops: Bool) throws {
        func item(_ id: Int64, _ ev: Double) throws -> GroupItem { try Self.frame(id, "building.jpg") { b in b = Self.exposed(b, stops: ev) } }
        let rules = GroupRules()
        let member = try item(1, ev)
        let score = try #require(rules.oopsScore(member.metrics!), "the bright scene is an Oops Shot on its own: p50 \(member.metrics!.p50)")
        let others = try mates.enumerated().map { try item(Int64($0.offset + 2), $0.element) }
        let result = rules.oopsInSet(member, score: score, mates: others)
        #expect((result != nil) == oops, "\(ev) among \(mates): p50 \(member.metrics!.p50), mates \(others.map { $0.metrics!.p50 })")
    }

    /// A page that reads is a document, not an oops, however washed out or clipped it looks.
    /// An edit brightened on purpose (iOS's IMG_E…, -edited, _edit) is no Oops Shot; its name
    /// with the edit mark taken off is (review 8).
    @Test func anEditIsNoOopsShot() {
        let m = Self.metrics { b in for i in 0..<b.pixels.count { b.pixels[i] = UInt8(min(255, Double(b.pixels[i]) * 1.3 + 95)) } }
        let rules = GroupRules()
        for (name, oops) in [("IMG_7002.HEIC", true), ("IMG_E7002.HEIC", false), ("PXL_1-edited.jpg", false), ("IMG_2_edit.png", false)] {
            var item = Self.item("/p/DCIM/" + name)
            item.metrics = m
            #expect(rules.categories(of: item, findings: Findings()).map(\.0).contains(.oops) == oops, "\(name)")
        }
    }

    @Test(arguments: [(0, [GroupID.oops]), (5, [.oops]), (40, [.document])])
    func aFrameThatReadsIsADocumentNotAnOops(_ words: Int, _ expected: [GroupID]) {
        let m = Self.metrics { b in for i in 0..<b.pixels.count { b.pixels[i] = UInt8(170 + Double(b.pixels[i]) * 0.2) } }
        let rules = GroupRules()
        var item = Self.item("/p/DCIM/Camera/IMG_20241019_123231.jpg")
        item.metrics = m
        let groups = rules.categories(of: item, findings: Findings(ocrWords: words)).map(\.0).filter { $0 != .blurry }
        #expect(groups == expected)
    }

    /// A page OCR cannot read (out of focus: a veil of grey paper, no edges) that the classifier
    /// sees as a page is a document, not an oops; the classifier alone is not enough (a colourful
    /// scene it takes for a book jacket, a gray scene whose median is no paper), nor is the look
    /// alone (no classes: models off).
    @Test(arguments: [
        ("defocused page", 0.42 as Double?, [GroupID.document]), ("page, models off", nil, [.oops]),
        ("page, weak classes", 0.2, [.oops]), ("colourful scene", 0.9, []), ("gray scene", 0.5, []),
    ])
    func aPageTheClassifierSeesIsADocumentEvenUnread(_ variant: String, _ pageScore: Double?, _ expected: [GroupID]) {
        let m =
            variant == "colourful scene"
            ? Self.metrics()
            : variant == "gray scene"
                ? Self.metrics { b in
                    // Black and white: the scene's own tones, from shadows to clipped highlights.
                    for i in stride(from: 0, to: b.pixels.count, by: 3) {
                        let v = UInt8(min(255, Double(b.pixels[i + 1]) * 1.3))
                        b.pixels[i] = v; b.pixels[i + 1] = v; b.pixels[i + 2] = v
                    }
                }
                : Self.metrics { b in
                    b = Self.boxBlur(b, radius: 6)
                    // Gray paper under a veil: no colour, squeezed into the bright band.
                    for i in stride(from: 0, to: b.pixels.count, by: 3) {
                        let v = UInt8(170 + Double(b.pixels[i + 1]) * 0.2)
                        b.pixels[i] = v; b.pixels[i + 1] = v; b.pixels[i + 2] = v
                    }
                }
        var item = Self.item("/p/DCIM/Camera/IMG_20241019_123231.jpg")
        item.metrics = m
        item.pageScore = pageScore
        let groups = GroupRules().categories(of: item, findings: Findings(ocrWords: 0)).map(\.0).filter { $0 != .blurry }
        #expect(groups == expected, "\(variant): saturation \(m.saturation) p50 \(m.p50) p95 \(m.p95)")
    }

    /// A photographed page of text out of focus: paper (with a camera's noise) and lines of
    /// words in grey ink, spread by a box blur of `blur` pixels.
    static func softPage(ink: UInt8 = 100, blur: Int = 7, seed: UInt64 = 3) -> Bitmap {
        var rng = SplitMix(seed: seed)
        var b = Bitmap(width: 640, height: 480, channels: 3)
        for i in stride(from: 0, to: b.pixels.count, by: 3) {
            let v = UInt8(196 + Int(rng.next() % 9))
            b.pixels[i] = v; b.pixels[i + 1] = v; b.pixels[i + 2] = v
        }
        for line in stride(from: 30, to: 450, by: 28) {
            var x = 20
            while x < 600 {
                let word = 20 + Int(rng.next() % 60)
                for y in line..<(line + 10) { for xx in x..<min(620, x + word) { for k in 0..<3 { b.pixels[(y * 640 + xx) * 3 + k] = ink } } }
                x += word + 12
            }
        }
        return blur > 0 ? boxBlur(b, radius: blur) : b
    }

    /// A page too soft to read (defocused or shaken: grey strokes on paper, washed out like fog)
    /// is a document and blurry, not an oops, even when OCR reads nothing and the models are
    /// off; fog over a scene keeps the scene's spread and stays an oops; a sharp page with black
    /// ink is no soft page (OCR decides).
    @Test(arguments: [
        ("soft page", [GroupID.document, .blurry]), ("fog over a scene", [.oops]), ("sharp page", []),
        ("soft page, ink rule off", [.oops]), ("fog over a bright sky and a dark street", [.oops]),
    ])
    func aSoftPageIsADocumentNotFog(_ variant: String, _ expected: [GroupID]) {
        var b: Bitmap
        switch variant {
        case "fog over a scene":
            b = Fixtures.scene(width: 640, height: 480, seed: 11)
            for i in 0..<b.pixels.count { b.pixels[i] = UInt8(160 + Double(b.pixels[i]) * 0.2) }
        case "sharp page": b = Self.softPage(ink: 30, blur: 0)
        case "fog over a bright sky and a dark street":
            // Four fifths bright sky, a fifth dark street: fog squeezes it like a page's histogram
            // (the darks a long tail below the median) but not as deep as ink.
            b = Fixtures.scene(width: 640, height: 480, seed: 11)
            for i in 0..<b.pixels.count {
                let v = i < b.pixels.count * 4 / 5 ? 230 + Double(i % 7) : Double(b.pixels[i]) * 0.5
                b.pixels[i] = UInt8(170 + (v - 195) * 0.15)
            }
        default: b = Self.softPage()
        }
        let m = MetricsComputer.measure(b, orientation: 1, decodeScale: 8).0
        var rules = GroupRules()
        if variant.hasSuffix("rule off") { rules.softPageInkRatio = .infinity }
        var item = Self.item("/p/DCIM/Camera/IMG_20241019_123231.jpg")
        item.metrics = m
        let groups = rules.categories(of: item, findings: Findings(ocrWords: 0)).map(\.0)
        #expect(groups == expected, "\(variant): p01 \(m.p01) p50 \(m.p50) p95 \(m.p95) p99 \(m.p99) sat \(m.saturation) flat \(m.flatFraction)")
    }

    /// The look of a soft page on an icon is no receipt: a page is read at a size (91 of 20 000
    /// 32×32 icons were Docs & Receipts with no text read, review 8).
    @Test func anIconWithAPagesLookIsNoDocument() {
        let m = MetricsComputer.measure(Self.softPage(), orientation: 1, decodeScale: 8).0
        var item = Self.item("/p/icons/icon_00115.png", format: "png", width: 32, height: 32)
        item.metrics = m
        #expect(!GroupRules().categories(of: item, findings: Findings(ocrWords: 0)).map(\.0).contains(.document))
        item = Self.item("/p/icons/icon_00115.png", format: "png", width: 640, height: 480)
        item.metrics = m
        #expect(GroupRules().categories(of: item, findings: Findings(ocrWords: 0)).map(\.0).contains(.document))
    }

    /// A clipped white page, photographed (camera EXIF) or rendered (no camera EXIF).
    @Test(arguments: [("Google" as String?, true), (nil, false)])
    func aRenderedWhiteGraphicWasNeverExposed(_ make: String?, _ oops: Bool) {
        let m = Self.metrics { b in for i in 0..<b.pixels.count { b.pixels[i] = i % 3000 < 2990 ? 255 : 20 } }
        var item = Self.item("/p/Pictures/poster.jpg", width: 640, height: 480, make: make)
        item.metrics = m
        #expect(GroupRules().categories(of: item, findings: Findings()).map(\.0).contains(.oops) == oops)
    }

    /// In a Similar Shots set the sharpest frame is the reference: a frame far softer than it is
    /// blurry, even when the blur left it as flat as a rendered page (a camera photo is judged
    /// whatever its flatness); an underexposed frame (−1.3 EV) is not, though its Laplacian
    /// lost more than two stops with its contrast.
    @Test(arguments: [("same", false), ("blurred", true), ("underexposed", false)])
    func blurIsRelativeToTheSet(_ variant: String, _ blurry: Bool) {
        var sharp = Self.item("/p/DCIM/Camera/IMG_1.jpg"), soft = Self.item("/p/DCIM/Camera/IMG_2.jpg")
        soft.id = 2
        sharp.metrics = Self.metrics()
        soft.metrics = Self.metrics { b in
            if variant == "blurred" { b = Self.boxBlur(b, radius: 12) }
            if variant == "underexposed" { for i in 0..<b.pixels.count { b.pixels[i] = UInt8(Double(b.pixels[i]) * 0.4) } }
        }
        let flagged = GroupRules().relativelyBlurry([sharp, soft]).map(\.0)
        #expect(flagged == (blurry ? [2] : []), "flat \(soft.metrics!.flatFraction)")
    }

    /// A copy keeps the picture's sharpness (here: re-encoded at quality 70 through the JPEG
    /// encoder); a softer frame of a blur ladder does not, however alike the thumbnails are.
    @Test(arguments: [("re-encoded", true), ("blurred", false)])
    func aNearCopyKeepsTheSharpness(_ variant: String, _ same: Bool) throws {
        let scene = Fixtures.scene(width: 640, height: 480, seed: 11)
        var other = scene
        if variant == "blurred" {
            other = Self.boxBlur(scene, radius: 2)
        } else {
            other = try JPEG.decode(Fixtures.jpeg(scene, quality: 70), scaleNumerator: 8, maxHeaderPixels: 1 << 24, maxOutputPixels: 1 << 24).bitmap
        }
        var a = Self.item("/p/DCIM/Camera/IMG_1.jpg"), b = Self.item("/p/Pictures/Export/IMG_1.jpg")
        a.metrics = MetricsComputer.measure(scene, orientation: 1, decodeScale: 8).0
        b.metrics = MetricsComputer.measure(other, orientation: 1, decodeScale: 8).0
        #expect(GroupRules().sameSharpness(a, b) == same, "\(a.metrics!.lapTileMax) vs \(b.metrics!.lapTileMax)")
    }

    /// A copy never gains a capture record or pixels (`GroupRules.mayBeCopy`): the table gives
    /// the copy, the original, whether their pixels are the same, and whether the copy may be
    /// one — and whether the pixels were asked for at all.
    @Test(
        arguments: [
            // A messenger copy (no record) of a camera photo, smaller.
            (
                "/p/WhatsApp/IMG-20241019-WA0001.jpg", "filename", nil, "jpeg", 1600, "/p/DCIM/IMG_1.jpg", "exif", "Google", "jpeg", 4000, false,
                true, false
            ),
            // …and not the other way round: the camera photo has a record its "original" lacks.
            (
                "/p/DCIM/IMG_1.jpg", "exif", "Google", "jpeg", 4000, "/p/WhatsApp/IMG-20241019-WA0001.jpg", "filename", nil, "jpeg", 1600, false,
                false, false
            ),
            // A camera-style name is a capture record too.
            ("/p/DCIM/IMG_20241019_100000.jpg", "filename", nil, "jpeg", 800, "/p/Downloads/x.png", "mtime", nil, "png", 800, false, false, false),
            // A PNG export of a camera JPEG: same size, same pixels.
            (
                "/p/Export/IMG_20241019_100000.png", "filename", nil, "png", 4000, "/p/DCIM/IMG_1.jpg", "exif", "Google", "jpeg", 4000, true, true,
                true
            ),
            // The same with other pixels: the PNG is the JPEG's source, not its copy.
            (
                "/p/Export/IMG_20241019_100000.png", "filename", nil, "png", 4000, "/p/DCIM/IMG_1.jpg", "exif", "Google", "jpeg", 4000, false, false,
                true
            ),
            // A PNG smaller than the JPEG it looks like was resized on purpose: no pixels to compare.
            ("/p/Downloads/x.png", "mtime", nil, "png", 800, "/p/DCIM/IMG_1.jpg", "exif", "Google", "jpeg", 4000, true, false, false),
            // A smaller PNG of a PNG: made on purpose as well.
            ("/p/Downloads/x.png", "mtime", nil, "png", 800, "/p/Pictures/y.png", "mtime", nil, "png", 1600, true, false, false),
            // An optimized PNG (recompressed, same pixels) and one of other pixels.
            ("/p/Downloads/x.png", "mtime", nil, "png", 800, "/p/Pictures/y.png", "mtime", nil, "png", 800, true, true, true),
            ("/p/Downloads/x.png", "mtime", nil, "png", 800, "/p/Pictures/y.png", "mtime", nil, "png", 800, false, false, true),
            // A JPEG saved from a PNG: a lossy copy of a lossless original needs no pixel check.
            ("/p/Downloads/x.jpg", "mtime", nil, "jpeg", 800, "/p/Pictures/x.png", "mtime", nil, "png", 800, false, true, false),
        ] as [(String, String, String?, String, Int, String, String, String?, String, Int, Bool, Bool, Bool)])
    func aCopyNeverGainsARecordOrPixels(
        _ copyPath: String, _ copySource: String, _ copyMake: String?, _ copyFormat: String, _ copyWidth: Int,
        _ origPath: String, _ origSource: String, _ origMake: String?, _ origFormat: String, _ origWidth: Int,
        _ samePixels: Bool, _ mayBe: Bool, _ asked: Bool
    ) {
        func item(_ path: String, _ source: String, _ make: String?, _ format: String, _ width: Int) -> GroupItem {
            var it = Self.item(path, format: format, width: width, height: width * 3 / 4)
            it.setTaken("2024-10-19T10:00:00", source: source)
            it.make = make
            return it
        }
        var wasAsked = false
        let result = GroupRules().mayBeCopy(
            item(copyPath, copySource, copyMake, copyFormat, copyWidth),
            of: item(origPath, origSource, origMake, origFormat, origWidth)
        ) {
            wasAsked = true
            return samePixels
        }
        #expect(result == mayBe)
        #expect(wasAsked == asked)
    }

    /// `SamePixels` accepts what two decoders of one JPEG disagree on and refuses a JPEG
    /// encoded from the picture (its source): the JPEG at quality 85 against the pixels it was
    /// made from, and the same decode with every pixel a level off here and there.
    @Test func samePixelsToleratesDecodersNotAnEncode() throws {
        let scene = Fixtures.scene(width: 640, height: 480, seed: 23)
        let jpeg = Fixtures.jpeg(scene, quality: 85)
        let decoded = try JPEG.decode(jpeg, scaleNumerator: 8, smoothChroma: true, maxHeaderPixels: 1 << 24, maxOutputPixels: 1 << 24).bitmap
        #expect(SamePixels.same(decoded, decoded))
        var offByOne = decoded
        for i in stride(from: 0, to: offByOne.pixels.count, by: 7) { offByOne.pixels[i] = offByOne.pixels[i] < 255 ? offByOne.pixels[i] + 1 : 254 }
        #expect(SamePixels.same(decoded, offByOne))
        #expect(!SamePixels.same(scene, decoded))
        var cropped = decoded
        cropped.height -= 1
        cropped.pixels.removeLast(cropped.width * 3)
        #expect(!SamePixels.same(cropped, decoded))
    }

    /// What a file says itself about when it was taken, to the second (the wall clock: an
    /// export named after the original matches the original's EXIF whatever its offset).
    @Test(arguments: [
        ("/p/DCIM/Camera/IMG_1.jpg", "exif", "2024-10-19T10:00:00+02:00", true),
        ("/p/Export/PXL_20241019_100000123.png", "filename", "2024-10-19T10:00:00", true),
        ("/p/Export/20241019_100000.jpg", "filename", "2024-10-19T10:00:00", true),
        ("/p/WhatsApp/IMG-20241019-WA0001.jpg", "filename", "2024-10-19T12:00:00", false),  // a date, no time
        ("/p/Downloads/photo.jpg", "mtime", "2024-10-19T10:00:00+00:00", false),  // when the copy was made
    ])
    func aFileSaysWhenItWasTaken(_ path: String, _ source: String, _ takenAt: String, _ own: Bool) {
        var it = Self.item(path)
        it.setTaken(takenAt, source: source)
        let t = GroupRules.ownCaptureTime(it)
        #expect((t != nil) == own)
        if let t {
            var exif = Self.item("/p/DCIM/Camera/IMG_2.jpg")
            exif.setTaken("2024-10-19T10:00:00-05:00", source: "exif")
            #expect(GroupRules.ownCaptureTime(exif) == t)
            exif.setTaken("2024-10-19T10:00:03-05:00", source: "exif")
            #expect(GroupRules().separateCaptures(it, exif))
        }
    }

    @Test func damagedAndUnreadableFilesAreOnlyUnreadable() {
        for status in [ItemStatus.damaged, .unreadable] {
            let groups = GroupRules().categories(of: Self.item("/p/x.jpg", status: status), findings: Findings(qrPayload: "x")).map(\.0)
            #expect(groups == [.unreadable])
        }
    }

    /// Among copies of one picture at one size, what the user added and the detail a copy keeps
    /// decide before the folder: an edit (or a darktable sidecar), the RAW it was shot with, then
    /// the larger file of one format — a "storage saver" copy at a shallower path was kept and
    /// the full-quality original offered for the Trash.
    @Test func theOriginalKeepsTheEditTheRawAndTheDetail() throws {
        let rules = GroupRules()
        var original = Self.item("/p/Phone/DCIM/Camera/PXL_1.jpg")
        original.bytes = 864_000
        var saver = Self.item("/p/PXL_1.jpg")
        saver.bytes = 132_000
        #expect(rules.originalOrder(original, saver) && !rules.originalOrder(saver, original))
        // Same bytes: the folder decides, as before.
        saver.bytes = original.bytes
        #expect(rules.originalOrder(saver, original))
        // Size compares copies of one format: a PNG export (larger, written later beside it) is
        // no original for being larger.
        var png = Self.item("/p/Phone/DCIM/Camera/PXL_1.png", format: "png")
        png.bytes = 9_000_000
        png.mtime = 5
        original.bytes = 864_000
        #expect(rules.originalOrder(original, png) && !rules.originalOrder(png, original))
        // The edit wins over the untouched copy; an edit is never the copy of an untouched file,
        // and an edit and the original its name points at are never copies of each other.
        let edited = Self.item("/p/Phone/DCIM/Camera/PXL_1-edited.jpg")
        #expect(rules.originalOrder(edited, saver) && !rules.originalOrder(saver, edited))
        #expect(!rules.mayBeCopy(edited, of: original, samePixels: { true }) && !rules.mayBeCopy(original, of: edited, samePixels: { true }))
        let retouched = Self.item("/p/Phone/DCIM/Camera/PXL_2.jpg")
        #expect(rules.mayBeCopy(retouched, of: edited, samePixels: { true }) && !rules.mayBeCopy(edited, of: retouched, samePixels: { true }))
        // The file a RAW goes with wins over a loose copy of its bytes.
        var owner = Self.item("/p/DCIM/100CANON/IMG_0001.JPG")
        owner.rawPair = .owner
        let loose = Self.item("/p/IMG_0001.JPG")
        #expect(rules.originalOrder(owner, loose) && !rules.originalOrder(loose, owner))
        // A darktable sidecar next to one copy makes it the edited one.
        let dir = TempDir()
        dir.write("Photos/2024/PXL_1.jpg", [1])
        dir.write("Photos/2024/PXL_1.jpg.xmp", Array("<x:xmpmeta/>".utf8))
        dir.write("Photos/PXL_1.jpg", [1])
        let managed = Self.item(dir.at("Photos/2024/PXL_1.jpg")), plain = Self.item(dir.at("Photos/PXL_1.jpg"))
        #expect(rules.originalOrder(managed, plain) && !rules.originalOrder(plain, managed))
    }

    /// Similar Shots never take a screenshot (two screens of one app differ in what matters; a
    /// screenshot of a photo is no retake of it), and two pages that both read only when they
    /// share most of their words.
    @Test func screenshotsAndOtherPagesAreNotSimilarShots() {
        let rules = GroupRules()
        var photo = Self.item("/p/DCIM/Camera/PXL_1.jpg"), other = Self.item("/p/DCIM/Camera/PXL_2.jpg")
        var shot = Self.item("/p/Pictures/Screenshots/Screenshot_20241018-180021_WhatsApp.png", format: "png", make: nil)
        for i in [0, 1, 2] {
            let m = Self.metrics()
            if i == 0 { photo.metrics = m } else if i == 1 { other.metrics = m } else { shot.metrics = m }
        }
        other.id = 2
        shot.id = 3
        let none: (Int64) -> Set<String>? = { _ in nil }
        #expect(rules.maySimilar(photo, other, pageWords: none))
        #expect(!rules.maySimilar(photo, shot, pageWords: none) && !rules.maySimilar(shot, photo, pageWords: none))
        var shot2 = shot
        shot2.id = 4
        #expect(!rules.maySimilar(shot, shot2, pageWords: none))
        let page1 = GroupRules.pageWords("TENANCY AGREEMENT page 1. Rent 950 EUR due monthly; deposit three months; Acme Lettings Ltd, 12 High St.")
        let page2 = GroupRules.pageWords(
            "TENANCY AGREEMENT page 2. Termination with notice; IBAN DE89 3704; signatures; Acme Lettings Ltd, 12 High St.")
        let retake = GroupRules.pageWords("TENANCY AGREEMENT page 1. Rent 950 EUR due monthly deposit three months Acme Lettings, 12 High")
        #expect(page1.contains("tenancy") && !page1.contains("12"))
        #expect(!rules.maySimilar(photo, other, pageWords: { $0 == 1 ? page1 : page2 }))
        #expect(rules.maySimilar(photo, other, pageWords: { $0 == 1 ? page1 : retake }))
        // A retake that does not read (shaken) still joins the page.
        #expect(rules.maySimilar(photo, other, pageWords: { $0 == 1 ? page1 : nil }))
    }

    @Test func theOriginalHasCameraExifThenMorePixelsThenNoCopyFolder() {
        let rules = GroupRules()
        let camera = Self.item("/p/DCIM/Camera/IMG_1.jpg")
        var export = Self.item("/p/Pictures/Export/IMG_1.png", format: "png", make: nil)
        #expect(rules.originalOrder(camera, export) && !rules.originalOrder(export, camera))
        export.make = "Google"
        let backup = Self.item("/p/Backup/Phone/DCIM/Camera/IMG_1.jpg")
        #expect(rules.originalOrder(camera, backup) && !rules.originalOrder(backup, camera))
        let small = Self.item("/p/DCIM/Camera/IMG_1.jpg", width: 1600, height: 1200)
        #expect(rules.originalOrder(camera, small))
    }

    static func boxBlur(_ b: Bitmap, radius r: Int) -> Bitmap {
        var out = b
        let w = b.width, h = b.height
        for pass in 0..<2 {
            let src = out
            for y in 0..<h {
                for x in 0..<w {
                    for k in 0..<3 {
                        var s = 0, n = 0
                        for d in -r...r {
                            let xx = pass == 0 ? min(w - 1, max(0, x + d)) : x, yy = pass == 1 ? min(h - 1, max(0, y + d)) : y
                            s += Int(src.pixels[(yy * w + xx) * 3 + k]); n += 1
                        }
                        out.pixels[(y * w + x) * 3 + k] = UInt8(s / n)
                    }
                }
            }
        }
        return out
    }

    /// Edits by name: iOS's `IMG_E1234` beside `IMG_1234`, Google Photos' `-edited` (and a
    /// Takeout's translations). An edit and its original are never offered against each other.
    @Test func anEditAndItsOriginalAreNeverRetakesOrCopiesOfEachOther() {
        #expect(GroupRules.editBase("IMG_E1001.JPG") == "img_1001")
        #expect(GroupRules.editBase("PXL_20241018_113235514-edited.jpg") == "pxl_20241018_113235514")
        #expect(GroupRules.editBase("IMG_2024-bearbeitet.jpg") == "img_2024")
        #expect(
            GroupRules.editBase("IMG_1001.JPG") == nil && GroupRules.editBase("IMG_EXTRA.JPG") == nil && GroupRules.editBase("-edited.jpg") == nil)
        #expect(GroupRules.looksEdited("/p/IMG_E1001.JPG") && !GroupRules.looksEdited("/p/IMG_1001.JPG"))
        let rules = GroupRules()
        let original = Self.item("/p/IMG_1001.HEIC", format: "heic"), edit = Self.item("/p/IMG_E1001.JPG")
        let other = Self.item("/p/IMG_1002.HEIC", format: "heic")
        #expect(!rules.maySimilar(original, edit, pageWords: { _ in nil }) && !rules.maySimilar(edit, original, pageWords: { _ in nil }))
        #expect(!rules.mayBeCopy(edit, of: original, samePixels: { true }) && !rules.mayBeCopy(original, of: edit, samePixels: { true }))
        #expect(rules.maySimilar(edit, other, pageWords: { _ in nil }))
        // A RAW against a rendered picture: neither a retake nor a copy; two RAWs may be.
        let raw = Self.item("/p/shot.dng", format: "dng"), raw2 = Self.item("/p/shot2.dng", format: "dng")
        #expect(!rules.maySimilar(raw, other, pageWords: { _ in nil }) && !rules.mayBeCopy(raw, of: edit, samePixels: { true }))
        #expect(rules.maySimilar(raw, raw2, pageWords: { _ in nil }))
    }

    /// A favourite (4 or 5 stars) is never Blurry or an Oops Shot: the user chose it as it is.
    @Test func aFavouriteIsNeitherBlurryNorAnOopsShot() throws {
        let rules = GroupRules()
        var soft = Self.item("/p/IMG_1.jpg")
        soft.metrics = try Self.realMetrics(Self.realPhotos[0]) { b in b = Self.boxBlur(b, radius: 6) }
        let groups = rules.categories(of: soft, findings: Findings()).map(\.0)
        #expect(groups.contains(.blurry), "\(groups)")
        soft.rating = 5
        #expect(rules.categories(of: soft, findings: Findings()).isEmpty)
        soft.rating = 3
        #expect(rules.categories(of: soft, findings: Findings()).map(\.0) == groups)
        // Nor blurry against the sharper frames of its set (it was a card of the Blurry deck
        // while the keeper of its set, review 8 F3).
        var sharp = Self.item("/p/IMG_2.jpg")
        sharp.id = 2
        sharp.metrics = try Self.realMetrics(Self.realPhotos[0]) { _ in }
        soft.id = 1
        soft.rating = nil
        #expect(rules.relativelyBlurry([soft, sharp]).map(\.0) == [1])
        soft.rating = 5
        #expect(rules.relativelyBlurry([soft, sharp]).isEmpty)
    }

    /// Two photos that look alike but say nothing of when they were taken (no EXIF time, no
    /// Takeout JSON, no time in the name) may be retakes of each other: their pixels are the
    /// evidence (issue 39; a messenger's copies keep no time), and what their file times may say
    /// is `WeakClock`'s. Copies are found apart.
    @Test func photosThatSayNotWhenTheyWereTakenMayBeRetakesByTheirPixels() {
        func fileTimed(_ path: String, id: Int64) -> GroupItem {
            GroupItem(
                id: id, path: path, kind: .photo, format: "jpeg", status: .ok, bytes: 1000, width: 4000, height: 3000,
                taken: 1_730_578_500, takenSource: "mtime", make: nil, model: nil, software: nil, rating: nil, orientation: 1,
                duration: nil, metrics: nil, phash: nil, dhash: nil, contentHash: nil, analyzedAt: nil, mtime: 1_730_578_500_000_000_000)
        }
        let rules = GroupRules()
        let a = fileTimed("/p/Takeout/0a1b2c.jpg", id: 1), b = fileTimed("/p/Takeout/9f8e7d.jpg", id: 2)
        #expect(a.ownCaptureTime == nil && b.ownCaptureTime == nil)
        #expect(rules.maySimilar(a, b, pageWords: { _ in nil }))
        #expect(rules.mayBeCopy(a, of: b, samePixels: { true }))
        // One that says when it was taken may have a retake among them.
        #expect(rules.maySimilar(Self.item("/p/DCIM/IMG_1.jpg"), b, pageWords: { _ in nil }))
    }
}
