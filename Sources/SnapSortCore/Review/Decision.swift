import Foundation
import SnapSortSystem

/// A verdict on one item, stored against its identity (`files.id`) so it follows renames and
/// moves.
public enum Decision: String, Sendable, CaseIterable, Codable {
    /// Staged for the Trash: the file stays in place until the user commits.
    case trash
    /// Bookmarked: the user wants it.
    case keep
    /// Not now: it comes back later in the same deck. Not a verdict, so not counted in stats.
    case skip
    /// Leave it for now: it returns after `Review.laterCooldown`, marked "seen before".
    case later

    /// Whether this decision counts as reviewing the item (stats, streaks, goals).
    public var isVerdict: Bool { self != .skip }
}

/// The stored decision of one item.
public struct DecisionRecord: Sendable, Equatable, Codable {
    public var fileID: Int64
    public var decision: Decision
    public var decidedAt: Double
    public var sessionID: Int64?
    /// How many times the item was deferred with `later` (kept across later decisions).
    public var laterCount: Int
    /// When a deferred item returns (seconds since 1970).
    public var laterUntil: Double?
    /// What the user saw when deciding: the trash commit refuses a file that changed since.
    public var reviewedSize: Int64?
    public var reviewedMtimeNanoseconds: Int64?
    public var reviewedHash: [UInt8]?
    /// Which file the verdict was given to (device, inode, birth time): a file that is not that
    /// one now (another file on a reused inode number that took over the row) is never
    /// committed, and waits for a verdict again. Nil in decisions from before it was recorded.
    public var reviewedDevice: UInt64?
    public var reviewedInode: UInt64?
    public var reviewedBirthNanoseconds: Int64?

    static let columns = """
        file_id, decision, decided_ts, session_id, later_count, later_until, reviewed_size, reviewed_mtime_ns, reviewed_hash,
        reviewed_device, reviewed_inode, reviewed_btime_ns
        """

    init?(_ r: Row) {
        guard let id = r.int(0), let d = r.string(1).flatMap(Decision.init(rawValue:)) else { return nil }
        fileID = id
        decision = d
        decidedAt = r.double(2) ?? 0
        sessionID = r.int(3)
        laterCount = Int(r.int(4) ?? 0)
        laterUntil = r.double(5)
        reviewedSize = r.int(6)
        reviewedMtimeNanoseconds = r.int(7)
        reviewedHash = r.blob(8)
        reviewedDevice = r.int(9).map { UInt64(bitPattern: $0) }
        reviewedInode = r.int(10).map { UInt64(bitPattern: $0) }
        reviewedBirthNanoseconds = r.int(11)
    }

    init(
        fileID: Int64, decision: Decision, decidedAt: Double, sessionID: Int64?, laterCount: Int, laterUntil: Double?,
        reviewedSize: Int64?, reviewedMtimeNanoseconds: Int64?, reviewedHash: [UInt8]?, reviewedIdentity: FileIdentity? = nil
    ) {
        self.fileID = fileID
        self.decision = decision
        self.decidedAt = decidedAt
        self.sessionID = sessionID
        self.laterCount = laterCount
        self.laterUntil = laterUntil
        self.reviewedSize = reviewedSize
        self.reviewedMtimeNanoseconds = reviewedMtimeNanoseconds
        self.reviewedHash = reviewedHash
        self.reviewedDevice = reviewedIdentity?.device
        self.reviewedInode = reviewedIdentity?.inode
        self.reviewedBirthNanoseconds = reviewedIdentity?.birthNanoseconds
    }

    /// The file the verdict was given to, when recorded.
    public var reviewedIdentity: FileIdentity? {
        guard let reviewedDevice, let reviewedInode else { return nil }
        return FileIdentity(device: reviewedDevice, inode: reviewedInode, birthNanoseconds: reviewedBirthNanoseconds)
    }

    /// Whether the item is due again (a deferred item whose cool-down ended).
    public func isDue(at now: Date) -> Bool {
        decision == .later && (laterUntil ?? 0) <= now.timeIntervalSince1970
    }

    /// Whether the item still waits for a verdict: skipped, deferred and due again, or staged for
    /// the Trash when its bytes changed since (the commit leaves such a file, "decide again":
    /// the deck is where that happens); an item without a decision waits too. `waitingSQL` is
    /// the same test in SQL.
    public func waits(at now: Date, item: Item) -> Bool {
        decision == .skip || isDue(at: now) || trashOnChangedBytes(item)
    }

    /// A trash verdict given to other bytes than the file's now (its size or content hash moved
    /// since; times alone are no change, as the commit has it), or to another file (its row
    /// now describes another inode, or the same number born again).
    public func trashOnChangedBytes(_ item: Item) -> Bool {
        guard decision == .trash else { return false }
        if let s = reviewedSize, s != item.bytes { return true }
        if let h = reviewedHash, let now = item.contentHash, h != now { return true }
        if let reviewed = reviewedIdentity, !reviewed.isSameFile(as: item.identity) { return true }
        return false
    }

    /// `waits` over a `decisions` row `d` left-joined to its file `f` (one `?`: now, in seconds).
    static let waitingSQL = """
        (d.decision IS NULL OR d.decision = \(Decision.skip.sql) OR (d.decision = \(Decision.later.sql) AND d.later_until <= ?)
         OR (d.decision = \(Decision.trash.sql) AND \(trashChangedSQL())))
        """

    /// `trashOnChangedBytes` but for the decision's word, over a `decisions` row `d` and its
    /// file, the `files` row named `f`.
    static func trashChangedSQL(_ f: String = "f") -> String {
        """
        ((d.reviewed_size IS NOT NULL AND d.reviewed_size != \(f).size)
         OR (d.reviewed_hash IS NOT NULL AND \(f).content_hash IS NOT NULL AND d.reviewed_hash != \(f).content_hash)
         OR (d.reviewed_inode IS NOT NULL AND (d.reviewed_inode != \(f).inode OR d.reviewed_device != \(f).device
             OR (d.reviewed_btime_ns IS NOT NULL AND \(f).btime_ns >= 0 AND d.reviewed_btime_ns != \(f).btime_ns))))
        """
    }

    /// Whether the deck should suggest keeping it (deferred `Review.suggestKeepAfter` times).
    public var suggestsKeep: Bool { laterCount >= Review.suggestKeepAfter }

    func write(_ db: Database) throws {
        try db.run(
            """
            INSERT OR REPLACE INTO decisions(\(DecisionRecord.columns)) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)
            """, fileID, decision.rawValue, decidedAt, sessionID, laterCount, laterUntil, reviewedSize,
            reviewedMtimeNanoseconds, reviewedHash.map { SQLValue.blob($0) } ?? .null, reviewedDevice, reviewedInode,
            reviewedBirthNanoseconds)
    }
}

/// A review error: a code and one line for people.
public struct ReviewError: Error, CustomStringConvertible, Sendable, Equatable {
    public struct Code: Hashable, Sendable {
        private let value: String
        public static let notInLibrary = Code(value: "not_in_library")
        public static let nothingToUndo = Code(value: "nothing_to_undo")
        public static let noSuchSession = Code(value: "no_such_session")
        public static let noSuchDeck = Code(value: "no_such_deck")
        public static let invalid = Code(value: "invalid")
    }
    public let code: Code
    public let message: String
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
    public var description: String { message }
}
