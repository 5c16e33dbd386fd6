import Foundation
import SnapSortSystem
import Testing

/// `Memory.releaseFreeMemory` (after a regroup) gives freed heap memory back to the kernel:
/// ~200 MB of small blocks freed around a few survivors stay resident without it.
@Suite(.serialized) struct MemoryTests {
    @Test func freedHeapMemoryGoesBackToTheKernel() throws {
        let count = 200_000, size = 1_000
        var blocks: [UnsafeMutableRawPointer] = []
        blocks.reserveCapacity(count)
        for _ in 0..<count {
            let p = try #require(malloc(size))
            memset(p, 1, size)  // resident, not just reserved
            blocks.append(p)
        }
        // Every 1000th block survives, so the heap's top cannot simply shrink.
        for (i, p) in blocks.enumerated() where i % 1000 != 0 { free(p) }
        let before = try #require(Memory.residentBytes())
        Memory.releaseFreeMemory()
        let after = try #require(Memory.residentBytes())
        for (i, p) in blocks.enumerated() where i % 1000 == 0 { free(p) }
        #expect(before - after > 100_000_000, "resident \(before >> 20) MB -> \(after >> 20) MB")
    }
}
