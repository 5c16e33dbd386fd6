import Testing

@testable import SnapSortSystem

/// `ByteSearch` against the plain loop it stands for, at every start, on bytes with and without
/// the one searched.
@Suite("System: ByteSearch")
struct ByteSearchTests {
    @Test(arguments: [[UInt8](), [0xFF], [1, 2, 3], [0xFF, 0, 0xFF, 0xD9], Array(repeating: 7, count: 300) + [0xFF] + [1, 0xFF]])
    func findsWhatTheLoopFinds(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { p in
            for start in -1...(bytes.count + 1) {
                let plain = start < 0 ? nil : bytes.indices.first { $0 >= start && bytes[$0] == 0xFF }
                #expect(ByteSearch.firstIndex(of: 0xFF, in: p, from: start) == plain, "from \(start)")
            }
        }
    }
}
