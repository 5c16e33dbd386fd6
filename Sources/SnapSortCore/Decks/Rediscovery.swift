import Foundation

/// The rediscovery deck's draw: items picked age-weighted (older photos come up more often,
/// with weight `max(1, age_days)^0.55`), never two frames of one burst or of one 3-second
/// moment back to back.
public enum Rediscovery {
    /// The exponent of the age weight.
    public static let exponent = 0.55
    /// Frames closer than this (chained) belong to one moment.
    public static let momentSeconds = 3.0

    /// The weight of an item `ageDays` old.
    public static func weight(ageDays: Double) -> Double { pow(max(1, ageDays), exponent) }

    /// Weighted sampling without replacement (Efraimidis–Spirakis: key `log(u) / w`, the `count`
    /// largest keys win, in key order — the same as drawing one at a time with probability
    /// proportional to weight among those left). Returns indices into `weights`.
    public static func draw<R: RandomNumberGenerator>(weights: [Double], count: Int, using rng: inout R) -> [Int] {
        var keyed: [(Double, Int)] = []
        keyed.reserveCapacity(weights.count)
        for (i, w) in weights.enumerated() where w > 0 {
            // u in (0, 1]: never log(0).
            let u = (Double(rng.next() >> 11) + 1) / Double(1 << 53)
            keyed.append((log(u) / w, i))
        }
        keyed.sort { $0.0 > $1.0 }
        return keyed.prefix(max(0, count)).map(\.1)
    }

    /// Moment ids for capture times: times sorted, each within `momentSeconds` of the previous
    /// one joins its moment (so a long burst stays one moment). nil times are moments alone.
    public static func moments(_ times: [Double?]) -> [Int] {
        var ids = Array(0..<times.count)
        let order = times.indices.filter { times[$0] != nil }.sorted { times[$0]! < times[$1]! }
        var previous: Int?
        for i in order {
            if let p = previous, times[i]! - times[p]! <= momentSeconds { ids[i] = ids[p] }
            previous = i
        }
        return ids
    }

    /// Orders `picks` (in draw order) so no two neighbours share a moment: each place takes the
    /// first pick left whose moment differs from the previous card's; picks that cannot be
    /// placed are dropped.
    public static func separate(_ picks: [Int], moment: (Int) -> Int) -> [Int] {
        var pool = picks
        var out: [Int] = []
        while !pool.isEmpty {
            let last = out.last.map(moment)
            guard let k = pool.firstIndex(where: { moment($0) != last }) else { break }
            out.append(pool.remove(at: k))
        }
        return out
    }
}

/// SplitMix64: a small seeded generator, so a rediscovery deck can be drawn again.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
