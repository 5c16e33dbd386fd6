extension Schema {
    /// Migrations owned by the agent feature (versions 30–39).
    static let agent: [Migration] = [
        // Small settings the CLI writes and the running agent reads (it notices the write
        // through inotify on the database folder): `paused_until` (RFC 3339 or "indefinite"),
        // `last_backup_at` (RFC 3339).
        Migration(version: 30, sql: """
            CREATE TABLE agent_state(
                key TEXT PRIMARY KEY,
                value TEXT NOT NULL,
                updated_at TEXT NOT NULL
            );
            """)
    ]
}
