import Foundation
import Testing
@testable import SnapSortCore
import SnapSortSystem

/// The separable SIMD alignment (`Thumbnail.aligned`) against its per-pixel definition
/// (`AlignmentReference`): the same score and overlap on real photographs — crops of one photo
/// (a burst's shift, a retake's zoom), frames of a pan and unrelated photos.
@Suite struct AlignmentEquivalenceTests {
    /// A `w`×`h` window of `b` at (`x`, `y`).
    static func crop(_ b: Bitmap, x: Int, y: Int, w: Int, h: Int) -> Bitmap {
        var out = Bitmap(width: w, height: h, channels: b.channels)
        for row in 0..<h {
            let from = ((y + row) * b.width + x) * b.channels
            out.pixels.replaceSubrange(row * w * b.channels..<(row + 1) * w * b.channels, with: b.pixels[from..<from + w * b.channels])
        }
        return out
    }

    static func thumbnail(_ b: Bitmap) -> Thumbnail {
        Thumbnail(signature: MetricsComputer.measure(b, orientation: 1, decodeScale: 8).1.thumbnail)!
    }

    /// Windows of one real photo: the same frame, shifted, zoomed (a smaller window), far apart.
    static func windows(_ name: String) throws -> [Thumbnail] {
        let photo = try GroupsRulesTests.realPhoto(name)
        let (w, h) = (photo.width * 3 / 4, photo.height * 3 / 4)
        let boxes = [(0, 0, w, h), (photo.width / 40, photo.height / 50, w, h), (photo.width / 10, photo.height / 12, w * 9 / 10, h * 9 / 10),
                     (photo.width - w, photo.height - h, w, h), (photo.width / 8, 0, w * 8 / 10, h * 8 / 10)]
        return boxes.map { thumbnail(crop(photo, x: $0.0, y: $0.1, w: $0.2, h: $0.3)) }
    }

    @Test func sameAlignmentAsThePerPixelDefinition() throws {
        var thumbs: [Thumbnail] = []
        for name in ["astronaut.jpg", "coffee.jpg", "chelsea.jpg", "building.jpg", "kite.jpg"] { thumbs += try Self.windows(name) }
        var similar = 0
        for i in thumbs.indices {
            for j in thumbs.indices where j != i && (j / 5 == i / 5 || (i + j) % 4 == 0) {
                let fast = thumbs[i].aligned(with: thumbs[j]), reference = AlignmentReference.aligned(thumbs[i], with: thumbs[j])
                #expect(abs(fast.score - reference.score) < 1e-4, "pair \(i) \(j): \(fast) vs \(reference)")
                #expect(abs(fast.overlap - reference.overlap) < 1e-6, "pair \(i) \(j): \(fast) vs \(reference)")
                if reference.score >= GroupRules().similarThreshold { similar += 1 }
            }
        }
        // The windows of one photo align well and unrelated photos do not: both kinds were compared.
        #expect(similar > 20 && similar < thumbs.count * thumbs.count / 2, "\(similar) similar pairs")
    }

    /// Frames of a pan that keep half of the view in common are not one moment whichever is
    /// aligned to the other — zooming one in must not count the overlap on the magnified frame
    /// only (`sharedOverlap`) — and frames a few percent apart are one moment both ways.
    @Test func panFramesAreNotAlikeEitherWayRoundBurstFramesAreBoth() throws {
        let rules = GroupRules()
        func alike(_ a: Thumbnail, _ b: Thumbnail) -> Bool {
            let r = a.aligned(with: b)
            return r.score >= rules.similarThreshold && r.overlap >= rules.minimumOverlap
        }
        var failures: [String] = []
        for name in ["astronaut.jpg", "coffee.jpg", "chelsea.jpg", "building.jpg", "kite.jpg"] {
            let photo = try GroupsRulesTests.realPhoto(name)
            let w = photo.width * 11 / 20, h = photo.height * 11 / 20
            func window(_ shift: Int) -> Thumbnail { Self.thumbnail(Self.crop(photo, x: photo.width * shift / 100 * 9 / 20, y: photo.height / 10, w: w, h: h)) }
            let first = window(0)
            for (shift, expected) in [(4, true), (8, true), (48, false), (56, false), (64, false)] {
                let other = window(shift)
                if alike(first, other) != expected || alike(other, first) != expected {
                    failures.append("\(name) shifted \(shift) %: \(first.aligned(with: other)) / \(other.aligned(with: first))")
                }
            }
        }
        #expect(failures.isEmpty, "\(failures)")
    }

    /// The overlap is a share of both frames: a retake zoomed in to 84 % of the view shares 71 %
    /// of the wider frame and all of its own, and reports about 0.71 whichever is aligned to the
    /// other (counted on one frame only it read 1.0 one way round, and a pan's frames, half in
    /// common, passed the overlap rule zoomed in one way round and not the other).
    @Test func theOverlapIsAShareOfBothFrames() throws {
        for name in ["astronaut.jpg", "coffee.jpg", "building.jpg"] {
            let photo = try GroupsRulesTests.realPhoto(name)
            let w = photo.width * 3 / 4, h = photo.height * 3 / 4
            let wide = Self.thumbnail(Self.crop(photo, x: photo.width / 8, y: photo.height / 8, w: w, h: h))
            let zw = w * 84 / 100, zh = h * 84 / 100
            let zoomed = Self.thumbnail(Self.crop(photo, x: photo.width / 8 + (w - zw) / 2, y: photo.height / 8 + (h - zh) / 2, w: zw, h: zh))
            let one = wide.aligned(with: zoomed), other = zoomed.aligned(with: wide)
            #expect(one.score > 0.9 && other.score > 0.9, "\(name): \(one) / \(other)")
            #expect(abs(one.overlap - 0.71) < 0.07 && abs(other.overlap - 0.71) < 0.07, "\(name): \(one) / \(other)")
        }
    }
}
