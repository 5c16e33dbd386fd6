/// A multi-index hash table over 64-bit perceptual hashes (Norouzi, Punjani & Fleet, "Fast
/// Search in Hamming Space with Multi-Index Hashing", CVPR 2012): the hash is cut into four
/// 16-bit chunks, each indexed exactly. Two hashes within Hamming distance 4k + 3 agree on some
/// chunk up to k bits (pigeonhole), so a query within 7 probes 4 × 17 buckets instead of the
/// whole library, within 11 4 × 137, within 15 4 × 697 (Similar Shots' content search).
public struct HashIndex: Sendable {
    /// The largest distance `neighbours(of:within:)` guarantees to find.
    public static let maxRadius = 15
    /// The chunk keys' flips of at most k bits, for k = 0…3 (each list holds the lower ones).
    private static let flips: [[UInt16]] = {
        var byWeight: [[UInt16]] = [[], [], [], []]
        for m in 0...Int(UInt16.max) where m.nonzeroBitCount <= 3 { byWeight[m.nonzeroBitCount].append(UInt16(m)) }
        return (0...3).map { k in (0...k).flatMap { byWeight[$0] } }
    }()
    /// Each chunk's buckets hold distinct hash values (slots), not entries: a crowd of 1 500
    /// copies with one pHash is one slot, so a query weighs each value once.
    /// Each chunk's buckets, by the chunk's 16 bits: an array, not a dictionary, so a probe is
    /// an index (a query within 15 probes 2 788 of them).
    private var tables: [[[Int32]]] = []
    private var slotOf: [UInt64: Int32] = [:]
    private var slotHash: [UInt64] = []
    /// The entries of a slot in insertion order: its first and last entry, and each entry's next
    /// (-1: none); an entry's index is its place in `nextEntry`.
    private var slotFirst: [Int32] = [], slotLast: [Int32] = []
    private var nextEntry: [Int32] = []
    /// Each chunk's buckets laid flat (`freeze`): a bucket's slots are `flatSlots[c][offsets[c][k]..<offsets[c][k + 1]]`.
    /// A query within 15 visits 2 788 buckets, and each nested array it touched was retained and
    /// released: ~0.4 µs a bucket, most of a query over a million pHashes.
    private var offsets: [[Int32]] = [], flatSlots: [[Int32]] = []
    /// Each flat slot's hash beside it: a query reads its buckets' hashes in order instead of
    /// fetching each from `slotHash` (a random read of a 4 MB table at a million rows: most of
    /// a part's reading, ~40 000 a query).
    private var flatHashes: [[UInt64]] = []

    public init() {}

    /// Lays the buckets flat once every hash is in: queries are then cheaper, and no hash may
    /// be inserted any more.
    public mutating func freeze() {
        guard !tables.isEmpty, offsets.isEmpty else { return }
        for c in 0..<4 {
            var off = [Int32](repeating: 0, count: (1 << 16) + 1)
            var flat: [Int32] = []
            flat.reserveCapacity(slotHash.count)
            for k in 0..<(1 << 16) {
                off[k] = Int32(flat.count)
                flat += tables[c][k]
            }
            off[1 << 16] = Int32(flat.count)
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
            if tables.isEmpty { tables = Array(repeating: Array(repeating: [], count: 1 << 16), count: 4) }
            for c in 0..<4 { tables[c][Int(HashIndex.chunk(h, c))].append(slot) }
        }
        return i
    }

    static func chunk(_ h: UInt64, _ c: Int) -> UInt16 { UInt16(truncatingIfNeeded: h >> (16 * UInt64(c))) }

    /// Indices of stored hashes within `radius` (≤ 7) of `h`, each once, ascending. With a
    /// `limit`, the nearest hashes are taken first (among equal distances, the first value
    /// stored; within a value, the first entries), so a crowd of one picture's copies leaves
    /// room for another picture's a bit further, and a crowd of equal hashes all name the
    /// same few. `admit`, when given, is asked of each entry in that order: one it refuses
    /// is skipped and takes no place.
    public func neighbours(of h: UInt64, within radius: Int, limit: Int = .max, admit: ((Int) -> Bool)? = nil) -> [Int] {
        precondition(radius <= HashIndex.maxRadius, "multi-index hashing with 4 chunks covers distances up to 15")
        var seen = Set<Int32>()
        var near: [(d: Int, slot: Int32)] = []
        // Up to 7, one flipped bit a chunk as ever (a radius under 4 could take none).
        let flips = HashIndex.flips[max(1, radius / 4)]
        if !offsets.isEmpty {
            for c in 0..<4 {
                let key = HashIndex.chunk(h, c)
                offsets[c].withUnsafeBufferPointer { off in
                    flatSlots[c].withUnsafeBufferPointer { flat in
                        flatHashes[c].withUnsafeBufferPointer { flatHash in
                            for flip in flips {
                                let k = Int(key ^ flip)
                                for i in Int(off[k])..<Int(off[k + 1]) {
                                    let d = (flatHash[i] ^ h).nonzeroBitCount
                                    if d <= radius, seen.insert(flat[i]).inserted { near.append((d, flat[i])) }
                                }
                            }
                        }
                    }
                }
            }
        }
        for c in 0..<4 where offsets.isEmpty {
            let key = HashIndex.chunk(h, c)
            for flip in flips {
                guard !tables.isEmpty else { return [] }
                let bucket = tables[c][Int(key ^ flip)]
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
