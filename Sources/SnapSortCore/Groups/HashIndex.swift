/// A multi-index hash table over 64-bit perceptual hashes (Norouzi, Punjani & Fleet, "Fast
/// Search in Hamming Space with Multi-Index Hashing", CVPR 2012): the hash is cut into four
/// 16-bit chunks, each indexed exactly. Two hashes within Hamming distance 7 agree on some chunk
/// up to one bit (pigeonhole), so a query probes 4 × 17 buckets instead of the whole library.
public struct HashIndex: Sendable {
    /// The largest distance `neighbours(of:within:)` guarantees to find.
    public static let maxRadius = 7
    private var tables: [[UInt16: [Int]]] = Array(repeating: [:], count: 4)
    private(set) var hashes: [UInt64] = []

    public init() {}

    /// Adds a hash; returns its index.
    @discardableResult
    public mutating func insert(_ h: UInt64) -> Int {
        let i = hashes.count
        hashes.append(h)
        for c in 0..<4 { tables[c][HashIndex.chunk(h, c), default: []].append(i) }
        return i
    }

    static func chunk(_ h: UInt64, _ c: Int) -> UInt16 { UInt16(truncatingIfNeeded: h >> (16 * UInt64(c))) }

    /// Indices of stored hashes within `radius` (≤ 7) of `h`, each once, ascending. With a
    /// `limit`, the search stops once it has that many (the first found: exact chunk matches,
    /// lowest indices first, so a crowd of equal hashes all name the same few).
    public func neighbours(of h: UInt64, within radius: Int, limit: Int = .max) -> [Int] {
        precondition(radius <= HashIndex.maxRadius, "multi-index hashing with 4 chunks covers distances up to 7")
        var found = Set<Int>()
        search: for c in 0..<4 {
            let key = HashIndex.chunk(h, c)
            for flip in -1..<16 {
                let probe = flip < 0 ? key : key ^ (1 << UInt16(flip))
                guard let bucket = tables[c][probe] else { continue }
                for i in bucket where (hashes[i] ^ h).nonzeroBitCount <= radius {
                    found.insert(i)
                    if found.count >= limit { break search }
                }
            }
        }
        return found.sorted()
    }
}
