import Foundation

/// The process environment and home folder, injectable for tests.
public struct Environment: Sendable {
    public var variables: [String: String]
    public var home: String

    public init(variables: [String: String], home: String? = nil) {
        self.variables = variables
        self.home = home ?? variables["HOME"] ?? NSHomeDirectory()
    }

    /// The live process environment.
    public static var live: Environment { Environment(variables: ProcessInfo.processInfo.environment) }

    public subscript(_ key: String) -> String? { variables[key].flatMap { $0.isEmpty ? nil : $0 } }

    /// An XDG base directory: the variable if set to an absolute path (a relative value is
    /// ignored, per the XDG Base Directory specification), else `$HOME/fallback`.
    public func xdg(_ variable: String, fallback: String) -> String {
        if let v = self[variable], v.hasPrefix("/") { return v }
        return home + "/" + fallback
    }

    public var stateHome: String { xdg("XDG_STATE_HOME", fallback: ".local/state") }
    public var configHome: String { xdg("XDG_CONFIG_HOME", fallback: ".config") }
    public var dataHome: String { xdg("XDG_DATA_HOME", fallback: ".local/share") }
    public var cacheHome: String { xdg("XDG_CACHE_HOME", fallback: ".cache") }
    /// `$XDG_RUNTIME_DIR` when set and absolute.
    public var runtimeDir: String? { self["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } }

    /// The database path: `SNAPSORT_DB`, else `$XDG_STATE_HOME/snapsort/library.sqlite3`.
    public var defaultDatabasePath: String {
        if let db = self["SNAPSORT_DB"] { return db }
        return stateHome + "/snapsort/library.sqlite3"
    }

    /// `XDG_PICTURES_DIR` as `xdg-user-dir PICTURES` gives it: from `user-dirs.dirs` (its last
    /// line for the key, as the shell that sources it takes), else from the environment; nil
    /// when neither says (a value equal to `$HOME` counts as unset).
    public var picturesDir: String? {
        let file = configHome + "/user-dirs.dirs"
        if let text = try? String(contentsOfFile: file, encoding: .utf8),
            text.split(separator: "\n").contains(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix("XDG_PICTURES_DIR") })
        {
            return Environment.parseUserDirs(text, key: "XDG_PICTURES_DIR", home: home)
        }
        return self["XDG_PICTURES_DIR"].flatMap { Environment.parseUserDirs("XDG_PICTURES_DIR=\"\($0)\"", key: "XDG_PICTURES_DIR", home: home) }
    }

    /// Parses one key of a `user-dirs.dirs` file (see xdg-user-dirs(1)): values are
    /// `"$HOME/…"` or absolute.
    public static func parseUserDirs(_ text: String, key: String, home: String) -> String? {
        for raw in text.split(separator: "\n").reversed() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.hasPrefix("#"), let eq = line.firstIndex(of: "=") else { continue }
            guard line[..<eq].trimmingCharacters(in: .whitespaces) == key else { continue }
            var value = String(line[line.index(after: eq)...]).trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            if value.hasPrefix("$HOME") { value = home + value.dropFirst(5) }
            guard value.hasPrefix("/") else { return nil }
            while value.count > 1 && value.hasSuffix("/") { value.removeLast() }
            let h = home.hasSuffix("/") ? String(home.dropLast()) : home
            return value == h ? nil : value
        }
        return nil
    }

    /// The default roots: `XDG_PICTURES_DIR`, else `~/Pictures`.
    public var defaultRoots: [String] { [picturesDir ?? home + "/Pictures"] }
}
