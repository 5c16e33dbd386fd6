import Foundation
import SnapSortCore

/// `snapsort stats [--json]`
enum StatsCommand: Command {
    static let name = "stats"
    static let summary = "show what you reviewed and cleared, streaks and milestones"
    static let usage = """
        Usage: snapsort stats [--json]

        --json prints reviewed_total, bytes_cleared {today, week, total}, in_trash_bytes,
        streak {current, longest}, last_7_days [{date, reviewed, bytes_cleared,
        bytes_moved_to_trash}], milestones [{id, reached_at}], goal {target, done_today},
        chapters […], bytes_moved_to_trash {today, week, total}.
        Cleared bytes left the disk (the Trash emptied); moved ones went to the Trash by a
        commit (minus those put back); in_trash_bytes still wait there.
        Days are local days; a day counts for the streak with at least one decision.
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let json = args.flag("--json")
        guard try args.positionals().isEmpty else { throw UsageError("stats takes no arguments") }
        let library = try ctx.openLibrary()
        try LibraryUpdate(library: library, clock: .live).noticeRestores()
        // A goal setting that cannot be read is said (config, review and remind warned; stats
        // used the default without a word).
        for p in Configuration.load(ctx.env).1 where p.description.contains("session_goal") { ctx.logger.warning(p.description) }
        let r = try Stats.report(library: library, clock: .live, goal: ctx.sessionGoal)
        if json {
            ctx.out(r.json.serialized(pretty: true))
            return ExitCode.ok
        }
        ctx.out("Reviewed:              \(r.reviewedTotal) item\(r.reviewedTotal == 1 ? "" : "s")")
        // One meaning a number (issue 43, item 4): moved to the Trash, waiting there, cleared.
        func span(_ c: Cleared) -> String { "\(humanBytes(c.today)) today, \(humanBytes(c.week)) this week, \(humanBytes(c.total)) in all" }
        ctx.out("Moved to the Trash:    \(span(r.moved))")
        if r.inTrashBytes > 0 { ctx.out("Waiting in the Trash:  \(humanBytes(r.inTrashBytes)) (emptying the Trash frees it)") }
        ctx.out("Cleared from the disk: \(span(r.cleared))")
        ctx.out("Streak:                \(r.streak.current) day\(r.streak.current == 1 ? "" : "s") (longest \(r.streak.longest))")
        // What each number is, as the tray's menu says it ("29 of 10" read as a fraction gone wrong).
        ctx.out("Today:                 \(r.doneToday) reviewed · goal \(r.goalTarget)")
        ctx.out("Last 7 days:")
        let peak = max(1, r.lastSevenDays.map(\.reviewed).max() ?? 1)
        for d in r.lastSevenDays {
            let bar = String(repeating: "█", count: d.reviewed * 30 / peak)
            ctx.out("  \(d.date)  \(String(d.reviewed).padding(toLength: 5, withPad: " ", startingAt: 0)) \(bar)")
        }
        if !r.milestones.isEmpty {
            ctx.out("Milestones:")
            for m in r.milestones { ctx.out("  \(Context.milestoneTitle(m.id)) — \(Stats.localTimestamp(m.reachedAt, r.timeZone).prefix(10))") }
        }
        if !r.chapters.isEmpty {
            ctx.out("Chapters:")
            for c in r.chapters.prefix(10) {
                ctx.out(
                    "  \(LocalDay(Date(timeIntervalSince1970: c.finishedAt), in: r.timeZone))  \(c.title): \(c.decisions) \(c.decisions == 1 ? "decision" : "decisions"), \(humanBytes(c.bytes)) staged"
                )
            }
        }
        return ExitCode.ok
    }
}
