import Foundation
import SnapSortCore
import SnapSortSystem

/// The settings view: reminder cadence and time, session goal, folders. Written to
/// `snapsort.conf` line by line (other lines and comments stay as the user wrote them) and
/// checked with `Configuration.parse` before anything is written.
extension WebApp {
    func settingsJSON() -> JSON {
        let c = config.withLock { $0 }
        return .object([
            ("reminder", .string(c.reminder)), ("reminder_time", .string(c.reminderTime)),
            ("reminder_weekday", .string(c.reminderWeekday)), ("session_goal", .int(c.sessionGoal)),
            ("roots", .array(c.effectiveRoots(arguments: [], env: options.env).map { .string($0) })),
            ("configured_roots", .array(c.roots.map { .string($0) })),
            ("config_path", .string(Configuration.path(options.env))),
        ])
    }

    func saveSettings(_ body: JSON) throws -> JSON {
        let path = Configuration.path(options.env)
        var text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let home = options.env.home
        let (_, before) = Configuration.parse(text, home: home)
        for key in ["reminder", "reminder_time", "reminder_weekday"] {
            if let v = body[key]?.stringValue { text = Self.setting(key, v, in: text) }
        }
        if let g = body["session_goal"]?.intValue { text = Self.setting("session_goal", String(g), in: text) }
        if let roots = body["roots"]?.arrayValue?.compactMap(\.stringValue) {
            let (current, _) = Configuration.parse(text, home: home)
            for r in current.roots where !roots.contains(r) {
                text = Configuration.removingRoot(r, from: text, home: home) ?? text
            }
            for r in roots where !r.isEmpty {
                guard r.hasPrefix("/") else { throw WebError.bad("folders must be absolute paths: \(r)") }
                text = Configuration.addingRoot(r, to: text, home: home) ?? text
            }
        }
        let (parsed, after) = Configuration.parse(text, home: home)
        if let p = after.first(where: { !before.contains($0) }) { throw WebError.bad(p.description) }
        try FileSystem.makeDirectories((path as NSString).deletingLastPathComponent, mode: 0o700)
        try FileSystem.writeAtomically(path, Array(text.utf8), mode: 0o644)
        config.withLock { $0 = parsed }
        return settingsJSON()
    }

    /// Sets `key = value`: replaces the key's first line, drops its later ones, or appends.
    static func setting(_ key: String, _ value: String, in text: String) -> String {
        let clean = value.replacingOccurrences(of: "\n", with: " ")
        var out: [String] = []
        var done = false
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if !line.hasPrefix("#"), let eq = line.firstIndex(of: "="),
               line[..<eq].trimmingCharacters(in: .whitespaces).lowercased() == key {
                if !done { out.append("\(key) = \(clean)") }
                done = true
                continue
            }
            out.append(String(raw))
        }
        if !done {
            if out.last == "" { out.removeLast() }
            if out.isEmpty { out.append("# SnapSort configuration: one 'key = value' a line; see 'snapsort config --help'.") }
            out.append("\(key) = \(clean)")
            out.append("")
        }
        return out.joined(separator: "\n")
    }
}
