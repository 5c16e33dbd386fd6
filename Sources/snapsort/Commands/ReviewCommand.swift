import Foundation
import Glibc
import SnapSortCore
import SnapSortSystem

/// `snapsort review`: a terminal deck.
enum ReviewCommand: Command {
    static let name = "review"
    static let summary = "review a deck in the terminal (← trash, → keep, ↓ skip, ↑ later, u undo, q quit)"
    static let usage = """
        Usage: snapsort review [--deck DECK] [--new]

        Shows one photo at a time in the terminal's best graphics mode (kitty, iTerm2, sixels,
        or Unicode blocks — over ssh too) and records a decision per key:
          ←  trash (staged)   →  keep   ↓  skip   ↑  later   u  undo   q  quit
        DECK is an id from 'snapsort decks' (e.g. month:2024-05, filter:screenshots@2023,
        on-this-day, later, rediscover). Without --deck the last unfinished session resumes,
        else the later stack, else a rediscovery deck. --new starts the deck afresh.
        Needs a terminal (exit 2 otherwise).
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let deckText = try args.option("--deck")
        let fresh = args.flag("--new")
        guard try args.positionals().isEmpty else { throw UsageError("review takes no FILE") }
        guard Terminal.isTerminal(0), Terminal.isTerminal(1) else { throw UsageError("review needs a terminal") }
        let library = try ctx.openLibrary()
        let clock = Clock.live
        try Trash.noticeRestores(library: library, clock: clock)
        var session = try pickSession(deckText, fresh: fresh, library: library, clock: clock, goal: ctx.sessionGoal)
        let term = Terminal()
        try term.enterRawMode()
        defer {
            term.write("\u{1B}[?25h\u{1B}[0m\n")
            term.restore()
        }
        term.write("\u{1B}[?25l")
        let mode = Chafa.detectMode(environment: ctx.env.variables)
        var message = ""
        while true {
            guard let current = session.current, let item = try library.item(id: current) else {
                if session.current != nil {
                    session.position += 1  // the item left the library meanwhile
                    continue
                }
                term.write("\u{1B}[2J\u{1B}[H\(session.title): deck done — \(session.decisions) decisions. Press any key (u undo).\r\n")
                if case .character("u") = term.readKey(), let o = try Review.undo(library: library, clock: clock), let s = o.session {
                    session = s
                    continue
                }
                return ExitCode.ok
            }
            draw(term, session: session, item: item, library: library, mode: mode, env: ctx.env, message: message)
            message = ""
            let key = term.readKey()
            let decision: Decision?
            switch key {
            case .left: decision = .trash
            case .right: decision = .keep
            case .down: decision = .skip
            case .up: decision = .later
            case .character("u"), .character("U"):
                if let o = try Review.undo(library: library, clock: clock) {
                    if let s = o.session, s.id == session.id { session = s }
                    message = "undid \(o.undone?.rawValue ?? "decision") on \(o.path.map { String($0.split(separator: "/").last ?? "") } ?? "")"
                } else {
                    message = "nothing to undo"
                }
                continue
            case .character("q"), .character("Q"), .end, .escape:
                return ExitCode.ok
            default:
                continue
            }
            guard let decision else { continue }
            let o = try Review.decide(decision, fileID: item.id, library: library, clock: clock, session: session.id)
            if let s = o.session { session = s }
            message = "\(decision.rawValue): \(item.name)"
            if o.chapter != nil {
                message += " — goal met, chapter saved (\(session.decisions) decisions)"
            }
            for m in o.milestones { message += " — milestone: \(Context.milestoneTitle(m))" }
        }
    }

    static func pickSession(_ deckText: String?, fresh: Bool, library: Library, clock: Clock, goal: Int) throws -> DeckSession {
        if let deckText {
            guard var id = DeckID(deckText) else { throw UsageError("unknown deck '\(deckText)'; see snapsort decks") }
            if case .rediscovery(0) = id { id = .rediscovery(seed: 0) }
            if !fresh, let s = try DeckSession.open(deckID: id.description, library: library), s.current != nil { return s }
            let deck = try Decks.build(id, library: library, clock: clock)
            guard !deck.items.isEmpty else { throw CommandFailure(ExitCode.ok, "\(deck.title): nothing waiting for review") }
            return try DeckSession.start(deck, library: library, clock: clock, goal: goal)
        }
        if !fresh, let s = try DeckSession.recent(library: library, limit: 1).first, s.finishedAt == nil, s.current != nil { return s }
        let later = try Decks.build(.later, library: library, clock: clock)
        let deck = later.items.isEmpty ? try Decks.build(.rediscovery(seed: 0), library: library, clock: clock) : later
        guard !deck.items.isEmpty else { throw CommandFailure(ExitCode.ok, "nothing waiting for review") }
        return try DeckSession.start(deck, library: library, clock: clock, goal: goal)
    }

    static func draw(_ term: Terminal, session: DeckSession, item: Item, library: Library, mode: Chafa.Mode, env: Environment, message: String) {
        let size = term.size()
        var out = "\u{1B}[2J\u{1B}[H"
        out += "\u{1B}[1m\(session.title)\u{1B}[0m  \(session.decisions)/\(session.goal) toward today's goal · \(session.remaining) left\r\n"
        let imageRows = max(4, size.rows - 5)
        if let bitmap = loadPreview(item) {
            let cell = size.pixelWidth > 0 ? (width: size.pixelWidth / size.columns, height: size.pixelHeight / size.rows) : nil
            let art = Chafa.render(bitmap, columns: size.columns, rows: imageRows, environment: env.variables, cellPixels: cell, mode: mode)
            out += art.replacingOccurrences(of: "\n", with: "\r\n") + "\r\n"
        } else {
            out += "\r\n   (\(item.kind), no preview)\r\n"
        }
        var info = "\(item.name) · \(item.takenAt?.prefix(10) ?? "undated") · \(humanBytes(item.bytes))"
        if let d = try? Review.decision(for: item.id, library: library), d.laterCount > 0 {
            info += " · seen before (deferred \(d.laterCount)×)"
            if d.suggestsKeep { info += " — keep it?" }
        }
        out += info + "\r\n"
        out += "\u{1B}[2m← trash  → keep  ↓ skip  ↑ later  u undo  q quit\u{1B}[0m"
        if !message.isEmpty { out += "   \(message)" }
        term.write(out)
    }

    /// A decoded preview no larger than needed (JPEG DCT scaling), or nil.
    static func loadPreview(_ item: Item) -> Bitmap? {
        guard item.kind == "photo", let data = try? FileSystem.readFile(item.path, limit: 200 << 20) else { return nil }
        if item.format == "jpeg", let h = try? JPEG.readHeader(data) {
            let longest = max(h.width, h.height)
            let scale = [1, 2, 4, 8].first { longest * $0 / 8 >= 800 } ?? 8
            guard var b = try? JPEG.decode(data, scaleNumerator: scale, maxHeaderPixels: 500_000_000, maxOutputPixels: 40_000_000).bitmap
            else { return nil }
            if b.channels == 1 { b = Bitmap(width: b.width, height: b.height, channels: 3, pixels: b.pixels.flatMap { [$0, $0, $0] }) }
            return b
        }
        if item.format == "png" { return try? PNG.decode(data, channels: 3, maxPixels: 40_000_000) }
        return nil
    }
}
