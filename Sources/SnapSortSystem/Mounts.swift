import Glibc

/// One line of `/proc/self/mountinfo` (see proc(5)).
public struct MountInfo: Sendable, Equatable {
    /// The mount's unique id (bind mounts of one file system have different ids).
    public var id: Int
    public var parentID: Int
    /// `st_dev` of files on this mount (major:minor); bind mounts share it.
    public var device: UInt64
    /// The folder of the file system mounted here (`/` unless a bind mount of a sub-folder).
    public var root: String
    /// Where it is mounted: the "top directory" of the Trash specification.
    public var mountPoint: String
    public var fileSystemType: String
    public var source: String
    public var readOnly: Bool
}

/// The mount table of this process, from `/proc/self/mountinfo`.
public enum Mounts {
    /// Parses mountinfo text. Paths escape space, tab, newline and backslash as `\ooo`.
    public static func parse(_ text: String) -> [MountInfo] {
        var out: [MountInfo] = []
        for line in text.split(separator: "\n") {
            let f = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 10, let sep = f.firstIndex(of: "-"), sep + 2 < f.count,
                let id = Int(f[0]), let parent = Int(f[1])
            else { continue }
            let mm = f[2].split(separator: ":")
            guard mm.count == 2, let major = UInt32(mm[0]), let minor = UInt32(mm[1]) else { continue }
            let options = f[5].split(separator: ",")
            out.append(
                MountInfo(
                    id: id, parentID: parent, device: Mounts.makeDevice(major: major, minor: minor),
                    root: unescape(f[3]), mountPoint: unescape(f[4]), fileSystemType: f[sep + 1],
                    source: unescape(f[sep + 2]), readOnly: options.contains("ro")))
        }
        return out
    }

    /// The current mount table.
    public static func current() throws -> [MountInfo] {
        let bytes = try FileSystem.readProcFile("/proc/self/mountinfo")
        return parse(String(decoding: bytes, as: UTF8.self))
    }

    /// The mount holding `path` (an absolute path whose symlinks are already resolved): the
    /// last-mounted entry with the longest mount point that is a prefix of it. Looking at the
    /// path, not at `st_dev`, tells bind mounts apart (they share `st_dev`, yet `rename(2)`
    /// across them fails with `EXDEV`).
    public static func mount(containing path: String, in table: [MountInfo]) -> MountInfo? {
        var best: MountInfo?
        for m in table {
            let mp = m.mountPoint
            let inside = mp == "/" || path == mp || path.hasPrefix(mp + "/")
            guard inside else { continue }
            // Later lines stack on top of earlier ones at the same mount point.
            if best == nil || mp.count >= best!.mountPoint.count { best = m }
        }
        return best
    }

    /// glibc's `makedev(3)` (a macro, so not imported): the `st_dev` of major:minor.
    public static func makeDevice(major: UInt32, minor: UInt32) -> UInt64 {
        let ma = UInt64(major), mi = UInt64(minor)
        return ((ma & 0xFFFF_F000) << 32) | ((ma & 0x0000_0FFF) << 8) | ((mi & 0xFFFF_FF00) << 12) | (mi & 0x0000_00FF)
    }

    static func unescape(_ s: String) -> String {
        guard s.contains("\\") else { return s }
        var bytes: [UInt8] = []
        let u = Array(s.utf8)
        var i = 0
        while i < u.count {
            if u[i] == UInt8(ascii: "\\"), i + 3 < u.count {
                let digits = u[(i + 1)...(i + 3)]
                if digits.allSatisfy({ $0 >= 48 && $0 <= 55 }) {
                    let v = digits.reduce(0) { $0 * 8 + Int($1 - 48) }
                    bytes.append(UInt8(v & 0xFF))
                    i += 4
                    continue
                }
            }
            bytes.append(u[i])
            i += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
