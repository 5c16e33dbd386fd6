import Foundation
import SnapSortCore

/// `snapsort undo`
enum UndoCommand: Command {
    static let name = "undo"
    static let summary = "take back the last decision (repeatable; a commit is undone by 'trash restore')"
    static let usage = """
        Usage: snapsort undo [--steps N] [--past-commit]

        Takes back the newest decision made from any front end (CLI, terminal deck, web page):
        the item's previous decision comes back, and a deck session returns to that card.
        Keeper choices, "not similar", "similar unmark", bulk actions and restores are steps
        too; an undone restore stages the items for the Trash again (never moves them there).
        The history keeps at least the last 20 decisions across restarts. Moving files to the
        Trash is not undone here: use 'snapsort trash restore'. Right after a commit, undo says
        so and does nothing; --past-commit takes back the decision before the commit.
        Exit: 0 ok, 1 nothing to undo (or a commit was the last action).
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let steps =
            try args.option("--steps").map { v -> Int in
                guard let n = Int(v), n >= 1 else { throw UsageError("--steps takes a positive number") }
                return n
            } ?? 1
        let pastCommit = args.flag("--past-commit")
        guard try args.positionals().isEmpty else { throw UsageError("undo takes no FILE") }
        let library = try ctx.openLibrary()
        // The last action was a commit: undo does not take it back, and says so.
        let committed = try Review.committedSinceLastUndoStep(library: library)
        let commitNote =
            "the last commit moved \(committed) file\(committed == 1 ? "" : "s") to the Trash: 'snapsort trash restore' puts \(committed == 1 ? "it" : "them") back"
        // Ctrl+Z after a commit means "put it back": taking back an older, unrelated decision
        // instead, with a note on stderr, was not what was asked.
        let depth = try Review.undoDepth(library: library)
        if committed > 0 && !pastCommit && depth > 0 {
            throw CommandFailure(
                ExitCode.error, "nothing undone: \(commitNote); 'snapsort undo --past-commit' takes back the decision before the commit")
        }
        for i in 0..<steps {
            guard let o = try Review.undo(library: library, clock: .live) else {
                if i == 0 { throw CommandFailure(ExitCode.error, "nothing to undo" + (committed > 0 ? " (\(commitNote))" : "")) }
                if !ctx.quiet { ctx.err("undid \(i) of \(steps) steps: nothing more to undo") }
                break
            }
            let name = o.path.map(field) ?? "item \(o.fileID)"
            if o.notSimilarPhotos > 0 {
                ctx.out("undid not similar on \(o.notSimilarPhotos) photos (\(name) and others): they may form a set again")
                continue
            }
            if o.unmarkedPhotos > 0 {
                ctx.out("undid unmark on \(o.unmarkedPhotos) photos (\(name) and others): they are marked not similar again")
                continue
            }
            if let from = o.restoredFrom {
                // Never moved back to the Trash by an undo: staged again, the next commit asks.
                let more = o.count > 1 ? " and \(o.count - 1) more of the same restore" : ""
                ctx.out(
                    from == .trash
                        ? "undid the restore of \(name)\(more): staged for the Trash again ('snapsort trash commit' moves it there)"
                        : "undid the restore of \(name)\(more): staged for the Trash again")
                continue
            }
            if o.keeperChoice {
                ctx.out(
                    "undid the keeper choice of \(name): the set's keeper is the one before it again"
                        + (o.restored == .trash ? " (and it is staged for the Trash again)" : ""))
                continue
            }
            ctx.out(
                "undid \(o.undone?.rawValue ?? "decision") on \(name) (now \(o.restored?.rawValue ?? "undecided"))"
                    + (o.count > 1 ? " and \(o.count - 1) more decisions of the same action" : ""))
        }
        if committed > 0 && !ctx.quiet { ctx.err("note: \(commitNote); undo took back an earlier decision") }
        return ExitCode.ok
    }
}
