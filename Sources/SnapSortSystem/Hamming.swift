import CKernels

/// Hamming-distance scans of 64-bit hashes (`ss_hamming_within`: POPCNT where the processor
/// has it, chosen at run time).
public enum Hamming {
    /// The places of `hashes` within `radius` bits of `h`, in order, written to `places` with
    /// their distances to `distances` (each at least `hashes.count` long); returns how many.
    @inline(__always)
    public static func within(
        _ hashes: UnsafeBufferPointer<UInt64>, of h: UInt64, radius: Int, places: UnsafeMutablePointer<UInt32>,
        distances: UnsafeMutablePointer<UInt8>
    ) -> Int {
        guard let base = hashes.baseAddress, !hashes.isEmpty else { return 0 }
        return ss_hamming_within(base, hashes.count, h, Int32(radius), places, distances)
    }
}
