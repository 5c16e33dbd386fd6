import SnapSortCore
import SnapSortSystem

/// `snapsort report --jsonl [DIR…]`
enum ReportCommand: Command {
    static let name = "report"
    static let summary = "print every analyzed file as JSON lines"
    static let usage = """
        Usage: snapsort report --jsonl [DIR…]

        One JSON object per file (only files under DIR when given): path, kind, format, bytes,
        taken_at, width, height, status (ok | damaged | unreadable | unsupported), reason
        {code, text}, metrics, groups, similar_group, keeper, duplicate_of. Videos add duration_s.
        Exit: 0 ok, 1 error (no library, a damaged one), 2 usage.
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let jsonl = args.flag("--jsonl")
        _ = jsonl  // JSON lines is the only format; the flag is the documented spelling.
        let dirs = try args.positionals().map(ctx.absolute)
        let library = try ctx.openLibrary()
        // A folder that is not there and never was in the library is a typo, as for scan (it
        // printed nothing, exit 0: "nothing there").
        for d in dirs where try FileSystem.lstatusIfExists(d) == nil && !library.knows(d) {
            throw CommandFailure(ExitCode.error, "\(field(d)): no such file or folder (and never scanned)")
        }
        let items = try library.items(under: dirs)
        let lookup = try library.reportGroupLookup()
        Report.write(items, groups: lookup) { ctx.out($0) }
        return ExitCode.ok
    }
}
