import Foundation
import SnapSortSystem

/// Similar Shots verdicts, stored by the groups feature's storage (`Library+Groups`), by
/// identity: choosing the keeper, marking a set "not similar", trashing the rest of a set.
public enum SimilarReview {
    /// Makes `fileID` the keeper of its Similar Shots set (remembered across regroupings).
    public static func chooseKeeper(fileID: Int64, library: Library, clock: Clock) throws -> SimilarSet {
        guard let set = try library.similarGroup(containing: fileID) else {
            let name = (try? library.item(id: fileID))??.path ?? "item \(fileID)"
            throw ReviewError(.invalid, "\(name) is not in a Similar Shots group")
        }
        try library.setKeeper(fileID: fileID, at: clock.now())
        return try library.similarGroup(containing: fileID) ?? set
    }

    /// Marks every member of a set as not similar to the others: the set dissolves and never
    /// comes back.
    public static func markNotSimilar(setID: String, library: Library, clock: Clock) throws -> SimilarSet {
        guard let set = try similarSet(setID, library: library) else { throw ReviewError(.noSuchDeck, "no Similar Shots group '\(setID)'") }
        try library.markNotSimilar(groupMembers: set.members.map(\.fileID), at: clock.now())
        return set
    }

    /// Stages every member but the keeper for the Trash (one undo step per file). Members the
    /// user already decided (kept, deferred) are left alone.
    public static func trashRest(setID: String, library: Library, clock: Clock, timeZone: TimeZone = .current) throws -> [DecisionOutcome] {
        guard let set = try similarSet(setID, library: library) else { throw ReviewError(.noSuchDeck, "no Similar Shots group '\(setID)'") }
        return try Review.asOneUndoStep(library: library) { try trashRest(set, library: library, clock: clock, timeZone: timeZone) }
    }

    /// `trash-rest --all`: every set, best-first.
    public static func trashRestOfAll(library: Library, clock: Clock, timeZone: TimeZone = .current) throws -> [DecisionOutcome] {
        try Review.asOneUndoStep(library: library) {
            try library.similarGroups().flatMap { try trashRest($0, library: library, clock: clock, timeZone: timeZone) }
        }
    }

    static func trashRest(_ set: SimilarSet, library: Library, clock: Clock, timeZone: TimeZone) throws -> [DecisionOutcome] {
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
