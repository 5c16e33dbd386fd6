import Foundation

/// The status file's document (a contract: status bars and scripts read these keys).
///
/// `schema_version`, `updated_at`, `agent{state,pid,done,total,degraded,last_error,last_error_severity,offline_roots,pending,paused_until}`,
/// `groups{ID:{items,bytes}}`, `awaiting_review`, `trash{count,bytes,in_trash_bytes}`,
/// `cleared{today,week,total}`, `streak{current,longest}`, `goal{target,done_today}`,
/// `next_reminder`, `models{done,total}`, `moved_to_trash{today,week,total}`. A field whose
/// feature is absent is `null` (`groups` is `{}`).
///
/// Bytes mean one thing each (issue 43, item 4): `trash.bytes` is staged (not moved yet),
/// `moved_to_trash` what commits moved to the desktop's Trash, `trash.in_trash_bytes` what of it
/// still waits there, and `cleared` what left the disk (the Trash emptied).
public struct StatusDocument: Sendable, Equatable {
    public static let schemaVersion = 1

    /// What the agent is doing.
    public struct Agent: Sendable, Equatable {
        /// `starting` | `scanning` | `analyzing` | `grouping` | `watching` | `paused` | `stopping` | `stopped` |
        /// `error` (the library cannot be used; `last_error` says why); a newer agent's word is
        /// kept as `AgentState.other`.
        public var state: AgentState
        public var pid: Int?
        public var done: Int
        public var total: Int
        /// True when the inotify watch limit left folders unwatched (checked periodically instead).
        public var degraded: Bool
        public var lastError: String?
        /// `error`: the agent's own work failed (watching, analysis, its database); `warning`: an
        /// optional service cannot do its part (reminders without a notification server, the
        /// review page, the power state) while the library is kept as ever. Nil without an error.
        public var lastErrorSeverity: String?
        /// Roots that are not there (moved away, deleted, a drive not mounted): their files are
        /// kept, and the agent watches them again when they come back.
        public var offlineRoots: [String]
        /// Files and folders the agent saw change and has not reconciled yet: while paused, what
        /// waits for the resume (a moment's worth otherwise).
        public var pending: Int
        /// When a timed pause ends (nil: not paused, or paused until resumed): a bar said
        /// "paused" and never when it would go on.
        public var pausedUntil: Date?

        public init(
            state: AgentState, pid: Int? = nil, done: Int = 0, total: Int = 0, degraded: Bool = false, lastError: String? = nil,
            lastErrorSeverity: String? = nil, offlineRoots: [String] = [], pending: Int = 0, pausedUntil: Date? = nil
        ) {
            self.offlineRoots = offlineRoots
            self.pending = pending
            self.pausedUntil = pausedUntil
            self.state = state
            self.pid = pid
            self.done = done
            self.total = total
            self.degraded = degraded
            self.lastError = lastError
            self.lastErrorSeverity = lastError == nil ? nil : lastErrorSeverity ?? "error"
        }

        /// Whether the last error is only a service's warning.
        public var isWarningOnly: Bool { lastError != nil && lastErrorSeverity == "warning" }
    }

    // The parts below are made by `StatusProviders` (and read back by `init?(json:)`): their
    // memberwise initializers are internal.

    /// A group of the review (`similar`, `blurry`, …): its items and their bytes.
    public struct Group: Sendable, Equatable {
        public var id: String
        public var items: Int
        public var bytes: Int64
    }

    /// What waits in the Trash to be committed, and what was moved to the desktop's Trash and
    /// still waits there.
    public struct Trash: Sendable, Equatable {
        public var count: Int
        public var bytes: Int64
        /// Moved to the desktop's Trash and still there: emptying it frees them (nil: not known).
        public var inTrashBytes: Int64? = nil
    }

    /// Bytes today, this week, ever: `cleared` (left the disk) or `moved_to_trash` — the one
    /// type `snapsort stats` reports them in (`SnapSortCore.Cleared`), with its one encoding.
    public typealias Cleared = SnapSortCore.Cleared

    /// Days in a row with a review: now, and the longest.
    public struct Streak: Sendable, Equatable {
        public var current: Int
        public var longest: Int
    }

    /// The daily goal and what was done of it today.
    public struct Goal: Sendable, Equatable {
        public var target: Int
        public var doneToday: Int
    }

    public var updatedAt: Date
    public var agent: Agent
    public var groups: [Group]
    public var awaitingReview: Int?
    public var trash: Trash?
    /// Bytes that left the disk (the Trash emptied).
    public var cleared: Cleared?
    /// Bytes commits moved to the Trash (minus those put back).
    public var movedToTrash: Cleared?
    public var streak: Streak?
    public var goal: Goal?
    public var nextReminder: Date?
    /// The local models' pass (tier 2): photos with a current result of all it looks at; nil
    /// until the models first ran (or without them). A first pass over a big library takes hours:
    /// this is how far it is.
    public var models: Models?

    /// How far the models' pass is.
    public struct Models: Sendable, Equatable {
        public var done: Int
        public var total: Int
        public init(done: Int, total: Int) {
            self.done = done
            self.total = total
        }
    }

    public init(
        updatedAt: Date, agent: Agent, groups: [Group] = [], awaitingReview: Int? = nil, trash: Trash? = nil,
        cleared: Cleared? = nil, streak: Streak? = nil, goal: Goal? = nil, nextReminder: Date? = nil, models: Models? = nil,
        movedToTrash: Cleared? = nil
    ) {
        self.models = models
        self.movedToTrash = movedToTrash
        self.updatedAt = updatedAt
        self.agent = agent
        self.groups = StatusDocument.inGroupOrder(groups)
        self.awaitingReview = awaitingReview
        self.trash = trash
        self.cleared = cleared
        self.streak = streak
        self.goal = goal
        self.nextReminder = nextReminder
    }

    /// Groups in the order the product lists them (Similar Shots first, as `snapsort groups`),
    /// whoever computed them; unknown ids last, by name.
    static func inGroupOrder(_ groups: [Group]) -> [Group] {
        let rank = Dictionary(uniqueKeysWithValues: GroupID.allCases.enumerated().map { ($1.rawValue, $0) })
        return groups.sorted { (rank[$0.id] ?? Int.max, $0.id) < (rank[$1.id] ?? Int.max, $1.id) }
    }

    /// The JSON document, keys in contract order.
    public var json: JSON {
        .object([
            ("schema_version", .int(StatusDocument.schemaVersion)),
            ("updated_at", .string(StatusTimestamp.string(updatedAt))),
            (
                "agent",
                .object([
                    ("state", .string(agent.state.rawValue)), ("pid", .opt(agent.pid)), ("done", .int(agent.done)), ("total", .int(agent.total)),
                    ("degraded", .bool(agent.degraded)), ("last_error", .opt(agent.lastError)),
                    ("last_error_severity", .opt(agent.lastErrorSeverity)),
                    ("offline_roots", .array(agent.offlineRoots.map { .string($0) })),
                    ("pending", .int(agent.pending)), ("paused_until", .opt(agent.pausedUntil.map(StatusTimestamp.string))),
                ])
            ),
            ("groups", .object(groups.map { ($0.id, .object([("items", .int($0.items)), ("bytes", .int($0.bytes))])) })),
            ("awaiting_review", .opt(awaitingReview)),
            (
                "trash",
                trash.map { .object([("count", .int($0.count)), ("bytes", .int($0.bytes)), ("in_trash_bytes", .opt($0.inTrashBytes))]) } ?? .null
            ),
            ("cleared", cleared?.json ?? .null),
            ("streak", streak.map { .object([("current", .int($0.current)), ("longest", .int($0.longest))]) } ?? .null),
            ("goal", goal.map { .object([("target", .int($0.target)), ("done_today", .int($0.doneToday))]) } ?? .null),
            ("next_reminder", .opt(nextReminder.map(StatusTimestamp.string))),
            ("models", models.map { .object([("done", .int($0.done)), ("total", .int($0.total))]) } ?? .null),
            ("moved_to_trash", movedToTrash?.json ?? .null),
        ])
    }

    /// The document with `updated_at` left out: two documents with the same content compare equal.
    public var content: String {
        var copy = self
        copy.updatedAt = Date(timeIntervalSince1970: 0)
        return copy.json.serialized()
    }

    /// Reads a document back from its JSON (nil when it is not a status document).
    public init?(json j: JSON) {
        guard j["schema_version"]?.intValue != nil, let a = j["agent"], let state = a["state"]?.stringValue else { return nil }
        updatedAt = j["updated_at"]?.stringValue.flatMap(StatusTimestamp.date) ?? Date(timeIntervalSince1970: 0)
        agent = Agent(
            state: AgentState(rawValue: state), pid: a["pid"]?.intValue, done: a["done"]?.intValue ?? 0, total: a["total"]?.intValue ?? 0,
            degraded: a["degraded"]?.boolValue ?? false, lastError: a["last_error"]?.stringValue,
            lastErrorSeverity: a["last_error_severity"]?.stringValue,
            offlineRoots: a["offline_roots"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            pending: a["pending"]?.intValue ?? 0, pausedUntil: a["paused_until"]?.stringValue.flatMap(StatusTimestamp.date))
        if case .object(let gs)? = j["groups"] {
            groups = StatusDocument.inGroupOrder(
                gs.map { Group(id: $0.0, items: $0.1["items"]?.intValue ?? 0, bytes: Int64($0.1["bytes"]?.intValue ?? 0)) })
        } else {
            groups = []
        }
        awaitingReview = j["awaiting_review"]?.intValue
        trash = j["trash"].flatMap { t in
            t["count"]?.intValue.map {
                Trash(count: $0, bytes: Int64(t["bytes"]?.intValue ?? 0), inTrashBytes: t["in_trash_bytes"]?.intValue.map(Int64.init))
            }
        }
        cleared = j["cleared"].flatMap(Cleared.init(json:))
        movedToTrash = j["moved_to_trash"].flatMap(Cleared.init(json:))
        streak = j["streak"].flatMap { s in s["current"]?.intValue.map { Streak(current: $0, longest: s["longest"]?.intValue ?? 0) } }
        goal = j["goal"].flatMap { g in g["target"]?.intValue.map { Goal(target: $0, doneToday: g["done_today"]?.intValue ?? 0) } }
        nextReminder = j["next_reminder"]?.stringValue.flatMap(StatusTimestamp.date)
        models = j["models"].flatMap { m in m["done"]?.intValue.map { Models(done: $0, total: m["total"]?.intValue ?? 0) } }
    }
}
