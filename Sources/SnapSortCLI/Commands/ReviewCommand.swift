import Foundation
import SnapSortCore
import SnapSortSystem

/// `snapsort review`: a terminal deck.
enum ReviewCommand: Command {
    static let name = "review"
    static let summary = "review a deck in the terminal (← trash, → keep, ↓ skip, ↑ later, Ctrl+Z or u undo, q quit)"
    static let usage = """
        Usage: snapsort review [--deck DECK] [--new]

        Shows one photo at a time in the terminal's best graphics mode (kitty, iTerm2, sixels,
        or Unicode blocks — over ssh too) and records a decision per key:
          ←  trash (staged)   →  keep   ↓  skip   ↑  later   Ctrl+Z or u  undo   q  quit
          ?  the keys
        The header counts today's decisions toward the session goal, as 'snapsort stats' does.
        A file deleted since the scan is skipped; one changed since is marked on its card.
        A resize redraws at once; SIGTERM, SIGHUP or SIGQUIT end the review like q (exit 0).
        Outside a UTF-8 locale (LC_ALL, LC_CTYPE, LANG) the screen is plain ASCII.
        DECK is an id from 'snapsort decks' (e.g. month:2024-05, filter:screenshots@2023,
        on-this-day, later, rediscover). Without --deck the last unfinished session resumes,
        else the later stack, else a rediscovery deck. --new starts the deck afresh.
        Needs a terminal (exit 2 otherwise).
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let deckText = try args.option("--deck")
        let fresh = args.flag("--new")
        guard try args.positionals().isEmpty else { throw UsageError("review takes no FILE") }
        guard ctx.console.isTerminal(0), ctx.console.isTerminal(1) else { throw UsageError("review needs a terminal") }
        guard ctx.env.variables["TERM"] != "dumb" else {
            throw UsageError("review draws on the whole screen, which this terminal (TERM=dumb) cannot do; 'snapsort open' opens the review page")
        }
        let library = try ctx.openLibrary()
        let clock = Clock.live
        try LibraryUpdate(library: library, clock: clock).noticeRestores()
        var session = try pickSession(deckText, fresh: fresh, library: library, clock: clock, goal: ctx.sessionGoal)
        // Signals arrive through the key loop (man 2 signalfd): a resize redraws at once, a
        // request to stop leaves through the same door as q, so the terminal is restored.
        // Made before chafa starts its worker threads, which inherit the blocked mask.
        let stopSignals = [SIGTERM, SIGQUIT, SIGHUP, SIGINT]
        let signals = try SignalFD([SIGWINCH] + stopSignals)
        SignalFD.restoreDefaultActions([SIGWINCH] + stopSignals)
        let term = Terminal()
        try term.enterRawMode()
        // The deck draws on the alternate screen (as less and vim do): on leaving, the shell's
        // screen comes back as it was, and one line says what the session did and what waits
        // for a commit (the last card's picture stayed in the scrollback, and nothing said the
        // staged photos are still in place).
        let decidedBefore = session.decisions
        var decidedHere: Int { session.decisions - decidedBefore }
        defer {
            term.write("\u{1B}[?25h\u{1B}[0m\u{1B}[?1049l")
            term.restore()
            if !ctx.quiet { ctx.out(Self.farewell(decided: decidedHere, library: library)) }
        }
        term.write("\u{1B}[?1049h\u{1B}[?25l")
        let screen = ReviewScreen(
            term: term, library: library, clock: clock, goal: ctx.sessionGoal, env: ctx.env,
            mode: Chafa.detectMode(environment: ctx.env.variables),
            glyphs: Terminal.usesUTF8(environment: ctx.env.variables) ? .unicode : .ascii)
        var note = ReviewNote()
        while true {
            guard let current = session.current else {
                screen.drawDone(session: session, note: note)
                switch term.readEvent(signals: signals) {
                case .resized: continue
                case .key(.character("u")), .key(.character("U")), .key(.character(Terminal.ctrlZ)):
                    // Only this deck's last decision: one made meanwhile in another window stays.
                    if let o = try Review.undo(library: library, clock: clock, session: session.id), let s = o.session {
                        session = s
                        note = ReviewNote()
                        continue
                    }
                    note = ReviewNote(Self.nothingToUndoHere)
                    continue
                case .key, .signal: return ExitCode.ok
                }
            }
            guard let item = try library.item(id: current), item.status != .gone else {
                // The item left the library meanwhile.
                session = try passOver(current, session, library: library, clock: clock)
                continue
            }
            let disk = item.diskState()
            if disk == .gone {
                // Deleted behind the review's back: nothing to look at or to decide.
                note = ReviewNote(name: item.name, " is gone from disk: skipped")
                session = try passOver(current, session, library: library, clock: clock)
                continue
            }
            // Decided in another window (the page, 'snapsort decide') since this deck was dealt:
            // passed over, never shown as undecided for a key to overwrite.
            // The favourites deck is made of kept photos: a keep is why a card is there, not a
            // decision to pass over (its review ended at once, "deck done — 0 decisions").
            let keptDeck = DeckID(session.deckID).map { if case .filter(.favourites, _) = $0 { true } else { false } } ?? false
            if let d = try Review.decision(for: item.id, library: library), d.sessionID != session.id, !d.waits(at: clock.now(), item: item),
                !(keptDeck && d.decision == .keep)
            {
                note = ReviewNote(name: item.name, " was decided elsewhere (\(d.decision.rawValue)): passed over")
                session = try passOver(current, session, library: library, clock: clock)
                continue
            }
            let shown = screen.draw(session: session, item: item, disk: disk, note: note)
            let key: Terminal.Key
            switch term.readEvent(signals: signals) {
            case .resized: continue
            case .signal: return ExitCode.ok
            case .key(let k): key = k
            }
            note = ReviewNote()
            // A card the window is too small to show is not decided on.
            if !shown && [.left, .right, .down, .up].contains(key) {
                note = ReviewNote("enlarge the window to see the card before deciding")
                continue
            }
            let decision: Decision
            switch key {
            case .left: decision = .trash
            case .right: decision = .keep
            case .down: decision = .skip
            case .up: decision = .later
            case .character("u"), .character("U"), .character(Terminal.ctrlZ):
                if let o = try Review.undo(library: library, clock: clock, session: session.id) {
                    if let s = o.session, s.id == session.id { session = s }
                    note = ReviewNote(
                        "undid \(o.undone?.rawValue ?? "decision") on ", name: o.path.map { String($0.split(separator: "/").last ?? "") } ?? "")
                } else {
                    note = ReviewNote(Self.nothingToUndoHere)
                }
                continue
            case .character("q"), .character("Q"), .end, .escape:
                return ExitCode.ok
            default:
                // ? and h ask for the keys; any other key gets them too rather than nothing.
                note = ReviewNote(screen.glyphs.help)
                continue
            }
            let o = try Review.decide(decision, fileID: item.id, library: library, clock: clock, session: session.id)
            if let s = o.session { session = s }
            note = Self.decided(
                decision, o, name: item.name, decisions: session.decisions, glyphs: screen.glyphs, library: library, clock: clock, ctx)
        }
    }

    /// The note after a decision: what it was, and a chapter or milestone it made.
    static func decided(
        _ decision: Decision, _ o: DecisionOutcome, name: String, decisions: Int, glyphs: ReviewGlyphs, library: Library, clock: Clock,
        _ ctx: Context
    ) -> ReviewNote {
        var after = ""
        if o.chapter != nil {
            let met = (try? Stats.doneToday(library: library, clock: clock)) ?? 0 >= ctx.sessionGoal
            after += "\(glyphs.dash)\(met ? "goal met" : "deck done"), chapter saved (\(counted(decisions, "decision")))"
        }
        for m in o.milestones { after += "\(glyphs.dash)milestone: \(Context.milestoneTitle(m))" }
        return ReviewNote("\(decision.rawValue): ", name: name, after)
    }

    /// The line left on the shell's screen: this run's decisions, and what is staged.
    static func farewell(decided: Int, library: Library) -> String {
        var line = "review: \(counted(max(0, decided), "decision")) this time"
        if let staged = try? Trash.staged(library: library), !staged.isEmpty {
            let bytes = staged.reduce(Int64(0)) { $0 + $1.bytes }
            line += "; \(counted(staged.count, "photo")) staged for the Trash (\(humanBytes(bytes))), still in place until 'snapsort trash commit'"
        }
        return line
    }

    static let nothingToUndoHere = "nothing of this deck to undo (a decision made elsewhere since: 'snapsort undo' takes it back)"

    /// Moves the session past an item that cannot be reviewed (stored, so a resume does not
    /// stop on it again).
    static func passOver(_ fileID: Int64, _ session: DeckSession, library: Library, clock: Clock) throws -> DeckSession {
        if let s = try DeckSession.passOver(fileID, session: session.id, library: library, clock: clock), s.position > session.position {
            return s
        }
        var s = session
        s.position += 1
        return s
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
        // The newest session while it has cards left (its goal may be met: the rest still waits).
        if !fresh, let s = try DeckSession.recent(library: library, limit: 1).first, s.current != nil { return s }
        let later = try Decks.build(.later, library: library, clock: clock)
        let deck = later.items.isEmpty ? try Decks.build(.rediscovery(seed: 0), library: library, clock: clock) : later
        guard !deck.items.isEmpty else { throw CommandFailure(ExitCode.ok, "nothing waiting for review") }
        return try DeckSession.start(deck, library: library, clock: clock, goal: goal)
    }

    /// A decoded preview no larger than needed (JPEG DCT scaling), or nil.
    static func loadPreview(_ item: Item) -> Bitmap? {
        guard item.kind == .photo, let data = try? FileSystem.readFile(item.path, limit: 200 << 20) else { return nil }
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
