import Foundation
import SnapSortSystem

/// What one decision did.
public struct DecisionOutcome: Sendable, Equatable {
    public var fileID: Int64
    public var decision: Decision
    /// The decision the item had before (nil: undecided).
    public var previous: Decision?
    /// The session after the decision, when made in one.
    public var session: DeckSession?
    /// A chapter created because this decision finished the session.
    public var chapter: Int64?
    /// Milestones reached by this decision.
    public var milestones: [String]
}

/// What one undo restored.
public struct UndoOutcome: Sendable, Equatable {
    public var fileID: Int64
    public var path: String?
    /// The decision that was taken back.
    public var undone: Decision?
    /// The decision the item has again (nil: undecided).
    public var restored: Decision?
    /// The session as it was before the decision (its position included), when there was one.
    public var session: DeckSession?
    /// How many decisions the step took back (more than one for a bulk action).
    public var count = 1
    /// The step was a keeper chosen in Similar Shots (`fileID`): the set's keeper is the one
    /// before it again, and the frame is staged again if the choice had un-staged it.
    public var keeperChoice = false
    /// The step was "not similar": how many photos it had kept apart (they are regrouped).
    public var notSimilarPhotos = 0
    /// The step was a restore: from staging (the item is staged again) or from the system
    /// Trash (the item is staged again, not moved there: the next commit asks first).
    public var restoredFrom: RestoreSource?
    /// The step was `similar unmark`: how many photos its mark keeps apart again.
    public var unmarkedPhotos = 0
}

/// Where a restore took an item back from.
public enum RestoreSource: String, Sendable, Equatable, Codable {
    /// Staged for the Trash, never moved: the restore un-staged it.
    case staging
    /// Moved to the system Trash by a commit: the restore moved it back.
    case trash
}

/// What an undo step records besides a decision (`undo_steps.action`, JSON).
struct UndoAction: Codable, Equatable {
    /// `restore` or `unmark`.
    var kind: String
    /// A restore's source.
    var from: RestoreSource?
    /// An unmark's pairs and the moment the mark was made.
    var pairs: [[Int64]]?
    var decidedAt: String?
}

/// A Similar Shots set's keeper as it was before a choice (an undo step's `keeper_before`):
/// its members, its keeper, and the user's keeper choices among them.
struct KeeperSnapshot: Codable, Equatable {
    struct Choice: Codable, Equatable {
        var fileID: Int64
        var chosenAt: String
    }
    var members: [Int64]
    var keeper: Int64
    var choices: [Choice]
}

/// Decisions and the shared undo history. Every front end (CLI, terminal deck, web page) goes
/// through these operations; each is one SQLite transaction.
public enum Review {
    /// A deferred item returns after seven days.
    public static let laterCooldown: TimeInterval = 7 * 86_400
    /// After this many deferrals the deck suggests keeping the item.
    public static let suggestKeepAfter = 3
    /// Undo steps kept (the spec asks for at least 20).
    public static let undoLimit = 200
    /// The default session goal (verdicts per session).
    public static let defaultGoal = 25

    /// The stored decision of an item.
    public static func decision(for fileID: Int64, library: Library) throws -> DecisionRecord? {
        try library.db.row("SELECT \(DecisionRecord.columns) FROM decisions WHERE file_id=?", fileID).flatMap(DecisionRecord.init)
    }

    /// Records `decision` on an item (one undo step). In a session, deciding the current item
    /// moves to the next; `skip` also puts the item again at the end of the session's deck.
    @discardableResult
    public static func decide(
        _ decision: Decision, fileID: Int64, library: Library, clock: Clock,
        session sessionID: Int64? = nil, timeZone: TimeZone = .current
    ) throws -> DecisionOutcome {
        let db = library.db
        let now = clock.now()
        let ts = now.timeIntervalSince1970
        return try db.transaction {
            guard let item = try library.item(id: fileID), item.status != .gone else {
                // Moved to the Trash (or gone) since the deck was dealt, from another window.
                let name = try library.item(id: fileID).map { "\($0.name) is" } ?? "item \(fileID) is"
                throw ReviewError(.notInLibrary, "\(name) no longer in the library (moved to the Trash or gone, from another window?)")
            }
            let before = try self.decision(for: fileID, library: library)
            var session = try sessionID.map { id -> DeckSession in
                guard let s = try DeckSession.load(id: id, library: library) else {
                    throw ReviewError(.noSuchSession, "no deck session \(id)")
                }
                return s
            }
            let sessionBefore = session
            // The verdict the item has already, on the same bytes (a second press, another
            // window): nothing changes, so nothing is recorded — an undo step would take back
            // nothing, and a second event would count the review twice. In a deck session
            // whose current card it is, the session moves on, which is a step.
            if let b = before, b.decision == decision, decision == .trash || decision == .keep,
                b.reviewedSize == item.bytes, b.reviewedMtimeNanoseconds == item.mtimeNanoseconds, b.reviewedHash == item.contentHash,
                b.reviewedIdentity == item.identity, session == nil || (session?.current != fileID && b.sessionID == sessionID)
            {
                return DecisionOutcome(fileID: fileID, decision: decision, previous: decision, session: session, chapter: nil, milestones: [])
            }
            let laterCount = (before?.laterCount ?? 0) + (decision == .later ? 1 : 0)
            let record = DecisionRecord(
                fileID: fileID, decision: decision, decidedAt: ts, sessionID: sessionID, laterCount: laterCount,
                laterUntil: decision == .later ? ts + laterCooldown : nil,
                reviewedSize: item.bytes, reviewedMtimeNanoseconds: item.mtimeNanoseconds, reviewedHash: item.contentHash,
                reviewedIdentity: item.identity)
            try record.write(db)

            var eventID: Int64?
            if decision.isVerdict {
                let reviewedBefore =
                    try db.scalar(
                        """
                        SELECT count(*) FROM review_events WHERE file_id=? AND kind = \(ReviewEventKind.decision.sql) AND first_review=1 AND undone=0
                        """, fileID) ?? 0
                try db.run(
                    """
                    INSERT INTO review_events(ts, kind, file_id, decision, first_review, bytes, session_id, utc_offset)
                    VALUES(?, \(ReviewEventKind.decision.sql), ?, ?, ?, ?, ?, ?)
                    """, ts, fileID, decision.rawValue, reviewedBefore == 0, decision == .trash ? item.bytes : 0, sessionID,
                    timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: ts)))
                eventID = db.lastInsertRowID
            }

            var chapterID: Int64?
            if var s = session {
                if s.current == fileID {
                    s.position += 1
                }
                // A card this session decided already (a second tab, a changed mind) is counted
                // once: what the session counted for it goes, then its latest verdict counts (a
                // trash changed to keep frees nothing).
                if let b = before, b.sessionID == s.id, b.decision != .skip {
                    s.decisions -= 1
                    if b.decision == .trash { s.bytes -= item.bytes }
                }
                if decision == .skip {
                    s.itemIDs.append(fileID)
                } else {
                    s.decisions += 1
                    if decision == .trash { s.bytes += item.bytes }
                }
                s.updatedAt = ts
                if s.finishedAt == nil && s.decisions > 0 && (s.goalMet || s.current == nil) {
                    s.finishedAt = ts
                    chapterID = try makeChapter(s, library: library)
                }
                try s.write(db)
                session = s
            }

            try db.run(
                """
                INSERT INTO undo_steps(created_ts, file_id, before, session_id, session_before, event_id, chapter_id)
                VALUES(?,?,?,?,?,?,?)
                """, ts, fileID, before.map(encode), sessionID, sessionBefore?.snapshot, eventID, chapterID)
            if !library.undoBatchOpen { try trimUndoHistory(db) }
            let reached = try Stats.recordMilestones(library: library, clock: clock, timeZone: timeZone)
            return DecisionOutcome(
                fileID: fileID, decision: decision, previous: before?.decision, session: session,
                chapter: chapterID, milestones: reached)
        }
    }

    /// Takes back the newest decision: the item's previous decision (or none) comes back, its
    /// stats event is withdrawn, and its deck session returns to where it was. A trash commit
    /// is never undone (`Trash.restore` does that): committing drops the committed files'
    /// steps from the history. With `session`, only when the newest decision is that deck
    /// session's (a review's undo never takes back what was decided in another window).
    public static func undo(library: Library, clock: Clock, session: Int64? = nil) throws -> UndoOutcome? {
        let db = library.db
        return try db.transaction {
            guard let last = try db.row("SELECT id, batch, session_id FROM undo_steps ORDER BY id DESC LIMIT 1") else { return nil }
            if let session, last.int(2) != session { return nil }
            // A bulk action's steps go back together, newest first (its own steps: one another
            // process made meanwhile, between a restore's files, stays for its own undo).
            var outcome: UndoOutcome?
            if let batch = last.int(1) {
                let ids = try db.rows("SELECT id FROM undo_steps WHERE batch=? ORDER BY id DESC", batch).compactMap { $0.int(0) }
                for id in ids { outcome = try undoStep(id, library: library, clock: clock) ?? outcome }
                outcome?.count = ids.count
            } else {
                outcome = try undoStep(last.int(0)!, library: library, clock: clock)
            }
            // A milestone the undone decision earned goes with it.
            if outcome != nil { try Stats.withdrawMilestones(library: library, clock: clock) }
            return outcome
        }
    }

    /// Runs `body` (decisions on many files) so that one undo takes all its decisions back.
    /// One transaction: no other process's decision lands among them, and a crash leaves none.
    public static func asOneUndoStep<T>(library: Library, _ body: () throws -> T) throws -> T {
        let db = library.db
        return try db.transaction {
            let before = try db.scalar("SELECT COALESCE(max(id), 0) FROM undo_steps") ?? 0
            let wasOpen = library.undoBatchOpen
            library.undoBatchOpen = true
            defer { library.undoBatchOpen = wasOpen }
            let result = try body()
            try db.run("UPDATE undo_steps SET batch = (SELECT min(id) FROM undo_steps WHERE id > ?) WHERE id > ?", before, before)
            if !wasOpen { try trimUndoHistory(db) }
            return result
        }
    }

    /// Keeps the newest `undoLimit` undo steps, a bulk action's decisions counting as one (a
    /// count of rows cut a bulk action of more than `undoLimit` files in two, and its undo then
    /// took back only the newest part).
    static func trimUndoHistory(_ db: Database) throws {
        try db.run(
            """
            DELETE FROM undo_steps WHERE COALESCE(batch, id) < (
                SELECT min(k) FROM (SELECT DISTINCT COALESCE(batch, id) AS k FROM undo_steps ORDER BY k DESC LIMIT ?))
            """, undoLimit)
    }

    /// Records a keeper chosen in Similar Shots as one undo step (inside the caller's
    /// transaction): `before` is the new keeper's decision when the choice un-staged it.
    static func recordKeeperChoice(fileID: Int64, before: DecisionRecord?, snapshot: KeeperSnapshot, library: Library, clock: Clock) throws {
        let json = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
        try library.db.run(
            "INSERT INTO undo_steps(created_ts, file_id, before, keeper_before) VALUES(?,?,?,?)",
            clock.now().timeIntervalSince1970, fileID, before.map(encode), json)
        if !library.undoBatchOpen { try trimUndoHistory(library.db) }
    }

    /// Records "not similar" of `pairs` (each `[a, b]`, newly recorded) as one undo step,
    /// inside the caller's transaction.
    static func recordNotSimilarStep(_ pairs: [[Int64]], at now: Date, library: Library) throws {
        let json = String(decoding: try JSONEncoder().encode(pairs), as: UTF8.self)
        try library.db.run(
            "INSERT INTO undo_steps(created_ts, file_id, not_similar) VALUES(?,?,?)", now.timeIntervalSince1970, pairs[0][0], json)
        if !library.undoBatchOpen { try trimUndoHistory(library.db) }
    }

    /// Records a restore of `fileID` as an undo step, and clears its decision (`record`, the
    /// staging it had): undone, the item is staged for the Trash again. Returns the step's id
    /// (`joinSteps` makes a restore of many items one step).
    static func recordRestore(
        fileID: Int64, record: DecisionRecord, from: RestoreSource, at now: Date, library: Library
    ) throws -> Int64 {
        let json = String(decoding: try JSONEncoder().encode(UndoAction(kind: "restore", from: from)), as: UTF8.self)
        try library.db.run("DELETE FROM decisions WHERE file_id=?", fileID)
        try library.db.run(
            "INSERT INTO undo_steps(created_ts, file_id, before, action) VALUES(?,?,?,?)", now.timeIntervalSince1970, fileID, encode(record),
            json)
        let id = library.db.lastInsertRowID
        if !library.undoBatchOpen { try trimUndoHistory(library.db) }
        return id
    }

    /// Records `similar unmark` of `pairs` (made at `decidedAt`) as one undo step, inside the
    /// caller's transaction: undone, the mark is back as it was.
    static func recordUnmarkStep(_ pairs: [[Int64]], decidedAt: String, at now: Date, library: Library) throws {
        guard let first = pairs.first?.first else { return }
        let action = UndoAction(kind: "unmark", pairs: pairs, decidedAt: decidedAt)
        let json = String(decoding: try JSONEncoder().encode(action), as: UTF8.self)
        try library.db.run("INSERT INTO undo_steps(created_ts, file_id, action) VALUES(?,?,?)", now.timeIntervalSince1970, first, json)
        if !library.undoBatchOpen { try trimUndoHistory(library.db) }
    }

    /// Makes the steps `ids` (one action's, e.g. a restore of several items) one undo step.
    static func joinSteps(_ ids: [Int64], library: Library) throws {
        guard ids.count > 1, let first = ids.min() else { return }
        try library.db.run("UPDATE undo_steps SET batch=? WHERE id IN (\(ids.map(String.init).joined(separator: ",")))", first)
        if !library.undoBatchOpen { try trimUndoHistory(library.db) }
    }

    /// Puts a set's keeper back as `snapshot` says (inside the caller's transaction); members
    /// regrouped elsewhere since keep their choices as they were.
    private static func restoreKeeper(_ snapshot: KeeperSnapshot, library: Library) throws {
        let db = library.db
        let ids = snapshot.members.map(String.init).joined(separator: ",")
        try db.run("DELETE FROM keeper_choices WHERE file_id IN (\(ids))")
        for c in snapshot.choices {
            try db.run("INSERT OR REPLACE INTO keeper_choices(file_id, chosen_at) VALUES(?, ?)", c.fileID, c.chosenAt)
        }
        if let key = try db.scalar("SELECT set_key FROM similar_sets WHERE file_id=?", snapshot.keeper) {
            try db.run("UPDATE similar_sets SET keeper = (file_id = ?) WHERE set_key=?", snapshot.keeper, key)
        }
    }

    /// Takes back undo step `id` (inside the caller's transaction).
    private static func undoStep(_ id: Int64, library: Library, clock: Clock) throws -> UndoOutcome? {
        let db = library.db
        do {
            guard
                let step = try db.row(
                    """
                    SELECT id, file_id, before, session_id, session_before, event_id, chapter_id, keeper_before, not_similar, action
                    FROM undo_steps WHERE id=?
                    """, id)
            else { return nil }
            let stepID = step.int(0)!, fileID = step.int(1)!
            let current = try decision(for: fileID, library: library)
            if let text = step.string(9), let action = try? JSONDecoder().decode(UndoAction.self, from: Data(text.utf8)) {
                try db.run("DELETE FROM undo_steps WHERE id=?", stepID)
                var o = UndoOutcome(fileID: fileID, path: try library.item(id: fileID)?.path, undone: nil, restored: current?.decision, session: nil)
                if action.kind == "unmark", let pairs = action.pairs {
                    // The mark is back as it was made (its id and moment), and the photos regrouped.
                    try library.rememberNotSimilar(pairs, decidedAt: action.decidedAt ?? StatusTimestamp.string(clock.now()), at: clock.now())
                    o.unmarkedPhotos = Set(pairs.flatMap { $0 }).count
                } else if action.kind == "restore", let before = step.string(2).flatMap(decode) {
                    // Staged again as it was reviewed — never moved to the Trash by an undo: the
                    // next commit asks first. A file gone since has nothing to stage.
                    if let item = try library.item(id: fileID), item.status != .gone { try before.write(db) }
                    o.restoredFrom = action.from ?? .staging
                    o.restored = try decision(for: fileID, library: library)?.decision
                }
                return o
            }
            if let text = step.string(8) {
                // "Not similar": its pairs are forgotten, and the photos regrouped.
                let pairs = (try? JSONDecoder().decode([[Int64]].self, from: Data(text.utf8))) ?? []
                try db.run("DELETE FROM undo_steps WHERE id=?", stepID)
                try library.forgetNotSimilar(pairs, at: clock.now())
                var o = UndoOutcome(
                    fileID: fileID, path: try library.item(id: fileID)?.path, undone: nil, restored: current?.decision, session: nil)
                o.notSimilarPhotos = Set(pairs.flatMap { $0 }).count
                return o
            }
            if let text = step.string(7) {
                // A keeper choice: the set's keeper as it was, and the frame staged again if the
                // choice had un-staged it (its decision is left alone otherwise).
                if let snapshot = try? JSONDecoder().decode(KeeperSnapshot.self, from: Data(text.utf8)) {
                    try restoreKeeper(snapshot, library: library)
                }
                if let before = step.string(2).flatMap(decode) { try before.write(db) }
                try db.run("DELETE FROM undo_steps WHERE id=?", stepID)
                return UndoOutcome(
                    fileID: fileID, path: try library.item(id: fileID)?.path, undone: nil,
                    restored: try decision(for: fileID, library: library)?.decision, session: nil, keeperChoice: true)
            }
            if let before = step.string(2).flatMap(decode) {
                try before.write(db)
            } else {
                try db.run("DELETE FROM decisions WHERE file_id=?", fileID)
            }
            if let event = step.int(5) { try db.run("UPDATE review_events SET undone=1 WHERE id=?", event) }
            if let chapter = step.int(6) { try db.run("DELETE FROM chapters WHERE id=?", chapter) }
            var session: DeckSession?
            if let snap = step.string(4), var s = DeckSession.fromSnapshot(snap) {
                s.updatedAt = clock.now().timeIntervalSince1970
                try s.write(db)
                session = s
            }
            try db.run("DELETE FROM undo_steps WHERE id=?", stepID)
            let restored = try decision(for: fileID, library: library)
            return UndoOutcome(
                fileID: fileID, path: try library.item(id: fileID)?.path, undone: current?.decision,
                restored: restored?.decision, session: session)
        }
    }

    /// Files moved to the Trash by commits since the newest undo step was made: an undo now
    /// takes back an older decision, not the commit (which `trash restore` puts back). 0 when
    /// the newest step is newer than every commit.
    public static func committedSinceLastUndoStep(library: Library) throws -> Int {
        let db = library.db
        let newest = try db.row("SELECT max(created_ts) FROM undo_steps")?.double(0) ?? 0
        return Int(
            try db.scalar(
                "SELECT count(*) FROM trash_ledger WHERE state = \(LedgerState.trashed.sql) AND parent_id IS NULL AND trashed_ts > ?", newest) ?? 0)
    }

    /// How many steps can be undone (a bulk action's decisions are one).
    public static func undoDepth(library: Library) throws -> Int {
        Int(try library.db.scalar("SELECT count(DISTINCT COALESCE(batch, id)) FROM undo_steps") ?? 0)
    }

    /// Drops an item's undo steps (after a commit: moving a file to the Trash is not undone;
    /// a restore is, as a step of its own).
    static func sealHistory(fileID: Int64, library: Library) throws {
        try library.db.run("DELETE FROM undo_steps WHERE file_id=?", fileID)
    }

    private static func makeChapter(_ s: DeckSession, library: Library) throws -> Int64 {
        let db = library.db
        let cover =
            try db.scalar(
                """
                SELECT file_id FROM decisions d JOIN files f ON f.id=d.file_id
                WHERE d.session_id=? AND d.decision = \(Decision.keep.sql) AND \(Library.live("f")) AND f.kind = \(MediaFormat.Kind.photo.sql) ORDER BY d.decided_ts LIMIT 1
                """, s.id)
            ?? db.scalar(
                """
                SELECT file_id FROM review_events WHERE session_id=? AND undone=0 AND file_id IS NOT NULL ORDER BY id LIMIT 1
                """, s.id)
        try db.run(
            """
            INSERT OR REPLACE INTO chapters(session_id, deck_id, title, finished_ts, decisions, bytes, cover_file_id)
            VALUES(?,?,?,?,?,?,?)
            """, s.id, s.deckID, s.title, s.finishedAt ?? s.updatedAt, s.decisions, s.bytes, cover)
        return db.lastInsertRowID
    }

    private static func encode(_ r: DecisionRecord) -> String {
        String(decoding: (try? JSONEncoder().encode(r)) ?? Data(), as: UTF8.self)
    }

    private static func decode(_ s: String) -> DecisionRecord? {
        try? JSONDecoder().decode(DecisionRecord.self, from: Data(s.utf8))
    }
}
