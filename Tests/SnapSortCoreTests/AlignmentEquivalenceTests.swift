import Foundation
import SnapSortSystem
import Testing

@testable import SnapSortCore

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
        let boxes = [
            (0, 0, w, h), (photo.width / 40, photo.height / 50, w, h), (photo.width / 10, photo.height / 12, w * 9 / 10, h * 9 / 10),
            (photo.width - w, photo.height - h, w, h), (photo.width / 8, 0, w * 8 / 10, h * 8 / 10),
        ]
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

    /// The correlations' AVX2 path (`Correlations`, where the processor has it) gives the
    /// portable path's r and overlap bit for bit — both the four-lane row sums of the Swift
    /// definition they replaced — at every shift, for the coarse search (the grid's tables) and
    /// the refinement (row sums, turned or not), on windows of real photos and unrelated ones.
    @Test func theVectorPathGivesThePortablePathsScoresBitForBit() throws {
        var thumbs: [Thumbnail] = []
        for name in ["astronaut.jpg", "coffee.jpg", "kite.jpg"] { thumbs += try Self.windows(name) }
        func shifts(_ zoomed: Thumbnail.Zoomed, _ a: Thumbnail.SummedPlane, plain: Bool) -> [[UInt32]] {
            var out: [[UInt32]] = []
            zoomed.correlations(with: a, plain: plain) { dx, dy, r, o in
                out.append([UInt32(bitPattern: Int32(dx)), UInt32(bitPattern: Int32(dy)), r.bitPattern, o.bitPattern])
            }
            return out
        }
        var compared = 0
        for (i, a) in thumbs.enumerated() {
            for (j, b) in thumbs.enumerated() where (i + j) % 5 == 0 {
                for scale in Thumbnail.scales {
                    let coarse = Thumbnail.Zoomed(b.halfPlane, scale: scale, dx: -5...5, dy: -5...5, tables: true)
                    let fine = Thumbnail.Zoomed(b.fullPlane, scale: scale, dx: 3...5, dy: -2...0, tables: false)
                    let turned = Thumbnail.Zoomed(b.fullPlane, scale: scale, dx: -1...1, dy: -1...1, tables: false, turn: 0.07)
                    for (zoomed, plane) in [(coarse, a.halfPlane), (fine, a.fullPlane), (turned, a.fullPlane)] {
                        let portable = shifts(zoomed, plane, plain: true)
                        #expect(!portable.isEmpty)
                        let vector = shifts(zoomed, plane, plain: false)
                        let differ = vector.count == portable.count ? zip(vector, portable).filter { $0 != $1 }.count : portable.count
                        #expect(differ == 0, "\(differ) of \(portable.count) shifts differ at zoom \(scale)")
                    }
                }
                compared += 1
            }
        }
        #expect(compared > 20)
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
            func window(_ shift: Int) -> Thumbnail {
                Self.thumbnail(Self.crop(photo, x: photo.width * shift / 100 * 9 / 20, y: photo.height / 10, w: w, h: h))
            }
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

    /// A frame of `photo` as another shot of the moment would see it: 3/4 of the photo around its
    /// centre moved by (`dx`, `dy`) (shares of the frame), zoomed in `zoom` times, turned by
    /// `degrees`, and exposed `gain` times brighter with a `gamma` curve (clipped at white).
    static func shot(
        _ photo: Bitmap, dx: Double = 0, dy: Double = 0, zoom: Double = 1, degrees: Double = 0,
        gain: Double = 1, gamma: Double = 1
    ) -> Bitmap {
        let w = photo.width * 3 / 4, h = photo.height * 3 / 4, c = photo.channels
        var out = Bitmap(width: w, height: h, channels: c)
        let angle = degrees * Double.pi / 180, (cosA, sinA) = (cos(angle), sin(angle))
        let cx = Double(photo.width - 1) / 2 + dx * Double(w), cy = Double(photo.height - 1) / 2 + dy * Double(h)
        var curve = [UInt8](repeating: 0, count: 256)
        for v in 0..<256 { curve[v] = UInt8(min(255, (255 * pow(gain * Double(v) / 255, gamma)).rounded())) }
        for y in 0..<h {
            for x in 0..<w {
                let u = (Double(x) - Double(w - 1) / 2) / zoom, v = (Double(y) - Double(h - 1) / 2) / zoom
                let sx = min(max(cx + u * cosA - v * sinA, 0), Double(photo.width - 2))
                let sy = min(max(cy + u * sinA + v * cosA, 0), Double(photo.height - 2))
                let x0 = Int(sx), y0 = Int(sy), fx = sx - Double(x0), fy = sy - Double(y0)
                for k in 0..<c {
                    func p(_ i: Int, _ j: Int) -> Double { Double(photo.pixels[((y0 + j) * photo.width + x0 + i) * c + k]) }
                    let value = (p(0, 0) * (1 - fx) + p(1, 0) * fx) * (1 - fy) + (p(0, 1) * (1 - fx) + p(1, 1) * fx) * fy
                    out.pixels[(y * w + x) * c + k] = curve[Int(value.rounded())]
                }
            }
        }
        return out
    }

    /// A retake held crooked: a shot turned by 5° (and reframed) against a straight one, on nine
    /// real photos. The turns (`Thumbnail.turns`) find it: its score rises by a clear margin over
    /// the straight alignment's (the per-pixel reference without turns gives that), and every
    /// one reaches the threshold.
    @Test func aCrookedRetakeIsFoundByTheTurns() throws {
        let threshold = GroupRules().similarThreshold
        var gains: [Double] = [], below: [String] = []
        for name in [
            "astronaut.jpg", "coffee.jpg", "chelsea.jpg", "building.jpg", "kite.jpg", "dune.jpg", "forest-path.jpg", "storm.jpg", "sudoku.jpg",
        ] {
            let photo = try GroupsRulesTests.realPhoto(name)
            let straight = Self.thumbnail(Self.shot(photo)), crooked = Self.thumbnail(Self.shot(photo, dx: 0.03, zoom: 1.05, degrees: 5))
            let turned = straight.aligned(with: crooked)
            let untouched = AlignmentReference.aligned(straight, with: crooked, turns: false)
            gains.append(turned.score - untouched.score)
            if turned.score < threshold { below.append("\(name): \(turned) (straight \(untouched))") }
        }
        #expect(below.isEmpty, "\(below)")
        #expect(gains.allSatisfy { $0 >= 0 } && gains.reduce(0, +) / Double(gains.count) > 0.03, "\(gains)")
    }

    /// A regroup refines only pairs whose coarse search comes within `coarseMargin` of the
    /// threshold (`aligned(with:reaching:)`). On shots of one moment — shifted, zoomed, turned,
    /// re-exposed, and all at once — every pair the full alignment accepts is refined, with the
    /// full alignment's result bit for bit, and its best coarse r keeps at least half the margin
    /// in reserve; many pairs of unrelated photos skip it.
    @Test func theCoarseFilterNeverDropsAPairTheAlignmentAccepts() throws {
        let rules = GroupRules()
        let threshold = rules.similarThreshold
        let variants: [(String, (Bitmap) -> Bitmap)] = [
            ("base", { Self.shot($0) }),
            ("shift 3 %", { Self.shot($0, dx: 0.03) }), ("shift 6/4 %", { Self.shot($0, dx: 0.06, dy: -0.04) }),
            ("shift 9 %", { Self.shot($0, dx: -0.09, dy: 0.02) }),
            ("zoom 1.08", { Self.shot($0, zoom: 1.08) }), ("zoom 1.16", { Self.shot($0, zoom: 1.16) }), ("zoom 0.9", { Self.shot($0, zoom: 0.9) }),
            ("turn 2°", { Self.shot($0, degrees: 2) }), ("turn 4°", { Self.shot($0, degrees: 4) }), ("turn -3°", { Self.shot($0, degrees: -3) }),
            ("gain 0.6", { Self.shot($0, gain: 0.6) }), ("gain 1.5", { Self.shot($0, gain: 1.5) }), ("gamma 0.7", { Self.shot($0, gamma: 0.7) }),
            ("all at once", { Self.shot($0, dx: 0.04, zoom: 1.1, degrees: 2, gain: 0.8) }),
            ("all at once 2", { Self.shot($0, dy: -0.05, zoom: 0.92, degrees: -2, gamma: 1.3) }),
        ]
        let names = [
            "astronaut.jpg", "coffee.jpg", "chelsea.jpg", "building.jpg", "kite.jpg", "dune.jpg", "forest-path.jpg", "storm.jpg", "sudoku.jpg",
        ]
        var frames: [[Thumbnail]] = []
        for name in names {
            let photo = try GroupsRulesTests.realPhoto(name)
            frames.append(variants.map { Self.thumbnail($0.1(photo)) })
        }
        var accepted = 0, worstCoarse = 1.0, unrelated = 0, skipped = 0
        var failures: [String] = []
        func check(_ a: Thumbnail, _ b: Thumbnail, _ label: String) -> (accepted: Bool, refined: Bool) {
            let full = a.aligned(with: b), filtered = a.aligned(with: b, reaching: threshold)
            let alike = full.score >= threshold && full.overlap >= rules.minimumOverlap
            if alike {
                accepted += 1
                worstCoarse = min(worstCoarse, Double(a.coarseCandidates(with: b)[0].r))
            }
            if (alike && !filtered.refined) || (filtered.refined && (filtered.score != full.score || filtered.overlap != full.overlap)) {
                failures.append("\(label): full \(full), filtered \(filtered)")
            }
            return (alike, filtered.refined)
        }
        for (p, thumbs) in frames.enumerated() {
            for i in 1..<thumbs.count {
                _ = check(thumbs[0], thumbs[i], "\(names[p]) base / \(variants[i].0)")
                _ = check(thumbs[i], thumbs[0], "\(names[p]) \(variants[i].0) / base")
                if i + 1 < thumbs.count { _ = check(thumbs[i], thumbs[i + 1], "\(names[p]) \(variants[i].0) / \(variants[i + 1].0)") }
            }
            for q in frames.indices where q != p {
                let r = check(thumbs[p % variants.count], frames[q][(p + q) % variants.count], "\(names[p]) / \(names[q])")
                unrelated += 1
                if !r.refined { skipped += 1 }
            }
        }
        #expect(failures.isEmpty, "\(failures)")
        // The shots are one moment (most pairs accepted), and the reserve holds.
        #expect(accepted > names.count * 30, "\(accepted) pairs accepted")
        #expect(worstCoarse >= threshold - Thumbnail.coarseMargin / 2, "best coarse r of an accepted pair: \(worstCoarse)")
        // A good share of unrelated photos skip the refinement (30 of 72 when written; photos
        // share much of their layout — sky above, ground below — so fewer than in a library).
        #expect(skipped * 3 > unrelated, "\(skipped) of \(unrelated) unrelated pairs skipped the refinement")
    }
}
