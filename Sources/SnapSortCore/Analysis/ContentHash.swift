/// XXH64 (xxHash, 64-bit variant; see github.com/Cyan4973/xxHash doc/xxhash_spec.md), used for
/// the quick fingerprint and, with two seeds, as a 128-bit content hash. Not cryptographic:
/// it identifies a user's own files, it does not defend against an adversary.
public enum ContentHash {
    static let p1: UInt64 = 0x9E37_79B1_85EB_CA87
    static let p2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    static let p3: UInt64 = 0x1656_67B1_9E37_79F9
    static let p4: UInt64 = 0x85EB_CA77_C2B2_AE63
    static let p5: UInt64 = 0x27D4_EB2F_1656_67C5

    @inline(__always) static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }
    @inline(__always) static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 {
        rotl(acc &+ input &* p2, 31) &* p1
    }
    @inline(__always) static func merge(_ acc: UInt64, _ val: UInt64) -> UInt64 {
        (acc ^ round(0, val)) &* p1 &+ p4
    }

    /// XXH64 of `bytes` with `seed`.
    public static func xxh64(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        let len = bytes.count
        var i = 0
        var h: UInt64
        @inline(__always) func u64(_ at: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        @inline(__always) func u32(_ at: Int) -> UInt64 { UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))) }
        if len >= 32 {
            var v1 = seed &+ p1 &+ p2, v2 = seed &+ p2, v3 = seed, v4 = seed &- p1
            while i + 32 <= len {
                v1 = round(v1, u64(i)); v2 = round(v2, u64(i + 8)); v3 = round(v3, u64(i + 16)); v4 = round(v4, u64(i + 24))
                i += 32
            }
            h = rotl(v1, 1) &+ rotl(v2, 7) &+ rotl(v3, 12) &+ rotl(v4, 18)
            h = merge(h, v1); h = merge(h, v2); h = merge(h, v3); h = merge(h, v4)
        } else {
            h = seed &+ p5
        }
        h = h &+ UInt64(len)
        while i + 8 <= len {
            h ^= round(0, u64(i))
            h = rotl(h, 27) &* p1 &+ p4
            i += 8
        }
        if i + 4 <= len {
            h ^= u32(i) &* p1
            h = rotl(h, 23) &* p2 &+ p3
            i += 4
        }
        while i < len {
            h ^= UInt64(bytes[i]) &* p5
            h = rotl(h, 11) &* p1
            i += 1
        }
        h ^= h >> 33; h = h &* p2; h ^= h >> 29; h = h &* p3; h ^= h >> 32
        return h
    }

    public static func xxh64(_ bytes: [UInt8], seed: UInt64 = 0) -> UInt64 {
        bytes.withUnsafeBytes { xxh64($0, seed: seed) }
    }

    /// A 128-bit content hash: XXH64 with two seeds, as 16 bytes.
    public static func content(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { raw in
            toBytes(xxh64(raw, seed: 0)) + toBytes(xxh64(raw, seed: 0x5_0A95_0A75))
        }
    }

    /// The quick fingerprint: size and the first and last 64 KiB.
    public static func quick(size: Int64, head: [UInt8], tail: [UInt8]) -> [UInt8] {
        var buf = toBytes(UInt64(bitPattern: size))
        buf += head
        buf += tail
        return toBytes(xxh64(buf, seed: 0x51))
    }

    static func toBytes(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }

    /// Hex of a byte string.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }
}

/// XXH64 over data that arrives in pieces (a file streamed through a fixed buffer), equal to
/// `ContentHash.xxh64` of the concatenation. See xxhash_spec.md, "XXH64 algorithm description".
public struct XXH64Stream: Sendable {
    private let seed: UInt64
    private var v1: UInt64, v2: UInt64, v3: UInt64, v4: UInt64
    private var total: UInt64 = 0
    /// Up to 31 bytes not yet consumed by a 32-byte stripe.
    private var pending: [UInt8] = []

    public init(seed: UInt64 = 0) {
        self.seed = seed
        v1 = seed &+ ContentHash.p1 &+ ContentHash.p2
        v2 = seed &+ ContentHash.p2
        v3 = seed
        v4 = seed &- ContentHash.p1
        pending.reserveCapacity(32)
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        total &+= UInt64(bytes.count)
        var i = 0
        if !pending.isEmpty {
            let take = min(32 - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<take])
            i = take
            guard pending.count == 32 else { return }
            pending.withUnsafeBytes { stripe($0, at: 0) }
            pending.removeAll(keepingCapacity: true)
        }
        while i + 32 <= bytes.count {
            stripe(bytes, at: i)
            i += 32
        }
        if i < bytes.count { pending.append(contentsOf: bytes[i...]) }
    }

    public mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    @inline(__always) private mutating func stripe(_ b: UnsafeRawBufferPointer, at i: Int) {
        @inline(__always) func u64(_ at: Int) -> UInt64 { UInt64(littleEndian: b.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        v1 = ContentHash.round(v1, u64(i)); v2 = ContentHash.round(v2, u64(i + 8))
        v3 = ContentHash.round(v3, u64(i + 16)); v4 = ContentHash.round(v4, u64(i + 24))
    }

    /// The hash of everything passed to `update`.
    public func digest() -> UInt64 {
        var h: UInt64
        if total >= 32 {
            h = ContentHash.rotl(v1, 1) &+ ContentHash.rotl(v2, 7) &+ ContentHash.rotl(v3, 12) &+ ContentHash.rotl(v4, 18)
            h = ContentHash.merge(h, v1); h = ContentHash.merge(h, v2); h = ContentHash.merge(h, v3); h = ContentHash.merge(h, v4)
        } else {
            h = seed &+ ContentHash.p5
        }
        h = h &+ total
        pending.withUnsafeBytes { b in
            var i = 0
            let len = b.count
            while i + 8 <= len {
                h ^= ContentHash.round(0, UInt64(littleEndian: b.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
                h = ContentHash.rotl(h, 27) &* ContentHash.p1 &+ ContentHash.p4
                i += 8
            }
            if i + 4 <= len {
                h ^= UInt64(UInt32(littleEndian: b.loadUnaligned(fromByteOffset: i, as: UInt32.self))) &* ContentHash.p1
                h = ContentHash.rotl(h, 23) &* ContentHash.p2 &+ ContentHash.p3
                i += 4
            }
            while i < len {
                h ^= UInt64(b[i]) &* ContentHash.p5
                h = ContentHash.rotl(h, 11) &* ContentHash.p1
                i += 1
            }
        }
        h ^= h >> 33; h = h &* ContentHash.p2; h ^= h >> 29; h = h &* ContentHash.p3; h ^= h >> 32
        return h
    }
}

extension ContentHash {
    /// `content(_:)` computed in pieces: both seeds advance together over one pass of the data.
    public struct Streaming: Sendable {
        private var a = XXH64Stream(seed: 0)
        private var b = XXH64Stream(seed: 0x5_0A95_0A75)
        public init() {}
        public mutating func update(_ bytes: UnsafeRawBufferPointer) {
            a.update(bytes)
            b.update(bytes)
        }
        /// The same 16 bytes `ContentHash.content` gives for the whole data.
        public func digest() -> [UInt8] { ContentHash.toBytes(a.digest()) + ContentHash.toBytes(b.digest()) }
    }
}
