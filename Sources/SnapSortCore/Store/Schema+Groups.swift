extension Schema {
    /// Migrations owned by the groups feature (versions 10–19).
    ///
    /// - `group_members`: which live file is in which smart group (`GroupID` raw values), with a
    ///   score that orders the group best (or largest) first.
    /// - `similar_sets`: one row per file in a Similar Shots set (≥ 2 members); `set_key` is the
    ///   set's smallest file id, `duplicate_of` names the original of a copy.
    /// - `keeper_choices`, `not_similar`: the user's verdicts, by file identity (`files.id`),
    ///   remembered across regroupings, moves and rescans.
    /// - `file_findings`: the cached OCR and QR results of a file (`analyzed_at` says which
    ///   analysis they belong to, so a changed file is looked at again).
    static let groups: [Migration] = [
        Migration(
            version: 10,
            sql: """
                CREATE TABLE group_members(
                    group_id TEXT NOT NULL,
                    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
                    score REAL NOT NULL DEFAULT 0,
                    PRIMARY KEY(group_id, file_id)
                ) WITHOUT ROWID;
                CREATE INDEX group_members_file ON group_members(file_id);
                CREATE TABLE similar_sets(
                    file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
                    set_key INTEGER NOT NULL,
                    keeper INTEGER NOT NULL DEFAULT 0,
                    duplicate_of INTEGER,
                    score REAL NOT NULL DEFAULT 0
                );
                CREATE INDEX similar_sets_key ON similar_sets(set_key);
                CREATE TABLE keeper_choices(
                    file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
                    chosen_at TEXT NOT NULL
                );
                CREATE TABLE not_similar(
                    a INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
                    b INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
                    decided_at TEXT NOT NULL,
                    PRIMARY KEY(a, b),
                    CHECK(a < b)
                ) WITHOUT ROWID;
                CREATE INDEX not_similar_b ON not_similar(b);
                CREATE TABLE file_findings(
                    file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
                    analyzed_at TEXT,
                    ocr_words INTEGER,
                    ocr_text TEXT,
                    qr_payload TEXT
                );
                """),
        groupsSeen,
        similarPairs,
    ]
}

extension Schema {
    /// v11: what the grouper last saw of each file, so a regroup finds what changed by itself.
    static let groupsSeen = Migration(
        version: 11,
        sql: """
            CREATE TABLE grouped_files(
                file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
                fingerprint TEXT NOT NULL
            );
            """)
}

extension Schema {
    /// v54: the Similar Shots pair scores: `similar` for two photos taken within the window that
    /// scored at least the threshold (`SimilarClustering.edges`), `copy` for two files confirmed
    /// as copies of one picture (`SimilarClustering.copyLinks`), so a regroup scores only the
    /// pairs of the files that changed (`agent_state.similar_pairs_rules` names the rules they
    /// were scored under). Numbered after the models' migrations: versions apply in order, once.
    static let similarPairs = Migration(
        version: 54,
        sql: """
            CREATE TABLE similar_pairs(
                a INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
                b INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
                similar REAL,
                copy REAL,
                PRIMARY KEY(a, b),
                CHECK(a < b)
            ) WITHOUT ROWID;
            CREATE INDEX similar_pairs_b ON similar_pairs(b);
            """)
}
