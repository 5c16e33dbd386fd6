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
            ("reminder_day", .int(c.reminderDay)), ("quiet_hours", .string(c.quietHours ?? "off")),
            ("roots", .array(c.effectiveRoots(arguments: [], env: options.env).map { .string($0) })),
            ("configured_roots", .array(c.roots.map { .string($0) })),
            ("config_path", .string(Configuration.path(options.env))),
        ])
    }

    func saveSettings(_ body: JSON) throws -> JSON {
        let path = Configuration.path(options.env)
        var text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let home = options.env.home
        let (current, before) = Configuration.parse(text, home: home)
        for key in ["reminder", "reminder_time", "reminder_weekday", "quiet_hours"] {
            if let v = try Self.text(body, key) { text = Self.setting(key, v, in: text) }
        }
        if let d = try Self.integer(body, "reminder_day") {
            guard (1...31).contains(d) else { throw WebError.bad("'reminder_day' must be from 1 to 31") }
            text = Self.setting("reminder_day", String(d), in: text)
        }
        if let g = try Self.integer(body, "session_goal") {
            guard (1...1000).contains(g) else { throw WebError.bad("'session_goal' must be from 1 to 1000") }
            text = Self.setting("session_goal", String(g), in: text)
        }
        if let v = body["roots"], v != .null {
            let list = v.arrayValue ?? [], roots = list.compactMap(\.stringValue)
            guard v.arrayValue != nil, roots.count == list.count else {
                throw WebError.bad("'roots' must be a list of folders")
            }
            for r in roots where !r.isEmpty {
                guard r.hasPrefix("/") else { throw WebError.bad("folders must be absolute paths: \(r)") }
                guard !Self.hasControlCharacters(r) else { throw WebError.bad("a folder's path holds a control character (a line break or a tab)") }
                // A configured folder may be offline (an unplugged drive); a new one must exist.
                guard current.roots.contains(r) || FileSystem.lstatusIfExists(r)?.isDirectory == true else {
                    throw WebError.bad("no such folder: \(r)")
                }
                guard Configuration.quotedPath(r) != nil else {
                    throw WebError.bad("a folder name with a line break or another control character cannot be written to snapsort.conf: \(r)")
                }
            }
            for r in current.roots where !roots.contains(r) {
                text = Configuration.removingRoot(r, from: text, home: home) ?? text
            }
            for r in roots where !r.isEmpty {
                text = Configuration.addingRoot(r, to: text, home: home) ?? text
            }
        }
        let (parsed, after) = Configuration.parse(text, home: home)
        // A bad value is refused; a note on the file as a whole (line 0: a reminder time in the
        // quiet hours) is no error.
        if let p = after.first(where: { !before.contains($0) && $0.line > 0 }) {
            throw WebError.bad(p.setting.map { "'\($0.key)': \($0.expected)" } ?? p.description)
        }
        try FileSystem.makeDirectories((path as NSString).deletingLastPathComponent, mode: 0o700)
        try FileSystem.writeAtomically(path, Array(text.utf8), mode: 0o644)
        config.withLock { $0 = parsed }
        return settingsJSON()
    }

    /// `body[key]` as text without control characters; nil when absent or null, 400 otherwise.
    static func text(_ body: JSON, _ key: String) throws -> String? {
        guard let v = body[key], v != .null else { return nil }
        guard let t = v.stringValue else { throw WebError.bad("'\(key)' must be text") }
        guard !hasControlCharacters(t) else { throw WebError.bad("'\(key)' holds a control character") }
        return t
    }

    /// Whether `s` holds a C0 control character or DEL: one line of snapsort.conf holds one
    /// setting, and a line break in a value would write another.
    static func hasControlCharacters(_ s: String) -> Bool {
        s.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// Sets `key = value`: replaces the key's first line, drops its later ones, or appends.
    static func setting(_ key: String, _ value: String, in text: String) -> String {
        let clean = value.replacingOccurrences(of: "\n", with: " ")
        var out: [String] = []
        var done = false
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if !line.hasPrefix("#"), let eq = line.firstIndex(of: "="),
                line[..<eq].trimmingCharacters(in: .whitespaces).lowercased() == key
            {
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
