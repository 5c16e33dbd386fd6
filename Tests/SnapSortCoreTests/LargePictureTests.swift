import Foundation
import Glibc
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// Pictures over the whole-decode budget (review 7, F11): a stitched panorama, a long scrolling
/// screenshot, a 48 MP HEIF. They are real pictures: analyzed where the format allows reading
/// them reduced, else kept out of every group — never "unreadable" beside broken files (a deck
/// cleared in bulk). The budget is lowered here so the files stay small.
struct LargePictureTests {
    /// Limits with a whole-decode budget of `pixels`.
    static func limits(decode pixels: Int64, header: Int64 = 500_000_000) -> AnalyzerLimits {
        var l = AnalyzerLimits()
        l.maxDecodePixels = pixels
        l.maxHeaderPixels = header
        return l
    }

    static func analyze(_ bytes: [UInt8], name: String, limits: AnalyzerLimits) throws -> AnalysisResult {
        var a = Analyzer()
        a.limits = limits
        return try #require(try a.analyzeBytes(bytes, name: name))
    }

    /// A JPEG larger than a worker holds (`maxInMemoryBytes`, lowered here) is decoded from
    /// the file through libjpeg's source manager: the same pixels, so the same metrics and
    /// hashes, and its EXIF from the metadata read; its copies are found by the streamed hash.
    /// A PNG that large is refused with a clear reason, never held (issue 40).
    @Test func aPictureLargerThanAWorkerHoldsIsDecodedFromTheFileOrRefused() throws {
        let jpeg = Fixtures.jpeg(Fixtures.scene(width: 1600, height: 1200, seed: 5), dateTimeOriginal: "2021:06:01 10:00:00")
        var small = AnalyzerLimits()
        small.maxInMemoryBytes = 4096
        let whole = try Self.analyze(jpeg, name: "pano.jpg", limits: AnalyzerLimits())
        let streamed = try Self.analyze(jpeg, name: "pano.jpg", limits: small)
        #expect(streamed.status == .ok && streamed.reason == nil, "\(String(describing: streamed.reason))")
        #expect(streamed.width == 1600 && streamed.height == 1200)
        #expect(streamed.metrics == whole.metrics)
        #expect(streamed.signature == whole.signature)
        #expect(streamed.capture?.source == .exif && streamed.capture == whole.capture)
        #expect(streamed.contentHash == whole.contentHash && streamed.quickHash == whole.quickHash)
        // A JPEG cut short reads as damaged from the file too.
        let cut = try Self.analyze(Array(jpeg.prefix(jpeg.count * 2 / 3)), name: "cut.jpg", limits: small)
        #expect(cut.status == .damaged, "\(cut.status) \(String(describing: cut.reason))")
        let pngBytes = Fixtures.png(Fixtures.scene(width: 640, height: 480, seed: 3))
        try #require(pngBytes.count > 4096 && jpeg.count > 4096)
        let png = try Self.analyze(pngBytes, name: "shot.png", limits: small)
        #expect(png.status == .unsupported && png.reason?.code == .tooLargeToAnalyze, "\(png.status) \(String(describing: png.reason))")
        #expect(png.reason?.text.contains("larger than SnapSort reads into memory") == true)
        #expect(png.contentHash != nil)
    }

    /// Tier 2 reads a JPEG from the file too (it read the file whole, up to 512 MiB, in the
    /// scan's memory beside its workers'): the same pixels for the models however small the
    /// budget of bytes held (issue 40).
    @Test func theModelsDecodeAJPEGFromTheFileNotItsBytesHeldWhole() throws {
        let dir = TempDir("snapsort-large-vision")
        let path = dir.write("pano.jpg", Fixtures.jpeg(Fixtures.scene(width: 1600, height: 1200, seed: 5)))
        var small = AnalyzerLimits()
        small.maxPhotoBytes = 4096
        small.maxInMemoryBytes = 4096
        let whole = try VisionImage.load(path: path, format: "jpeg", orientation: 6, least: VisionImage.leastLongSide)
        let streamed = try VisionImage.load(path: path, format: "jpeg", orientation: 6, least: VisionImage.leastLongSide, limits: small)
        #expect(streamed.width == 750 && streamed.height == 1000, "upright, kept at the 5/8 DCT scale: \(streamed.width)×\(streamed.height)")
        #expect(streamed.pixels == whole.pixels && streamed.width == whole.width)
        let bytes = try FileSystem.readFile(path, limit: 1 << 24)
        #expect(streamed.pixels == VisionImage.oriented(try VisionImage.jpeg(bytes, side: 920, limits: AnalyzerLimits()), 6).pixels)
    }

    @Test func aPNGOverTheBudgetIsReducedWhileReadAndMeasuredLikeAWholeDecode() throws {
        let scene = Fixtures.scene(width: 2400, height: 1200, seed: 9)
        let png = Fixtures.png(scene)
        let whole = try Self.analyze(png, name: "pano.png", limits: AnalyzerLimits())
        let reduced = try Self.analyze(png, name: "pano.png", limits: Self.limits(decode: 1_000_000))
        #expect(reduced.status == .ok && reduced.reason == nil, "\(String(describing: reduced.reason))")
        #expect(reduced.width == 2400 && reduced.height == 1200)
        let m = try #require(reduced.metrics), w = try #require(whole.metrics)
        #expect(m.workingWidth == 1024 && m.workingHeight == 512)
        // The same picture at the same working size: exposure alike, hashes within a few bits.
        #expect(abs(m.meanLuma - w.meanLuma) < 1.5 && abs(m.p50 - w.p50) <= 2, "\(m.meanLuma) \(w.meanLuma)")
        let s1 = try #require(reduced.signature), s2 = try #require(whole.signature)
        #expect(VisualSignature.hamming(s1.phash, s2.phash) <= 4 && VisualSignature.hamming(s1.dhash, s2.dhash) <= 4)
    }

    @Test func aLongScreenshotIsAScreenshotNotUnreadable() throws {
        // 400×6000: a phone's scrolling capture, flat like a rendered page.
        var px = [UInt8](repeating: 250, count: 400 * 6000 * 3)
        for y in stride(from: 40, to: 6000, by: 60) {
            for x in 30..<370 { for c in 0..<3 { px[((y + (x % 7)) * 400 + x) * 3 + c] = 40 } }
        }
        let png = Fixtures.png(Bitmap(width: 400, height: 6000, channels: 3, pixels: px))
        let r = try Self.analyze(png, name: "Screenshot_20241019-120000.png", limits: Self.limits(decode: 1_000_000))
        #expect(r.status == .ok, "\(String(describing: r.reason))")
        #expect(r.metrics?.workingHeight == 1024)
    }

    @Test func aPictureNoFormatCanReduceIsKeptOutOfEveryGroupNotUnreadable() throws {
        // A JPEG whose header is over the header limit, but whose bytes can hold it.
        let jpeg = Fixtures.jpeg(seed: 3, width: 640, height: 480)
        let r = try Self.analyze(jpeg, name: "IMG_0001.jpg", limits: Self.limits(decode: 40_000_000, header: 100_000))
        #expect(r.status == .unsupported && r.reason?.code == .tooLargeToAnalyze, "\(String(describing: r.reason))")
        #expect(r.width == 640 && r.height == 480)
        #expect(r.reason?.text.contains("640×480") == true)
        // In a library: in no group, the Unreadable one included.
        let t = try TestLibrary()
        t.dir.write("Pictures/IMG_0001.jpg", jpeg)
        let scanner = t.scanner()
        scanner.analyzer.limits = Self.limits(decode: 40_000_000, header: 100_000)
        _ = try scanner.scan([t.root])
        let item = try #require(try t.library.items().first)
        #expect(item.status == .unsupported)
        #expect(try t.library.groupMembers(.unreadable).isEmpty)
    }

    @Test func aHeaderItsBytesCannotHoldIsABombAndUnreadable() throws {
        let r = try Self.analyze(Fixtures.pngBombHeader(width: 30_000, height: 30_000), name: "panorama.png", limits: AnalyzerLimits())
        #expect(r.status == .unreadable && r.reason?.code == .tooLarge)
        #expect(r.reason?.text.contains("decompression bomb") == true)
        // Within the whole-decode budget a file cut short is read and found broken, as before:
        // no "bomb" for a photo that lost its end.
        let cut = try Self.analyze(Fixtures.pngBombHeader(width: 2000, height: 1500), name: "IMG_0001.png", limits: AnalyzerLimits())
        #expect(cut.status == .unreadable && cut.reason?.code == .decodeError, "\(String(describing: cut.reason))")
    }

    /// A decode costs its pixels × bytes per pixel: a 20 000 × 20 000 PNG of 16-bit RGB (2.4 GB
    /// of samples, under the 500 MP cap, its few MB believable) took 9 s of CPU. It is refused
    /// from its header; the same size in 1-bit grey (50 MB of samples) is not.
    @Test func aPNGWhoseSamplesInflateBeyondTheBudgetIsRefusedFromItsHeader() throws {
        func png(depth: UInt8, colour: UInt8) -> [UInt8] {
            var p = Fixtures.pngBombHeader(width: 20_000, height: 20_000)
            p[24] = depth
            p[25] = colour
            let crc = CRC32.compute(Array(p[12..<29]))
            p.replaceSubrange(29..<33, with: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) })
            // A private chunk makes the file large enough to be believed (10 000 pixels a byte).
            let filler = [UInt8](repeating: 0, count: 48 * 1024)
            let body = Array("prVt".utf8) + filler
            let chunk: [UInt8] = [0, 0, 0xC0, 0x00] + body + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: CRC32.compute(body) >> $0) }
            p.insert(contentsOf: chunk, at: 33)
            return p
        }
        let deep = try Self.analyze(png(depth: 16, colour: 2), name: "huge.png", limits: AnalyzerLimits())
        #expect(deep.status == .unsupported && deep.reason?.code == .tooLargeToAnalyze, "\(String(describing: deep.reason))")
        #expect(deep.reason?.text.contains("48-bit pixels") == true)
        let bilevel = try Self.analyze(png(depth: 1, colour: 0), name: "huge.png", limits: AnalyzerLimits())
        #expect(bilevel.reason?.code != .tooLargeToAnalyze, "\(String(describing: bilevel.reason))")
    }

    /// A large file of no known format named like a photo is not read whole for its content
    /// hash (a 4 GB sparse file took 10 s): its quick hash of the ends stands for it.
    @Test func aLargeFileOfNoKnownFormatIsNotReadWhole() throws {
        let dir = TempDir()
        let path = dir.at("IMG_0001.jpg")
        let fd = try FileDescriptor.open(path, O_WRONLY | O_CREAT | O_EXCL)
        #expect(ftruncate(fd.raw, 4 << 30) == 0)
        fd.close()
        let st = try FileSystem.lstatus(path)
        let r = Analyzer().analyze(path: path, status: st)
        #expect(r.reason?.code == .unknownFormat || r.reason?.code == .notMedia, "\(String(describing: r.reason))")
        #expect(r.contentHash == nil)
        #expect(r.quickHash != nil)
    }

    @Test(.enabled(if: HEIF.canEncode, "libheif has no HEVC encoder here"))
    func aHEIFOverTheBudgetWithoutALargeThumbnailIsTooLargeToAnalyze() throws {
        let heic = try HEIF.encode(Fixtures.scene(width: 1280, height: 960, seed: 4), quality: 70, thumbnailLongSide: 160)
        let r = try Self.analyze(heic, name: "IMG_0001.HEIC", limits: Self.limits(decode: 500_000))
        #expect(r.status == .unsupported && r.reason?.code == .tooLargeToAnalyze, "\(String(describing: r.reason))")
        #expect(r.width == 1280 && r.height == 960)
    }

    @Test func aWebPOverTheBudgetGoesThroughTheScaler() throws {
        let webp = try WebP.encode(Fixtures.scene(width: 2048, height: 1536, seed: 6), quality: 80)
        let r = try Self.analyze(webp, name: "IMG_0001.webp", limits: Self.limits(decode: 1_000_000))
        #expect(r.status == .ok, "\(String(describing: r.reason))")
        #expect(r.metrics?.workingWidth == 1024)
    }
}
