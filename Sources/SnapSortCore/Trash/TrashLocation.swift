import Foundation
import SnapSortSystem

/// What the trash needs from the system, injectable for tests: the XDG environment (for
/// `$XDG_DATA_HOME/Trash`), the user id, the mount table and the time zone of `DeletionDate`.
public struct TrashEnvironment: Sendable {
    public var environment: Environment
    public var userID: UInt32
    public var mounts: @Sendable () throws -> [MountInfo]
    public var timeZone: TimeZone
    /// Test hooks called at the commit's crash points (after the `.trashinfo` is written, after
    /// the rename). Throwing from one stops the commit there, like a `kill -9`.
    public var afterInfoWritten: @Sendable (String) throws -> Void = { _ in }
    public var afterRename: @Sendable (String) throws -> Void = { _ in }

    public init(
        environment: Environment, userID: UInt32 = FileSystem.effectiveUserID,
        mounts: @escaping @Sendable () throws -> [MountInfo] = { try Mounts.current() }, timeZone: TimeZone = .current
    ) {
        self.environment = environment
        self.userID = userID
        self.mounts = mounts
        self.timeZone = timeZone
    }

    /// The live system.
    public static var live: TrashEnvironment { TrashEnvironment(environment: .live) }

    /// The home trash: `$XDG_DATA_HOME/Trash`.
    public var homeTrash: String { environment.dataHome + "/Trash" }
}

/// A Trash folder (holding `files/` and `info/`) chosen for one file.
public struct TrashLocation: Sendable, Equatable {
    /// The Trash folder.
    public var directory: String
    /// The top directory of the mount for a top-directory trash; nil for the home trash.
    public var topDirectory: String?

    public var isHome: Bool { topDirectory == nil }
    public var filesDirectory: String { directory + "/files" }
    public var infoDirectory: String { directory + "/info" }

    /// The `Path=` value for `originalPath` (real path): absolute in the home trash, relative
    /// to the top directory on other mounts (see the Trash specification, "Contents of a
    /// trash directory").
    public func pathKey(for originalPath: String, realPath: String) -> String {
        guard let top = topDirectory else { return originalPath }
        if top == "/" { return String(realPath.dropFirst()) }
        return String(realPath.dropFirst(top.count + 1))
    }
}

/// Why no Trash could be used for a file.
public struct TrashUnavailable: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
}

/// Finds the Trash for a file, per the freedesktop.org Trash specification 1.0.
public enum TrashLocator {
    /// The home trash when the file is on the same mount as `$XDG_DATA_HOME`, else the top
    /// directory trash of the file's mount: `$topdir/.Trash/$uid` when `$topdir/.Trash` is a
    /// folder with the sticky bit that is not a symlink, else `$topdir/.Trash-$uid`. Mounts are
    /// told apart by their mountinfo entry, not `st_dev` (bind mounts share it).
    ///
    /// `topDirectory` given: that folder is the top directory (`deviceTop`: a btrfs subvolume
    /// that is not mounted on its own has a device of its own, so neither the home trash nor its
    /// mount's can take the file; GLib and trash-cli use the subvolume's root then).
    public static func locate(
        realPath: String, env: TrashEnvironment, preferHome: Bool = true, topDirectory: String? = nil
    ) throws -> TrashLocation {
        if let top = topDirectory { return try topDirectoryTrash(top, uid: env.userID) }
        let table = try env.mounts()
        guard let fileMount = Mounts.mount(containing: realPath, in: table) else {
            throw TrashUnavailable(description: "no mount found for the file")
        }
        if preferHome, let homeReal = existingRealPath(env.homeTrash),
            let homeMount = Mounts.mount(containing: homeReal, in: table), homeMount.id == fileMount.id
        {
            let loc = TrashLocation(directory: env.homeTrash, topDirectory: nil)
            try prepare(loc, home: true, uid: env.userID)
            return loc
        }
        if fileMount.readOnly { throw TrashUnavailable(description: "its file system is read-only") }
        return try topDirectoryTrash(fileMount.mountPoint, uid: env.userID)
    }

    /// `$top/.Trash/$uid` when `$top/.Trash` is a sticky folder that is not a symlink, else
    /// `$top/.Trash-$uid`, created as needed.
    static func topDirectoryTrash(_ top: String, uid: UInt32) throws -> TrashLocation {
        let base = top == "/" ? "" : top
        let shared = base + "/.Trash"
        if let st = FileSystem.lstatusIfExists(shared), st.isDirectory, !st.isSymlink, FileSystem.isSticky(st.mode) {
            let loc = TrashLocation(directory: shared + "/\(uid)", topDirectory: top)
            if (try? prepare(loc, home: false, uid: uid)) != nil { return loc }
        }
        let loc = TrashLocation(directory: base + "/.Trash-\(uid)", topDirectory: top)
        do {
            try prepare(loc, home: false, uid: uid)
        } catch let e as TrashUnavailable {
            throw e
        } catch {
            throw TrashUnavailable(description: "cannot create \(loc.directory): \(error)")
        }
        return loc
    }

    /// The top of the file's own device: its folder's highest ancestor with the same `st_dev`
    /// (a btrfs subvolume's root, a mount the mount table does not show); nil when unknown.
    public static func deviceTop(ofFile realPath: String) -> String? {
        guard let slash = realPath.lastIndex(of: "/") else { return nil }
        var dir = slash == realPath.startIndex ? "/" : String(realPath[..<slash])
        guard let dev = FileSystem.lstatusIfExists(dir)?.device else { return nil }
        while dir != "/" {
            let up = dir.lastIndex(of: "/").map { $0 == dir.startIndex ? "/" : String(dir[..<$0]) } ?? "/"
            guard let st = FileSystem.lstatusIfExists(up), st.device == dev else { break }
            dir = up
        }
        return dir
    }

    /// Creates the Trash folder and its `files/` and `info/` (mode 0700) and checks that each is
    /// a real folder (not a symlink) owned by the user.
    static func prepare(_ loc: TrashLocation, home: Bool, uid: UInt32) throws {
        if home {
            try FileSystem.makeDirectories(loc.directory, mode: 0o700)
        } else {
            try FileSystem.makeDirectory(loc.directory, mode: 0o700)
        }
        for dir in [loc.directory, loc.filesDirectory, loc.infoDirectory] {
            if dir != loc.directory { try FileSystem.makeDirectory(dir, mode: 0o700) }
            guard let st = FileSystem.lstatusIfExists(dir), st.isDirectory, !st.isSymlink else {
                throw TrashUnavailable(description: "\(dir) is not a folder")
            }
            guard st.uid == uid || home else { throw TrashUnavailable(description: "\(dir) belongs to another user") }
        }
    }

    /// The real path of `path`, or of its nearest existing ancestor with the rest appended.
    static func existingRealPath(_ path: String) -> String? {
        var head = path
        var tail: [String] = []
        while !head.isEmpty {
            if let r = try? FileSystem.realPath(head) { return ([r == "/" ? "" : r] + tail.reversed()).joined(separator: "/") }
            guard let slash = head.lastIndex(of: "/") else { return nil }
            tail.append(String(head[head.index(after: slash)...]))
            head = String(head[..<slash])
        }
        return tail.isEmpty ? "/" : "/" + tail.reversed().joined(separator: "/")
    }

    /// The real path of a file: its folder resolved, its own name kept (a symlink is never
    /// followed).
    static func realPath(ofFile path: String) throws -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        let dir = slash == path.startIndex ? "/" : String(path[..<slash])
        let r = try FileSystem.realPath(dir)
        return (r == "/" ? "" : r) + "/" + path[path.index(after: slash)...]
    }
}

/// The `.trashinfo` format.
public enum TrashInfo {
    /// Percent-encodes a path's bytes as the specification asks (RFC 2396 escaping; `/` kept).
    public static func encode(_ path: String) -> String {
        var out = ""
        for b in PathName.encode(path) {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            default:
                out += String(format: "%%%02X", b)
            }
        }
        return out
    }

    /// Decodes `%XX` escapes into the bytes of a path (a name that is not UTF-8 stays itself).
    public static func decode(_ s: String) -> String {
        var bytes: [UInt8] = []
        let u = Array(s.utf8)
        var i = 0
        while i < u.count {
            if u[i] == UInt8(ascii: "%"), i + 2 < u.count, let v = UInt8(String(decoding: u[(i + 1)...(i + 2)], as: UTF8.self), radix: 16) {
                bytes.append(v)
                i += 3
            } else {
                bytes.append(u[i])
                i += 1
            }
        }
        return PathName.decode(bytes)
    }

    /// The file's text: `Path=` (encoded) and `DeletionDate=YYYY-MM-DDThh:mm:ss` in local time.
    public static func render(pathKey: String, deletedAt: Date, timeZone: TimeZone) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.calendar = Calendar(identifier: .gregorian)
        f.timeZone = timeZone
        f.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        return "[Trash Info]\nPath=\(encode(pathKey))\nDeletionDate=\(f.string(from: deletedAt))\n"
    }

    /// The decoded `Path=` of a `.trashinfo` text.
    public static func path(in text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix("Path=") { return decode(String(line.dropFirst(5))) }
        return nil
    }
}
