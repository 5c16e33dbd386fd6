import Foundation

/// The smart groups as `snapsort groups` and the page's groups list show them: each group's
/// counts and sizes, and, for a model group the last tier-2 pass could not fill, why. One value;
/// each front end writes its own words and keys from it (the CLI's `--json` keys and the page's
/// API are contracts of their own).
public struct GroupsOverview: Sendable {
    /// One group: its counts, and why it is unavailable (nil: it is not).
    public struct Entry: Sendable {
        public var summary: GroupSummary
        public var unavailable: String?
    }

    /// Every group, in `GroupID` order.
    public var groups: [Entry]

    /// Reads the overview.
    public static func load(library: Library) throws -> GroupsOverview {
        let unavailable = try unavailableGroups(library)
        return GroupsOverview(groups: try library.groupSummaries().map { Entry(summary: $0, unavailable: unavailable[$0.id]) })
    }

    /// The model groups the last tier-2 pass could not fill, with why.
    static func unavailableGroups(_ library: Library) throws -> [GroupID: String] {
        guard let state = try library.modelsAvailability() else { return [:] }
        var out: [GroupID: String] = [:]
        if !state.available {
            for g in [GroupID.people, .pets, .food, .scenery] { out[g] = state.problem ?? "the local models are off" }
        } else if let why = state.classesProblem {
            for g in [GroupID.pets, .food, .scenery] { out[g] = why }
        }
        return out
    }
}
