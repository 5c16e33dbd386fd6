import SnapSortSystem

/// A multi-index hash table over 64-bit perceptual hashes (Norouzi, Punjani & Fleet, "Fast
/// Search in Hamming Space with Multi-Index Hashing", CVPR 2012): the hash is cut into five
/// chunks of 13, 13, 13, 13 and 12 bits, each indexed exactly. Two hashes within Hamming
/// distance 5k + 4 agree on some chunk up to k bits (pigeonhole), so a query within 4 probes
/// 5 buckets, within 9 5 × 14, within 14 (Similar Shots' content search) 5 × 92 — where four
/// chunks of 16 bits probed 4 × 697: a probe is a random read of the tables (at a million
/// pHashes a query within 14 was ~200 µs, most of a regroup part's reading), while the
/// entries a query compares are about as many either way.
public struct HashIndex: Sendable {
    /// The largest distance `neighbours(of:within:)` guarantees to find.
    public static let maxRadius = 15
    /// Each chunk's bits and where they start.
    private static let widths = [13, 13, 13, 13, 12], shifts: [UInt64] = [0, 13, 26, 39, 52]
    private static let chunks = widths.count
    /// A chunk's key flipped in at most k bits, for k = 0…3 (each list holds the lower ones),
    /// for chunks of 13 bits ([0]) and of 12 ([1]).
    private static let flips: [[[Int]]] = [13, 12].map { width in
        var byWeight: [[Int]] = [[], [], [], []]
        for m in 0..<(1 << width) where m.nonzeroBitCount <= 3 { byWeight[m.nonzeroBitCount].append(m) }
        return (0...3).map { k in (0...k).flatMap { byWeight[$0] } }
    }
    /// At most how many bits differ in some chunk of two hashes within `radius`: k for a radius
    /// up to 5k + 4 (five chunks of k + 1 would differ in 5k + 5).
    private static func flipped(within radius: Int) -> Int { radius / 5 }
    /// The key of chunk `c` of `h`.
    private static func key(_ h: UInt64, _ c: Int) -> Int { Int((h >> shifts[c]) & ((1 << UInt64(widths[c])) - 1)) }
    /// Each chunk's buckets hold distinct hash values (slots), not entries: a crowd of 1 500
    /// copies with one pHash is one slot, so a query weighs each value once.
    /// Each chunk's buckets, by the chunk's bits: an array, not a dictionary, so a probe is
    /// an index (a query within 14 probes 460 of them).
    private var tables: [[[Int32]]] = []
    private var slotOf: [UInt64: Int32] = [:]
    private var slotHash: [UInt64] = []
    /// The entries of a slot in insertion order: its first and last entry, and each entry's next
    /// (-1: none); an entry's index is its place in `nextEntry`.
    private var slotFirst: [Int32] = [], slotLast: [Int32] = []
    private var nextEntry: [Int32] = []
    /// Each chunk's buckets laid flat (`freeze`): a bucket's slots are `flatSlots[c][offsets[c][k]..<offsets[c][k + 1]]`.
    /// A query visited thousands of buckets, and each nested array it touched was retained and
    /// released: ~0.4 µs a bucket, most of a query over a million pHashes.
    private var offsets: [[Int32]] = [], flatSlots: [[Int32]] = []
    /// Each flat slot's hash beside it: a query reads its buckets' hashes in order instead of
    /// fetching each from `slotHash` (a random read of a 4 MB table at a million rows: most of
    /// a part's reading, ~40 000 a query).
    private var flatHashes: [[UInt64]] = []
    /// The most slots any bucket holds (`freeze`): the room a bucket's scan needs.
    private var largestBucket = 1

    public init() {}

    /// Lays the buckets flat once every hash is in: queries are then cheaper, and no hash may
    /// be inserted any more.
    public mutating func freeze() {
        guard !tables.isEmpty, offsets.isEmpty else { return }
        for c in 0..<Self.chunks {
            let keys = 1 << Self.widths[c]
            var off = [Int32](repeating: 0, count: keys + 1)
            var flat: [Int32] = []
            flat.reserveCapacity(slotHash.count)
            for k in 0..<keys {
                off[k] = Int32(flat.count)
                flat += tables[c][k]
                largestBucket = max(largestBucket, tables[c][k].count)
            }
            off[keys] = Int32(flat.count)
            offsets.append(off)
            flatSlots.append(flat)
            flatHashes.append(flat.map { slotHash[Int($0)] })
        }
        tables = []
        slotOf = [:]
    }

    /// Adds a hash; returns its index.
    @discardableResult
    public mutating func insert(_ h: UInt64) -> Int {
        precondition(offsets.isEmpty, "a frozen HashIndex takes no more hashes")
        let i = nextEntry.count
        nextEntry.append(-1)
        if let slot = slotOf[h] {
            nextEntry[Int(slotLast[Int(slot)])] = Int32(i)
            slotLast[Int(slot)] = Int32(i)
        } else {
            let slot = Int32(slotHash.count)
            slotOf[h] = slot
            slotHash.append(h)
            slotFirst.append(Int32(i))
            slotLast.append(Int32(i))
            if tables.isEmpty { tables = Self.widths.map { Array(repeating: [], count: 1 << $0) } }
            for c in 0..<Self.chunks { tables[c][Self.key(h, c)].append(slot) }
        }
        return i
    }

    /// The pHash's 16-bit chunk `c` (0–3): the chunks of the SQLite indexes (migration 82,
    /// `RegroupSlice.phashBall`), not this index's.
    static func chunk(_ h: UInt64, _ c: Int) -> UInt16 { UInt16(truncatingIfNeeded: h >> (16 * UInt64(c))) }

    /// Indices of stored hashes within `radius` (≤ 15) of `h`, each once, ascending. With a
    /// `limit`, the nearest hashes are taken first (among equal distances, the first value
    /// stored; within a value, the first entries), so a crowd of one picture's copies leaves
    /// room for another picture's a bit further, and a crowd of equal hashes all name the
    /// same few. `admit`, when given, is asked of each entry in that order: one it refuses
    /// is skipped and takes no place.
    public func neighbours(of h: UInt64, within radius: Int, limit: Int = .max, admit: ((Int) -> Bool)? = nil) -> [Int] {
        precondition(radius <= HashIndex.maxRadius, "the index's flips cover distances up to 15")
        var seen = Set<Int32>()
        var near: [(d: Int, slot: Int32)] = []
        let k = Self.flipped(within: radius)
        if !offsets.isEmpty {
            // A bucket's hashes are scanned in C (`Hamming.within`: POPCNT, which the baseline
            // x86-64 Swift does not emit), its hits kept here.
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: largestBucket) { places in
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: largestBucket) { distances in
                    for c in 0..<Self.chunks {
                        let key = Self.key(h, c), flips = Self.flips[Self.widths[c] == 13 ? 0 : 1][k]
                        offsets[c].withUnsafeBufferPointer { off in
                            flatSlots[c].withUnsafeBufferPointer { flat in
                                flatHashes[c].withUnsafeBufferPointer { flatHash in
                                    for flip in flips {
                                        let b = key ^ flip, lo = Int(off[b]), hi = Int(off[b + 1])
                                        guard hi > lo else { continue }
                                        let found = Hamming.within(
                                            UnsafeBufferPointer(rebasing: flatHash[lo..<hi]), of: h, radius: radius,
                                            places: places.baseAddress!, distances: distances.baseAddress!)
                                        for j in 0..<found {
                                            let slot = flat[lo &+ Int(places[j])]
                                            if seen.insert(slot).inserted { near.append((Int(distances[j]), slot)) }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        for c in 0..<Self.chunks where offsets.isEmpty {
            let key = Self.key(h, c), flips = Self.flips[Self.widths[c] == 13 ? 0 : 1][k]
            for flip in flips {
                guard !tables.isEmpty else { return [] }
                let bucket = tables[c][key ^ flip]
                for slot in bucket {
                    let d = (slotHash[Int(slot)] ^ h).nonzeroBitCount
                    if d <= radius, seen.insert(slot).inserted { near.append((d, slot)) }
                }
            }
        }
        near.sort { ($0.d, $0.slot) < ($1.d, $1.slot) }
        var out: [Int] = []
        taking: for (_, slot) in near {
            var i = slotFirst[Int(slot)]
            while i >= 0 {
                if out.count >= limit { break taking }
                if admit?(Int(i)) ?? true { out.append(Int(i)) }
                i = nextEntry[Int(i)]
            }
        }
        return out.sorted()
    }
}
