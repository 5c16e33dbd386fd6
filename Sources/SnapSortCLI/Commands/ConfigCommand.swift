import Foundation
import SnapSortCore
import SnapSortSystem

/// `snapsort config`
enum ConfigCommand: Command {
    static let name = "config"
    static let summary = "print the effective configuration"
    static let usage = """
        Usage: snapsort config [--pictures-dir | --path | --status-file]

        Prints the effective configuration in snapsort.conf's own format: the file
        ${XDG_CONFIG_HOME:-~/.config}/snapsort/snapsort.conf with defaults filled in. Problems
        in the file (unknown keys, bad values) are listed on stderr with their line.
          --pictures-dir  print only the resolved pictures folder (XDG_PICTURES_DIR, else ~/Pictures)
          --path          print only the configuration file's path
          --status-file   print only the status file's path

        snapsort.conf: one 'key = value' a line, '#' comments.
          root = DIR            a folder to watch (repeatable; default: the pictures folder)
          exclude = DIR         a folder to skip (repeatable)
          reminder = off|daily|weekly|monthly, reminder_time = HH:MM, reminder_weekday = mon…sun,
          reminder_day = 1…31, quiet_hours = HH:MM-HH:MM|off
          session_goal = N      decisions per review session (1…1000)
          status_file = PATH    where the agent writes its status (default $XDG_RUNTIME_DIR/snapsort/status.json)
          web_port = PORT       the review page's port (1024…65535)
          reconcile_interval = MINUTES   the agent's safety reconcile (default 60)
          pause_on_battery = yes|no, milestone_notifications = yes|no
        The agent reloads the file when it changes and on SIGHUP.
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let pictures = args.flag("--pictures-dir")
        let path = args.flag("--path")
        let statusFile = args.flag("--status-file")
        guard try args.positionals().isEmpty else { throw UsageError("config takes no arguments") }
        if pictures {
            ctx.out(Configuration.picturesDirectory(ctx.env))
            return ExitCode.ok
        }
        if path {
            ctx.out(Configuration.path(ctx.env))
            return ExitCode.ok
        }
        let (config, problems) = Configuration.load(ctx.env)
        if statusFile {
            ctx.out(config.statusFilePath(ctx.env))
            return ExitCode.ok
        }
        for p in problems { ctx.err("snapsort: \(p.description)") }
        // A configured root that is not a folder here: said, not only taken for an offline disk.
        for r in config.roots {
            guard let st = try? FileSystem.status(r) else {
                ctx.err("snapsort: note: the root \(r) is not there (a typo, or a drive not mounted: its photos are kept meanwhile)")
                continue
            }
            if !st.isDirectory { ctx.err("snapsort: note: the root \(r) is a file, not a folder") }
        }
        ctx.out(
            "# file: \(Configuration.path(ctx.env))\(FileManager.default.fileExists(atPath: Configuration.path(ctx.env)) ? "" : " (absent: defaults)")"
        )
        ctx.out("# database: \(ctx.dbPath)")
        ctx.out("# status file: \(config.statusFilePath(ctx.env))")
        if config.roots.isEmpty {
            ctx.out("# roots (default): \(config.effectiveRoots(arguments: [], env: ctx.env).joined(separator: ", "))")
        }
        ctx.out(String(config.rendered().dropLast()))
        return ExitCode.ok
    }
}
