import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// Multi-index hashing finds exactly what a linear scan finds, up to distance 7.
@Suite struct GroupsHashIndexTests {
    @Test(arguments: [0, 1, 3, 6, 7])
    func findsTheSameNeighboursAsALinearScan(_ radius: Int) {
        var rng = SplitMix(seed: 42)
        var index = HashIndex()
        var hashes: [UInt64] = []
        let base = rng.next()
        for i in 0..<2000 {
            // Half random, half near `base` (flip a few bits).
            var h = i % 2 == 0 ? rng.next() : base
            if i % 2 == 1 { for _ in 0..<(i % 10) { h ^= 1 << (rng.next() % 64) } }
            hashes.append(h)
            index.insert(h)
        }
        for q in [base, hashes[1], hashes[2], hashes[17]] {
            let linear = hashes.indices.filter { (hashes[$0] ^ q).nonzeroBitCount <= radius }
            #expect(index.neighbours(of: q, within: radius) == linear)
        }
    }
}
