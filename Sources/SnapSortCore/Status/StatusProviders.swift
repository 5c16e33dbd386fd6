import Foundation
import Synchronization

/// Computes the review feature's `StatusSnapshot` once per document (it feeds five fields).
final class ReviewSnapshotCache: Sendable {
    private let cached = Mutex<(Date, String, StatusSnapshot)?>(nil)

    func get(_ i: StatusInputs) throws -> StatusSnapshot? {
        if let c = cached.withLock({ $0 }), c.0 == i.now, c.1 == i.library.path { return c.2 }
        let now = i.now
        let s = try Stats.statusSnapshot(library: i.library, clock: Clock { now }, goal: i.configuration.sessionGoal)
        cached.withLock { $0 = (now, i.library.path, s) }
        return s
    }
}

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
/// groups (issue 4) → `groups` (wired to `Library.groupSummaries()`); review/trash/stats
/// (issue 6) → `awaitingReview`, `trash`, `cleared`, `streak`, `goal` (wired to
/// `Stats.statusSnapshot`); reminders → `nextReminder` (wired to `ReminderService.nextReminder`). Providers run on the agent's thread
/// with its database connection (reads only), after every change and every CLI write, so
/// keep them to a few indexed queries. A provider that throws leaves its field `null` and
/// the error is logged.
public struct StatusProviders: Sendable {
    public var groups: @Sendable (StatusInputs) throws -> [StatusDocument.Group]? = { _ in nil }
    public var awaitingReview: @Sendable (StatusInputs) throws -> Int? = { _ in nil }
    public var trash: @Sendable (StatusInputs) throws -> StatusDocument.Trash? = { _ in nil }
    public var cleared: @Sendable (StatusInputs) throws -> StatusDocument.Cleared? = { _ in nil }
    public var movedToTrash: @Sendable (StatusInputs) throws -> StatusDocument.Cleared? = { _ in nil }
    public var streak: @Sendable (StatusInputs) throws -> StatusDocument.Streak? = { _ in nil }
    public var goal: @Sendable (StatusInputs) throws -> StatusDocument.Goal? = { _ in nil }
    public var nextReminder: @Sendable (StatusInputs) throws -> Date? = { _ in nil }
    public var models: @Sendable (StatusInputs) throws -> StatusDocument.Models? = { _ in nil }

    /// Every field `null`; set the ones a feature provides.
    public init() {}

    /// No feature fields: every one `null`.
    public static let none = StatusProviders()

    /// The providers of the features built so far. Each feature replaces its own line.
    public static var standard: StatusProviders {
        var p = StatusProviders()
        // Groups (issue 4): items and bytes per group, in the groups feature's order.
        p.groups = { i in try i.library.groupSummaries().map { StatusDocument.Group(id: $0.id.rawValue, items: $0.items, bytes: $0.bytes) } }
        // Review, trash and stats (issue 6): one snapshot per document serves five fields.
        let snapshot = ReviewSnapshotCache()
        p.awaitingReview = { i in try snapshot.get(i)?.awaitingReview }
        p.trash = { i in try snapshot.get(i).map { StatusDocument.Trash(count: $0.trashCount, bytes: $0.trashBytes, inTrashBytes: $0.inTrashBytes) } }
        // Cleared: left the disk; moved: what commits moved to the Trash (issue 43, item 4).
        p.cleared = { i in try snapshot.get(i)?.cleared }
        p.movedToTrash = { i in try snapshot.get(i)?.moved }
        p.streak = { i in try snapshot.get(i).map { StatusDocument.Streak(current: $0.streak.current, longest: $0.streak.longest) } }
        p.goal = { i in try snapshot.get(i).map { StatusDocument.Goal(target: $0.goalTarget, doneToday: $0.doneToday) } }
        // Reminders: the next reminder.s time.
        p.nextReminder = { i in ReminderService.nextReminder(library: i.library, configuration: i.configuration, now: i.now) }
        // The models' pass (issue 41): counted again only when a file's row or a tier-2 result
        // changed (`Library.modelsProgress`).
        p.models = { i in try i.library.modelsProgress().map { StatusDocument.Models(done: $0.done, total: $0.total) } }
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
            nextReminder: get("next_reminder", nextReminder), models: get("models", models),
            movedToTrash: get("moved_to_trash", movedToTrash))
    }
}
