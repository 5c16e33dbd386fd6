import Foundation
import SnapSortSystem

/// Whether a staged item is the last copy of its pixels: the one rule behind `trash list
/// --json`'s `last_copy`, the commit's question (CLI and page) and the cards' "copy of …" /
/// "suggested keeper" (issue 32, item 2).
///
/// An item staged for the Trash is a last copy when, once every staged item is gone, nothing
/// that stays in the library (live and not staged) holds its pixels: no other member of its
/// exact-duplicate set stays and, when it is in a Similar Shots set, no member of that set
/// stays — its keeper in particular. A duplicate set is part of its Similar Shots set
/// (`similar_sets`: copies share the set key, `duplicate_of` names the original), so both
/// come down to "no member of its set stays". An item in no set is the only copy of its pixels
/// by definition: it is a last copy too, but only a set leaving whole is named in the question
/// (that is what surprises: "the original first, trashed on ←").
public struct LastCopy: Sendable, Equatable {
    /// The set it leaves whole (`s<key>`, as `similar_group`), nil for an item in no set.
    public var setID: String?
    /// True when the set holds copies of one picture (a duplicate set), false for a Similar
    /// Shots set of different frames.
    public var isDuplicateSet: Bool
    /// The set as a person knows it: its keeper's file name and date (`Library.setName`).
    public var setName: String? = nil
}

/// A set that leaves the library whole with a commit, and the staged files that were its members.
public struct LastCopySet: Sendable, Equatable {
    /// `s<key>`: for programs (`trash list --json`'s `last_copy_set`), never shown to people.
    public var id: String
    public var isDuplicateSet: Bool
    /// Its keeper's file name and date, "IMG_0001.jpg (4 May 2024)" (`Library.setName`).
    public var name: String? = nil
    /// The staged members' paths, in staging order.
    public var paths: [String]

    /// The members' file names, with their folder's name when two share one (copies often do).
    public var names: [String] {
        let plain = paths.map { ($0 as NSString).lastPathComponent }
        guard Set(plain).count < plain.count else { return plain }
        return paths.map { p in
            let folder = ((p as NSString).deletingLastPathComponent as NSString).lastPathComponent
            return folder.isEmpty ? (p as NSString).lastPathComponent : folder + "/" + (p as NSString).lastPathComponent
        }
    }

    /// "the duplicate set of IMG_0001.jpg (4 May 2024)" / "the Similar Shots set of …": named
    /// by its keeper, never by its internal id (issue 43, item 5).
    public var title: String { (isDuplicateSet ? "the duplicate set of " : "the Similar Shots set of ") + (name ?? "a photo") }
}

public enum LastCopies {
    /// A live Similar Shots set as the rule reads it (`members`' one read).
    struct SetMembers {
        /// `similar_sets.set_key`; the set's id is `s<key>`.
        var key: Int64
        /// Its live members.
        var live: [Int64]
        /// Its members staged for the Trash (a `trash` decision).
        var staged: Set<Int64>
        /// Its keeper (a live one when it has one).
        var keeperID: Int64?
        /// True when it holds copies of one picture (a duplicate set).
        var isDuplicateSet: Bool

        var id: String { "s\(key)" }
    }

    /// The rule: `fileID` is the last copy of `set` when no other live member stays — every
    /// other one is in `staged` (staged for the Trash, or about to be).
    static func isLastCopy(_ fileID: Int64, of set: SetMembers, staged: Set<Int64>) -> Bool {
        !set.live.contains { $0 != fileID && !staged.contains($0) }
    }

    /// The live sets (two live members, `Library.liveSetKeys`) holding any of `fileIDs`, by
    /// member id, in one read: the rows of every member of those sets.
    static func members(of fileIDs: [Int64], library: Library) throws -> [Int64: SetMembers] {
        guard !fileIDs.isEmpty else { return [:] }
        var byKey: [Int64: SetMembers] = [:]
        try library.db.forEach(
            """
            SELECT o.set_key, o.file_id, \(Library.live("fo")), o.keeper, o.duplicate_of IS NOT NULL,
                   EXISTS(SELECT 1 FROM decisions d WHERE d.file_id = o.file_id AND d.decision = \(Decision.trash.sql))
            FROM similar_sets o JOIN files fo ON fo.id = o.file_id
            WHERE o.set_key IN (SELECT set_key FROM similar_sets WHERE file_id IN (SELECT value FROM json_each(?)))
              AND o.set_key IN (\(Library.liveSetKeys))
            """, arguments: ["[" + fileIDs.map(String.init).joined(separator: ",") + "]"]
        ) { r in
            guard let key = r.int(0), let id = r.int(1) else { return }
            var set = byKey[key] ?? SetMembers(key: key, live: [], staged: [], keeperID: nil, isDuplicateSet: false)
            let live = r.int(2) == 1
            if live { set.live.append(id) }
            if r.int(5) == 1 { set.staged.insert(id) }
            if r.int(3) == 1 && (set.keeperID == nil || live) { set.keeperID = id }
            if r.int(4) == 1 { set.isDuplicateSet = true }
            byKey[key] = set
        }
        var out: [Int64: SetMembers] = [:]
        for set in byKey.values { for id in set.live { out[id] = set } }
        return out
    }

    /// The names of sets, each made once (`Library.setName`: a row read and a date formatted).
    struct SetNames {
        private var names: [Int64: String?] = [:]

        /// The set's name by its keeper, nil when it has none.
        mutating func name(_ set: SetMembers, library: Library) throws -> String? {
            if let known = names[set.key] { return known }
            let name = try set.keeperID.flatMap { try library.setName(keeperID: $0) }
            names[set.key] = name
            return name
        }
    }

    /// Staged item ids that are last copies (`LastCopy`), with the set each leaves whole.
    /// Items that are not last copies (a member of their set stays) are absent.
    static func of(library: Library, fileIDs: [Int64]) throws -> [Int64: LastCopy] {
        guard !fileIDs.isEmpty else { return [:] }
        let sets = try members(of: fileIDs, library: library)
        var names = SetNames()
        var out: [Int64: LastCopy] = [:]
        for id in fileIDs {
            // An item in no live set is the only copy of its pixels: a last copy of no set.
            guard let set = sets[id] else {
                out[id] = LastCopy(setID: nil, isDuplicateSet: false)
                continue
            }
            guard isLastCopy(id, of: set, staged: set.staged) else { continue }
            out[id] = LastCopy(setID: set.id, isDuplicateSet: set.isDuplicateSet, setName: try names.name(set, library: library))
        }
        return out
    }

    /// The sets the staged `items` leave whole, in the order their first member was staged.
    public static func sets(_ items: [StagedItem]) -> [LastCopySet] {
        var out: [LastCopySet] = []
        for s in items {
            guard s.lastCopy, let id = s.lastCopySet else { continue }
            if let i = out.firstIndex(where: { $0.id == id }) {
                out[i].paths.append(s.path)
            } else {
                out.append(LastCopySet(id: id, isDuplicateSet: s.lastCopyOfDuplicates, name: s.lastCopySetName, paths: [s.path]))
            }
        }
        return out
    }

    /// What the commit's question adds about last copies, or nil when no set leaves whole:
    /// "4 of them are the last copies of the duplicate set of a.jpg (4 May 2024) (a.jpg, b.jpg, c.jpg, d.jpg): nothing
    /// of it stays in the library." The CLI and the page ask with these words.
    public static func warning(_ items: [StagedItem]) -> String? {
        let sets = sets(items)
        guard !sets.isEmpty else { return nil }
        let n = sets.reduce(0) { $0 + $1.paths.count }
        let named = sets.map { set in
            let names = set.names
            let shown = names.prefix(4).joined(separator: ", ") + (names.count > 4 ? ", …" : "")
            return "\(set.title) (\(shown))"
        }
        let list = named.count == 1 ? named[0] : named.dropLast().joined(separator: ", ") + " and " + named.last!
        let them = sets.count == 1 ? "it" : "them"
        return "\(n) of them \(n == 1 ? "is the last copy" : "are the last copies") of \(list): nothing of \(them) stays in the library."
    }
}

/// What a card says of an item's place in its set: a copy (and of what) or its set's keeper.
public struct SetRole: Sendable, Equatable {
    /// The file name of the original this item is a copy of, when that original stays (live,
    /// not staged for the Trash).
    public var copyOf: String?
    /// The suggested (or chosen) keeper of its Similar Shots set.
    public var isKeeper: Bool
    /// The keeper is the user's own choice (`Library.setKeeper`), as the terminal deck says.
    public var chosenByUser = false

    /// "copy of NAME" / "suggested keeper" / "your keeper", or nil.
    public var text: String? {
        if let copyOf { return "copy of \(copyOf)" }
        return isKeeper ? (chosenByUser ? "your keeper" : "suggested keeper") : nil
    }
}

extension Library {
    /// `fileID`'s role in its (live) set, nil when it is in none.
    public func setRole(of fileID: Int64) throws -> SetRole? {
        guard
            let r = try db.row(
                """
                SELECT s.keeper, o.path, EXISTS(SELECT 1 FROM keeper_choices k WHERE k.file_id = s.file_id) FROM similar_sets s
                LEFT JOIN files o ON o.id = s.duplicate_of AND \(Library.live("o"))
                  AND NOT EXISTS(SELECT 1 FROM decisions d WHERE d.file_id = o.id AND d.decision = \(Decision.trash.sql))
                WHERE s.file_id = ? AND s.set_key IN (\(Library.liveSetKeys))
                """, fileID)
        else { return nil }
        return SetRole(
            copyOf: r.string(1).map { ($0 as NSString).lastPathComponent }, isKeeper: r.int(0) == 1, chosenByUser: r.int(0) == 1 && r.int(2) == 1)
    }
}

extension Library {
    /// A set as a person knows it: its keeper's file name and the day it was taken (else the
    /// day of its file time), "IMG_0001.jpg (4 May 2024)". Internal ids (`s17`) are for programs.
    public func setName(_ set: SimilarSet) throws -> String {
        try setName(keeperID: set.keeper.fileID) ?? (set.keeper.path as NSString).lastPathComponent
    }

    /// The name of the set whose keeper is `keeperID` (nil when there is no such file).
    func setName(keeperID: Int64) throws -> String? {
        guard let k = try item(id: keeperID) else { return nil }
        return SetName.text(fileName: k.name, takenAt: k.takenAt, mtimeNanoseconds: k.mtimeNanoseconds)
    }
}

/// The words that name a set: "IMG_0001.jpg (4 May 2024)".
public enum SetName {
    /// `fileName` and its day: `takenAt`'s date on the picture's own clock (as the cards show
    /// it), else the file time's day in `timeZone`.
    public static func text(fileName: String, takenAt: String?, mtimeNanoseconds: Int64, timeZone: TimeZone = .current) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_GB")
        f.dateFormat = "d MMM yyyy"
        var day: Date?
        if let t = takenAt, t.count >= 10, let y = Int(t.prefix(4)), let m = Int(t.dropFirst(5).prefix(2)), let d = Int(t.dropFirst(8).prefix(2)) {
            var c = DateComponents()
            (c.year, c.month, c.day, c.hour) = (y, m, d, 12)
            var cal = Calendar(identifier: .gregorian)
            cal.timeZone = TimeZone(identifier: "UTC")!
            f.timeZone = cal.timeZone
            day = cal.date(from: c)
        }
        if day == nil, mtimeNanoseconds > 0 {
            f.timeZone = timeZone
            day = Date(timeIntervalSince1970: Double(mtimeNanoseconds) / 1e9)
        }
        return day.map { "\(fileName) (\(f.string(from: $0)))" } ?? fileName
    }
}
