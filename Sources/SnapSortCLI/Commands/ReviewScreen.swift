import SnapSortCore
import SnapSortSystem

/// The characters the review draws with: arrows, dots and dashes in a UTF-8 locale, plain
/// ASCII otherwise (a C or Latin-1 terminal shows UTF-8 bytes as mojibake).
struct ReviewGlyphs: Sendable {
    var ascii: Bool
    var keys: String
    var help: String
    var dot: String
    var dash: String
    var times: String
    var ellipsis: String

    static let unicode = ReviewGlyphs(
        ascii: false, keys: "← trash  → keep  ↓ skip  ↑ later  u undo  q quit  ? keys",
        help: "keys: ← trash → keep ↓ skip ↑ later ^Z/u undo q quit",
        dot: " · ", dash: " — ", times: "×", ellipsis: "…")
    static let ascii = ReviewGlyphs(
        ascii: true, keys: "<- trash  -> keep  v skip  ^ later  u undo  q quit  ? keys",
        help: "keys: <- trash -> keep v skip ^ later ^Z/u undo q quit",
        dot: " | ", dash: " - ", times: "x", ellipsis: "...")

    /// The text as this terminal can show it: non-ASCII characters become `?` in ASCII mode;
    /// control characters of a file name (an ESC, a `\r`) are shown as escapes, never sent.
    func plain(_ s: String) -> String {
        let s = TextSafety.visible(PathName.display(s)).replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\t", with: " ")
        return ascii ? String(String.UnicodeScalarView(s.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 ? $0 : "?" })) : s
    }

    /// `s` cut to `width` terminal cells, ending in an ellipsis when cut.
    func clip(_ s: String, _ width: Int) -> String {
        let s = plain(s)
        guard cells(s) > width else { return s }
        let room = width - cells(ellipsis)
        guard room > 0 else { return String(s.prefix(max(0, width))) }
        var out = "", used = 0
        for c in s {
            let w = cells(c)
            if used + w > room { break }
            out.append(c)
            used += w
        }
        return out + ellipsis
    }

    /// `s` cut in the middle to `width` cells (the start and the end of a path say most).
    func middle(_ s: String, _ width: Int) -> String {
        let s = plain(s)
        guard cells(s) > width else { return s }
        let room = width - cells(ellipsis)
        guard room >= 2 else { return clip(s, width) }
        let chars = Array(s)
        var head = "", tail = "", used = 0, i = 0, j = chars.count - 1
        // Take from the end first so the file's own folder stays readable.
        while i <= j {
            let fromEnd = cells(tail) <= cells(head)
            let c = fromEnd ? chars[j] : chars[i]
            if used + cells(c) > room { break }
            used += cells(c)
            if fromEnd { tail.insert(c, at: tail.startIndex); j -= 1 } else { head.append(c); i += 1 }
        }
        return head + ellipsis + tail
    }

    /// Terminal cells a string takes (wcwidth-like: East Asian wide and emoji are two,
    /// combining marks and variation selectors none).
    func cells(_ s: String) -> Int { s.reduce(0) { $0 + cells($1) } }

    func cells(_ c: Character) -> Int {
        c.unicodeScalars.reduce(0) { n, u in
            switch u.value {
            case 0x300...0x36F, 0x200B...0x200F, 0xFE00...0xFE0F: return n
            case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F,
                0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
                return n + 2
            default: return n + (n == 0 ? 1 : 0)
            }
        }
    }
}

/// A footer message about one file: its name gives way first when the line is too narrow.
struct ReviewNote: Sendable {
    var before = ""
    var name = ""
    var after = ""

    init(_ before: String = "", name: String = "", _ after: String = "") {
        self.before = before
        self.name = name
        self.after = after
    }

    var isEmpty: Bool { before.isEmpty && name.isEmpty && after.isEmpty }

    /// The message in `width` cells: the name middle-ellipsized to make room for the rest.
    func line(_ width: Int, _ g: ReviewGlyphs) -> String {
        let room = width - g.cells(g.plain(before)) - g.cells(g.plain(after))
        if g.cells(g.plain(name)) <= room || room < 8 { return g.clip(before + name + after, width) }
        return g.clip(before + g.middle(name, room) + after, width)
    }
}

/// One review frame as lines of text, each at most `columns` cells, so nothing wraps and the
/// header never scrolls away. Layout: header, picture, info, where, message, keys.
struct ReviewFrame {
    /// The smallest window the card fits in (the picture gets at least three rows).
    static let minColumns = 40, minRows = 8

    var columns: Int
    var rows: Int
    var glyphs: ReviewGlyphs

    var fits: Bool { columns >= Self.minColumns && rows >= Self.minRows }
    /// Rows for the picture between the header and the four text lines.
    var pictureRows: Int { rows - 5 }

    /// What a window too small for the card shows.
    var tooSmall: String {
        "\u{1B}[?7l\u{1B}[H\u{1B}[2J" + glyphs.clip("terminal too small (\(columns)x\(rows))", columns) + "\u{1B}[?7h"
    }

    /// The full frame: `picture` is the preview (one string per row, already sized by chafa,
    /// or one block of pixel graphics) or nil for the placeholder text.
    func card(
        header: (title: String, rest: String), picture: [String]?, placeholder: String,
        info: String, place: String, note: ReviewNote, keys: String
    ) -> String {
        // Auto-wrap off while drawing (DECAWM, `CSI ? 7 l`): a cell-width guess that is off by
        // one must not push the frame down.
        var out = "\u{1B}[?7l\u{1B}[H\u{1B}[2J"
        let head = glyphs.clip(header.title + header.rest, columns)
        let title = glyphs.plain(header.title)
        out += head.hasPrefix(title) ? "\u{1B}[1m\(title)\u{1B}[0m" + head.dropFirst(title.count) : head
        if let picture {
            for (i, line) in picture.prefix(pictureRows).enumerated() { out += at(2 + i) + line + "\u{1B}[0m" }
        } else {
            out += at(3) + "   " + glyphs.clip(placeholder, columns - 3)
        }
        out += at(rows - 3) + glyphs.clip(info, columns)
        out += at(rows - 2) + glyphs.clip(place, columns)
        out += at(rows - 1) + note.line(columns, glyphs)
        out += at(rows) + "\u{1B}[2m" + glyphs.clip(keys, columns) + "\u{1B}[0m"
        return out + "\u{1B}[?7h"
    }

    private func at(_ row: Int) -> String { "\u{1B}[\(row);1H" }

    /// A folder for people: `~` for the home folder, cut in the middle to `width`.
    func folder(of path: String, home: String, width: Int) -> String {
        var dir = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if dir.isEmpty { dir = "/" }
        if !home.isEmpty, home != "/" {
            if dir == home { dir = "~" } else if dir.hasPrefix(home + "/") { dir = "~" + dir.dropFirst(home.count) }
        }
        return glyphs.middle(dir, width)
    }
}

/// Draws `snapsort review`: a card per item, the done screen, or a note that the window is too
/// small. Reads the terminal's size on every draw, so a redraw after SIGWINCH fits the window.
struct ReviewScreen {
    var term: Terminal
    var library: Library
    var clock: Clock
    var goal: Int
    var env: Environment
    var mode: Chafa.Mode
    var glyphs: ReviewGlyphs

    func frame() -> (ReviewFrame, (columns: Int, rows: Int, pixelWidth: Int, pixelHeight: Int)) {
        let size = term.size()
        return (ReviewFrame(columns: size.columns, rows: size.rows, glyphs: glyphs), size)
    }

    /// The header's progress: today's decisions as `snapsort stats` counts them.
    func progress(_ session: DeckSession) -> String {
        let today = (try? Stats.doneToday(library: library, clock: clock)) ?? 0
        let count = today < goal ? "\(today)/\(goal) toward today's goal" : "goal met (\(today) today)"
        return "  " + count + glyphs.dot + "\(session.remaining) left"
    }

    /// Draws the card; false when the window is too small to show it.
    @discardableResult
    func draw(session: DeckSession, item: Item, disk: DiskState, note: ReviewNote) -> Bool {
        let (f, size) = frame()
        guard f.fits else {
            term.write(f.tooSmall)
            return false
        }
        var picture: [String]?
        var placeholder = "(\(item.kind.rawValue), no preview)"
        if disk == .changed {
            placeholder = "(changed since it was analyzed; 'snapsort scan' looks at it again)"
        } else if let bitmap = ReviewCommand.loadPreview(item) {
            let cell = size.pixelWidth > 0 ? (width: size.pixelWidth / size.columns, height: size.pixelHeight / size.rows) : nil
            let art = Chafa.render(
                bitmap, columns: f.columns, rows: f.pictureRows, environment: env.variables,
                cellPixels: cell, mode: mode, asciiOnly: glyphs.ascii)
            // Symbols come one line per row; pixel graphics are one block drawn from the top row.
            picture = mode == .symbols ? art.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) : [art]
        }
        var info = item.name + glyphs.dot + (item.takenAt.map { String($0.prefix(10)) } ?? "undated") + glyphs.dot + humanBytes(item.bytes)
        // A video's length, as the page shows it (Long Videos are judged by it).
        if item.kind == .video, let d = item.durationSeconds, d > 0 {
            let t = Int(d.rounded())
            info +=
                glyphs.dot + (t >= 3600 ? String(format: "%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60) : String(format: "%d:%02d", t / 60, t % 60))
        }
        if disk == .changed {
            info = item.name + glyphs.dot + "changed since it was analyzed"
        } else if let d = try? Review.decision(for: item.id, library: library), d.laterCount > 0 {
            info += glyphs.dot + "seen before (deferred \(d.laterCount)\(glyphs.times))"
            if d.suggestsKeep { info += glyphs.dash + "keep it?" }
        }
        term.write(
            f.card(
                header: (session.title, progress(session)), picture: picture, placeholder: placeholder,
                info: info, place: place(item, f), note: note, keys: glyphs.keys))
        return true
    }

    /// Where the file is and, in a Similar Shots or duplicate set, what it is to the others.
    func place(_ item: Item, _ f: ReviewFrame) -> String {
        var tag = ""
        if let set = try? library.similarGroup(containing: item.id), let me = set.members.first(where: { $0.fileID == item.id }) {
            let width = max(10, f.columns / 3)
            func named(_ m: SimilarMember) -> String {
                String(m.path.split(separator: "/").last ?? "") + " in " + f.folder(of: m.path, home: env.home, width: width)
            }
            if let original = me.duplicateOf, let o = set.members.first(where: { $0.fileID == original }) {
                tag = "copy of " + named(o)
            } else if me.isKeeper {
                tag = me.chosenByUser ? "your keeper" : "suggested keeper"
            } else {
                tag = "similar to " + named(set.keeper)
            }
        }
        let room = f.columns - (tag.isEmpty ? 0 : glyphs.cells(glyphs.plain(glyphs.dot + tag)))
        let folder = f.folder(of: item.path, home: env.home, width: max(10, room))
        return tag.isEmpty ? folder : folder + glyphs.dot + tag
    }

    func drawDone(session: DeckSession, note: ReviewNote) {
        let (f, _) = frame()
        guard f.fits else { return term.write(f.tooSmall) }
        let done = "\(session.title): deck done\(glyphs.dash)\(counted(session.decisions, "decision")). Press any key (u undo)."
        term.write("\u{1B}[H\u{1B}[2J" + glyphs.clip(done, f.columns) + "\u{1B}[2;1H" + note.line(f.columns, glyphs))
    }
}
