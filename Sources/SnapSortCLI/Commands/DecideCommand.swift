import Foundation
import SnapSortCore
import SnapSortSystem

/// `snapsort decide trash|keep|skip|later FILE…`
enum DecideCommand: Command {
    static let name = "decide"
    static let summary = "decide on items: trash (staged), keep, skip or later"
    static let usage = """
        Usage: snapsort decide trash|keep|skip|later FILE…

        Records a decision on each FILE (each one its own undo step; see 'snapsort undo').
          trash   stage for the Trash: the file stays in place until 'snapsort trash commit'
          keep    keep it (a bookmark)
          skip    not now: it comes back later in the deck
          later   leave it for now: it returns after 7 days; after three deferrals SnapSort
                  suggests keeping it
        Exit: 0 ok, 1 a FILE is not in the library (nothing is recorded), 2 usage.
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let words = try args.positionals()
        guard let first = words.first, let decision = Decision(rawValue: first) else {
            throw UsageError("decide takes trash, keep, skip or later, then FILE…")
        }
        let files = Array(words.dropFirst())
        guard !files.isEmpty else { throw UsageError("decide \(first) needs at least one FILE") }
        let library = try ctx.openLibrary()
        let ids = try files.map { try ctx.libraryItem($0, library).id }
        let clock = Clock.live
        for (file, id) in zip(files, ids) {
            let o = try Review.decide(decision, fileID: id, library: library, clock: clock)
            if !ctx.quiet { ctx.out("\(decision.rawValue)\t\(field(ctx.absolute(file)))") }
            for m in o.milestones { ctx.out("milestone reached: \(Context.milestoneTitle(m))") }
        }
        return ExitCode.ok
    }
}

// Helpers shared by the review commands.
extension Context {
    /// The live library item at FILE (absolute or relative), or exit 1.
    func libraryItem(_ file: String, _ library: Library) throws -> Item {
        let path = absolute(file)
        if let item = try library.item(path: path) { return item }
        // Say why: a folder, a name that is not there, or a file the library does not know yet.
        switch try? FileSystem.status(path) {
        case let st? where st.isDirectory:
            throw CommandFailure(
                ExitCode.error,
                "\(field(file)) is a folder; decisions are on files ('snapsort decks --show' lists a deck's, 'snapsort review' goes through them)")
        case nil:
            throw CommandFailure(ExitCode.error, "\(field(file)): no such file")
        default:
            throw CommandFailure(ExitCode.error, "\(field(file)): not in the library (run 'snapsort scan' first)")
        }
    }

    /// The configured session goal.
    var sessionGoal: Int { Configuration.load(env).0.sessionGoal }

    /// The trash environment of this process.
    var trashEnvironment: TrashEnvironment { TrashEnvironment(environment: env) }

    static func milestoneTitle(_ id: String) -> String {
        switch id {
        case "cleared_100mb": "first 100 MB cleared"
        case "cleared_1gb": "1 GB cleared"
        case "cleared_10gb": "10 GB cleared"
        case "reviewed_100": "100 items reviewed"
        case "reviewed_1000": "1 000 items reviewed"
        case "reviewed_10000": "10 000 items reviewed"
        case "streak_7": "a 7-day streak"
        case "streak_30": "a 30-day streak"
        default: id
        }
    }
}
