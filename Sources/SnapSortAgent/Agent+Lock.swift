import Foundation
import SnapSortCore
import SnapSortSystem

/// The lock that keeps one agent per database, and what it says to the CLI (the agent's pid
/// and status file).
extension Agent {
    /// The lock file that keeps one agent per database.
    public static func lockPath(_ dbPath: String) -> String { LibraryFiles(database: dbPath).agentLock }

    /// Whether an agent is running on this database.
    public static func isRunning(dbPath: String) -> Bool { FileLock.isHeld(lockPath(dbPath)) }

    /// The status file of the agent running for `dbPath`, nil when none runs (or it did not say).
    public static func runningStatusPath(dbPath: String) -> String? {
        guard isRunning(dbPath: dbPath), let text = FileLock.contents(lockPath(dbPath)) else { return nil }
        let line = text.split(separator: "\n").first { $0.hasPrefix("status_file=") }
        return line.map { String($0.dropFirst("status_file=".count)) }.flatMap { $0.hasPrefix("/") ? $0 : nil }
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
