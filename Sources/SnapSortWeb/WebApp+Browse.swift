import Foundation
import SnapSortCore
import SnapSortSystem

/// What the page browses besides the decks: finished sessions (chapters), the Later stack's
/// resting items, the kept photos, and a version that changes when the library does.
extension WebApp {
    /// Chapters of finished sessions, newest first, each with its cover's thumbnail.
    func chaptersJSON(_ lib: Library) throws -> JSON {
        let chapters = try Chapter.all(library: lib)
        var out: [JSON] = []
        for c in chapters {
            let cover = try c.coverFileID.flatMap { id in try lib.item(id: id) }.flatMap { $0.status == .gone ? nil : $0 }
            out.append(
                .object([
                    ("id", .int(c.id)), ("deck", .string(c.deckID)), ("title", .string(c.title)),
                    ("finished_at", .double(c.finishedAt)), ("decisions", .int(c.decisions)), ("bytes", .int(c.bytes)),
                    ("cover", .opt(cover.map { "/media/\($0.id)/thumb" })),
                ]))
        }
        return .object([("chapters", .array(out))])
    }

    /// The Later stack: every deferred item with when it comes back (`back_at`); `resting`
    /// ones are not in the Later deck yet.
    func laterJSON(_ lib: Library) throws -> JSON {
        let now = options.clock.now().timeIntervalSince1970
        var resting: [JSON] = [], back: [JSON] = []
        for d in try lib.deferredItems() {
            let e = listed(d.item, extra: [("back_at", .opt(d.backAt)), ("deferrals", .int(d.deferrals))])
            if let until = d.backAt, until > now { resting.append(e) } else { back.append(e) }
        }
        return .object([("resting", .array(resting)), ("back", .array(back))])
    }

    /// The kept items, most recently kept first, `limit` from `offset`, and how many there are.
    func keptJSON(_ lib: Library, offset: Int, limit: Int) throws -> JSON {
        let items = try lib.keptItems(offset: offset, limit: limit).map { listed($0.item, extra: [("kept_at", .opt($0.keptAt))]) }
        return .object([("total", .int(try lib.keptCount())), ("offset", .int(offset)), ("items", .array(items))])
    }

    /// One listed item: what a grid shows of it.
    func listed(_ item: Item, extra: [(String, JSON)]) -> JSON {
        .object(
            [
                ("id", .int(item.id)), ("name", .string(item.name)), ("kind", .string(item.kind.rawValue)),
                ("folder", .string(Self.folder(of: item.path, home: options.env.home))), ("bytes", .int(item.bytes)),
                ("taken_at", .opt(item.takenAt)), ("thumb", .string("/media/\(item.id)/thumb")),
                ("display", .string("/media/\(item.id)/display")), ("original", .string("/media/\(item.id)/original")),
                ("format", .opt(item.format)), ("status", .string(item.status.rawValue)),
            ] + extra)
    }

    /// A version of the library as this page sees it: SQLite's `data_version` (it changes when
    /// another connection — the agent's scan, the terminal — commits) and the page's own
    /// changes (every tab shares this server's connection). The page polls it, cheaply, and
    /// refreshes what it shows when it moves.
    func versionJSON(_ lib: Library) throws -> JSON {
        let data = try lib.dataVersion()
        return .object([("version", .string("\(data).\(changes.withLock { $0 })"))])
    }
}
