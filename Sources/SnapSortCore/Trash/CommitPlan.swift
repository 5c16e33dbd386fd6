import Foundation

/// What a commit of the staged files would do, in numbers and in the words that ask for it:
/// what moves (with the files that go with each), what stays in place and why, the bytes, and
/// the sets nothing of would stay. The one question the CLI's `trash commit` and the page's
/// commit dialog both ask (they counted differently: the CLI every staged file, the page only
/// those that could move).
///
/// A plan is a pure function of staged entries (`TrashOverview.Staged`), so a front end can
/// make one for any subset of what is staged — what one bulk action staged, say, to tell how
/// many last copies it left (`lastCopyCount`).
public struct CommitPlan: Sendable {
    /// Why a staged file stays where it is at the commit.
    public enum StayReason: Sendable, Equatable {
        /// The file changed since it was reviewed: it waits to be decided again.
        case changedSinceReview
        /// It is not there now (moved away, or on a drive not mounted): it stays staged.
        case missing
        /// It cannot be looked at now (its folder's permissions): it stays staged.
        case unreachable(String)

        /// "changed since it was reviewed" / "not there now" / "cannot be reached now (…)".
        public var text: String {
            switch self {
            case .changedSinceReview: "changed since it was reviewed"
            case .missing: "not there now"
            case .unreachable(let why): "cannot be reached now (\(why))"
            }
        }
    }

    /// A staged file that stays in place, and why.
    public struct Staying: Sendable {
        public var item: StagedItem
        public var why: StayReason
    }

    /// The staged files the commit moves, each with what goes with it.
    public var moving: [TrashOverview.Staged]
    /// The staged files the commit leaves in place.
    public var staying: [Staying]
    /// The sets nothing of stays in the library once the staged files are gone (`LastCopies`).
    public var lastCopySets: [LastCopySet]
    /// Every staged file the plan was made of, in staging order.
    public var staged: [StagedItem]

    /// Every staged file the plan was made of: what the commit is asked to move (it moves only
    /// these, and leaves in place those that stay).
    public var fileIDs: [Int64] { staged.map(\.fileID) }
    /// The files that go with the moving ones (an .xmp, a Live Photo's clip).
    public var sidecars: [(path: String, bytes: Int64)] { moving.flatMap(\.sidecars) }
    /// Bytes that move: the files and what goes with them.
    public var bytes: Int64 { moving.reduce(0) { $0 + $1.item.bytes } + sidecars.reduce(0) { $0 + $1.bytes } }
    /// How many staged files are the last copies of a set that leaves whole.
    public var lastCopyCount: Int { lastCopySets.reduce(0) { $0 + $1.paths.count } }
    /// Whether there is anything to move.
    public var isEmpty: Bool { moving.isEmpty }

    /// The plan for `staged` (a `TrashOverview`'s, or any part of it).
    public init(_ staged: [TrashOverview.Staged]) {
        moving = []
        staying = []
        for entry in staged {
            let s = entry.item
            if let why = s.unreachable {
                staying.append(Staying(item: s, why: .unreachable(why)))
            } else if s.missing {
                staying.append(Staying(item: s, why: .missing))
            } else if s.changedSinceReview {
                staying.append(Staying(item: s, why: .changedSinceReview))
            } else {
                moving.append(entry)
            }
        }
        self.staged = staged.map(\.item)
        lastCopySets = LastCopies.sets(self.staged)
    }

    /// The plan for everything staged now. Call `Trash.noticeRestores` first.
    public static func load(library: Library) throws -> CommitPlan {
        CommitPlan(try TrashOverview.load(library: library).staged)
    }

    // MARK: - The words

    /// "Move 3 files and 1 file that goes with them (IMG_1.xmp) (4.2 MB) to the Trash?"
    public var question: String {
        let n = moving.count
        let sides = sidecars
        let names = sides.prefix(3).map { ($0.path as NSString).lastPathComponent }.joined(separator: ", ") + (sides.count > 3 ? ", …" : "")
        let with =
            sides.isEmpty
            ? "" : " and \(Self.counted(sides.count, "file")) that go\(sides.count == 1 ? "es" : "") with them (\(names))"
        return "Move \(Self.counted(n, "file"))\(with) (\(StatusSummary.bytes(bytes))) to the Trash?"
    }

    /// The question's button: "Move 3 files".
    public var confirmLabel: String { "Move \(Self.counted(moving.count, "file"))" }

    /// What stays in place, or nil when everything staged moves: "2 stay in place: IMG_1.jpg
    /// (changed since it was reviewed), IMG_2.jpg (not there now)."
    public var stayingSentence: String? {
        guard !staying.isEmpty else { return nil }
        let named = staying.prefix(3).map { "\(($0.item.path as NSString).lastPathComponent) (\($0.why.text))" }
        let more = staying.count > 3 ? " and \(staying.count - 3) more" : ""
        return "\(staying.count) \(staying.count == 1 ? "stays" : "stay") in place: \(named.joined(separator: ", "))\(more)."
    }

    /// The words about the sets nothing of stays (`LastCopies.warning`), nil when none.
    public var lastCopiesWarning: String? { LastCopies.warning(staged) }

    /// The whole question as one paragraph, in the order both front ends show it: the last
    /// copies first (never unseen), then what moves, then what stays.
    public var text: String {
        [lastCopiesWarning, question, stayingSentence].compactMap { $0 }.joined(separator: " ")
    }

    private static func counted(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}
