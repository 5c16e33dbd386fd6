import Foundation
import SnapSortAgent
import SnapSortCore
import SnapSortSystem

/// `snapsort remind --now [--wait] | --next`
enum RemindCommand: Command {
    static let name = "remind"
    static let summary = "show the reminder now, or say when the next one is due"
    static let usage = """
        Usage: snapsort remind --now [--wait]
               snapsort remind --next

          --now    shows the reminder notification immediately, bypassing the cadence, quiet
                   hours and the no-nag rule (to test a setup): through the running agent
                   (so "Start a session" and "Later" are handled there), else directly over
                   the session bus.
          --wait   with --now: wait (up to 10 minutes) for "Start a session" (opens the review
                   page), "Later" or the notification closing
          --next   prints when the next reminder is due (local time), or "off"

        Reminders follow 'reminder', 'reminder_time', 'reminder_weekday', 'reminder_day' and
        'quiet_hours' in snapsort.conf. Exit status 3: no session bus or notification server.
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let now = args.flag("--now")
        let next = args.flag("--next")
        let wait = args.flag("--wait")
        guard try args.positionals().isEmpty else { throw UsageError("remind takes no arguments") }
        guard now != next else { throw UsageError("use one of --now or --next") }
        guard !wait || now else { throw UsageError("--wait goes with --now") }
        let (config, problems) = Configuration.load(ctx.env)
        for p in problems { ctx.logger.warning(p.description) }
        let library = try ctx.openLibrary()
        // The command's one clock: the schedule, the wait for an answer and the request's stamp.
        let clock = Clock.live

        if next {
            guard let at = ReminderService.nextReminder(library: library, configuration: config, now: clock.now()) else {
                ctx.out("off")
                return ExitCode.ok
            }
            let f = ISO8601DateFormatter()
            f.timeZone = .current
            ctx.out(f.string(from: at))
            return ExitCode.ok
        }

        if !wait, Agent.isRunning(dbPath: ctx.dbPath) {
            switch try throughAgent(library, clock: clock) {
            case .some(.success(let id)):
                if !ctx.quiet { ctx.err("reminder shown by the agent (notification \(id))") }
                return ExitCode.ok
            case .some(.failure(let message)):
                throw CommandFailure(ExitCode.unavailable, "cannot show the reminder: \(message)")
            case nil:
                ctx.logger.info("the agent did not answer; showing the reminder directly")
            }
        }
        let deps = ReminderDependencies.standard(library: library, configuration: config, clock: clock, env: ctx.env, logger: ctx.logger)
        let notifier = DesktopNotifier()
        let service = ReminderService(library: library, configuration: config, notifier: notifier, dependencies: deps)
        service.isOneShot = true
        service.loadState(now: clock.now())
        do {
            let id = try service.sendNow(now: clock.now())
            if !ctx.quiet { ctx.err("reminder shown (notification \(id))") }
        } catch {
            throw CommandFailure(ExitCode.unavailable, "cannot show the reminder: \((error as? DBusError)?.explained ?? "\(error)")")
        }
        guard wait else { return ExitCode.ok }
        let deadline = clock.now().addingTimeInterval(600)
        // A snooze from before (the state is the schedule's as it stands) is no answer.
        let snoozedBefore = service.state.snoozedUntil
        var snoozed: Date? { service.state.snoozedUntil != snoozedBefore ? service.state.snoozedUntil : nil }
        while service.activeNotification != nil && snoozed == nil && !service.sessionStarted && clock.now() < deadline {
            let ms = Int32(max(0, min(deadline.timeIntervalSince(clock.now()), 600)) * 1000)
            let ready = (try? Poll.readable(service.descriptors, timeoutMs: ms)) ?? []
            service.handleNotificationSignals(now: clock.now(), readable: ready)
        }
        if !ctx.quiet {
            // What the answer did.
            if let until = snoozed {
                let f = DateFormatter()
                f.dateFormat = "HH:mm"
                ctx.err("snoozed: the reminder comes back at \(f.string(from: until))")
            } else if service.sessionStarted {
                ctx.err(
                    service.pageOpened
                        ? "asked the browser to open the review page"
                        : "the review page is not running: 'snapsort open' starts a session once the agent or 'snapsort serve' runs")
            } else if service.activeNotification == nil {
                ctx.err("dismissed")
            } else {
                ctx.err("no answer in 10 minutes")
            }
        }
        return ExitCode.ok
    }

    enum AgentAnswer {
        case success(String)
        case failure(String)
    }

    /// Asks the running agent (through the database, which it watches) to show the reminder,
    /// and waits up to 10 s for its answer. Nil: no answer (an agent with reminders off).
    static func throughAgent(_ library: Library, clock: Clock) throws -> AgentAnswer? {
        let asked = clock.now()
        let request = "\(StatusTimestamp.string(asked))/\(SystemProcess.currentID)/\(UInt32.random(in: 0...UInt32.max))"
        try library.setAgentState(ReminderAgentService.requestKey, request, at: asked)
        let deadline = asked.addingTimeInterval(10)
        while clock.now() < deadline {
            if let result = try library.agentState(ReminderAgentService.resultKey), result.hasPrefix(request + " ") {
                let rest = result.dropFirst(request.count + 1)
                if rest.hasPrefix("shown ") { return .success(String(rest.dropFirst(6))) }
                return .failure(String(rest.hasPrefix("failed ") ? rest.dropFirst(7) : rest))
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }
}
