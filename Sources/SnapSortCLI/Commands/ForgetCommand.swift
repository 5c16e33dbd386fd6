import Foundation
import SnapSortCore

/// `snapsort forget DIR`
enum ForgetCommand: Command {
    static let name = "forget"
    static let summary = "drop a folder's rows from the library (its files are not touched)"
    static let usage = """
        Usage: snapsort forget DIR

        Removes every library row at or under DIR — analysis, tombstones, the root entry — for
        example the demo library's. Files on disk are never touched. A folder that is still a
        configured root, or inside one, is scanned again by a running agent (as by the next
        'snapsort scan'): remove the root first with 'snapsort roots remove DIR', or exclude the
        folder.
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let rest = try args.positionals()
        guard rest.count == 1 else { throw UsageError("forget takes one DIR") }
        let dir = ctx.absolute(rest[0])
        guard dir != "/" else { throw UsageError("refusing to forget everything under /") }
        let library = try ctx.openLibrary()
        // Their decisions go with the rows: say which (a staged file is no longer staged).
        let decided = try library.decisionCounts(under: dir)
        let n = try library.forget(under: dir, at: Clock.live.now())
        let (config, _) = Configuration.load(ctx.env)
        if config.roots.contains(dir) {
            ctx.err("snapsort: note: \(dir) is still a configured root; the agent will scan it again ('snapsort roots remove \(dir)')")
        }
        if !ctx.quiet {
            let lost = decided.map { d in
                let word =
                    switch d.decision {
                    case .trash: "staged for the Trash (no longer)"
                    case .keep: "kept"
                    case .skip: "skipped"
                    case .later: "for later"
                    }
                return "\(d.count) \(word)"
            }
            ctx.err(
                "forgot \(n) item\(n == 1 ? "" : "s") under \(dir)" + (lost.isEmpty ? "" : ", and their decisions: " + lost.joined(separator: ", "))
                    + "; no file was touched")
        }
        return ExitCode.ok
    }
}
