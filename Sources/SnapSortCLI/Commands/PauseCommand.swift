import Foundation
import SnapSortAgent
import SnapSortCore

/// `snapsort pause [DURATION]`
enum PauseCommand: Command {
    static let name = "pause"
    static let summary = "pause analysis (watching continues; nothing is lost)"
    static let usage = """
        Usage: snapsort pause [DURATION]

        Pauses the agent's analysis for DURATION (e.g. 90s, 30m, 2h, 1d; a bare number is
        minutes), or until 'snapsort resume'. The agent keeps watching and catches up after.
        The pause is stored in the library, so it also holds for an agent started later.
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let rest = try args.positionals()
        guard rest.count <= 1 else { throw UsageError("pause takes at most one DURATION") }
        let library = try ctx.openLibrary()
        let now = Clock.live.now()
        var until: Date?
        if let d = rest.first {
            guard let seconds = PauseCommand.parseDuration(d) else {
                throw UsageError("bad DURATION '\(d)'; use e.g. 90s, 30m, 2h or 1d (at most 366d; no DURATION pauses until 'snapsort resume')")
            }
            until = now.addingTimeInterval(seconds)
        }
        try library.pause(until: until, now: now)
        if !ctx.quiet {
            let when = until.map { "until \(PauseCommand.localTime($0, now: now))" } ?? "until 'snapsort resume'"
            ctx.err("analysis paused \(when)" + (Agent.isRunning(dbPath: ctx.dbPath) ? "" : " (no agent is running now)"))
        }
        return ExitCode.ok
    }

    /// "90s", "30m", "2h", "1d", or minutes.
    static func parseDuration(_ s: String) -> TimeInterval? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        var text = s.lowercased()
        var factor = 60.0
        if let last = text.last, let f = units[last] {
            factor = f
            text.removeLast()
        }
        guard let v = Double(text), v > 0, v.isFinite, v * factor <= 366 * 86400 else { return nil }
        return v * factor
    }

    /// `16:30` today, else `2026-12-02 16:30` (local time, 24-hour like the rest of the CLI).
    static func localTime(_ d: Date, now: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone.current
        f.dateFormat = Calendar.current.isDate(d, inSameDayAs: now) ? "HH:mm" : "yyyy-MM-dd HH:mm"
        return f.string(from: d)
    }
}

/// `snapsort resume`
enum ResumeCommand: Command {
    static let name = "resume"
    static let summary = "resume analysis after 'snapsort pause'"
    static let usage = """
        Usage: snapsort resume

        Ends a pause: the agent analyzes what arrived meanwhile.
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        guard try args.positionals().isEmpty else { throw UsageError("resume takes no arguments") }
        let library = try ctx.openLibrary()
        let now = Clock.live.now()
        let was = try library.pausedUntil(now: now)
        try library.resume(now: now)
        if !ctx.quiet { ctx.err(was == nil ? "analysis was not paused" : "analysis resumed") }
        return ExitCode.ok
    }
}
