import Glibc

/// Finding a byte in memory at C's speed (see man 3 memchr): the domain searches large buffers
/// (a JPEG's entropy-coded data for its markers) without importing Glibc.
public enum ByteSearch {
    /// The index of the first `byte` in `buffer` at or after `start`, nil when there is none
    /// (or `start` is past the end).
    public static func firstIndex(of byte: UInt8, in buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = buffer.baseAddress, start >= 0, start < buffer.count else { return nil }
        guard let hit = memchr(base + start, Int32(byte), buffer.count - start) else { return nil }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }
}
