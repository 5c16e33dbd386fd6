import Foundation

/// What the agent is doing, as the status file's `agent.state` says it (a contract: bars and
/// scripts match these words). One place for the wording every front end shows of it: the
/// systemd `STATUS=` line here, the bars' text in `StatusSummary`.
public enum AgentState: RawRepresentable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case starting, scanning, analyzing, grouping, watching, paused, stopping, stopped
    /// The agent runs but cannot use its library (an emptied file, `Library+Refusal`): it waits
    /// for the person to decide (`snapsort backup restore`, or the file moved aside); why is
    /// the document's `last_error`.
    case error
    /// The agent lost track of what changed (its inotify queue overflowed: a flood of files, or
    /// the agent stopped for a while, SIGSTOP) and walks every root again; `pending` is the
    /// backlog: the files found to look at and not analyzed yet (growing while the walk finds
    /// them). Work, as `analyzing` is, but said at once (a backlog is never a short burst).
    case reconciling
    /// A word this version does not know (a newer agent's status file): read and shown as it
    /// was written, never dropped nor taken for another state.
    case other(String)

    /// The states this version writes.
    public static let allCases: [AgentState] = [
        .starting, .scanning, .analyzing, .grouping, .watching, .paused, .stopping, .stopped, .error, .reconciling,
    ]

    /// The state a word names; `other` for a word this version does not know.
    public init(rawValue: String) {
        self = Self.allCases.first { $0.rawValue == rawValue } ?? .other(rawValue)
    }

    /// The word the status file says.
    public var rawValue: String {
        switch self {
        case .starting: "starting"
        case .scanning: "scanning"
        case .analyzing: "analyzing"
        case .grouping: "grouping"
        case .watching: "watching"
        case .paused: "paused"
        case .stopping: "stopping"
        case .stopped: "stopped"
        case .error: "error"
        case .reconciling: "reconciling"
        case .other(let word): word
        }
    }

    public var description: String { rawValue }

    /// The states of work: the agent left idle for them (a short burst of them is not shown,
    /// `AgentOptions.quietWork`), and they count their progress.
    public var isWork: Bool { self == .scanning || self == .analyzing || self == .grouping || self == .reconciling }

    /// The `STATUS=` line systemd shows in `systemctl --user status snapsort` (sd_notify(3)):
    /// "Analyzing 1 204 of 5 310 …", "Watching 12 431 photos in 3 library folders".
    /// `holdReason`: why a service holds the analysis ("on battery"), `roots`: how many roots.
    public static func serviceLine(_ a: StatusDocument.Agent, roots: Int, holdReason: String?) -> String {
        let n = StatusSummary.number
        let folders = "\(roots) library folder\(roots == 1 ? "" : "s")"
        var s: String
        switch a.state {
        case .analyzing: s = "Analyzing \(n(a.done)) of \(n(a.total)) …"
        case .scanning: s = "Checking folders …"
        case .grouping: s = "Grouping \(n(a.total)) photos …"
        case .reconciling: s = "Catching up: \(n(a.pending)) change\(a.pending == 1 ? "" : "s") to look at …"
        case .starting: s = "Starting …"
        case .stopping: s = "Stopping"
        case .error: s = "Waiting: the library cannot be used (snapsort status says why)"
        case .paused:
            s = (holdReason.map { "Paused \($0)" } ?? "Paused") + "; watching \(n(a.total)) photos in \(folders)"
            if a.pending > 0 { s += "; \(n(a.pending)) change\(a.pending == 1 ? "" : "s") waiting" }
        default: s = "Watching \(n(a.total)) photos in \(folders)"
        }
        if a.degraded { s += " (watch limit reached: some folders checked periodically)" }
        if !a.offlineRoots.isEmpty { s += " (\(a.offlineRoots.count) folder\(a.offlineRoots.count == 1 ? "" : "s") offline)" }
        return s
    }
}
