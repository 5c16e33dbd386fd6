import Foundation

/// What the agent does about a watch event, once it is due.
public enum Change: Sendable, Equatable {
    /// A file was written (and closed) or moved in from outside: reconcile it.
    case file(String)
    /// A folder appeared (moved in from outside the watched tree, or created): watch and scan it.
    case folder(String)
    /// A file or folder moved within the watched tree: its rows follow, nothing is analyzed.
    case moved(from: String, to: String, isDirectory: Bool)
    /// A file or folder moved out of the watched tree: its rows become tombstones, which a
    /// file moved back (the same file: inode and birth time) revives with its decisions.
    case removed(String, isDirectory: Bool)
    /// A file or folder was deleted (`IN_DELETE`): its rows become tombstones that nothing
    /// revives — a new file is a new file, even with the same bytes on a reused inode number.
    case deleted(String, isDirectory: Bool)
}

/// Turns raw watch events into changes: debounces writes and pairs `IN_MOVED_FROM` with
/// `IN_MOVED_TO` by cookie. Pure logic on an injected time, so tests drive it with a manual clock.
///
/// - A written file is due `debounce` after its last `IN_CLOSE_WRITE`, so a file written in
///   several passes is analyzed once, when complete.
/// - A FROM whose TO arrives within `moveTimeout` is a move; a lone FROM is a removal; a lone TO
///   is a new file or folder.
public struct ChangeTracker: Sendable {
    public var debounce: TimeInterval
    public var moveTimeout: TimeInterval

    private var written: [String: Date] = [:]
    private var movedFrom: [UInt32: (path: String, isDirectory: Bool, due: Date)] = [:]
    private var ready: [Change] = []

    public init(debounce: TimeInterval = 0.25, moveTimeout: TimeInterval = 0.5) {
        self.debounce = debounce
        self.moveTimeout = moveTimeout
    }

    /// `IN_CLOSE_WRITE` of a file: (re)starts its debounce.
    public mutating func written(_ path: String, at now: Date) {
        written[path] = now.addingTimeInterval(debounce)
    }

    /// `IN_MOVED_FROM`: waits for its TO.
    public mutating func movedFrom(_ path: String, cookie: UInt32, isDirectory: Bool, at now: Date) {
        movedFrom[cookie] = (path, isDirectory, now.addingTimeInterval(moveTimeout))
    }

    /// `IN_MOVED_TO` (`path` nil when the destination is outside what is watched or excluded).
    public mutating func movedTo(_ path: String?, cookie: UInt32, isDirectory: Bool, at now: Date) {
        if let from = movedFrom.removeValue(forKey: cookie) {
            if let path {
                // A pending write of the source follows the file to its new name.
                if let due = written.removeValue(forKey: from.path) { written[path] = due }
                ready.append(.moved(from: from.path, to: path, isDirectory: from.isDirectory))
            } else {
                written.removeValue(forKey: from.path)
                ready.append(.removed(from.path, isDirectory: from.isDirectory))
            }
            return
        }
        guard let path else { return }
        if isDirectory {
            ready.append(.folder(path))
        } else {
            written[path] = now.addingTimeInterval(debounce)
        }
    }

    /// `IN_DELETE`.
    public mutating func deleted(_ path: String, isDirectory: Bool) {
        written.removeValue(forKey: path)
        ready.append(.deleted(path, isDirectory: isDirectory))
    }

    /// A folder created inside a watched folder: watched and scanned at once (files created in
    /// it before the watch was added are found by listing it).
    public mutating func folderCreated(_ path: String) {
        ready.append(.folder(path))
    }

    /// The changes due at `now`, in arrival order for moves and removals.
    public mutating func due(at now: Date) -> [Change] {
        var out = ready
        ready.removeAll()
        for (cookie, from) in movedFrom where from.due <= now {
            movedFrom.removeValue(forKey: cookie)
            written.removeValue(forKey: from.path)
            out.append(.removed(from.path, isDirectory: from.isDirectory))
        }
        let files = written.filter { $0.value <= now }.map(\.key).sorted()
        for f in files {
            written.removeValue(forKey: f)
            out.append(.file(f))
        }
        return out
    }

    /// When the next change becomes due (nil: nothing is waiting).
    public var nextDeadline: Date? {
        if !ready.isEmpty { return .distantPast }
        let a = written.values.min()
        let b = movedFrom.values.map(\.due).min()
        switch (a, b) {
        case (nil, nil): return nil
        case (let x?, nil): return x
        case (nil, let y?): return y
        case (let x?, let y?): return min(x, y)
        }
    }

    /// Whether any write or move is still waiting.
    public var isEmpty: Bool { written.isEmpty && movedFrom.isEmpty && ready.isEmpty }

    /// Forgets everything pending (after a queue overflow: a full reconcile replaces it).
    public mutating func reset() {
        written.removeAll()
        movedFrom.removeAll()
        ready.removeAll()
    }
}
