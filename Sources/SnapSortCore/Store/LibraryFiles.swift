import Foundation

/// Every file SnapSort keeps for one library apart from its database: the locks, the page's
/// key and the backups beside the database, and in the runtime folder the page's and the
/// status's files of this library (`web-KEY.json`, `status-KEY.json`) and of the default one
/// (`web.json`, `status.json`), and the page's opener files. The one place these names are
/// made: a file named in two places was named two ways.
public struct LibraryFiles: Sendable, Equatable {
    /// The database file.
    public let database: String

    public init(database: String) {
        self.database = database
    }

    // MARK: Beside the database

    /// Held by the running agent (its pid and status file inside): one agent per library.
    public var agentLock: String { database + ".agent.lock" }
    /// Held by a scan from its walk to the end of its regroup (`snapsort scan`, the agent's
    /// reconciles): two scans at once would both insert a new file's row.
    public var scanLock: String { database + ".scan.lock" }
    /// Held by a trash commit or restore (`Library.withTrashLock`).
    public var trashLock: String { database + ".trash.lock" }
    /// The review page's key, kept from one serving to the next (0600).
    public var webToken: String { database + ".web-token" }

    /// What a backup's name adds to the database's: `.backup-YYYYMMDD-HHMMSS`.
    static let backupInfix = ".backup-"
    /// The backup made at `stamp` (`YYYYMMDD-HHMMSS`, UTC).
    public func backup(stamp: String) -> String { database + LibraryFiles.backupInfix + stamp }
    /// A backup's name while it is written (renamed to `backup(stamp:)` once synced).
    public func partialBackup(stamp: String) -> String { backup(stamp: stamp) + ".partial" }
    /// The folder holding the database (and these files).
    public var folder: String {
        guard let slash = database.lastIndex(of: "/") else { return "." }
        let dir = String(database[..<slash])
        return dir.isEmpty ? "/" : dir
    }
    /// The database's file name.
    public var name: String {
        database.lastIndex(of: "/").map { String(database[database.index(after: $0)...]) } ?? database
    }
    /// The backups' file names begin with this: the database's name and `.backup-`.
    public var backupNamePrefix: String { name + LibraryFiles.backupInfix }

    // MARK: In the runtime folder

    /// `$XDG_RUNTIME_DIR/snapsort`, else `$XDG_STATE_HOME/snapsort`.
    public static func runtimeFolder(_ env: Environment) -> String {
        (env.runtimeDir ?? env.stateHome) + "/snapsort"
    }

    /// `web.json`: where the page started last says it is (a contract). Written by the page
    /// (`WebInfo`), read by `open`, `serve` and the reminders.
    public static func sharedWebInfo(_ env: Environment) -> String { runtimeFolder(env) + "/web.json" }
    /// The bars' status file: `status.json`.
    public static func sharedStatus(_ env: Environment) -> String { runtimeFolder(env) + "/status.json" }
    /// The opener file of the page on `port` (`PageOpener`): `open-PORT.html`.
    public static func opener(_ env: Environment, port: Int) -> String { runtimeFolder(env) + "/open-\(port).html" }

    /// This library's page: `web-KEY.json`.
    public func webInfo(_ env: Environment) -> String { LibraryFiles.runtimeFolder(env) + "/web-" + key + ".json" }
    /// This library's status file when it is not the default library: `status-KEY.json`.
    public func status(_ env: Environment) -> String { LibraryFiles.runtimeFolder(env) + "/status-" + key + ".json" }

    /// The library's key in the names of its own files (`web-KEY.json`, `status-KEY.json`): 16
    /// hex digits of the database path's FNV-1a hash.
    public var key: String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in database.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return String(format: "%016llx", h)
    }
}
