import Foundation
import Glibc
import SnapSortSystem
import Testing

/// File names that are not UTF-8 (`PathName`): every byte string has one String and back, and
/// the kernel sees the bytes, not U+FFFD's.
@Suite struct PathNameTests {
    static let latin1: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".jpg".utf8)

    @Test func everyByteStringComesBackByteForByte() {
        var rng = SystemRandomNumberGenerator()
        // Bytes near UTF-8's edges more often than chance would give them.
        let pool: [UInt8] = [0x41, 0x2E, 0x80, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEE, 0xEF, 0xBE, 0xA0, 0x9F, 0xF0, 0xF4, 0xF5, 0xFF, 0x90, 0x8F]
        for _ in 0..<5000 {
            let n = Int.random(in: 1...12, using: &rng)
            let bytes: [UInt8] = (0..<n).map { _ in
                Bool.random(using: &rng) ? pool.randomElement(using: &rng)! : UInt8.random(in: 1...255, using: &rng)
            }
            let s = PathName.decode(bytes)
            #expect(PathName.encode(s) == bytes, "\(bytes)")
            #expect(PathName.decode(PathName.encode(s)) == s)
            #expect(PathName.withCString(s) { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } == bytes)
        }
    }

    @Test func utf8NamesAreTheirOwnStrings() {
        for name in ["IMG_0001.JPG", "Été 2024/Ça va.jpg", "写真/猫.heic", "emoji 🐈‍⬛.png"] {
            #expect(PathName.decode(Array(name.utf8)) == name)
            #expect(PathName.encode(name) == Array(name.utf8))
            #expect(!PathName.hasEscapes(name) && PathName.display(name) == name)
        }
    }

    @Test func aLatin1NameShowsAsReplacementAndKeepsItsBytes() {
        let s = PathName.decode(Self.latin1)
        #expect(PathName.hasEscapes(s))
        #expect(PathName.display(s) == "caf\u{FFFD}.jpg")
        #expect(PathName.encode(s) == Self.latin1)
        // Not the bytes of U+FFFD, and not é's UTF-8 either.
        #expect(PathName.encode(s) != Array("caf\u{FFFD}.jpg".utf8) && PathName.encode(s) != Array("café.jpg".utf8))
    }

    /// A valid name that holds one of the escape scalars is escaped too, so it cannot be taken
    /// for the name of the byte it would stand for.
    @Test func aNameHoldingAnEscapeScalarIsNotTakenForAnotherName() {
        let real = Array("x\u{EFE9}.jpg".utf8)  // EE BF A9
        let s = PathName.decode(real)
        #expect(PathName.encode(s) == real)
        #expect(s != PathName.decode(Array("x".utf8) + [0xE9] + Array(".jpg".utf8)))
    }

    /// Through the file calls: a file made under a Latin-1 name is listed under the same
    /// String, found by it, read, renamed and removed, and on disk its name is the bytes.
    @Test func theFileCallsUseTheBytes() throws {
        var template = Array("/tmp/snapsort-pathname-XXXXXX".utf8CString)
        let dir = String(cString: template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!)! })
        defer { _ = try? Process.run(URL(fileURLWithPath: "/bin/rm"), arguments: ["-rf", dir]).waitUntilExit() }
        let folder = dir + "/" + PathName.decode(Array("f".utf8) + [0xEA] + Array("te".utf8))
        try FileSystem.makeDirectories(folder)
        let path = folder + "/" + PathName.decode(Self.latin1)
        try FileSystem.writeAtomically(path, [1, 2, 3])
        #expect(try FileSystem.readFile(path, limit: 10) == [1, 2, 3])
        #expect(try FileSystem.listDirectory(dir).map(\.name) == [String(folder.split(separator: "/").last!)])
        #expect(try FileSystem.listDirectory(folder).map(\.name) == [PathName.decode(Self.latin1)])
        #expect(try OpenDirectory(folder).lstatus(PathName.decode(Self.latin1))?.size == 3)
        #expect(try FileSystem.realPath(path) == path)
        // The kernel's own view: the raw bytes of the name.
        let raw = dir + "/f\u{FFFD}te"
        #expect(!FileSystem.exists(raw))
        var st = stat()
        let bytes = Array(dir.utf8) + Array("/f".utf8) + [0xEA] + Array("te/caf".utf8) + [0xE9] + Array(".jpg".utf8) + [0]
        #expect(bytes.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { lstat($0.baseAddress!, &st) } } == 0)
        let moved = folder + "/" + PathName.decode([0xFF, 0x41])
        try FileSystem.rename(path, moved)
        #expect(FileSystem.exists(moved) && !FileSystem.exists(path))
        try FileSystem.remove(moved)
        #expect(try FileSystem.listDirectory(folder).isEmpty)
    }

    /// inotify names a file that is not UTF-8 by its String, the one the listing gives.
    @Test func inotifyEventsCarryTheSameName() throws {
        var template = Array("/tmp/snapsort-pathname-XXXXXX".utf8CString)
        let dir = String(cString: template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!)! })
        defer { _ = try? Process.run(URL(fileURLWithPath: "/bin/rm"), arguments: ["-rf", dir]).waitUntilExit() }
        let inotify = try Inotify()
        _ = try inotify.addWatch(dir, mask: UInt32(IN_MOVED_TO))
        try FileSystem.writeAtomically(dir + "/" + PathName.decode(Self.latin1), [7])
        // The events are waited for on the descriptor (`poll`), with a deadline.
        var names: [String] = []
        let deadline = ContinuousClock.now + .seconds(10)
        while names.isEmpty && ContinuousClock.now < deadline {
            guard try !Poll.readable([inotify.fd], timeoutMs: 1000).isEmpty else { continue }
            names = try inotify.read().map(\.name).filter { !$0.hasPrefix(".") }
        }
        #expect(names == [PathName.decode(Self.latin1)])
    }
}
