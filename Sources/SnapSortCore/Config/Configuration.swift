import Foundation
import SnapSortSystem

/// `snapsort.conf`: a simple `key = value` file, one setting a line, `#` comments.
///
/// Keys: `root` (repeatable; a folder to watch), `exclude` (repeatable; a folder to skip),
/// `reminder` (off | daily | weekly | monthly), `reminder_time` (HH:MM), `reminder_weekday`
/// (mon…sun), `reminder_day` (1…31), `quiet_hours` (HH:MM-HH:MM), `session_goal` (decisions,
/// 1…1000), `status_file` (path), `web_port` (1024…65535), `reconcile_interval` (minutes),
/// `pause_on_battery` (yes | no), `milestone_notifications` (yes | no), `tray` (yes | no: the
/// agent's StatusNotifierItem icon and menu).
/// Unknown keys and bad values produce a problem naming the line; the default is used.
public struct Configuration: Sendable, Equatable {
    public var roots: [String] = []
    public var excludes: [String] = []
    public var reminder = "weekly"
    public var reminderTime = "19:00"
    public var reminderWeekday = "sun"
    public var reminderDay = 1
    public var quietHours: String? = "22:00-08:00"
    public var sessionGoal = 25
    public var statusFile: String?
    public var webPort = 8765
    public var reconcileIntervalMinutes = 60
    public var pauseOnBattery = false
    public var milestoneNotifications = true
    /// Whether the agent shows its tray icon (a StatusNotifierItem) on the session bus.
    public var tray = true

    public init() {}

    /// A problem found while reading the file.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var message: String
        /// For a value out of its range: the setting and what it expects, without the file's
        /// line or the fallback (the settings page refuses the value; nothing falls back).
        public var setting: (key: String, expected: String)?
        /// Line 0: the file as a whole (settings that disagree with each other).
        public var description: String { line > 0 ? "snapsort.conf line \(line): \(message)" : "snapsort.conf: \(message)" }

        public init(line: Int, message: String, setting: (key: String, expected: String)? = nil) {
            self.line = line
            self.message = message
            self.setting = setting
        }

        public static func == (a: Problem, b: Problem) -> Bool { a.line == b.line && a.message == b.message }
    }

    /// The configuration file's path.
    public static func path(_ env: Environment) -> String { env.configHome + "/snapsort/snapsort.conf" }

    /// Loads the file (a missing file is the defaults, no problem). A file that is there but
    /// cannot be read (no permission, a folder, over 1 MiB) is a problem every command reports:
    /// its roots silently gave way to the pictures folder.
    public static func load(_ env: Environment) -> (Configuration, [Problem]) {
        let file = path(env)
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readFile(file, limit: 1 << 20)
        } catch {
            guard FileSystem.lstatusIfExists(file) != nil else { return (Configuration(), []) }
            return (Configuration(), [Problem(line: 0, message: "cannot be read (\(error.message)): every setting is its default")])
        }
        let (text, problem) = decode(bytes)
        var (c, problems) = parse(text, home: env.home)
        if let problem { problems.insert(problem, at: 0) }
        return (c, problems)
    }

    /// The file's text. A byte that is not UTF-8 (a comment saved in Latin-1) is replaced and
    /// reported on its line, and every other line still counts: the whole file used to be
    /// ignored without a word, and `roots add` then wrote it anew with only its own line.
    public static func decode(_ bytes: [UInt8]) -> (String, Problem?) {
        // A byte-order mark (Notepad writes one) is no part of the first key.
        let bytes = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        if let text = String(validating: bytes, as: UTF8.self) { return (text, nil) }
        let text = String(decoding: bytes, as: UTF8.self)
        let line =
            text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).firstIndex { $0.contains("\u{FFFD}") }.map { $0 + 1 } ?? 1
        return (text, Problem(line: line, message: "not UTF-8 text: the bytes that are not were read as \u{FFFD}; save the file as UTF-8"))
    }

    /// Parses configuration text.
    public static func parse(_ text: String, home: String) -> (Configuration, [Problem]) {
        var c = Configuration()
        var problems: [Problem] = []
        for (n, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            // A file saved with Windows line ends: the "\r" is no part of a value.
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let eq = line.firstIndex(of: "=") else {
                problems.append(Problem(line: n + 1, message: "expected 'key = value', ignored"))
                continue
            }
            let key = line[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            // The value is quoted, so what was read is plain; a `#` after a value is part of it
            // (a path may hold one): comments go on their own lines.
            func bad(_ what: String, _ def: String) {
                let hint = value.contains(" #") ? " (a # comment goes on its own line)" : ""
                problems.append(Problem(line: n + 1, message: "\(key) = '\(value)': \(what)\(hint); using \(def)", setting: (key, what)))
            }
            if value.isEmpty && key != "quiet_hours" {
                problems.append(Problem(line: n + 1, message: "\(key): no value, ignored"))
                continue
            }
            func path(_ v: String) -> String? {
                var p = Configuration.unquoted(v)
                if p.hasPrefix("~/") { p = home + "/" + p.dropFirst(2) }
                if p.hasPrefix("$HOME/") { p = home + "/" + p.dropFirst(6) }
                guard p.hasPrefix("/") else { return nil }
                while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
                return p
            }
            func yesNo(_ v: String) -> Bool? {
                switch v.lowercased() {
                case "yes", "true", "on", "1": true;
                case "no", "false", "off", "0": false;
                default: nil
                }
            }
            switch key {
            case "root", "roots":
                // `root` is one folder (a name may hold a ':'); `roots = a:b` lists several.
                let parts = key == "root" ? [value] : value.split(separator: ":").map(String.init)
                for part in parts where !part.isEmpty {
                    if let p = path(part) {
                        if !c.roots.contains(p) { c.roots.append(p) }
                    } else {
                        bad("'\(part)' is not an absolute path", "nothing")
                    }
                }
            case "exclude":
                if let p = path(value) { c.excludes.append(p) } else { bad("'\(value)' is not an absolute path", "nothing") }
            case "reminder":
                if ["off", "daily", "weekly", "monthly"].contains(value.lowercased()) {
                    c.reminder = value.lowercased()
                } else {
                    bad("expected off, daily, weekly or monthly", c.reminder)
                }
            case "reminder_time":
                if Configuration.parseTime(value) != nil { c.reminderTime = value } else { bad("expected HH:MM", c.reminderTime) }
            case "reminder_weekday":
                let days = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
                let v = String(value.lowercased().prefix(3))
                if days.contains(v) { c.reminderWeekday = v } else { bad("expected mon…sun", c.reminderWeekday) }
            case "reminder_day":
                if let d = Int(value), (1...31).contains(d) { c.reminderDay = d } else { bad("expected a day of month 1…31", "\(c.reminderDay)") }
            case "quiet_hours":
                if value.lowercased() == "off" || value.isEmpty { c.quietHours = nil; break }
                let parts = value.split(separator: "-").map(String.init)
                if parts.count == 2, parseTime(parts[0]) != nil, parseTime(parts[1]) != nil {
                    c.quietHours = value
                } else {
                    bad("expected HH:MM-HH:MM or off", c.quietHours ?? "off")
                }
            case "session_goal":
                if let g = Int(value), (1...1000).contains(g) {
                    c.sessionGoal = g
                } else {
                    bad("expected a number from 1 to 1000", "\(c.sessionGoal)")
                }
            case "status_file":
                if let p = path(value) { c.statusFile = p } else { bad("'\(value)' is not an absolute path", "the default") }
            case "web_port":
                if let p = Int(value), (1024...65535).contains(p) { c.webPort = p } else { bad("expected a port from 1024 to 65535", "\(c.webPort)") }
            case "reconcile_interval":
                if let m = Int(value), (1...10080).contains(m) {
                    c.reconcileIntervalMinutes = m
                } else {
                    bad("expected minutes from 1 to 10080", "\(c.reconcileIntervalMinutes)")
                }
            case "pause_on_battery":
                if let b = yesNo(value) { c.pauseOnBattery = b } else { bad("expected yes or no", c.pauseOnBattery ? "yes" : "no") }
            case "milestone_notifications":
                if let b = yesNo(value) { c.milestoneNotifications = b } else { bad("expected yes or no", c.milestoneNotifications ? "yes" : "no") }
            case "tray":
                if let b = yesNo(value) { c.tray = b } else { bad("expected yes or no", c.tray ? "yes" : "no") }
            default:
                problems.append(Problem(line: n + 1, message: "unknown key '\(key)', ignored"))
            }
        }
        // A reminder time inside the quiet hours waits for their end: said, not done silently.
        if c.reminder != "off", let t = parseTime(c.reminderTime), let q = c.quietHours.flatMap(QuietHours.init), q.contains(minute: t) {
            let end = String(format: "%02d:%02d", q.end / 60, q.end % 60)
            problems.append(
                Problem(
                    line: 0,
                    message:
                        "reminder_time \(c.reminderTime) falls in the quiet hours (\(c.quietHours ?? "")): reminders come at \(end), when they end"))
        }
        return (c, problems)
    }

    /// "HH:MM" → minutes after midnight.
    public static func parseTime(_ s: String) -> Int? {
        let p = s.split(separator: ":")
        guard p.count == 2, let h = Int(p[0]), let m = Int(p[1]), (0...23).contains(h), (0...59).contains(m) else { return nil }
        return h * 60 + m
    }

    /// The roots to scan: explicit arguments > configured roots > `XDG_PICTURES_DIR` > `~/Pictures`.
    /// Each folder once: see `distinctRoots`.
    public func effectiveRoots(arguments: [String], env: Environment) -> [String] {
        if !arguments.isEmpty { return Configuration.distinctRoots(arguments) }
        if !roots.isEmpty { return Configuration.distinctRoots(roots) }
        return Configuration.distinctRoots(env.defaultRoots)
    }

    /// `roots` without repeats and without roots inside another one, compared by their resolved
    /// paths: a symlink to a folder and the folder are one root. Walked twice, a folder's files
    /// would be two rows each (a scan failed on the second insert of a path), and a file reached
    /// by two paths would be its own duplicate, whose "copy" the Trash would take with the only
    /// file. The first spelling of each is kept, in order (an outer root takes the place of an
    /// earlier inner one).
    public static func distinctRoots(_ roots: [String]) -> [String] {
        var kept: [(given: String, real: String)] = []
        func inside(_ a: String, _ b: String) -> Bool { a == b || a.hasPrefix(b == "/" ? "/" : b + "/") }
        for r in roots {
            var given = r
            while given.count > 1 && given.hasSuffix("/") { given.removeLast() }
            let real = (try? FileSystem.realPath(given)) ?? given
            if kept.contains(where: { inside(real, $0.real) || inside(given, $0.given) }) { continue }
            if let i = kept.firstIndex(where: { inside($0.real, real) || inside($0.given, given) }) {
                kept[i] = (given, real)
                kept.removeAll { k in k.given != given && (inside(k.real, real) || inside(k.given, given)) }
            } else {
                kept.append((given, real))
            }
        }
        return kept.map(\.given)
    }

    /// A path as a value: in double quotes when it starts or ends with a space (a value is
    /// trimmed when read); nil when it holds a line break or another control character, which no
    /// line of the file can hold (the rest of the name would be a line of its own).
    public static func quotedPath(_ path: String) -> String? {
        guard !path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        let edge = path.first?.isWhitespace == true || path.last?.isWhitespace == true || (path.first == "\"" && path.last == "\"")
        return edge ? "\"" + path + "\"" : path
    }

    /// A value without the double quotes `quotedPath` put around it.
    static func unquoted(_ v: String) -> String {
        v.count >= 2 && v.first == "\"" && v.last == "\"" ? String(v.dropFirst().dropLast()) : v
    }

    /// The configuration file text for these settings (for `snapsort config` and `roots add`).
    public func rendered() -> String {
        var lines = ["# SnapSort configuration — see snapsort.conf(5). One 'key = value' a line."]
        for r in roots { lines.append("root = \(Configuration.quotedPath(r) ?? r)") }
        for e in excludes { lines.append("exclude = \(Configuration.quotedPath(e) ?? e)") }
        lines.append("reminder = \(reminder)")
        lines.append("reminder_time = \(reminderTime)")
        lines.append("reminder_weekday = \(reminderWeekday)")
        lines.append("reminder_day = \(reminderDay)")
        lines.append("quiet_hours = \(quietHours ?? "off")")
        lines.append("session_goal = \(sessionGoal)")
        if let s = statusFile { lines.append("status_file = \(s)") }
        lines.append("web_port = \(webPort)")
        lines.append("reconcile_interval = \(reconcileIntervalMinutes)")
        lines.append("pause_on_battery = \(pauseOnBattery ? "yes" : "no")")
        lines.append("milestone_notifications = \(milestoneNotifications ? "yes" : "no")")
        lines.append("tray = \(tray ? "yes" : "no")")
        return lines.joined(separator: "\n") + "\n"
    }
}
