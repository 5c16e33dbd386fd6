import Foundation

/// What a status provider may look at.
public struct StatusInputs: Sendable {
    public var library: Library
    public var configuration: Configuration
    public var now: Date

    public init(library: Library, configuration: Configuration, now: Date) {
        self.library = library
        self.configuration = configuration
        self.now = now
    }
}

/// Where each feature plugs its part into the status document: one closure per field,
/// each returning nil (JSON `null`; `groups` → `{}`) until its feature lands.
///
/// To plug in, set your field in `StatusProviders.standard` below (one line per feature):
/// groups (issue 4) → `groups`, `awaitingReview`; review/trash/stats (issue 6) → `trash`,
/// `cleared`, `streak`, `goal`; reminders → `nextReminder`. Providers run on the agent's thread
/// with its database connection (reads only), after every change and every CLI write, so
/// keep them to a few indexed queries. A provider that throws leaves its field `null` and
/// the error is logged.
public struct StatusProviders: Sendable {
    public var groups: @Sendable (StatusInputs) throws -> [StatusDocument.Group]?
    public var awaitingReview: @Sendable (StatusInputs) throws -> Int?
    public var trash: @Sendable (StatusInputs) throws -> StatusDocument.Trash?
    public var cleared: @Sendable (StatusInputs) throws -> StatusDocument.Cleared?
    public var streak: @Sendable (StatusInputs) throws -> StatusDocument.Streak?
    public var goal: @Sendable (StatusInputs) throws -> StatusDocument.Goal?
    public var nextReminder: @Sendable (StatusInputs) throws -> Date?

    public init(groups: @escaping @Sendable (StatusInputs) throws -> [StatusDocument.Group]? = { _ in nil },
                awaitingReview: @escaping @Sendable (StatusInputs) throws -> Int? = { _ in nil },
                trash: @escaping @Sendable (StatusInputs) throws -> StatusDocument.Trash? = { _ in nil },
                cleared: @escaping @Sendable (StatusInputs) throws -> StatusDocument.Cleared? = { _ in nil },
                streak: @escaping @Sendable (StatusInputs) throws -> StatusDocument.Streak? = { _ in nil },
                goal: @escaping @Sendable (StatusInputs) throws -> StatusDocument.Goal? = { _ in nil },
                nextReminder: @escaping @Sendable (StatusInputs) throws -> Date? = { _ in nil }) {
        self.groups = groups
        self.awaitingReview = awaitingReview
        self.trash = trash
        self.cleared = cleared
        self.streak = streak
        self.goal = goal
        self.nextReminder = nextReminder
    }

    /// No feature fields: every one `null`.
    public static let none = StatusProviders()

    /// The providers of the features built so far. Each feature replaces its own line.
    public static var standard: StatusProviders {
        var p = StatusProviders()
        p.groups = { _ in nil }          // groups (issue 4): [StatusDocument.Group] per group kind
        p.awaitingReview = { _ in nil }  // groups/review (issues 4, 6): items waiting for a decision
        p.trash = { _ in nil }           // review (issue 6): SnapSort's trash
        p.cleared = { _ in nil }         // stats (issue 6)
        p.streak = { _ in nil }          // stats (issue 6)
        p.goal = { _ in nil }            // review (issue 6): session_goal and today's decisions
        p.nextReminder = { _ in nil }    // reminders
        return p
    }

    /// Builds the document: the agent part from the caller, the rest from the providers.
    public func document(agent: StatusDocument.Agent, inputs: StatusInputs, onError: (String, Error) -> Void = { _, _ in }) -> StatusDocument {
        func get<T>(_ name: String, _ f: (StatusInputs) throws -> T?) -> T? {
            do { return try f(inputs) } catch {
                onError(name, error)
                return nil
            }
        }
        return StatusDocument(
            updatedAt: inputs.now, agent: agent, groups: get("groups", groups) ?? [], awaitingReview: get("awaiting_review", awaitingReview),
            trash: get("trash", trash), cleared: get("cleared", cleared), streak: get("streak", streak), goal: get("goal", goal),
            nextReminder: get("next_reminder", nextReminder))
    }
}
