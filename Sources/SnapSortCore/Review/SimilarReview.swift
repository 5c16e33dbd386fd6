import Foundation
import SnapSortSystem

/// Similar Shots verdicts, stored by the groups feature's storage (`Library+Groups`), by
/// identity: choosing the keeper, marking a set "not similar", trashing the rest of a set.
public enum SimilarReview {
    /// Makes `fileID` the keeper of its Similar Shots set (remembered across regroupings). A
    /// keeper chosen among frames already staged for the Trash ("trash the rest", then a change
    /// of mind) is un-staged: the keeper is what stays, and a second "trash the rest" must not
    /// leave the set with nothing. `unstaged` says whether it was staged.
    public static func chooseKeeper(fileID: Int64, library: Library, clock: Clock) throws -> (set: SimilarSet, unstaged: Bool) {
        guard let set = try library.similarGroup(containing: fileID) else {
            let name = (try? library.item(id: fileID))??.path ?? "item \(fileID)"
            throw ReviewError(.invalid, "\(name) is not in a Similar Shots group")
        }
        let unstaged = try library.db.transaction {
            // What an undo puts back: the set's keeper and choices, the frame's decision.
            let ids = set.members.map(\.fileID)
            let choices = try library.db.rows(
                "SELECT file_id, chosen_at FROM keeper_choices WHERE file_id IN (\(ids.map(String.init).joined(separator: ",")))"
            ).compactMap { r in r.int(0).map { KeeperSnapshot.Choice(fileID: $0, chosenAt: r.string(1) ?? "") } }
            let snapshot = KeeperSnapshot(members: ids, keeper: set.keeper.fileID, choices: choices)
            let before = try Review.decision(for: fileID, library: library)
            try library.setKeeper(fileID: fileID, at: clock.now())
            // Un-staged within the undo history (not sealed as a restore from the staging is): an
            // undo takes back the choice first, staging it again, then what staged it.
            let unstaged = before?.decision == .trash
            if unstaged { try library.db.run("DELETE FROM decisions WHERE file_id=?", fileID) }
            if set.keeper.fileID != fileID || unstaged {
                try Review.recordKeeperChoice(fileID: fileID, before: unstaged ? before : nil, snapshot: snapshot, library: library, clock: clock)
            }
            return unstaged
        }
        return (try library.similarGroup(containing: fileID) ?? set, unstaged)
    }

    /// Marks every member of a set as not similar to the others: the set dissolves and never
    /// comes back.
    public static func markNotSimilar(setID: String, library: Library, clock: Clock) throws -> SimilarSet {
        guard let set = try similarSet(setID, library: library) else {
            throw ReviewError(.noSuchDeck, "no such Similar Shots group (it may have changed since)")
        }
        try library.markNotSimilar(groupMembers: set.members.map(\.fileID), at: clock.now())
        return set
    }

    /// Stages every member but the keeper for the Trash (one undo step). Members the user
    /// already decided (kept, deferred) are left alone; a set whose keeper is staged is refused
    /// (`--all` leaves such sets out).
    public static func trashRest(setID: String, library: Library, clock: Clock, timeZone: TimeZone = .current) throws -> [DecisionOutcome] {
        guard let set = try similarSet(setID, library: library) else {
            throw ReviewError(.noSuchDeck, "no such Similar Shots group (it may have changed since)")
        }
        if try Review.decision(for: set.keeper.fileID, library: library)?.decision == .trash {
            throw ReviewError(
                .invalid,
                "the keeper of the set of \(try library.setName(set)) is staged for the Trash: choose the photo to keep first"
            )
        }
        return try Review.asOneUndoStep(library: library) { try trashRest(set, library: library, clock: clock, timeZone: timeZone) }
    }

    /// `trash-rest --all`: every set, best-first.
    public static func trashRestOfAll(library: Library, clock: Clock, timeZone: TimeZone = .current) throws -> [DecisionOutcome] {
        try Review.asOneUndoStep(library: library) {
            try library.similarGroups().flatMap { try trashRest($0, library: library, clock: clock, timeZone: timeZone) }
        }
    }

    /// What "trash the rest" did, in the words every bulk action says ("Staged 4 · left 1
    /// keeper", `BulkStaging.summary`): each set it staged from keeps its keeper.
    public static func summary(of outcomes: [DecisionOutcome], library: Library) throws -> String {
        // The live sets the outcomes' files are in, counted in one read (each outcome's set was
        // read whole, once per outcome).
        let sets =
            outcomes.isEmpty
            ? 0
            : try library.db.scalar(
                """
                SELECT count(DISTINCT set_key) FROM similar_sets
                WHERE file_id IN (SELECT value FROM json_each(?)) AND set_key IN (\(Library.liveSetKeys))
                """, "[" + outcomes.map { String($0.fileID) }.joined(separator: ",") + "]") ?? 0
        return BulkStaging.summary(staged: outcomes.count, keepers: Int(sets))
    }

    static func trashRest(_ set: SimilarSet, library: Library, clock: Clock, timeZone: TimeZone) throws -> [DecisionOutcome] {
        // A keeper staged for the Trash (a decision made in a deck or another window): trashing
        // the rest would leave the set with nothing, so the set waits for a keeper.
        guard try Review.decision(for: set.keeper.fileID, library: library)?.decision != .trash else { return [] }
        var out: [DecisionOutcome] = []
        for m in set.members where !m.isKeeper {
            let d = try Review.decision(for: m.fileID, library: library)?.decision
            guard d == nil || d == .skip else { continue }
            // Another favourite of the set (4 or 5 stars) is the user's pick too: never staged.
            if (try library.item(id: m.fileID)?.rating ?? 0) >= GroupRules.favouriteRating { continue }
            out.append(try Review.decide(.trash, fileID: m.fileID, library: library, clock: clock, timeZone: timeZone))
        }
        return out
    }

    /// A set by its id (`s<id>`, as `report` shows it).
    public static func similarSet(_ id: String, library: Library) throws -> SimilarSet? {
        let key = id.hasPrefix("s") ? String(id.dropFirst()) : id
        guard let fid = Int64(key) else { return nil }
        guard let set = try library.similarGroup(containing: fid), set.id == "s\(key)" || set.members.contains(where: { $0.fileID == fid }) else {
            return nil
        }
        return set
    }
}
