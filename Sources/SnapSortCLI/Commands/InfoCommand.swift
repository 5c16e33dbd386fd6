import Foundation
import SnapSortCore
import SnapSortSystem

/// `snapsort info FILE`
enum InfoCommand: Command {
    static let name = "info"
    static let summary = "show what SnapSort knows about one file"
    static let usage = """
        Usage: snapsort info [--json] FILE

        Shows the stored analysis of FILE, with the text read from a page and a QR code's
        payload (`text`, `text_words`, `qr` in --json) and what the local models found (faces,
        those People counts and those taken for a dog's or a cat's, the Pets, Food, Scenery and
        page scores: `models`); a file not in the library is analyzed and read on the spot
        (nothing is stored).
        """

    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32 {
        let asJSON = args.flag("--json")
        let files = try args.positionals()
        guard files.count == 1, !files[0].isEmpty else {
            throw UsageError(files.count == 1 ? "info takes one FILE, not an empty name" : "info takes one FILE")
        }
        let path = ctx.absolute(files[0])
        let st: FileStatus
        do {
            st = try FileSystem.lstatus(path)
        } catch let e as SystemError where e.code == .errno(EACCES) {
            throw CommandFailure(ExitCode.error, "\(field(files[0])): permission denied (a folder on its way cannot be searched)")
        } catch {
            throw CommandFailure(ExitCode.error, "\(field(files[0])): no such file")
        }
        if st.isDirectory {
            throw CommandFailure(
                ExitCode.error, "\(field(files[0])) is a folder; info takes one file ('snapsort groups' and 'report' list a folder's)")
        }
        // Without the named library the file is read on the spot, as one outside it is.
        // Never items: say what it is rather than what reading it gave (ELOOP, 0 bytes).
        if st.isSymlink {
            let target = (try? FileSystem.realPath(path)) ?? "nothing"
            throw CommandFailure(
                ExitCode.error,
                "\(field(files[0])) is a symbolic link (to \(field(target))); SnapSort does not follow links: ask about the file itself")
        }
        if !st.isRegular {
            throw CommandFailure(ExitCode.error, "\(files[0]) is not a regular file (a FIFO, a socket or a device); SnapSort reads only files")
        }
        let library = ctx.databaseNamed && !FileSystem.exists(ctx.dbPath) ? try Library(path: ":memory:") : try ctx.openLibrary()
        var json: JSON
        if let item = try library.item(path: path) {
            json = Report.json(item, groups: try library.reportGroupLookup()(item))
            if case .object(var o) = json {
                o.insert(("in_library", .bool(true)), at: 1)
                // What a page says and where a code points: read once by the scan, kept for this.
                o += fields(try library.findings(of: item.id))
                // What the user decided (trash: staged until a commit).
                let decision = try Review.decision(for: item.id, library: library)?.decision
                o.append(("decision", .opt(decision?.rawValue)))
                // What the local models found (why a photo is in People, Pets or Docs).
                if let models = try library.modelFindings(of: item.id) { o.append(("models", models)) }
                // Staged, but changed since: the commit leaves it (as 'trash list' says).
                if decision == .trash, let staged = try Trash.staged(library: library, fileID: item.id).first {
                    o.append(("changed_since_review", .bool(staged.changedSinceReview)))
                }
                json = .object(o)
            }
        } else {
            let scanner = LibraryUpdate(library: library).makeScanner(rules: ExcludeRules(), workers: 1)
            let r = scanner.analyzer.analyze(path: path, status: st)
            json = .object(
                [
                    ("path", .string(path)), ("in_library", .bool(false)), ("kind", .string(r.kind.rawValue)), ("format", .string(r.format.rawValue)),
                    ("bytes", .int(st.size)), ("taken_at", .opt(r.capture?.text)), ("taken_source", .opt(r.capture?.source.rawValue)),
                    ("width", .opt(r.width)), ("height", .opt(r.height)), ("status", .string(r.status.rawValue)),
                    ("reason", r.reason.map { JSON.object([("code", .string($0.code.rawValue)), ("text", .string($0.text))]) } ?? .null),
                    ("duration_s", .opt(r.durationSeconds)),
                    ("camera", .object([("make", .opt(r.exif?.make)), ("model", .opt(r.exif?.model)), ("lens", .opt(r.exif?.lens))])),
                    ("metrics", r.metrics?.json ?? .null),
                ] + fields(scanner.findings(path: path, of: r)))
        }
        if asJSON {
            ctx.out(json.serialized(pretty: true))
            return ExitCode.ok
        }
        func s(_ k: String) -> String? {
            guard let v = json[k] else { return nil }
            switch v {
            case .null: return nil
            case .string(let x): return x
            default: return v.serialized()
            }
        }
        ctx.out(field(path))
        if json["in_library"]?.boolValue == false { ctx.out("  (not in the library: read now, nothing stored)") }
        ctx.out("  kind:      \(s("kind") ?? "?") (\(s("format") ?? "?")), \(humanBytes(Int64(json["bytes"]?.intValue ?? 0)))")
        if let w = s("width"), let h = s("height") { ctx.out("  size:      \(w)×\(h)") }
        ctx.out("  taken:     " + (s("taken_at").map { "\($0) (from \(s("taken_source") ?? "?"))" } ?? "unknown"))
        if let d = s("duration_s") { ctx.out("  duration:  \(d) s") }
        if let cam = json["camera"], let make = cam["make"]?.stringValue ?? cam["model"]?.stringValue {
            ctx.out("  camera:    \(make) \(cam["model"]?.stringValue ?? "")")
        }
        ctx.out("  status:    \(s("status") ?? "?")" + (json["reason"]?["text"]?.stringValue.map { " — \($0)" } ?? ""))
        if let g = json["groups"]?.arrayValue, !g.isEmpty { ctx.out("  groups:    " + g.compactMap(\.stringValue).joined(separator: ", ")) }
        if let d = s("decision") {
            let staged =
                json["changed_since_review"]?.boolValue == true
                ? "trash (staged, but the file changed since it was reviewed: a commit leaves it in place; decide again)"
                : "trash (staged: 'snapsort trash commit' moves it to the Trash)"
            ctx.out("  decision:  \(Decision(rawValue: d) == .trash ? staged : d)")
        }
        if let q = s("qr") { ctx.out("  QR code:   \(q)") }
        if let text = s("text") {
            let flat = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            let shown = flat.count > 160 ? String(flat.prefix(160)) + "…" : flat
            ctx.out("  text:      \(json["text_words"]?.intValue ?? 0) words: \(shown)")
        }
        if let v = json["models"], let line = modelsLine(v) { ctx.out("  models:    " + line) }
        if let m = json["metrics"], m != .null {
            ctx.out(
                "  sharpness: \(m["lap_var"]?.serialized() ?? "?") (sharpest tile \(m["lap_tile_max"]?.serialized() ?? "?"), re-blur \(m["reblur"]?.serialized() ?? "?"))"
            )
            ctx.out(
                "  exposure:  mean \(m["mean_luma"]?.serialized() ?? "?"), spread \(m["std_luma"]?.serialized() ?? "?"), dark \(m["dark_fraction"]?.serialized() ?? "?"), bright \(m["bright_fraction"]?.serialized() ?? "?")"
            )
        }
        return ExitCode.ok
    }

    /// The models' findings in a line: "1 face (People, eyes 0.33); pets 0.95, food 0.01,
    /// scenery 0.02; a sheet of paper, 18 lines"; a face taken for an animal's says so.
    static func modelsLine(_ v: JSON) -> String? {
        if v["status"]?.stringValue == "failed" { return "failed on this photo" }
        if v["status"]?.stringValue == "skipped" { return "not looked at (a format or size they do not read)" }
        var parts: [String] = []
        let faces = v["faces"]?.intValue ?? 0, people = v["people_faces"]?.intValue ?? 0, animals = v["animal_faces"]?.intValue ?? 0
        var face = faces == 1 ? "1 face" : "\(faces) faces"
        var notes: [String] = []
        if people > 0 { notes.append("\(people) for People" + (v["worst_eyes"]?.doubleValue.map { String(format: ", eyes %.2f", $0) } ?? "")) }
        if animals > 0 { notes.append(animals == 1 ? "1 a dog's or a cat's" : "\(animals) a dog's or a cat's") }
        if !notes.isEmpty { face += " (" + notes.joined(separator: "; ") + ")" }
        parts.append(face)
        let scores = ["pets", "food", "scenery", "page"].compactMap { key in v[key]?.doubleValue.map { String(format: "\(key) %.2f", $0) } }
        if !scores.isEmpty { parts.append(scores.joined(separator: ", ")) }
        if let sheet = v["sheet"], sheet != .null {
            let share = Int(((sheet["share"]?.doubleValue ?? 0) * 100).rounded())
            parts.append("a page-like quadrilateral (\(share) % of the frame, \(sheet["lines"]?.intValue ?? 0) text lines)")
        }
        return parts.joined(separator: "; ")
    }

    /// The `text`, `text_words` and `qr` fields of what OCR and QR decoding found.
    static func fields(_ f: FileFindings?) -> [(String, JSON)] {
        guard let f else { return [] }
        var out: [(String, JSON)] = []
        if let n = f.words, n > 0 { out += [("text", .string(f.text ?? "")), ("text_words", .int(n))] }
        if let q = f.qrPayload, !q.isEmpty { out.append(("qr", .string(q))) }
        return out
    }
}
