import Foundation

extension Configuration {
    /// The status file: `status_file` from the configuration, else
    /// `$XDG_RUNTIME_DIR/snapsort/status.json`, else `$XDG_STATE_HOME/snapsort/status.json`.
    public func statusFilePath(_ env: Environment) -> String {
        statusFile ?? LibraryFiles.sharedStatus(env)
    }

    /// The status file of the agent of the library at `database`: `statusFilePath` for the
    /// default library (the bars' file), `status-KEY.json` beside it for another one (KEY as
    /// the page's `web-KEY.json`): two agents wrote one file, and each library's bar showed
    /// whichever wrote last. A configured `status_file` is used as it is.
    public func statusFilePath(_ env: Environment, database: String) -> String {
        guard statusFile == nil, database != env.defaultDatabasePath else { return statusFilePath(env) }
        return LibraryFiles(database: database).status(env)
    }

    /// The pictures folder the scanner falls back to: `XDG_PICTURES_DIR`, else `~/Pictures`.
    public static func picturesDirectory(_ env: Environment) -> String { env.defaultRoots[0] }

    /// Adds `root = DIR` to the configuration text, keeping every other line as written (DIR
    /// quoted when `quotedPath` says so). Returns nil when the root is already there, or when no
    /// line can hold it (callers check `quotedPath` first to say why).
    public static func addingRoot(_ dir: String, to text: String, home: String) -> String? {
        let (c, _) = parse(text, home: home)
        guard !c.roots.contains(dir), let value = quotedPath(dir) else { return nil }
        var t = text
        if t.isEmpty { t = "# SnapSort configuration: one 'key = value' a line; see 'snapsort config --help'.\n" }
        if !t.hasSuffix("\n") { t += "\n" }
        return t + "root = \(value)\n"
    }

    /// Removes `DIR` from the configuration text's roots, keeping every other line (a
    /// `roots = a:b` line loses only that entry). Returns nil when it was not a root.
    public static func removingRoot(_ dir: String, from text: String, home: String) -> String? {
        var found = false
        var out: [String] = []
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if !line.hasPrefix("#"), let eq = line.firstIndex(of: "=") {
                let key = line[..<eq].trimmingCharacters(in: .whitespaces).lowercased()
                if key == "root" || key == "roots" {
                    let value = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces)
                    let parts = key == "root" ? [value] : value.split(separator: ":").map(String.init)
                    let kept = parts.filter { part in
                        let (c, _) = parse("root = \(part)", home: home)
                        return c.roots.first != dir
                    }
                    if kept.count != parts.count {
                        found = true
                        if !kept.isEmpty { out.append("\(key) = " + kept.joined(separator: ":")) }
                        continue
                    }
                }
            }
            out.append(String(raw))
        }
        return found ? out.joined(separator: "\n") : nil
    }
}
