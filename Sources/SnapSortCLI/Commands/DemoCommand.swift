import SnapSortCore

/// `snapsort demo [DIR]`
enum DemoCommand: Command {
    static let name = "demo"
    static let summary = "write a small demo library to try SnapSort on"
    static let usage = """
        Usage: snapsort demo [--scan [--no-models]] [DIR]

        Writes a demo library of real photos and typical clutter (a burst, blurred and dark
        frames, duplicates, a screenshot, a receipt, a video) to DIR (default:
        $XDG_DATA_HOME/snapsort/demo-library). Existing files are never overwritten.
          --scan        scan the demo library afterwards
          --no-models   with --scan: without the local models (see 'snapsort scan --help')
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let scan = args.flag("--scan")
        let noModels = args.flag("--no-models")
        if noModels && !scan { throw UsageError("--no-models goes with --scan") }
        let dirs = try args.positionals()
        guard dirs.count <= 1 else { throw UsageError("demo takes at most one DIR") }
        let folder = dirs.first.map(ctx.absolute) ?? DemoLibrary.defaultPath(ctx.env)
        guard let data = DataDirectory.find(ctx.env) else {
            throw CommandFailure(ExitCode.error, "the demo sources are not installed (looked for share/snapsort/demo); set SNAPSORT_DATA_DIR")
        }
        let written = try DemoLibrary.write(to: folder, sources: data + "/demo")
        if !ctx.quiet { ctx.err("demo library: \(folder) (\(written.files.count) new files)") }
        ctx.out(folder)
        if scan {
            var a = Arguments((noModels ? ["--no-models"] : []) + [folder])
            let code = try ScanCommand.run(&a, ctx)
            // What to do next, on stderr (stdout stays the folder, for scripts).
            if code == ExitCode.ok && !ctx.quiet {
                ctx.err(
                    "next: 'snapsort groups' lists what was found; 'snapsort review' sorts it in this terminal; 'snapsort serve' then 'snapsort open' shows the review page"
                )
            }
            return code
        }
        if !ctx.quiet { ctx.err("next: 'snapsort scan \(folder)', or 'snapsort demo --scan'") }
        return ExitCode.ok
    }
}
