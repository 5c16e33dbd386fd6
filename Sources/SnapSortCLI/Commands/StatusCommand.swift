import Foundation
import SnapSortAgent
import SnapSortCore
import SnapSortSystem

/// `snapsort status [--json] [--format BAR] [--follow]`
enum StatusCommand: Command {
    static let name = "status"
    static let summary = "show what the agent is doing, for people or status bars"
    static let usage = """
        Usage: snapsort status [--json | --format waybar|polybar|i3blocks|i3status-rust] [--follow]
                               [--status-file PATH]

        Prints the agent's status file for people. Without a running agent the same document is
        computed from the library with state "stopped" (exit 0). The running agent's status file
        is found wherever it writes it (its --status-file, status_file in snapsort.conf).
          --status-file PATH  read this status file instead
          --json          the status document as JSON (the status file's format)
          --format BAR    one line in a status bar's format:
                            waybar         {"text","alt","tooltip","class","percentage"} (return-type: json)
                            polybar        a plain line with %{F#rrggbb} colours
                            i3blocks       {"full_text","short_text","color"} (format=json)
                            i3status-rust  {"icon","state","text","short_text"} (custom block, json = true)
          --follow        print a new line on every change and run until killed (inotify on the
                          status file's folder; no polling) — the bars' persistent mode
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let json = args.flag("--json")
        let follow = args.flag("--follow")
        let format = try args.option("--format").map { f -> StatusFormat in
            guard let v = StatusFormat(rawValue: f) else {
                throw UsageError("unknown --format '\(f)'; use waybar, polybar, i3blocks or i3status-rust")
            }
            return v
        }
        let named = try args.option("--status-file").map(ctx.absolute)
        guard try args.positionals().isEmpty else { throw UsageError("status takes no arguments") }
        if json && format != nil { throw UsageError("--json and --format are alternatives: use one") }
        if let named, let st = try? FileSystem.status(named), !st.isRegular {
            // A FIFO or a folder: reading it would block or fail at every recheck.
            throw CommandFailure(ExitCode.error, "\(field(named)) is not a regular file (a status file is one the agent writes)")
        }
        let (config, _) = Configuration.load(ctx.env)
        // The running agent's file (it says where in its lock), else the configured one: looked
        // up again while following, since an agent restarted with another `status_file` writes
        // elsewhere (a follower that kept the old path showed "stopped" for good).
        func currentPath() -> String { named ?? Agent.runningStatusPath(dbPath: ctx.dbPath) ?? config.statusFilePath(ctx.env, database: ctx.dbPath) }
        var path = currentPath()
        let render: (StatusDocument) -> String = { doc in
            if let format { return format.render(doc) }
            if json { return doc.json.serialized(pretty: !follow) }
            if follow { return StatusSummary(doc).human + "\n" }
            // The file the line came from; without an agent for this library the document is
            // the library's own, and the file (another library's agent's, or none) is not named.
            var source =
                doc.agent.state == .stopped ? "No agent runs for \(field(ctx.dbPath)): computed from the library." : "Status file: \(field(path))"
            // A pause set with no agent running is kept for it: said (it read "stopped" only).
            if doc.agent.state == .stopped, let until = (try? ctx.openLibrary().pausedUntil(now: Clock.live.now())) ?? nil {
                let f = DateFormatter()
                f.dateFormat = "yyyy-MM-dd HH:mm"
                let when = until == .distantFuture ? "until resumed" : "until \(f.string(from: until))"
                source += "\nAnalysis is paused \(when): the agent waits when it starts ('snapsort resume' ends it)."
            }
            return StatusSummary(doc).human + "\n" + source
        }
        let first = try resolve(ctx, config: config, path: path)
        // What counts as a change: the line a bar shows; for JSON the document without its
        // `updated_at` (it moves at every recompute while no agent runs).
        func key(_ doc: StatusDocument, _ line: String) -> String { json ? doc.content : line }
        var line = render(first)
        var last = key(first, line)
        ctx.out(line)
        ctx.flush()
        guard follow else { return ExitCode.ok }
        // Tests shorten the wait (`SNAPSORT_FOLLOW_RECHECK_MS`) rather than sleep through it.
        let recheckMs = ctx.env["SNAPSORT_FOLLOW_RECHECK_MS"].flatMap { Int32($0) }.map { max(50, $0) } ?? Self.recheckMs
        var failing: String?
        let follower = StatusFollow(recheckMs: recheckMs, reader: ctx.console.outputDescriptor) { ctx.err("snapsort status: \($0)") }
        try follower.run(path: currentPath) { now in
            path = now
            do {
                let doc = try resolve(ctx, config: config, path: path)
                line = render(doc)
                if failing != nil {
                    ctx.err("snapsort status: the library answers again")
                    failing = nil
                }
                let k = key(doc, line)
                if k != last {
                    last = k
                    ctx.out(line)
                    ctx.flush()
                }
            } catch {
                // A library locked or moved for a moment: a bar does not restart a module whose
                // command ended, so the line stays and the next recheck tries again.
                let message = "\(error)"
                if failing != message { ctx.err("snapsort status: \(message); trying again every \(recheckMs / 1000) s") }
                failing = message
            }
        }
        return ExitCode.ok
    }

    /// How often `--follow` reads the document again without a change (the agent may have died).
    static let recheckMs: Int32 = 5000

    /// The running agent's status file, or the document computed from the library.
    static func resolve(_ ctx: Context, config: Configuration, path: String) throws -> StatusDocument {
        if Agent.isRunning(dbPath: ctx.dbPath),
            let bytes = try? FileSystem.readFile(path, limit: 4 << 20),
            let j = JSON.parse(String(decoding: bytes, as: UTF8.self)),
            let doc = StatusDocument(json: j), doc.agent.pid.map({ SystemProcess.exists(Int32($0)) }) ?? false
        {
            return doc
        }
        let library = try ctx.openLibrary()
        let counts = try library.itemCounts()
        let agent = StatusDocument.Agent(state: .stopped, pid: nil, done: counts.analyzed, total: counts.total)
        return StatusProviders.standard.document(agent: agent, inputs: StatusInputs(library: library, configuration: config, now: Clock.live.now()))
    }
}
