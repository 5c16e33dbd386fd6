import Foundation
import SnapSortCore

/// `snapsort decks`
enum DecksCommand: Command {
    static let name = "decks"
    static let summary = "list review decks with their progress"
    static let usage = """
        Usage: snapsort decks [--json] [--show DECK]

        Lists the decks: On This Day, the later stack, Rediscover, smart groups, library filters
        (photos, videos, screenshots, selfies, live-photos, favourites, edited, camera=MODEL,
        each combinable with a year as filter:NAME@YEAR) and months, each with reviewed/total
        and the bytes staged for the Trash. --show DECK lists a deck's cards.
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let json = args.flag("--json")
        let show = try args.option("--show")
        guard try args.positionals().isEmpty else { throw UsageError("decks takes no arguments") }
        let library = try ctx.openLibrary()
        try LibraryUpdate(library: library, clock: .live).noticeRestores()
        if let show {
            guard let id = DeckID(show) else { throw UsageError("unknown deck '\(show)'") }
            // An unknown group is a misspelt deck as an unknown filter is (exit 2, not 1).
            if case .group(let g) = id, GroupID(rawValue: g) == nil {
                throw UsageError("unknown group '\(g)' (groups: \(GroupID.allCases.map(\.rawValue).joined(separator: " ")))")
            }
            let deck = try Decks.build(id, library: library, clock: .live)
            if json {
                ctx.out(
                    JSON.object([
                        ("id", .string(deck.id.description)), ("title", .string(deck.title)),
                        (
                            "items",
                            .array(
                                deck.items.map { c in
                                    .object([
                                        ("id", .int(c.item.id)), ("path", .string(c.item.path)), ("bytes", .int(c.item.bytes)),
                                        ("taken_at", .opt(c.item.takenAt)), ("seen_before", .bool(c.seenBefore)),
                                        ("suggest_keep", .bool(c.suggestKeep)),
                                    ])
                                })
                        ),
                    ]).serialized(pretty: true))
            } else {
                ctx.out("\(deck.title) (\(deck.id)): \(counted(deck.items.count, "card"))")
                for c in deck.items {
                    ctx.out("  \(field(c.item.path))" + (c.seenBefore ? "  [seen before]" : "") + (c.suggestKeep ? "  [suggest keep]" : ""))
                }
            }
            return ExitCode.ok
        }
        let decks = try Decks.overview(library: library, clock: .live)
        if json {
            ctx.out(
                JSON.array(
                    decks.map { d in
                        .object([
                            ("id", .string(d.id.description)), ("title", .string(d.title)), ("waiting", .int(d.waiting)),
                            ("reviewed", .int(d.progress.reviewed)), ("total", .int(d.progress.total)),
                            ("bytes_to_gain", .int(d.progress.bytesToGain)),
                        ])
                    }
                ).serialized(pretty: true))
            return ExitCode.ok
        }
        if decks.isEmpty { ctx.out("No decks yet: run 'snapsort scan' first.") }
        // Columns as wide as their longest entry: an id is typed back ('review --deck ID'),
        // and a fixed width cut "filter:camera=Canon EOS R6" short.
        let idWidth = max(24, (decks.map { $0.id.description.count }.max() ?? 0) + 2)
        let titleWidth = max(22, (decks.map { $0.title.count }.max() ?? 0) + 2)
        for d in decks {
            let id = d.id.description.padding(toLength: idWidth, withPad: " ", startingAt: 0)
            let title = d.title.padding(toLength: titleWidth, withPad: " ", startingAt: 0)
            // Every card of the later deck was "reviewed" once (deferred): what it has is cards
            // back from their week and cards still resting ("1 waiting, 1/1 reviewed" read as a
            // contradiction).
            let counts =
                d.id == .later
                ? "\(d.waiting) back from later"
                    + (d.progress.total > d.waiting ? ", \(d.progress.total - d.waiting) resting until their week is up" : "")
                    // A deck of what was reviewed already (Favourites and kept) waits for nothing:
                    // "101 waiting, 101/101 reviewed" read as a contradiction.
                : d.waiting > 0 && d.progress.reviewed >= d.progress.total
                    ? "\(d.waiting) to look back on, all reviewed"
                    : "\(d.waiting) waiting, \(d.progress.reviewed)/\(d.progress.total) reviewed"
            ctx.out("\(id)\(title)\(counts)" + (d.progress.bytesToGain > 0 ? ", \(humanBytes(d.progress.bytesToGain)) staged" : ""))
        }
        return ExitCode.ok
    }
}
