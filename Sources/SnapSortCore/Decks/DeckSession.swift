import Foundation
import SnapSortSystem

/// A deck being reviewed: the deck's items fixed when it started, a position, and progress
/// towards the session goal. Persistent, so a restart (or another front end) resumes it where
/// it was, and undo can put the position back.
public struct DeckSession: Sendable, Equatable, Codable {
    public var id: Int64
    public var deckID: String
    public var title: String
    /// The deck's items (`files.id`), in order; skipped items are appended again at the end.
    public var itemIDs: [Int64]
    /// The index of the current item; `itemIDs.count` when the deck is done.
    public var position: Int
    /// Verdicts to reach (default 25, `session_goal` in the configuration).
    public var goal: Int
    /// Verdicts made in this session (skips are not verdicts).
    public var decisions: Int
    /// Bytes staged for the Trash in this session.
    public var bytes: Int64
    public var startedAt: Double
    public var updatedAt: Double
    /// Set when the goal was met or the deck ran out; the session is then a chapter.
    public var finishedAt: Double?

    /// The current item, nil when the deck is done.
    public var current: Int64? { position < itemIDs.count ? itemIDs[position] : nil }
    /// Items left, the current one included.
    public var remaining: Int { max(0, itemIDs.count - position) }
    public var goalMet: Bool { decisions >= goal }
    public var isFinished: Bool { finishedAt != nil }

    static let columns = "id, deck_id, title, items, position, goal, decisions, bytes, started_ts, updated_ts, finished_ts"

    init(_ r: Row) {
        id = r.int(0)!
        deckID = r.string(1) ?? ""
        title = r.string(2) ?? ""
        itemIDs = (r.string(3).flatMap { try? JSONDecoder().decode([Int64].self, from: Data($0.utf8)) }) ?? []
        position = Int(r.int(4) ?? 0)
        goal = Int(r.int(5) ?? 25)
        decisions = Int(r.int(6) ?? 0)
        bytes = r.int(7) ?? 0
        startedAt = r.double(8) ?? 0
        updatedAt = r.double(9) ?? 0
        finishedAt = r.double(10)
    }

    var itemsJSON: String { "[" + itemIDs.map(String.init).joined(separator: ",") + "]" }

    func write(_ db: Database) throws {
        try db.run(
            """
            UPDATE deck_sessions SET items=?, position=?, goal=?, decisions=?, bytes=?, updated_ts=?, finished_ts=? WHERE id=?
            """, itemsJSON, position, goal, decisions, bytes, updatedAt, finishedAt, id)
    }

    /// The session as JSON (for undo snapshots and front ends).
    var snapshot: String { String(decoding: (try? JSONEncoder().encode(self)) ?? Data(), as: UTF8.self) }
    static func fromSnapshot(_ s: String) -> DeckSession? { try? JSONDecoder().decode(DeckSession.self, from: Data(s.utf8)) }
}

extension DeckSession {
    /// Starts a session on a deck built by `Decks`. Its items are fixed from now on.
    public static func start(_ deck: Deck, library: Library, clock: Clock, goal: Int = Review.defaultGoal) throws -> DeckSession {
        let now = clock.now().timeIntervalSince1970
        let ids = "[" + deck.items.map { String($0.item.id) }.joined(separator: ",") + "]"
        return try library.db.transaction {
            try library.db.run(
                """
                INSERT INTO deck_sessions(deck_id, title, items, position, goal, decisions, bytes, started_ts, updated_ts)
                VALUES(?,?,?,0,?,0,0,?,?)
                """, deck.id.description, deck.title, ids, max(1, goal), now, now)
            let id = library.db.lastInsertRowID
            return try load(id: id, library: library)!
        }
    }

    /// A session by id.
    public static func load(id: Int64, library: Library) throws -> DeckSession? {
        try library.db.row("SELECT \(columns) FROM deck_sessions WHERE id=?", id).map(DeckSession.init)
    }

    /// The newest session of a deck, to resume while it has cards left — also one whose goal
    /// was met (its chapter is saved; the rest of the deck still waits: a met goal ended the
    /// resume, and the next `review` dealt another deck). `rediscover:0` (a rediscovery drawn
    /// afresh: the id `decks` lists) resumes the newest rediscovery, whatever seed drew it — a
    /// reload or a second `review` dealt a new deck each time and lost the place.
    public static func open(deckID: String, library: Library) throws -> DeckSession? {
        let (match, value) =
            deckID == DeckID.rediscovery(seed: 0).description ? ("substr(deck_id, 1, 11) = ?", "rediscover:") : ("deck_id = ?", deckID)
        let newest = try library.db.row("SELECT \(columns) FROM deck_sessions WHERE \(match) ORDER BY id DESC LIMIT 1", value)
        return newest.map(DeckSession.init).flatMap { $0.current != nil ? $0 : nil }
    }

    /// The newest session of a deck that dealt cards and has none left: what a finished deck
    /// shows when it is opened again (a reload of `#deck=…` said "Nothing in this deck").
    public static func finished(deckID: String, library: Library) throws -> DeckSession? {
        try library.db.row("SELECT \(columns) FROM deck_sessions WHERE deck_id = ? AND items != '[]' ORDER BY id DESC LIMIT 1", deckID)
            .map(DeckSession.init).flatMap { $0.current == nil && !$0.itemIDs.isEmpty ? $0 : nil }
    }

    /// Moves the session past `fileID` when it is the current item, without a decision (the
    /// file left the library or the disk): no stats event, no undo step. Returns the session
    /// as stored.
    public static func passOver(_ fileID: Int64, session id: Int64, library: Library, clock: Clock) throws -> DeckSession? {
        try library.db.transaction {
            guard var s = try load(id: id, library: library) else { return nil }
            if s.current == fileID {
                s.position += 1
                s.updatedAt = clock.now().timeIntervalSince1970
                try s.write(library.db)
            }
            return s
        }
    }

    /// The newest sessions, newest first.
    public static func recent(library: Library, limit: Int = 20) throws -> [DeckSession] {
        try library.db.rows("SELECT \(columns) FROM deck_sessions ORDER BY id DESC LIMIT ?", limit).map(DeckSession.init)
    }
}

/// A finished session kept for the stats and the page: its date, decisions, bytes and a cover.
public struct Chapter: Sendable, Equatable {
    public var id: Int64
    public var sessionID: Int64
    public var deckID: String
    public var title: String
    public var finishedAt: Double
    public var decisions: Int
    public var bytes: Int64
    public var coverFileID: Int64?

    static let columns = "id, session_id, deck_id, title, finished_ts, decisions, bytes, cover_file_id"

    init(_ r: Row) {
        id = r.int(0)!
        sessionID = r.int(1) ?? 0
        deckID = r.string(2) ?? ""
        title = r.string(3) ?? ""
        finishedAt = r.double(4) ?? 0
        decisions = Int(r.int(5) ?? 0)
        bytes = r.int(6) ?? 0
        coverFileID = r.int(7)
    }

    /// Every chapter, newest first.
    public static func all(library: Library, limit: Int = 100) throws -> [Chapter] {
        try library.db.rows("SELECT \(columns) FROM chapters ORDER BY finished_ts DESC, id DESC LIMIT ?", limit).map(Chapter.init)
    }
}
