import Foundation
import Glibc
import Testing

@testable import SnapSortSystem

/// Reading whole files: what `fstat` said, a file that grew or shrank since, the limit.
@Suite struct FileReadTests {
    static func tempFile(_ bytes: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "/snapsort-read-\(getpid())-\(UInt32.random(in: 0 ... .max))"
        try FileSystem.writeAtomically(path, bytes)
        return path
    }

    static func bytes(_ n: Int) -> [UInt8] { (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 / 251) } }

    @Test(arguments: [0, 1, 16_383, 16_384, 70_001, 1_000_003])
    func aFileReadsAsItsBytes(_ n: Int) throws {
        let content = Self.bytes(n), path = try Self.tempFile(content)
        defer { unlink(path) }
        #expect(try FileSystem.readFile(path, limit: 1 << 24) == content)
    }

    /// The size `fstat` gave can be wrong by the time of the read: a file that grew is read to
    /// its end (up to the limit), one that shrank to its end.
    @Test(arguments: [
        (100_000, 0, 1 << 20), (100_000, 40_000, 1 << 20), (100_000, 99_999, 1 << 20), (100_000, 150_000, 1 << 20),
        (100_000, 0, 30_000), (100_000, 20_000, 30_000),
    ])
    func aFileThatChangedSinceItsSizeIsReadToItsEndOrTheLimit(_ n: Int, _ expected: Int, _ limit: Int) throws {
        let content = Self.bytes(n), path = try Self.tempFile(content)
        defer { unlink(path) }
        let fd = try FileDescriptor.open(path, O_RDONLY | O_CLOEXEC)
        defer { fd.close() }
        #expect(try fd.readAll(expected: expected, limit: limit) == Array(content.prefix(limit)))
    }
}
