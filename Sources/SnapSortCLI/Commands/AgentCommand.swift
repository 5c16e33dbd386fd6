import Foundation
import SnapSortAgent
import SnapSortCore

/// `snapsort agent [DIR…]`
enum AgentCommand: Command {
    static let name = "agent"
    static let summary = "watch the photo folders and keep the library and status file current"
    /// How long the service manager is asked to wait while the library opens (sd_notify's
    /// `EXTEND_TIMEOUT_USEC`, systemd ≥ 236): its integrity check and a schema upgrade.
    static let openingTimeoutMicroseconds: UInt64 = 15 * 60 * 1_000_000
    static let usage = """
        Usage: snapsort agent [--workers N] [--status-file PATH] [--no-web] [--no-reminders] [--no-models] [--no-tray] [DIR…]

        The long-running service (systemd/snapsort.service runs it): watches every folder under
        the roots (DIR…, else the configured roots, else XDG_PICTURES_DIR, else ~/Pictures) with
        inotify, analyzes new and changed photos at low priority, follows moves without
        re-analysis, and rewrites the status file whenever its content changes (default
        $XDG_RUNTIME_DIR/snapsort/status.json; see 'snapsort status'). It also serves the
        review page on 127.0.0.1 ('snapsort open') and shows the reminders of snapsort.conf as
        desktop notifications, and a tray icon with a menu (a StatusNotifierItem) on panels
        that show them. One agent per database.
          --workers N         analysis threads (default: half the cores)
          --status-file PATH  write the status file here instead
          --no-web            do not serve the review page
          --no-reminders      do not show reminders or milestone notifications
          --no-models         do not run the local models (faces, People, Pets, Food, Scenery)
          --no-tray           do not show the tray icon (as 'tray = no' in snapsort.conf)
        Signals: SIGTERM/SIGINT stop cleanly (exit 0); SIGHUP reloads snapsort.conf.
        A library file that is empty, has no SnapSort schema or holds far less than its backup
        is never initialised over: the agent waits in state 'error' (the status file's
        last_error says why) until it is moved aside or a backup is put back ('snapsort backup').
        Exit: 0 stopped cleanly, 1 error, 3 another agent already runs on this database.
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let workers = try args.option("--workers").map { v -> Int in
            guard let n = Int(v), n >= 1, n <= 256 else { throw UsageError("--workers takes a number from 1 to 256") }
            return n
        }
        let statusFile = try args.option("--status-file").map(ctx.absolute)
        let web = !args.flag("--no-web")
        let reminders = !args.flag("--no-reminders")
        let models = !args.flag("--no-models")
        let tray = !args.flag("--no-tray")
        let dirs = try args.positionals().map(ctx.absolute)
        var options = AgentOptions(dbPath: ctx.dbPath, env: ctx.env)
        options.roots = dirs
        options.statusPath = statusFile
        options.tray = tray
        if let workers { options.workers = workers }
        // Under systemd (or any service manager speaking sd_notify) every line carries its
        // sd-daemon(3) priority prefix so journald keeps the levels.
        let underManager = ctx.env["JOURNAL_STREAM"] != nil || ctx.env["INVOCATION_ID"] != nil || ctx.env["NOTIFY_SOCKET"] != nil
        var logger = ctx.console.logger(label: "snapsort-agent", level: ctx.logger.level == .debug ? .debug : .info, systemdPrefixes: underManager)
        if ctx.quiet { logger.level = .warning }
        options.logger = logger
        options.notifier = .live
        // Without the reminder service no reminder comes: the bars must not announce one.
        if !reminders { options.providers.nextReminder = { _ in nil } }
        options.steps = LibraryUpdate.Steps(groups: true, models: models)
        let modelHelpers = options.workers
        options.services = { c in
            var list: [AgentService] = [PowerAgentService(enabled: c.configuration.pauseOnBattery, logger: c.logger)]
            if web { list.append(WebAgentService(c)) }
            if reminders {
                let deps = ReminderDependencies.standard(
                    library: c.library, configuration: c.configuration, clock: c.clock,
                    env: c.env, logger: c.logger)
                let service = ReminderService(
                    library: c.library, configuration: c.configuration,
                    notifier: DesktopNotifier(address: c.env["DBUS_SESSION_BUS_ADDRESS"]),
                    dependencies: deps, realtimeTimer: true)
                list.append(ReminderAgentService(service))
            }
            if tray { list.append(TrayAgentService(c)) }
            if models {
                list.append(
                    VisionAgentService(
                        library: c.library, helper: VisionHelper(executable: VisionHelper.locate(environment: c.env.variables)),
                        logger: c.logger, clock: c.clock, parallel: modelHelpers))
            }
            return list
        }
        var agent: Agent?
        do {
            // A library file that is no library any more is never initialised over, and a
            // damaged one is not worked on: the agent waits in `error` until the person decides
            // (`LibraryWait`; exiting 1 made systemd restart it every 5 s, each start reading the
            // whole damaged file again).
            // Opening the library reads every page and may upgrade its schema (an index over
            // every row: tens of seconds at a million rows), which can outlast the service
            // manager's start timeout (90 s by default) and have the agent killed and started
            // again mid-upgrade for ever: the manager is asked for more time, and told why.
            options.notifier.send("EXTEND_TIMEOUT_USEC=\(AgentCommand.openingTimeoutMicroseconds)\nSTATUS=Opening the library")
            // The agent's own opening checks every page before it migrates anything: a refused
            // or damaged library is never upgraded, and a good one is read once.
            while agent == nil {
                do {
                    agent = try Agent(options)
                } catch let e as LibraryError where LibraryWait.waitsFor(e) {
                    if !underManager && !ctx.quiet { ctx.err("snapsort agent: waiting: \(e.message)") }
                    guard try LibraryWait(options).run(e) else { return ExitCode.ok }
                }
            }
        } catch let e as AgentError {
            // Exit 3 for "another agent runs": the unit does not restart on it
            // (RestartPreventExitStatus=3), where exit 1 restarted it every 5 s for ever.
            throw CommandFailure(e.code == .alreadyRunning ? ExitCode.unavailable : ExitCode.error, e.description)
        }
        guard let agent else { return ExitCode.error }
        if !underManager && !ctx.quiet {
            ctx.err("snapsort agent: watching \(agent.roots.joined(separator: ", "))")
            ctx.err("status file: \(agent.statusPath)  (snapsort status --follow to watch it; Ctrl-C to stop)")
        }
        return try agent.run()
    }
}
