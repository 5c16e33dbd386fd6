import Foundation
import Glibc
import SnapSortCore
import SnapSortSystem

/// A temporary folder removed when released.
public final class TempDir: @unchecked Sendable {
    public let path: String

    public init(_ label: String = "snapsort") {
        var template = Array("/tmp/\(label)-XXXXXX".utf8CString)
        let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = String(cString: p!)
    }

    /// A path inside the folder (nothing is created).
    public func at(_ rel: String) -> String { path + "/" + rel }

    /// Creates a sub-folder (with parents) and returns its path.
    @discardableResult
    public func folder(_ rel: String) -> String {
        let p = at(rel)
        try? FileSystem.makeDirectories(p)
        return p
    }

    /// Writes a shell script (a stand-in for a program) to a relative path, executable, and
    /// returns the path.
    @discardableResult
    public func writeScript(_ rel: String, _ text: String) -> String {
        let p = write(rel, Array(text.utf8))
        chmod(p, 0o755)
        return p
    }

    /// Writes bytes to a relative path (parents created) and returns the path.
    @discardableResult
    public func write(_ rel: String, _ bytes: [UInt8]) -> String {
        let p = at(rel)
        if let slash = p.lastIndex(of: "/") { try? FileSystem.makeDirectories(String(p[..<slash])) }
        if PathName.hasEscapes(p) {
            // A name that is not UTF-8 (`PathName`): Foundation would write U+FFFD's bytes.
            try? FileSystem.writeAtomically(p, bytes)
        } else {
            _ = FileManager.default.createFile(atPath: p, contents: Data(bytes))
        }
        return p
    }

    deinit {
        // Make everything removable first (tests chmod folders to 000).
        _ = try? Process.run(URL(fileURLWithPath: "/bin/chmod"), arguments: ["-R", "u+rwx", path]).waitUntilExit()
        // rm, not FileManager: names that are not UTF-8 go too.
        _ = try? Process.run(URL(fileURLWithPath: "/bin/rm"), arguments: ["-rf", path]).waitUntilExit()
    }
}

/// Test images written through the program's own encoders.
public enum Fixtures {
    /// A deterministic natural-looking scene: gradients, blobs and texture, seeded.
    public static func scene(width: Int = 640, height: Int = 480, seed: UInt64 = 1) -> Bitmap {
        var b = Bitmap(width: width, height: height, channels: 3)
        var rng = SplitMix(seed: seed)
        // Explicit types throughout: this file is compiled unoptimized, and mixed literal
        // arithmetic here once cost minutes of type checking.
        struct Blob {
            var x: Double, y: Double, r: Double
            var color: [Double]
        }
        var blobs: [Blob] = []
        for _ in 0..<12 {
            let bx = Double(rng.next() % UInt64(width))
            let by = Double(rng.next() % UInt64(height))
            let r = Double(20 + rng.next() % 120)
            let color: [Double] = [Double(rng.next() % 256), Double(rng.next() % 256), Double(rng.next() % 256)]
            blobs.append(Blob(x: bx, y: by, r: r, color: color))
        }
        let f1: Double = Double(1 + rng.next() % 7) / 40
        let f2: Double = Double(1 + rng.next() % 5) / 30
        let w = Double(width), h = Double(height)
        for y in 0..<height {
            let fy = Double(y)
            for x in 0..<width {
                let fx = Double(x)
                var px: [Double] = [fx * 200 / w, fy * 200 / h, 120]
                for blob in blobs {
                    let dx: Double = fx - blob.x
                    let dy: Double = fy - blob.y
                    let d: Double = (dx * dx + dy * dy).squareRoot()
                    if d < blob.r { for k in 0..<3 { px[k] = px[k] * 0.3 + blob.color[k] * 0.7 } }
                }
                let t: Double = 25 * sin(fx * f1) * cos(fy * f2)
                for k in 0..<3 {
                    let v: Double = max(0, min(255, px[k] + t))
                    b.pixels[(y * width + x) * 3 + k] = UInt8(v)
                }
            }
        }
        return b
    }

    /// A JPEG of a scene with optional EXIF.
    public static func jpeg(
        seed: UInt64 = 1, width: Int = 640, height: Int = 480, quality: Int = 90,
        dateTimeOriginal: String? = nil, offset: String? = nil, orientation: Int = 0,
        make: String? = nil, model: String? = nil, progressive: Bool = false
    ) -> [UInt8] {
        let exif: [UInt8]? =
            (dateTimeOriginal != nil || make != nil || orientation != 0)
            ? Exif.build(dateTimeOriginal: dateTimeOriginal, offsetTimeOriginal: offset, make: make, model: model, orientation: orientation) : nil
        return try! JPEG.encode(scene(width: width, height: height, seed: seed), quality: quality, progressive: progressive, exif: exif)
    }

    /// A JPEG of a given bitmap.
    public static func jpeg(_ b: Bitmap, quality: Int = 90, dateTimeOriginal: String? = nil) -> [UInt8] {
        let exif = dateTimeOriginal.map { Exif.build(dateTimeOriginal: $0, make: "TestCam", model: "T1") }
        return try! JPEG.encode(b, quality: quality, exif: exif)
    }

    /// A PNG of a scene.
    public static func png(seed: UInt64 = 1, width: Int = 320, height: Int = 240) -> [UInt8] {
        try! PNG.encode(scene(width: width, height: height, seed: seed))
    }

    /// A PNG of a given bitmap.
    public static func png(_ b: Bitmap) -> [UInt8] { try! PNG.encode(b) }

    /// A JPEG whose SOF claims `width`×`height` (a decompression bomb header), data cut short.
    public static func jpegBombHeader(width: Int = 65000, height: Int = 65000) -> [UInt8] {
        var j = jpeg(seed: 3, width: 16, height: 16)
        // Patch the SOF0 marker's height and width.
        var i = 2
        while i + 9 < j.count {
            if j[i] == 0xFF && (j[i + 1] == 0xC0 || j[i + 1] == 0xC2) {
                let hi: UInt8 = UInt8(truncatingIfNeeded: height >> 8), lo: UInt8 = UInt8(truncatingIfNeeded: height)
                let whi: UInt8 = UInt8(truncatingIfNeeded: width >> 8), wlo: UInt8 = UInt8(truncatingIfNeeded: width)
                j[i + 5] = hi; j[i + 6] = lo
                j[i + 7] = whi; j[i + 8] = wlo
                break
            }
            if j[i] == 0xFF {
                let length: Int = Int(j[i + 2]) << 8 | Int(j[i + 3])
                i += 2 + length
            } else {
                i += 1
            }
        }
        return j
    }

    /// A PNG whose IHDR claims `width`×`height` (CRC fixed so libpng reads the header).
    public static func pngBombHeader(width: Int = 100_000, height: Int = 100_000) -> [UInt8] {
        var p = png(seed: 2, width: 8, height: 8)
        func be(_ v: Int) -> [UInt8] {
            let u = UInt32(truncatingIfNeeded: v)
            return [
                UInt8(truncatingIfNeeded: u >> 24), UInt8(truncatingIfNeeded: u >> 16), UInt8(truncatingIfNeeded: u >> 8),
                UInt8(truncatingIfNeeded: u),
            ]
        }
        p.replaceSubrange(16..<20, with: be(width))
        p.replaceSubrange(20..<24, with: be(height))
        let crc = CRC32.compute(Array(p[12..<29]))
        p.replaceSubrange(29..<33, with: be(Int(crc)))
        return p
    }
}

/// CRC-32 (PNG chunks).
public enum CRC32 {
    public static func compute(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return c ^ 0xFFFF_FFFF
    }
}

/// A small deterministic random generator for tests.
public struct SplitMix: RandomNumberGenerator, Sendable {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension Clock {
    /// A manual clock that moves `step` seconds after each read: work that measures a budget on
    /// its clock sees time pass by the reads it makes, the same on a loaded host as on an idle
    /// one (the wall clock would give it a share of the host's speed instead).
    public static func ticking(_ start: Date, step: TimeInterval) -> (Clock, ManualTime) {
        let t = ManualTime(start)
        return (
            Clock {
                let now = t.current
                t.advance(step)
                return now
            }, t
        )
    }
}

/// Waits for a condition with a deadline (instead of sleeping a fixed time). The deadline is on
/// the monotonic clock: a test's timeout is real time, never a manual clock's, and a wall-clock
/// step cannot cut it short.
public func waitUntil(timeout: TimeInterval = 10, poll: TimeInterval = 0.01, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        usleep(useconds_t(poll * 1_000_000))
    }
    return try condition()
}

/// A library in a temp folder with a scanner over `root`.
public struct TestLibrary {
    public let dir: TempDir
    public let library: Library
    public var root: String { dir.at("Pictures") }
    public var dbPath: String { dir.at("state/library.sqlite3") }

    public init() throws {
        dir = TempDir("snapsort-lib")
        dir.folder("Pictures")
        library = try Library(path: dir.at("state/library.sqlite3"))
    }

    /// A library whose Pictures folder holds small JPEGs named `names` (each its own picture,
    /// taken on its own day of May 2021), scanned.
    public static func scanned(_ names: [String]) throws -> TestLibrary {
        let lib = try TestLibrary()
        for (i, n) in names.enumerated() {
            lib.dir.write(
                "Pictures/" + n, Fixtures.jpeg(seed: UInt64(i + 1), width: 48, height: 32, dateTimeOriginal: "2021:05:0\(i % 9 + 1) 10:00:00"))
        }
        try lib.scan()
        return lib
    }

    /// A scanner over this library with a manual-free live clock and two workers.
    public func scanner(workers: Int = 2) -> LibraryScanner {
        LibraryScanner(library: library, workers: workers)
    }

    /// Scans the root (or the given paths).
    @discardableResult
    public func scan(_ paths: [String]? = nil) throws -> ScanSummary {
        try scanner().scan(paths ?? [root])
    }

    /// Writes the repository's demo library (`share/demo`, real photos) to `folder` (default:
    /// outside the library's root) and returns the folder.
    @discardableResult
    public func writeDemo(to folder: String? = nil) throws -> String {
        let to = folder ?? dir.at("demo")
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized.path
        _ = try DemoLibrary.write(to: to, sources: repo + "/share/demo")
        return to
    }
}

/// Runs the built `snapsort` binary (for end-to-end tests of the CLI contract).
public enum SnapsortBinary {
    /// The path of the built executable next to the test bundle.
    public static var path: String {
        let bundle = Bundle.main.bundlePath
        var dir = URL(fileURLWithPath: bundle)
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("snapsort").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/debug/snapsort").standardized.path
    }

    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String

        public init(status: Int32, stdout: String, stderr: String) { (self.status, self.stdout, self.stderr) = (status, stdout, stderr) }
    }

    /// Runs `snapsort args…` as a user whose file permissions apply: as root, through
    /// `setpriv` without the capabilities that bypass them (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH).
    public static func runUnprivileged(_ args: [String], env: [String: String] = [:]) throws -> Result {
        guard geteuid() == 0 else { return try run(args, env: env) }
        return try run(["--bounding-set=-dac_override,-dac_read_search", path] + args, env: env, launcher: "/usr/bin/setpriv")
    }

    /// Runs `snapsort args…` with an environment (its output to /dev/null) and returns its exit
    /// status and its peak resident set (`ru_maxrss` of this child alone, from wait4(2), in KiB).
    /// A small Python forks it: a child spawned from the test process itself starts its
    /// `ru_maxrss` at the test process's high-water mark (exec records the old address space's,
    /// and posix_spawn's vfork shares ours), and RUSAGE_CHILDREN keeps the largest child ever.
    public static func runMeasuringPeak(_ args: [String], env: [String: String] = [:]) throws -> (status: Int32, peakKiB: Int) {
        let script = """
            import os, sys
            pid = os.fork()
            if pid == 0:
                fd = os.open(os.devnull, os.O_RDWR)
                for k in (0, 1, 2): os.dup2(fd, k)
                os.execv(sys.argv[1], sys.argv[1:])
            _, status, usage = os.wait4(pid, 0)
            print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
            """
        let r = try run(["-c", script, path] + args, env: env, launcher: "/usr/bin/python3")
        let fields = r.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard r.status == 0, fields.count == 2 else { throw SystemError(.decode, "the measuring launcher failed: \(r.stderr)", operation: "python3") }
        return (Int32(fields[0]), fields[1])
    }

    /// Runs `snapsort args…` (or `launcher` with `args`) with an environment, waiting for it to end.
    public static func run(_ args: [String], env: [String: String] = [:], stdin: String? = nil, launcher: String? = nil) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: launcher ?? path)
        p.arguments = args
        var e = ProcessInfo.processInfo.environment
        for (k, v) in env { e[k] = v }
        p.environment = e
        let out = Pipe(), err = Pipe(), inp = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = inp
        try p.run()
        if let stdin { inp.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? inp.fileHandleForWriting.close()
        // Both pipes drained at once: read one to its end first and a child that fills the other
        // (the loader's trace of FFmpeg's hundred libraries under LD_DEBUG) blocks for ever.
        let errors = PipeDrain(err.fileHandleForReading)
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let r = errors.wait()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: r, as: UTF8.self))
    }
}

/// Damages a real SQLite file the way a bad sector or a half-written copy would: the b-tree
/// page of `table` gets an invalid page type, so reading it is SQLITE_CORRUPT and
/// `PRAGMA quick_check` names it. No connection may be open on the file.
public enum DatabaseDamage {
    public static func breakTable(_ dbPath: String, _ table: String) throws {
        let (root, pageSize): (Int64, Int64)
        do {
            let db = try Database(path: dbPath)
            try db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            root = try db.scalar("SELECT rootpage FROM sqlite_master WHERE name = ?", table) ?? 0
            pageSize = try db.scalar("PRAGMA page_size") ?? 4096
        }
        precondition(root > 1, "no table \(table)")
        let fd = open(dbPath, O_WRONLY)
        precondition(fd >= 0)
        defer { close(fd) }
        var junk = [UInt8](repeating: 0xEE, count: 16)
        precondition(pwrite(fd, &junk, junk.count, off_t((root - 1) * pageSize)) == junk.count)
    }
}

/// A pipe read to its end on a thread of its own; `wait` gives what it held.
final class PipeDrain: @unchecked Sendable {
    private var data = Data()
    private let group = DispatchGroup()

    init(_ handle: FileHandle) {
        group.enter()
        Thread { [self] in
            // Written before `leave`, read after `wait`: the group orders the two.
            data = handle.readDataToEndOfFile()
            group.leave()
        }.start()
    }

    func wait() -> Data {
        group.wait()
        return data
    }
}
