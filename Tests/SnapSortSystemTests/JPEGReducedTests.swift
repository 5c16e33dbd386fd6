import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Testing

/// The shim's own 1/4- and 1/8-scale decoder (`ss_jpeg_reduced_into`, the scan's hot path) against
/// libjpeg-turbo on the same bytes: real photographs (Tests/Fixtures/vision) and the streams
/// Debian's `cjpeg` writes from them in every layout it has, odd sizes, restart markers and
/// quality extremes. A stream it takes must come out pixel for pixel as libjpeg's; anything
/// else — other processes, damage, leftovers — must go to libjpeg, warnings and all.
@Suite struct JPEGReducedTests {
    static let vision = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../Fixtures/vision").standardized.path

    /// `cjpeg args… picture` of a bitmap, through a PPM file.
    static func cjpeg(_ picture: Bitmap, _ args: [String], in dir: TempDir) throws -> [UInt8] {
        let rgb = picture
        #expect(rgb.channels == 3)
        let ppm = dir.write("in-\(rgb.width)x\(rgb.height).ppm", Array("P6\n\(rgb.width) \(rgb.height)\n255\n".utf8) + rgb.pixels)
        let out = dir.at("out.jpg")
        let r = try SnapsortBinary.run(args + ["-outfile", out, ppm], launcher: "/usr/bin/cjpeg")
        #expect(r.status == 0, "cjpeg \(args): \(r.stderr)")
        return try FileSystem.readFile(out, limit: 64 << 20)
    }

    /// A fixture photograph, decoded whole, cropped to its top-left `width`×`height` (nil: all).
    static func photo(_ name: String, width: Int? = nil, height: Int? = nil) throws -> Bitmap {
        let whole = try JPEG.decode(
            FileSystem.readFile(vision + "/" + name, limit: 64 << 20), scaleNumerator: 8, maxHeaderPixels: 1 << 30, maxOutputPixels: 1 << 30
        ).bitmap
        return crop(whole, width: width ?? whole.width, height: height ?? whole.height)
    }

    static func crop(_ b: Bitmap, width: Int, height: Int) -> Bitmap {
        var px = [UInt8]()
        for y in 0..<height { px += b.pixels[(y * b.width * 3)..<((y * b.width + width) * 3)] }
        return Bitmap(width: width, height: height, channels: 3, pixels: px)
    }

    /// Decodes `data` at 1/4 and 1/8 both ways in each layout; returns whether the reduced
    /// decoder took it every time.
    @discardableResult
    static func expectSameAsLibjpeg(_ data: [UInt8], _ what: String) throws -> Bool {
        var took = true
        for scale in [2, 1] {
            for (gray, padded) in [(false, false), (false, true), (true, false)] {
                took = try expectSameAsLibjpeg(data, "\(what) 1/\(8 / scale)", scale: scale, gray: gray, padded: padded) && took
            }
        }
        return took
    }

    static func expectSameAsLibjpeg(_ data: [UInt8], _ what: String, scale: Int, gray: Bool, padded: Bool) throws -> Bool {
        do {
            let mine = try JPEG.decode(
                data, scaleNumerator: scale, grayscale: gray, padded: padded, maxHeaderPixels: 1 << 30, maxOutputPixels: 1 << 30)
            let ref = try JPEG.decode(
                data, scaleNumerator: scale, grayscale: gray, padded: padded, viaLibjpeg: true, maxHeaderPixels: 1 << 30, maxOutputPixels: 1 << 30)
            #expect(!ref.reducedDecoder)
            #expect(
                mine.bitmap.width == ref.bitmap.width && mine.bitmap.height == ref.bitmap.height && mine.bitmap.channels == ref.bitmap.channels,
                "\(what)")
            let differing = zip(mine.bitmap.pixels, ref.bitmap.pixels).filter { $0 != $1 }.count
            #expect(differing == 0, "\(what) gray \(gray) padded \(padded): \(differing) bytes differ from libjpeg's")
            #expect(mine.header.width == ref.header.width && mine.header.height == ref.header.height)
            #expect(mine.warnings == ref.warnings, "\(what)")
            return mine.reducedDecoder
        }
    }

    @Test func realPhotographsDecodeToLibjpegsPixels() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.vision).filter { $0.hasSuffix(".jpg") }.sorted()
        #expect(names.count >= 8)
        for name in names {
            let data = try FileSystem.readFile(Self.vision + "/" + name, limit: 64 << 20)
            let header = try JPEG.readHeader(data)
            let took = try Self.expectSameAsLibjpeg(data, name)
            if !header.progressive { #expect(took, "\(name) is baseline: the reduced decoder should take it") }
        }
    }

    @Test func everyBaselineLayoutCjpegWritesDecodesToLibjpegsPixels() throws {
        let dir = TempDir()
        let photo = try Self.photo("coffee.jpg")
        let sizes = [(photo.width, photo.height), (203, 151), (17, 9), (1, 1), (16, 16), (33, 8)]
        let layouts: [[String]] = [
            ["-sample", "2x2"], ["-sample", "2x1"], ["-sample", "1x1"], ["-grayscale"], ["-restart", "1"], ["-restart", "5B"],
            ["-sample", "2x1", "-restart", "3B"], ["-quality", "10"], ["-quality", "100"], ["-optimize"], ["-sample", "1x1", "-quality", "97"],
            // all components alike, as ffmpeg writes them
            ["-sample", "1x2,1x2,1x2"], ["-sample", "2x1,2x1,2x1"],
        ]
        var taken = 0
        for (w, h) in sizes {
            let picture = Self.crop(photo, width: w, height: h)
            for args in layouts {
                let data = try Self.cjpeg(picture, args, in: dir)
                let took = try Self.expectSameAsLibjpeg(data, "\(w)x\(h) \(args)")
                #expect(took, "\(w)x\(h) \(args): a clean baseline stream")
                if took { taken += 1 }
            }
        }
        #expect(taken == sizes.count * layouts.count)
    }

    @Test func otherProcessesAndColourSpacesGoToLibjpeg() throws {
        let dir = TempDir()
        let picture = try Self.photo("chelsea.jpg", width: 203, height: 151)
        for args in [["-progressive"], ["-arithmetic"], ["-rgb"], ["-sample", "1x2"], ["-sample", "2x2,2x1,1x1"], ["-sample", "4x2"]] {
            let data = try Self.cjpeg(picture, args, in: dir)
            let took = try Self.expectSameAsLibjpeg(data, "\(args)")
            #expect(!took, "\(args) is for libjpeg")
        }
    }

    /// Damage libjpeg warns about (the analyzer's "damaged" reasons come from its warnings) is
    /// never decoded by the reduced decoder.
    @Test func damagedStreamsGoToLibjpegWithItsWarnings() throws {
        let dir = TempDir()
        let picture = try Self.photo("coffee.jpg", width: 320, height: 200)
        let clean = try Self.cjpeg(picture, ["-restart", "2B"], in: dir)
        #expect(try Self.expectSameAsLibjpeg(clean, "clean"))
        let eoi = clean.count - 2
        #expect(Array(clean[eoi...]) == [0xFF, 0xD9])
        // The first restart marker, renumbered out of step.
        let rst = (2..<eoi).first { clean[$0 - 1] == 0xFF && clean[$0] == 0xD0 }!
        var renumbered = clean
        renumbered[rst] = 0xD3
        let cases: [(String, [UInt8])] = [
            ("cut in half", Array(clean.prefix(clean.count / 2))),
            ("no end marker", Array(clean.prefix(eoi))),
            ("bytes before the end marker", Array(clean.prefix(eoi)) + [0x12, 0x34, 0x56] + [0xFF, 0xD9]),
            ("restart marker out of step", renumbered),
            ("a marker inside the data", Array(clean.prefix(eoi - 40)) + [0xFF, 0xE1, 0x00, 0x04, 0x00, 0x00] + Array(clean[(eoi - 40)...])),
        ]
        for (what, data) in cases {
            for scale in [2, 1] {
                let mine = try JPEG.decode(data, scaleNumerator: scale, padded: true, maxHeaderPixels: 1 << 30, maxOutputPixels: 1 << 30)
                let ref = try JPEG.decode(
                    data, scaleNumerator: scale, padded: true, viaLibjpeg: true, maxHeaderPixels: 1 << 30, maxOutputPixels: 1 << 30)
                #expect(!mine.reducedDecoder, "\(what)")
                #expect(ref.warnings > 0, "\(what): libjpeg warns")
                let same = mine.warnings == ref.warnings && mine.bitmap.pixels == ref.bitmap.pixels
                #expect(same, "\(what)")
            }
        }
    }

    /// Random damage to the entropy-coded data: whatever the reduced decoder takes, libjpeg
    /// decodes without a warning to the same pixels; the rest is libjpeg's, as before.
    @Test func corruptedDataNeverDisagreesWithLibjpeg() throws {
        let dir = TempDir()
        let picture = try Self.photo("astronaut.jpg", width: 160, height: 120)
        var rng = SplitMix(seed: 11)
        var taken = 0, declined = 0
        for args in [["-sample", "2x2"], ["-sample", "1x1", "-restart", "1"], ["-grayscale"]] {
            let clean = try Self.cjpeg(picture, args, in: dir)
            let sos = (1..<clean.count).first { clean[$0 - 1] == 0xFF && clean[$0] == 0xDA }!
            let dataStart = sos + 1 + (Int(clean[sos + 1]) << 8 | Int(clean[sos + 2]))
            for _ in 0..<150 {
                var bad = clean
                for _ in 0..<(1 + Int(rng.next() % 3)) {
                    let at = dataStart + Int(rng.next() % UInt64(clean.count - 2 - dataStart))
                    bad[at] ^= UInt8(1 << (rng.next() % 8))
                }
                let scale = 2 - Int(rng.next() % 2)  // 1/4 or 1/8
                let mine = try? JPEG.decode(bad, scaleNumerator: scale, padded: true, maxHeaderPixels: 1 << 30, maxOutputPixels: 1 << 30)
                let ref = try? JPEG.decode(
                    bad, scaleNumerator: scale, padded: true, viaLibjpeg: true, maxHeaderPixels: 1 << 30, maxOutputPixels: 1 << 30)
                guard let mine, let ref else {
                    // libjpeg gives up on it (a bad table, an unknown marker): so do both.
                    #expect(mine == nil && ref == nil, "\(args)")
                    declined += 1
                    continue
                }
                if mine.reducedDecoder {
                    taken += 1
                    #expect(ref.warnings == 0, "\(args): taken, but libjpeg warns: \(ref.warningMessage)")
                    let same = mine.bitmap.pixels == ref.bitmap.pixels
                    #expect(same, "\(args): taken, other pixels than libjpeg's")
                } else {
                    declined += 1
                    let same = mine.warnings == ref.warnings && mine.bitmap.pixels == ref.bitmap.pixels
                    #expect(same, "\(args)")
                }
            }
        }
        // Both kinds happen: a flipped bit often still decodes cleanly (a changed value), and
        // often breaks the code.
        #expect(taken > 0 && declined > 0)
    }
}
