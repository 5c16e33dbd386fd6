import Foundation
import SnapSortCore
import SnapSortSystem

/// `snapsort trash [list | commit [--yes] | restore [--all | FILE…]]`
enum TrashCommand: Command {
    static let name = "trash"
    static let summary = "list, commit or restore what is staged for the Trash"
    static let usage = """
        Usage: snapsort trash [list] [--json]
               snapsort trash commit [--yes]
               snapsort trash restore [--all | FILE…]

        list     what is staged (still in place) with the total size, and what SnapSort moved
                 to the Trash that is still there (emptying the Trash frees that space)
        commit   moves every staged file, with its sidecars (.xmp, .aae, a Live Photo's .mov),
                 to the freedesktop.org Trash of its file system; the file manager can restore
                 them. Asks once (count and size); --yes for scripts. Without --yes and without a
                 terminal it exits 2. A file changed since it was reviewed is left in place.
        restore  un-stages staged FILEs (they become undecided) and moves trashed FILEs back
                 to their original path, never overwriting; --all does both for everything.
                 One undo step: 'snapsort undo' stages them for the Trash again.
        Exit: 0 ok (answering no at the prompt too: nothing moves), 1 error, 2 usage or no terminal
              to confirm in (pass --yes), 4 some files were skipped.
        """

    /// `trash list --json` (its keys are a contract).
    static func listJSON(_ overview: TrashOverview) -> JSON {
        JSON.object([
            (
                "staged",
                .array(
                    overview.staged.map { entry in
                        let s = entry.item
                        return .object([
                            ("path", .string(s.path)), ("bytes", .int(s.bytes)), ("changed_since_review", .bool(s.changedSinceReview)),
                            ("missing", .bool(s.missing)), ("unreachable", .opt(s.unreachable)),
                            // Nothing that stays holds its pixels (`LastCopies`); the set it leaves whole.
                            ("last_copy", .bool(s.lastCopy)), ("last_copy_set", .opt(s.lastCopySet)),
                            ("sidecars", .array(entry.sidecars.map { .object([("path", .string($0.path)), ("bytes", .int($0.bytes))]) })),
                        ])
                    })
            ),
            ("staged_count", .int(overview.staged.count)), ("staged_bytes", .int(overview.stagedBytes)),
            ("sidecar_bytes", .int(overview.sidecarBytes)),
            (
                "in_trash",
                .array(
                    overview.inTrash.map {
                        .object([
                            ("path", .string($0.originalPath)), ("trash_path", .string($0.trashPath)), ("bytes", .int($0.bytes)),
                            ("sidecar", .bool($0.isSidecar)),
                        ])
                    })
            ),
            ("in_trash_bytes", .int(overview.inTrashBytes)),
        ])
    }

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let json = args.flag("--json")
        let yes = args.flag("--yes", "-y")
        let all = args.flag("--all")
        var words = try args.positionals()
        let sub = words.isEmpty ? "list" : words.removeFirst()
        let library = try ctx.openLibrary()
        let clock = Clock.live
        try LibraryUpdate(library: library, clock: clock).noticeRestores()
        switch sub {
        case "list":
            guard words.isEmpty else { throw UsageError("trash list takes no FILE") }
            let overview = try TrashOverview.load(library: library)
            if json {
                ctx.out(listJSON(overview).serialized(pretty: true))
                return ExitCode.ok
            }
            let staged = overview.stagedItems, inTrash = overview.inTrash, inTrashBytes = overview.inTrashBytes
            let total = overview.stagedBytes
            if staged.isEmpty { ctx.out("Nothing staged for the Trash.") }
            for entry in overview.staged {
                let s = entry.item
                ctx.out(
                    "\(humanBytes(s.bytes).padding(toLength: 9, withPad: " ", startingAt: 0)) \(field(s.path))"
                        + (s.unreachable.map { "  [cannot be reached now: \($0)]" }
                            ?? (s.missing
                                ? "  [missing: not there now (moved away, or its drive is not mounted)]"
                                : s.changedSinceReview ? "  [changed since it was reviewed: decide again]" : ""))
                )
                // What goes with it (an .xmp, a Live Photo's clip).
                for side in entry.sidecars {
                    ctx.out("\(humanBytes(side.bytes).padding(toLength: 9, withPad: " ", startingAt: 0))   + \(field(side.path)) (goes with it)")
                }
            }
            // What goes with them (an .xmp, a RAW, a Live Photo's clip) is counted too: "300 kB"
            // while 4.9 MB would move (review 8).
            let going = overview.sidecars
            let goingBytes = overview.sidecarBytes
            if !staged.isEmpty {
                let with =
                    going.isEmpty
                    ? "" : " with the \(going.count == 1 ? "file" : "\(going.count) files") that go\(going.count == 1 ? "es" : "") with them"
                ctx.out("\(staged.count) staged, \(humanBytes(total + goingBytes))\(with) — 'snapsort trash commit' moves them to the Trash")
            }
            if let warning = overview.lastCopiesWarning { ctx.out(warning) }
            let changed = staged.filter { $0.changedSinceReview && !$0.missing }.count
            if changed > 0 {
                ctx.out("\(changed) of them changed since they were reviewed: a commit leaves \(changed == 1 ? "it" : "them") in place")
            }
            let unreachable = staged.filter { $0.unreachable != nil }.count
            if unreachable > 0 {
                ctx.out(
                    "\(unreachable) of them cannot be reached now (their folder's permissions): a commit leaves \(unreachable == 1 ? "it" : "them") staged"
                )
            }
            let missing = staged.filter(\.missing).count
            if missing > 0 {
                ctx.out("\(missing) of them \(missing == 1 ? "is" : "are") not there now: a commit leaves \(missing == 1 ? "it" : "them") staged")
            }
            if !inTrash.isEmpty {
                // Newest first: the files of the last commit are the ones a user puts back.
                let photos = inTrash.filter { !$0.isSidecar }.sorted { ($0.trashedAt, $0.ledgerID) > ($1.trashedAt, $1.ledgerID) }
                let shown = photos.prefix(20)
                ctx.out("In the Trash (newest first; 'snapsort trash restore FILE' puts one back):")
                for t in shown {
                    ctx.out("\(humanBytes(t.bytes).padding(toLength: 9, withPad: " ", startingAt: 0)) \(field(t.originalPath))")
                }
                if photos.count > shown.count { ctx.out("… and \(photos.count - shown.count) more ('snapsort trash list --json' lists them all)") }
            }
            if inTrashBytes > 0 {
                ctx.out("\(humanBytes(inTrashBytes)) moved to the Trash by SnapSort still waits there: emptying the Trash frees it.")
            }
            return ExitCode.ok
        case "commit":
            guard words.isEmpty else { throw UsageError("trash commit takes no FILE") }
            // The question the page's dialog asks too (`CommitPlan`): the last copies first, what
            // moves with what goes with it, what stays in place and why.
            let plan = try TrashOverview.load(library: library).commitPlan
            if !yes && !plan.staged.isEmpty {
                guard ctx.console.isTerminal(0) else {
                    throw UsageError("trash commit needs a confirmation: run it in a terminal or pass --yes")
                }
                ctx.console.error(plan.text + " [y/N] ")
                guard let answer = ctx.console.readLine(), ["y", "yes"].contains(answer.lowercased().trimmingCharacters(in: .whitespaces)) else {
                    ctx.err("Nothing moved.")
                    return ExitCode.ok
                }
            }
            // What was listed and confirmed: a file staged meanwhile elsewhere waits for the next commit.
            let report = try Trash.commit(
                library: library, clock: clock, env: ctx.trashEnvironment, logger: ctx.logger, only: Set(plan.fileIDs))
            for o in report.outcomes { ctx.out(line(o)) }
            let moved = report.succeeded
            ctx.out(
                "\(moved.count) moved to the Trash (\(humanBytes(report.bytes)))"
                    + (report.skipped.isEmpty ? "" : ", \(report.skipped.count) left in place")
                    + (moved.isEmpty ? "" : ". The space is freed when the Trash is emptied."))
            for m in report.milestones { ctx.out("milestone reached: \(Context.milestoneTitle(m))") }
            return report.skipped.isEmpty ? ExitCode.ok : ExitCode.partial
        case "restore":
            let outcomes: [TrashOutcome]
            if all {
                guard words.isEmpty else { throw UsageError("restore takes --all or FILE…, not both") }
                outcomes = try Trash.restoreAll(library: library, clock: clock)
            } else {
                guard !words.isEmpty else { throw UsageError("restore needs --all or FILE…") }
                outcomes = try Trash.restore(paths: words.map(ctx.absolute), library: library, clock: clock)
            }
            for o in outcomes { ctx.out(line(o)) }
            let failed = outcomes.filter { !$0.succeeded }
            if outcomes.isEmpty { ctx.out("Nothing to restore.") }
            // Skipped (a file in the way, not in the Trash any more): 4, as the usage says.
            return failed.isEmpty ? ExitCode.ok : ExitCode.partial
        default:
            throw UsageError("unknown trash action '\(sub)'; use list, commit or restore")
        }
    }

    static func line(_ o: TrashOutcome) -> String {
        let side = o.isSidecar ? " (sidecar)" : ""
        switch o.result {
        case .trashed(let to): return "trashed\t\(field(o.path))\(side) → \(field(to))"
        case .restored: return "restored\t\(field(o.path))\(side)"
        case .unstaged: return "unstaged\t\(field(o.path))"
        case .skipped(let why): return "skipped\t\(field(o.path))\(side): \(why)"
        }
    }
}
