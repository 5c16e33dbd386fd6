import Foundation
import SnapSortCore

/// `snapsort similar keeper FILE | not-similar GROUP | trash-rest GROUP|--all | marks | unmark MARK`
enum SimilarCommand: Command {
    static let name = "similar"
    static let summary = "choose keepers in Similar Shots, split groups, trash the rest"
    static let usage = """
        Usage: snapsort similar keeper FILE
               snapsort similar not-similar GROUP
               snapsort similar trash-rest GROUP | --all
               snapsort similar marks
               snapsort similar unmark MARK

        keeper       makes FILE the keeper of its Similar Shots group (remembered; one undo
                     step: 'snapsort undo' gives the group its keeper before)
        not-similar  remembers that GROUP's photos are not similar: the group never comes back
                     (one undo step: 'snapsort undo' forgets it and the photos are regrouped)
        marks        lists the "not similar" marks, newest first: MARK, when, the photos
        unmark       forgets mark MARK (as listed, e.g. m20261202065246): its photos may form a set
                     again (one undo step: 'snapsort undo' puts the mark back)
        trash-rest   stages every photo of GROUP (or of every group) but its keeper for the
                     Trash; each one is its own undo step
        GROUP is the id 'report' shows as similar_group (e.g. s42).
        Exit: 0 ok, 1 unknown FILE or GROUP, 2 usage.
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let all = args.flag("--all")
        var words = try args.positionals()
        guard !words.isEmpty else { throw UsageError("similar needs keeper, not-similar, trash-rest, marks or unmark") }
        let action = words.removeFirst()
        let library = try ctx.openLibrary()
        let clock = Clock.live
        do {
            switch action {
            case "keeper":
                guard words.count == 1 else { throw UsageError("similar keeper takes one FILE") }
                let item = try ctx.libraryItem(words[0], library)
                let (set, unstaged) = try SimilarReview.chooseKeeper(fileID: item.id, library: library, clock: clock)
                ctx.out("keeper of \(set.id): \(field(item.path))" + (unstaged ? " (no longer staged for the Trash)" : ""))
            case "not-similar":
                guard words.count == 1 else { throw UsageError("similar not-similar takes one GROUP") }
                let set = try SimilarReview.markNotSimilar(setID: words[0], library: library, clock: clock)
                ctx.out("\(set.id): \(set.members.count) photos marked not similar")
            case "trash-rest":
                let outcomes: [DecisionOutcome]
                if all {
                    guard words.isEmpty else { throw UsageError("trash-rest takes GROUP or --all, not both") }
                    outcomes = try SimilarReview.trashRestOfAll(library: library, clock: clock)
                } else {
                    guard words.count == 1 else { throw UsageError("similar trash-rest takes one GROUP or --all") }
                    outcomes = try SimilarReview.trashRest(setID: words[0], library: library, clock: clock)
                }
                for o in outcomes { ctx.out("trash\t\(field(try library.item(id: o.fileID)?.path ?? "item \(o.fileID)"))") }
                // "Staged 4 · left 1 keeper": what a bulk action did and left, as the page says it.
                ctx.out("\(try SimilarReview.summary(of: outcomes, library: library)) ('snapsort trash' lists them; 'snapsort undo' takes them back)")
            case "marks":
                guard words.isEmpty else { throw UsageError("similar marks takes no argument") }
                for m in try library.notSimilarMarks() {
                    let names = try m.fileIDs.map { id in try library.item(id: id).map { field($0.name) } ?? "item \(id)" }
                    ctx.out("\(m.id)\t\(m.decidedAt)\t\(m.fileIDs.count) photos\t\(names.joined(separator: ", "))")
                }
            case "unmark":
                guard words.count == 1 else { throw UsageError("similar unmark takes one MARK") }
                guard let n = try library.removeNotSimilarMark(words[0], at: clock.now()) else {
                    throw CommandFailure(ExitCode.error, "no \"not similar\" mark '\(words[0])' ('snapsort similar marks' lists them)")
                }
                ctx.out("\(words[0]): \(n) photos may form a set again")
            default:
                throw UsageError("unknown similar action '\(action)'")
            }
        } catch let e as ReviewError {
            throw CommandFailure(ExitCode.error, e.message)
        }
        return ExitCode.ok
    }
}
