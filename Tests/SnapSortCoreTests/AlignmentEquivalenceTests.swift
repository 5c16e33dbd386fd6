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
}
