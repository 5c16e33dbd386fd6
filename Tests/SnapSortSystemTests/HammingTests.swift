import Testing

@testable import SnapSortSystem

@Suite struct HammingTests {
    /// The C scan finds exactly the places a plain Swift count finds, with their distances, at
    /// every radius from 0 to 64: random words, words a few bits from the query, and the query
    /// itself (distance 0) and its complement (64).
    @Test func theScanFindsWhatCountingBitsFinds() {
        var rng = SplitMix(seed: 39)
        let h = rng.next()
        var words: [UInt64] = (0..<2_000).map { _ in rng.next() }
        for i in 0..<300 {
            var w = h
            for _ in 0..<(i % 20) { w ^= 1 << (rng.next() % 64) }
            words.append(w)
        }
        words += [h, ~h]
        words.shuffle(using: &rng)
        for radius in 0...64 {
            let expected = words.indices.filter { (words[$0] ^ h).nonzeroBitCount <= radius }
            var places = [UInt32](repeating: 0, count: words.count), distances = [UInt8](repeating: 0, count: words.count)
            let found = words.withUnsafeBufferPointer { w in
                places.withUnsafeMutableBufferPointer { p in
                    distances.withUnsafeMutableBufferPointer { d in
                        Hamming.within(w, of: h, radius: radius, places: p.baseAddress!, distances: d.baseAddress!)
                    }
                }
            }
            #expect(places.prefix(found).map(Int.init) == expected, "radius \(radius)")
            #expect(distances.prefix(found).map(Int.init) == expected.map { (words[$0] ^ h).nonzeroBitCount }, "radius \(radius)")
        }
        // Nothing to scan: nothing found, nothing written.
        var place: UInt32 = 7, distance: UInt8 = 7
        #expect(Hamming.within(UnsafeBufferPointer(start: nil, count: 0), of: h, radius: 64, places: &place, distances: &distance) == 0)
        #expect(place == 7 && distance == 7)
    }
}

/// A seeded generator (SplitMix64): the same words every run.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
