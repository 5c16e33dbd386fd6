import Foundation
import SnapSortCore
import SnapSortSystem

/// `snapsort backup [list [--json] | restore [NAME]]`: the agent's backups of the library, and
/// one put back. Never opens the library itself (an emptied one is refused by every other
/// command, and this is how it is recovered).
enum BackupCommand: Command {
    static let name = "backup"
    static let summary = "list the library's backups, or put one back"
    static let usage = """
        Usage: snapsort backup [list] [--json]
               snapsort backup restore [NAME]

        list     the backups the agent keeps beside the library (LIBRARY.backup-YYYYMMDD-HHMMSS),
                 newest first: when each was made, its live files and decisions, and whether
                 SQLite finds it whole (every page is read); '*' marks the one restore takes
        restore  puts the backup NAME (its file name as listed; default: the newest whole one,
                 unless it holds far less than an older one) in the library's place, after
                 checking it whole. The library file that was there is kept, renamed to
                 LIBRARY.before-restore-YYYYMMDD-HHMMSS (with its -wal and -shm); nothing is
                 deleted. Refused while the agent runs (stop it first: nothing is stopped
                 unasked), or while a scan or a trash commit holds the library.
        Exit: 0 ok, 1 error (no such backup, a damaged one, an agent running), 2 usage.
        """

    /// `backup list --json` (its keys are a contract).
    static func listJSON(_ dbPath: String, _ entries: [Backup.Entry]) -> JSON {
        .object([
            ("library", .string(dbPath)),
            (
                "backups",
                .array(
                    entries.map { e in
                        .object([
                            ("name", .string(e.name)), ("path", .string(e.path)), ("made_at", .string(StatusTimestamp.string(e.date))),
                            ("bytes", .int(e.bytes)), ("files", .opt(e.contents?.files)), ("decisions", .opt(e.contents?.decisions)),
                            ("review_events", .opt(e.contents?.events)), ("integrity", .string(e.problem ?? "ok")),
                            ("restore_default", .bool(e.isBest)),
                        ])
                    })
            ),
        ])
    }

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let json = args.flag("--json")
        var words = try args.positionals()
        let sub = words.isEmpty ? "list" : words.removeFirst()
        switch sub {
        case "list":
            guard words.isEmpty else { throw UsageError("backup list takes no NAME") }
            let entries = Backup.entries(ctx.dbPath)
            if json {
                ctx.out(listJSON(ctx.dbPath, entries).serialized(pretty: true))
                return ExitCode.ok
            }
            guard !entries.isEmpty else {
                ctx.out("No backup beside \(ctx.dbPath) yet: the agent ('snapsort agent') makes one a day while it runs.")
                return ExitCode.ok
            }
            ctx.out("Backups of \(ctx.dbPath), newest first (* is the one 'snapsort backup restore' takes):")
            for e in entries {
                let made = StatusSummary.localTime(e.date)
                let held = e.contents.map { "\(counted($0.files, "file")), \(counted($0.decisions, "decision"))" } ?? "contents unreadable"
                ctx.out("\(e.isBest ? "*" : " ") \(e.name)  \(made)  \(humanBytes(e.bytes))  \(held)  \(e.problem ?? "whole")")
            }
            return ExitCode.ok
        case "restore":
            guard words.count <= 1 else { throw UsageError("backup restore takes one NAME at most") }
            let restored = try Backup.restore(words.first, dbPath: ctx.dbPath, now: Clock.live.now())
            let b = restored.backup
            let held = b.contents.map { " (\(counted($0.files, "file")), \(counted($0.decisions, "decision")))" } ?? ""
            ctx.out("Restored \(b.name), made \(StatusSummary.localTime(b.date))\(held), as \(ctx.dbPath).")
            if let aside = restored.keptAside {
                ctx.out("The library file that was there is kept as \(aside) (remove it yourself once you no longer need it).")
            }
            return ExitCode.ok
        default:
            throw UsageError("unknown backup action '\(sub)'; see snapsort backup --help")
        }
    }
}
