import Foundation
import SnapSortCore
import SnapSortSystem

/// Exit codes (a contract): 0 ok, 1 error, 2 usage, 3 agent or service unavailable, 4 partial.
public enum ExitCode {
    public static let ok: Int32 = 0
    public static let error: Int32 = 1
    public static let usage: Int32 = 2
    public static let unavailable: Int32 = 3
    public static let partial: Int32 = 4
}

/// A usage error: exit 2 with one line.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ m: String) { description = m }
}

/// A command failure: exit with `code` and one line on stderr.
struct CommandFailure: Error, CustomStringConvertible {
    let code: Int32
    let description: String
    init(_ code: Int32, _ m: String) {
        self.code = code
        description = m
    }
}

/// Hand-written argument parsing: flags and options may stand anywhere after the command.
struct Arguments {
    private(set) var rest: [String]
    private var consumedDoubleDash = false

    init(_ args: [String]) { rest = args }

    /// Takes a boolean flag.
    mutating func flag(_ names: String...) -> Bool {
        var found = false
        rest.removeAll { a in
            if names.contains(a) { found = true; return true }
            return false
        }
        return found
    }

    /// Takes `--name VALUE` or `--name=VALUE` (last one wins).
    mutating func option(_ name: String) throws -> String? {
        var value: String?
        var i = 0
        while i < rest.count {
            if rest[i] == "--" { break }
            if rest[i] == name {
                guard i + 1 < rest.count else { throw UsageError("\(name) needs a value") }
                value = rest[i + 1]
                rest.removeSubrange(i...(i + 1))
                continue
            }
            if rest[i].hasPrefix(name + "=") {
                value = String(rest[i].dropFirst(name.count + 1))
                rest.remove(at: i)
                continue
            }
            i += 1
        }
        return value
    }

    /// The remaining positional arguments; any leftover `-x` is a usage error.
    mutating func positionals() throws -> [String] {
        var out: [String] = []
        var literal = false
        for a in rest {
            if literal { out.append(a); continue }
            if a == "--" { literal = true; continue }
            if a.hasPrefix("-") && a != "-" { throw UsageError("unknown option \(a)") }
            out.append(a)
        }
        rest = []
        return out
    }
}

/// What every command gets: the environment, the database path, the console.
struct Context {
    var env: Environment
    var console: Console
    var dbPath: String
    /// Whether the database was named (`--db`, `SNAPSORT_DB`) rather than the default one.
    var databaseNamed = false
    var quiet: Bool
    var stdoutIsTTY: Bool
    var stderrIsTTY: Bool
    var logger: Logger

    /// Writes a line to stdout (buffered; `flush()` for streams). A closed pipe ends the
    /// program quietly, as `head` expects.
    /// A name that is not UTF-8 shows its bytes as U+FFFD (`PathName.display`); control
    /// characters in a name (an ESC that recolours the terminal, a `\r` that hides a line) are
    /// shown as escapes (`TextSafety.visible`).
    func out(_ s: String) {
        if !console.line(TextSafety.visible(PathName.display(s))) { console.readerGone() }
    }

    /// Flushes stdout (for `--follow` streams).
    func flush() {
        if !console.flush() { console.readerGone() }
    }

    func err(_ s: String) {
        _ = console.flush()
        console.error(TextSafety.visible(PathName.display(s)) + "\n")
    }

    /// Opens the library. The default one is created on first use; a named one (`--db`,
    /// `SNAPSORT_DB`) only by a command that fills it (`create`: scan), so a mistyped path is an
    /// error rather than an empty library that looks like one's own.
    /// `checkIntegrity`: read every page first (`Library.init`), for the long commands.
    func openLibrary(readOnly: Bool = false, create: Bool = false, checkIntegrity: Bool = false) throws -> Library {
        if databaseNamed && !create && !FileSystem.exists(dbPath) {
            throw CommandFailure(ExitCode.error, "no library at \(dbPath) (is --db or SNAPSORT_DB mistyped? 'snapsort scan' creates one)")
        }
        return try Library(path: dbPath, readOnly: readOnly, checkIntegrity: checkIntegrity)
    }

    /// Makes a path absolute against the working directory, without resolving symlinks.
    func absolute(_ p: String) -> String {
        if p.hasPrefix("/") { return Context.clean(p) }
        if p == "~" { return env.home }
        if p.hasPrefix("~/") { return Context.clean(env.home + "/" + p.dropFirst(2)) }
        return Context.clean(FileSystem.currentDirectory + "/" + p)
    }

    /// Removes `.`, `..` and doubled slashes lexically.
    static func clean(_ p: String) -> String {
        var parts: [Substring] = []
        for c in p.split(separator: "/") {
            if c == "." || c.isEmpty { continue }
            if c == ".." { _ = parts.popLast(); continue }
            parts.append(c)
        }
        return "/" + parts.joined(separator: "/")
    }
}

extension Console {
    /// A logger writing to this console's standard error; with `systemdPrefixes` each line
    /// starts with its sd-daemon(3) `<N>` priority.
    func logger(label: String, level: Logger.Level, systemdPrefixes: Bool) -> Logger {
        Logger(label: label, level: level) { [self] lvl, line in error((systemdPrefixes ? "<\(lvl.rawValue)>" : "") + line + "\n") }
    }
}

/// A subcommand.
protocol Command {
    static var name: String { get }
    static var summary: String { get }
    static var usage: String { get }
    static func run(_ args: inout Arguments, _ ctx: Context) throws -> Int32
}

/// A path in a line of tab-separated output: a tab, newline or carriage return in a name is
/// written as `\t`, `\n`, `\r` (and a backslash as `\\`), so each line stays one record.
func field(_ path: String) -> String {
    // By scalars: "\r\n" is one Character.
    guard path.unicodeScalars.contains(where: { "\t\n\r\\".unicodeScalars.contains($0) }) else { return path }
    var out = String.UnicodeScalarView()
    for u in path.unicodeScalars {
        switch u {
        case "\t": out.append(contentsOf: "\\t".unicodeScalars)
        case "\n": out.append(contentsOf: "\\n".unicodeScalars)
        case "\r": out.append(contentsOf: "\\r".unicodeScalars)
        case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
        default: out.append(u)
        }
    }
    return String(out)
}

/// "1 file", "2 files".
func counted(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

/// Formats bytes for people (SI units, as file managers show them).
func humanBytes(_ b: Int64) -> String {
    let units = ["B", "kB", "MB", "GB", "TB"]
    var v = Double(b)
    var i = 0
    while v >= 1000 && i < units.count - 1 { v /= 1000; i += 1 }
    return i == 0 ? "\(b) B" : String(format: v < 10 ? "%.1f %@" : "%.0f %@", v, units[i])
}
