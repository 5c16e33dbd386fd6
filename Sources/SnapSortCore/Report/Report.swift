import Foundation

/// Group membership of one item as the report shows it (filled by the groups feature).
public struct ReportGroups: Sendable {
    public var groups: [String] = []
    public var similarGroup: String?
    public var keeper = false
    public var duplicateOf: String?
    public init() {}
}

/// `snapsort report --jsonl`: one JSON object per file.
public enum Report {
    /// A source of group memberships by item id; the engine alone has none.
    public typealias GroupLookup = (Item) -> ReportGroups

    /// The JSON object of one item.
    public static func json(_ item: Item, groups: ReportGroups = ReportGroups()) -> JSON {
        var o: [(String, JSON)] = [
            ("path", .string(item.path)),
            ("kind", .string(item.kind.rawValue)),
            ("format", .opt(item.format)),
            ("bytes", .int(item.bytes)),
            ("taken_at", .opt(item.takenAt)),
            ("taken_source", .opt(item.takenSource)),
            ("width", .opt(item.width)),
            ("height", .opt(item.height)),
            ("status", .string(item.status.rawValue)),
            ("reason", item.reason.map { JSON.object([("code", .string($0.code.rawValue)), ("text", .string($0.text))]) } ?? .null),
        ]
        if item.kind == .video { o.append(("duration_s", .opt(item.durationSeconds))) }
        o.append(
            (
                "camera",
                (item.make != nil || item.model != nil)
                    ? .object([("make", .opt(item.make)), ("model", .opt(item.model)), ("lens", .opt(item.lens))]) : .null
            ))
        o.append(("metrics", item.metrics?.json ?? .null))
        let damaged = item.status != .ok
        o.append(("groups", .array(damaged ? [] : groups.groups.map { .string($0) })))
        o.append(("similar_group", damaged ? .null : .opt(groups.similarGroup)))
        o.append(("keeper", .bool(!damaged && groups.keeper)))
        o.append(("duplicate_of", damaged ? .null : .opt(groups.duplicateOf)))
        return .object(o)
    }

    /// Writes the report for `items`, one line each.
    public static func write(_ items: [Item], groups: GroupLookup? = nil, to out: (String) -> Void) {
        for item in items {
            out(json(item, groups: groups?(item) ?? ReportGroups()).serialized())
        }
    }
}
