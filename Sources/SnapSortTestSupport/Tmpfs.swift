import Foundation
import Glibc

/// Real mounts for tests of removable roots: a tmpfs mounted on a folder (an SD card put in)
/// and unmounted (taken out), through mount(8) and umount(8).
public enum Tmpfs {
    /// Whether this process may mount (root with `CAP_SYS_ADMIN`): tried once on a temp folder.
    /// Tests that mount are skipped otherwise.
    public static let canMount: Bool = {
        guard geteuid() == 0 else { return false }
        let dir = TempDir("snapsort-mount-probe")
        let probe = dir.folder("m")
        guard (try? mount(at: probe)) != nil else { return false }
        return (try? unmount(probe)) != nil
    }()

    /// A failed mount(8) or umount(8), with what it said.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Mounts a fresh, empty tmpfs on `path`.
    public static func mount(at path: String) throws { try run("/bin/mount", ["-t", "tmpfs", "-o", "size=16m", "tmpfs", path]) }

    /// Bind-mounts the folder `source` on `path` (a disk whose files are still there when it is
    /// mounted again).
    public static func bind(_ source: String, at path: String) throws { try run("/bin/mount", ["--bind", source, path]) }

    /// Unmounts whatever is mounted on `path`.
    public static func unmount(_ path: String) throws { try run("/bin/umount", [path]) }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        let err = Pipe()
        p.standardError = err
        try p.run()
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")): exit \(p.terminationStatus): \(said)")
        }
    }
}
