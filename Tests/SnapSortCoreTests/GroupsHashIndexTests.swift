import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// Multi-index hashing finds exactly what a linear scan finds, up to distance 15 (Similar Shots'
/// content search goes past the near copies' 7).
@Suite struct GroupsHashIndexTests {
    @Test(arguments: [0, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15])
    func findsTheSameNeighboursAsALinearScan(_ radius: Int) {
        var rng = SplitMix(seed: 42)
        var index = HashIndex()
        var hashes: [UInt64] = []
        let base = rng.next()
        for i in 0..<2000 {
            // Half random, half near `base` (flip a few bits).
            var h = i % 2 == 0 ? rng.next() : base
            if i % 2 == 1 { for _ in 0..<(i % 20) { h ^= 1 << (rng.next() % 64) } }
            hashes.append(h)
            index.insert(h)
        }
        var frozen = index
        frozen.freeze()
        for q in [base, hashes[1], hashes[2], hashes[17]] {
            let linear = hashes.indices.filter { (hashes[$0] ^ q).nonzeroBitCount <= radius }
            #expect(index.neighbours(of: q, within: radius) == linear)
            // Laid flat (`freeze`, the regroup in parts' index of a million pHashes): the same,
            // also with a limit.
            #expect(frozen.neighbours(of: q, within: radius) == linear)
            #expect(frozen.neighbours(of: q, within: radius, limit: 16) == index.neighbours(of: q, within: radius, limit: 16))
        }
    }

    /// The pigeonhole at its edge: a hash `d` bits away, its flips spread as evenly over the
    /// index's five chunks (13, 13, 13, 13, 12 bits) as they go, is found within `d` and not
    /// within `d - 1`, for every d up to 15.
    @Test func theFlipsSpreadOverEveryChunkAreFound() {
        let starts = [0, 13, 26, 39, 52]
        for d in 0...HashIndex.maxRadius {
            var h: UInt64 = 0x9E37_79B9_7F4A_7C15, flipped = 0
            var perChunk = [0, 0, 0, 0, 0]
            while flipped < d {
                let c = flipped % 5
                h ^= 1 << UInt64(starts[c] + perChunk[c])
                perChunk[c] += 1
                flipped += 1
            }
            var index = HashIndex()
            index.insert(0x9E37_79B9_7F4A_7C15)
            index.freeze()
            #expect(index.neighbours(of: h, within: d) == [0], "\(d) bits")
            if d > 0 { #expect(index.neighbours(of: h, within: d - 1).isEmpty, "\(d) bits within \(d - 1)") }
        }
    }

    /// With a limit, the nearest hashes come first: 1 500 copies of one picture (one pHash)
    /// stored before 5 copies of the next frame (2 bits away) filled the first 65 places of
    /// the frame's query, and its copies never met. Among equal distances the value stored
    /// first, and within a value the first entries, so a crowd names the same few.
    @Test func aLimitTakesTheNearestHashesFirst() {
        var index = HashIndex()
        let a: UInt64 = 0x0123_4567_89AB_CDEF, b = a ^ 0b101
        for _ in 0..<1500 { index.insert(a) }
        for _ in 0..<5 { index.insert(b) }
        let frame = index.neighbours(of: b, within: 7, limit: 65)
        #expect(frame.count == 65 && Array(1500..<1505).allSatisfy(frame.contains))
        #expect(index.neighbours(of: a, within: 7, limit: 65) == Array(0..<65))

        // Against a linear scan ordered by distance, then the first index of each value.
        var rng = SplitMix(seed: 7)
        var random = HashIndex(), hashes: [UInt64] = []
        let base = rng.next()
        for i in 0..<3000 {
            var h = base
            for _ in 0..<(i % 6) { h ^= 1 << (rng.next() % 64) }
            if i % 3 == 0, !hashes.isEmpty { h = hashes[Int(rng.next() % UInt64(hashes.count))] }
            hashes.append(h)
            random.insert(h)
        }
        let first = Dictionary(hashes.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: min)
        for q in [base, hashes[10], hashes[2999]] {
            for limit in [1, 40, 500] {
                let ranked = hashes.indices.filter { (hashes[$0] ^ q).nonzeroBitCount <= 7 }
                    .sorted {
                        ((hashes[$0] ^ q).nonzeroBitCount, first[hashes[$0]]!, $0) < ((hashes[$1] ^ q).nonzeroBitCount, first[hashes[$1]]!, $1)
                    }
                #expect(random.neighbours(of: q, within: 7, limit: limit) == Array(ranked.prefix(limit)).sorted())
            }
        }
    }

    /// An entry `admit` refuses takes no place: with the crowd refused after its first four, a
    /// limit of 65 reaches the next frame's five (the clustering takes a few files of any one
    /// content, whose hash joins the rest).
    @Test func anEntryRefusedTakesNoPlace() {
        var index = HashIndex()
        let a: UInt64 = 0x0F0F_0F0F_F0F0_F0F0, b = a ^ 0b11
        for _ in 0..<1500 { index.insert(a) }
        for _ in 0..<5 { index.insert(b) }
        var asked = 0
        let got = index.neighbours(of: a, within: 7, limit: 65) { i in
            asked += 1
            return i < 4 || i >= 1500
        }
        #expect(got == [0, 1, 2, 3] + Array(1500..<1505))
        #expect(asked == 1505)
        #expect(index.neighbours(of: a, within: 7, limit: 3) { $0 % 2 == 1 } == [1, 3, 5])
    }
}
