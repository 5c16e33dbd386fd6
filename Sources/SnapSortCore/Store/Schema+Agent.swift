extension Schema {
    /// Migrations owned by the agent feature (versions 30–39).
    static let agent: [Migration] = [
        // Small settings the CLI writes and the running agent reads (it notices the write
        // through inotify on the database folder): `paused_until` (RFC 3339 or "indefinite"),
        // `last_backup_at` (RFC 3339).
        Migration(
            version: 30,
            sql: """
                CREATE TABLE agent_state(
                    key TEXT PRIMARY KEY,
                    value TEXT NOT NULL,
                    updated_at TEXT NOT NULL
                );
                """),
        // The modification time of each folder a scan listed completely, so a reconcile after
        // an overflowed inotify queue (or at start) can skip listing folders whose entries did
        // not change: creating, deleting or renaming an entry changes its folder's mtime; the
        // files in a skipped folder are still stat'ed (an in-place write does not).
        Migration(
            version: 31,
            sql: """
                CREATE TABLE folders(
                    path TEXT PRIMARY KEY,
                    mtime_ns INTEGER NOT NULL,
                    device INTEGER NOT NULL,
                    inode INTEGER NOT NULL
                );
                """),
    ]
}
