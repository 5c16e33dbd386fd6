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
        regroupSlices,
        phashChunks,
        heavyBySize,
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

extension Schema {
    /// v81: what an incremental regroup needs to read only the rows around a change
    /// (`RegroupSlice`):
    /// - `regroup_dirty`: every file whose grouping inputs changed since the last regroup — kept
    ///   by triggers on every write, whoever writes (the scanner, the models pass, a move, a
    ///   `touch -d` rescanned, an older build): a regroup compares the fingerprints of these rows
    ///   only, and clears those it saw (`seq` up to the last it read: a write while it ran stays).
    ///   A RAW+JPEG pairing made, replaced or undone marks its files.
    /// - `files.own_time`: `GroupRules.ownCaptureTime` (the wall clock a file says it was taken
    ///   at), written by the regroup for the rows it reads; a row whose inputs change is dirty
    ///   until then, so the column is true for every row not in `regroup_dirty` once a regroup
    ///   has written it for the whole library (`agent_state.regroup_slices`).
    /// - indexes on `own_time`, `mtime_ns` (a weak clock's second, the timeline of files without
    ///   a capture time) and `pixel_hash` (the same pixels under other metadata).
    static let regroupSlices = Migration(
        version: 81,
        sql: """
            CREATE TABLE regroup_dirty(
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                file_id INTEGER NOT NULL UNIQUE
            );
            ALTER TABLE files ADD COLUMN own_time REAL;
            CREATE INDEX files_own_time ON files(own_time) WHERE own_time IS NOT NULL;
            CREATE INDEX files_mtime ON files(mtime_ns);
            CREATE INDEX files_pixel ON files(pixel_hash) WHERE pixel_hash IS NOT NULL;
            CREATE TRIGGER regroup_dirty_insert AFTER INSERT ON files BEGIN
                DELETE FROM regroup_dirty WHERE file_id = new.id;
                INSERT INTO regroup_dirty(file_id) VALUES(new.id);
            END;
            CREATE TRIGGER regroup_dirty_delete AFTER DELETE ON files BEGIN
                DELETE FROM regroup_dirty WHERE file_id = old.id;
                INSERT INTO regroup_dirty(file_id) VALUES(old.id);
            END;
            CREATE TRIGGER regroup_dirty_update
            AFTER UPDATE OF path, size, status, kind, analyzed_at, taken_at, taken_ts, taken_source, mtime_ns, phash,
                content_hash, pixel_hash ON files
            WHEN old.path IS NOT new.path OR old.size IS NOT new.size OR old.status IS NOT new.status OR old.kind IS NOT new.kind
                OR old.analyzed_at IS NOT new.analyzed_at OR old.taken_at IS NOT new.taken_at OR old.taken_ts IS NOT new.taken_ts
                OR old.taken_source IS NOT new.taken_source OR old.mtime_ns IS NOT new.mtime_ns OR old.phash IS NOT new.phash
                OR old.content_hash IS NOT new.content_hash OR old.pixel_hash IS NOT new.pixel_hash
            BEGIN
                DELETE FROM regroup_dirty WHERE file_id = new.id;
                INSERT INTO regroup_dirty(file_id) VALUES(new.id);
            END;
            CREATE TRIGGER regroup_dirty_sidecar_insert AFTER INSERT ON sidecars BEGIN
                DELETE FROM regroup_dirty WHERE file_id IN (new.file_id, new.sidecar_id);
                INSERT INTO regroup_dirty(file_id) VALUES(new.file_id), (new.sidecar_id);
            END;
            CREATE TRIGGER regroup_dirty_sidecar_replace BEFORE INSERT ON sidecars BEGIN
                DELETE FROM regroup_dirty WHERE file_id IN (SELECT file_id FROM sidecars WHERE sidecar_id = new.sidecar_id);
                INSERT INTO regroup_dirty(file_id) SELECT file_id FROM sidecars WHERE sidecar_id = new.sidecar_id;
            END;
            CREATE TRIGGER regroup_dirty_sidecar_delete AFTER DELETE ON sidecars BEGIN
                DELETE FROM regroup_dirty WHERE file_id IN (old.file_id, old.sidecar_id);
                INSERT INTO regroup_dirty(file_id) VALUES(old.file_id), (old.sidecar_id);
            END;
            DELETE FROM agent_state WHERE key = 'regroup_slices';
            """)

    /// v82 (fixed text, as every migration: `phashChunk` must stay what it wrote, or a new
    /// migration makes the indexes again — `GrouperSliceTests.theIndexesAreTheExpressionsTheQueriesRead`):
    /// the pHash's four 16-bit chunks, each an index (`HashIndex`'s multi-index hashing in
    /// SQLite): the photos within a Hamming distance of a pHash are a few thousand index probes
    /// (`RegroupSlice.phashBall`), not a library-wide index in memory. SQLite keeps them on every
    /// write.
    static let phashChunks = Migration(
        version: 82,
        sql: """
            CREATE INDEX files_phash0 ON files(((phash >> 0) & 65535));
            CREATE INDEX files_phash1 ON files(((phash >> 16) & 65535));
            CREATE INDEX files_phash2 ON files(((phash >> 32) & 65535));
            CREATE INDEX files_phash3 ON files(((phash >> 48) & 65535));
            """)

    /// v83 (fixed text; `heavyPhotos` must stay its condition): the analysed photos by size, for Heavy Photos' ranking (`Grouper.rankHeavy`: its
    /// count and its cut-off were a pass over every row of the table, ~1 s at a million rows).
    static let heavyBySize = Migration(
        version: 83,
        sql: """
            CREATE INDEX files_heavy ON files(size) WHERE status = 'ok' AND kind = 'photo';
            DELETE FROM agent_state WHERE key = 'heavy_threshold';
            """)

    /// The photos Heavy Photos ranks (before the RAWs of RAW+JPEG pairs are left out): the
    /// condition of `files_heavy`, which a query repeats to be answered from it.
    static let heavyPhotos = "status = \(ItemStatus.ok.sql) AND kind = \(MediaFormat.Kind.photo.sql)"

    /// The SQL of the pHash's chunk `c` (0–3, as `HashIndex.chunk`), the expression of its index.
    static func phashChunk(_ c: Int) -> String { "((phash >> \(16 * c)) & 65535)" }
}
