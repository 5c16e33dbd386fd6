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
        groupTotals,
        groupRecountHeld,
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

extension Schema {
    /// v88 (fixed text, as every migration): each smart group's counts kept as its members are
    /// written, so the page's groups and the group decks of the overview read a row per group
    /// instead of joining every member to its file (~4 s of CPU at a million rows with groups,
    /// issue 40 item 3). Kept by triggers on every write, whoever writes (the regroup, the
    /// models pass, a move, a commit to the Trash, a removal, an older build):
    /// - `group_counted`: what each live file with a group or a set counts for (its size, whether
    ///   it is a card — a photo or video that is no sidecar —, its groups other than the two of
    ///   sets, its set and its part there); a write that can change it counts the file again
    ///   (`INSERT INTO group_recount`): its old row taken out of the sums, the new one made from
    ///   the tables and added. A conflict clause (`OR REPLACE`, `OR IGNORE`) cannot skew it: the
    ///   file is counted from what the tables hold after the write.
    /// - `group_sets`: each set's live members and what its members count for in Similar Shots
    ///   and Duplicates; a set counts while it holds two live files (`Library.liveSetKeys`).
    /// - `group_totals`: per group, its live members (in live sets for the two of sets), their
    ///   bytes, the cards among them, its sets and the bytes a clearing frees
    ///   (`Library.groupSummaries`; `groupSummariesByJoin` is the definition it is held to).
    /// A migration that makes `files`, `group_members`, `similar_sets` or `sidecars` again makes
    /// these triggers again.
    static let groupTotals = Migration(
        version: 88,
        sql: """
            CREATE TABLE group_totals(
                group_id TEXT PRIMARY KEY,
                items INTEGER NOT NULL DEFAULT 0,
                bytes INTEGER NOT NULL DEFAULT 0,
                candidates INTEGER NOT NULL DEFAULT 0,
                sets INTEGER NOT NULL DEFAULT 0,
                freed INTEGER NOT NULL DEFAULT 0
            ) WITHOUT ROWID;
            CREATE TABLE group_sets(
                set_key INTEGER PRIMARY KEY,
                live INTEGER NOT NULL DEFAULT 0,
                similar INTEGER NOT NULL DEFAULT 0,
                similar_bytes INTEGER NOT NULL DEFAULT 0,
                similar_candidates INTEGER NOT NULL DEFAULT 0,
                similar_freed INTEGER NOT NULL DEFAULT 0,
                duplicate INTEGER NOT NULL DEFAULT 0,
                duplicate_bytes INTEGER NOT NULL DEFAULT 0,
                duplicate_candidates INTEGER NOT NULL DEFAULT 0,
                duplicate_freed INTEGER NOT NULL DEFAULT 0
            );
            CREATE TABLE group_counted(
                file_id INTEGER PRIMARY KEY,
                size INTEGER NOT NULL,
                candidate INTEGER NOT NULL,
                groups TEXT NOT NULL,
                set_key INTEGER,
                similar INTEGER NOT NULL,
                duplicate INTEGER NOT NULL,
                similar_freed INTEGER NOT NULL,
                duplicate_freed INTEGER NOT NULL
            );
            INSERT INTO group_counted(file_id, size, candidate, groups, set_key, similar, duplicate, similar_freed, duplicate_freed)
                SELECT f.id, f.size,
                       f.kind IN ('photo', 'video') AND NOT EXISTS (SELECT 1 FROM sidecars c WHERE c.sidecar_id = f.id),
                       (SELECT json_group_array(m.group_id) FROM group_members m
                        WHERE m.file_id = f.id AND m.group_id NOT IN ('similar', 'duplicate')),
                       s.set_key,
                       s.file_id IS NOT NULL AND EXISTS (SELECT 1 FROM group_members m WHERE m.group_id = 'similar' AND m.file_id = f.id),
                       s.file_id IS NOT NULL AND EXISTS (SELECT 1 FROM group_members m WHERE m.group_id = 'duplicate' AND m.file_id = f.id),
                       coalesce(s.keeper = 0, 0), s.duplicate_of IS NOT NULL
                FROM files f LEFT JOIN similar_sets s ON s.file_id = f.id
                WHERE f.status != 'gone'
                  AND (s.file_id IS NOT NULL OR EXISTS (SELECT 1 FROM group_members m WHERE m.file_id = f.id));
            INSERT INTO group_sets(set_key, live, similar, similar_bytes, similar_candidates, similar_freed,
                                   duplicate, duplicate_bytes, duplicate_candidates, duplicate_freed)
                SELECT set_key, count(*), sum(similar), sum(similar * size), sum(similar * candidate), sum(similar * similar_freed * size),
                       sum(duplicate), sum(duplicate * size), sum(duplicate * candidate), sum(duplicate * duplicate_freed * size)
                FROM group_counted WHERE set_key IS NOT NULL GROUP BY set_key;
            INSERT INTO group_totals(group_id, items, bytes, candidates)
                SELECT j.value, count(*), sum(c.size), sum(c.candidate) FROM group_counted c, json_each(c.groups) j GROUP BY j.value;
            INSERT INTO group_totals(group_id, items, bytes, candidates, sets, freed)
                SELECT 'similar', coalesce(sum(similar), 0), coalesce(sum(similar_bytes), 0), coalesce(sum(similar_candidates), 0),
                       coalesce(sum(similar > 0), 0), coalesce(sum(similar_freed), 0)
                FROM group_sets WHERE live >= 2;
            INSERT INTO group_totals(group_id, items, bytes, candidates, sets, freed)
                SELECT 'duplicate', coalesce(sum(duplicate), 0), coalesce(sum(duplicate_bytes), 0), coalesce(sum(duplicate_candidates), 0),
                       coalesce(sum(duplicate > 0), 0), coalesce(sum(duplicate_freed), 0)
                FROM group_sets WHERE live >= 2;
            CREATE VIEW group_recount(file_id) AS SELECT NULL WHERE 0;
            CREATE TRIGGER group_recount_file INSTEAD OF INSERT ON group_recount BEGIN
                INSERT INTO group_totals(group_id, items, bytes, candidates)
                SELECT j.value, -1, -c.size, -c.candidate FROM group_counted c, json_each(c.groups) j WHERE c.file_id = NEW.file_id
                ON CONFLICT(group_id) DO UPDATE SET items = items + excluded.items, bytes = bytes + excluded.bytes,
                    candidates = candidates + excluded.candidates;
                INSERT INTO group_sets(set_key, live, similar, similar_bytes, similar_candidates, similar_freed,
                                       duplicate, duplicate_bytes, duplicate_candidates, duplicate_freed)
                SELECT set_key, -1, -similar, -similar * size, -similar * candidate, -similar * similar_freed * size,
                       -duplicate, -duplicate * size, -duplicate * candidate, -duplicate * duplicate_freed * size
                FROM group_counted WHERE file_id = NEW.file_id AND set_key IS NOT NULL
                ON CONFLICT(set_key) DO UPDATE SET live = live + excluded.live, similar = similar + excluded.similar,
                    similar_bytes = similar_bytes + excluded.similar_bytes, similar_candidates = similar_candidates + excluded.similar_candidates,
                    similar_freed = similar_freed + excluded.similar_freed, duplicate = duplicate + excluded.duplicate,
                    duplicate_bytes = duplicate_bytes + excluded.duplicate_bytes,
                    duplicate_candidates = duplicate_candidates + excluded.duplicate_candidates,
                    duplicate_freed = duplicate_freed + excluded.duplicate_freed;
                DELETE FROM group_sets WHERE live = 0 AND set_key = (SELECT set_key FROM group_counted WHERE file_id = NEW.file_id);
                DELETE FROM group_counted WHERE file_id = NEW.file_id;
                INSERT INTO group_counted(file_id, size, candidate, groups, set_key, similar, duplicate, similar_freed, duplicate_freed)
                SELECT f.id, f.size,
                       f.kind IN ('photo', 'video') AND NOT EXISTS (SELECT 1 FROM sidecars c WHERE c.sidecar_id = f.id),
                       (SELECT json_group_array(m.group_id) FROM group_members m
                        WHERE m.file_id = f.id AND m.group_id NOT IN ('similar', 'duplicate')),
                       s.set_key,
                       s.file_id IS NOT NULL AND EXISTS (SELECT 1 FROM group_members m WHERE m.group_id = 'similar' AND m.file_id = f.id),
                       s.file_id IS NOT NULL AND EXISTS (SELECT 1 FROM group_members m WHERE m.group_id = 'duplicate' AND m.file_id = f.id),
                       coalesce(s.keeper = 0, 0), s.duplicate_of IS NOT NULL
                FROM files f LEFT JOIN similar_sets s ON s.file_id = f.id
                WHERE f.id = NEW.file_id AND f.status != 'gone'
                  AND (s.file_id IS NOT NULL OR EXISTS (SELECT 1 FROM group_members m WHERE m.file_id = f.id));
                INSERT INTO group_totals(group_id, items, bytes, candidates)
                SELECT j.value, 1, c.size, c.candidate FROM group_counted c, json_each(c.groups) j WHERE c.file_id = NEW.file_id
                ON CONFLICT(group_id) DO UPDATE SET items = items + excluded.items, bytes = bytes + excluded.bytes,
                    candidates = candidates + excluded.candidates;
                INSERT INTO group_sets(set_key, live, similar, similar_bytes, similar_candidates, similar_freed,
                                       duplicate, duplicate_bytes, duplicate_candidates, duplicate_freed)
                SELECT set_key, 1, similar, similar * size, similar * candidate, similar * similar_freed * size,
                       duplicate, duplicate * size, duplicate * candidate, duplicate * duplicate_freed * size
                FROM group_counted WHERE file_id = NEW.file_id AND set_key IS NOT NULL
                ON CONFLICT(set_key) DO UPDATE SET live = live + excluded.live, similar = similar + excluded.similar,
                    similar_bytes = similar_bytes + excluded.similar_bytes, similar_candidates = similar_candidates + excluded.similar_candidates,
                    similar_freed = similar_freed + excluded.similar_freed, duplicate = duplicate + excluded.duplicate,
                    duplicate_bytes = duplicate_bytes + excluded.duplicate_bytes,
                    duplicate_candidates = duplicate_candidates + excluded.duplicate_candidates,
                    duplicate_freed = duplicate_freed + excluded.duplicate_freed;
            END;
            CREATE TRIGGER group_sets_added AFTER INSERT ON group_sets BEGIN
                UPDATE group_totals SET items = items + (NEW.live >= 2) * NEW.similar, bytes = bytes + (NEW.live >= 2) * NEW.similar_bytes,
                    candidates = candidates + (NEW.live >= 2) * NEW.similar_candidates, freed = freed + (NEW.live >= 2) * NEW.similar_freed, sets = sets + (NEW.live >= 2 AND NEW.similar > 0)
                WHERE group_id = 'similar';
                UPDATE group_totals SET items = items + (NEW.live >= 2) * NEW.duplicate, bytes = bytes + (NEW.live >= 2) * NEW.duplicate_bytes,
                    candidates = candidates + (NEW.live >= 2) * NEW.duplicate_candidates, freed = freed + (NEW.live >= 2) * NEW.duplicate_freed, sets = sets + (NEW.live >= 2 AND NEW.duplicate > 0)
                WHERE group_id = 'duplicate';
            END;
            CREATE TRIGGER group_sets_changed AFTER UPDATE ON group_sets BEGIN
                UPDATE group_totals SET items = items - (OLD.live >= 2) * OLD.similar + (NEW.live >= 2) * NEW.similar, bytes = bytes - (OLD.live >= 2) * OLD.similar_bytes + (NEW.live >= 2) * NEW.similar_bytes,
                    candidates = candidates - (OLD.live >= 2) * OLD.similar_candidates + (NEW.live >= 2) * NEW.similar_candidates, freed = freed - (OLD.live >= 2) * OLD.similar_freed + (NEW.live >= 2) * NEW.similar_freed, sets = sets - (OLD.live >= 2 AND OLD.similar > 0) + (NEW.live >= 2 AND NEW.similar > 0)
                WHERE group_id = 'similar';
                UPDATE group_totals SET items = items - (OLD.live >= 2) * OLD.duplicate + (NEW.live >= 2) * NEW.duplicate, bytes = bytes - (OLD.live >= 2) * OLD.duplicate_bytes + (NEW.live >= 2) * NEW.duplicate_bytes,
                    candidates = candidates - (OLD.live >= 2) * OLD.duplicate_candidates + (NEW.live >= 2) * NEW.duplicate_candidates, freed = freed - (OLD.live >= 2) * OLD.duplicate_freed + (NEW.live >= 2) * NEW.duplicate_freed, sets = sets - (OLD.live >= 2 AND OLD.duplicate > 0) + (NEW.live >= 2 AND NEW.duplicate > 0)
                WHERE group_id = 'duplicate';
            END;
            CREATE TRIGGER group_sets_removed AFTER DELETE ON group_sets BEGIN
                UPDATE group_totals SET items = items - (OLD.live >= 2) * OLD.similar, bytes = bytes - (OLD.live >= 2) * OLD.similar_bytes,
                    candidates = candidates - (OLD.live >= 2) * OLD.similar_candidates, freed = freed - (OLD.live >= 2) * OLD.similar_freed, sets = sets - (OLD.live >= 2 AND OLD.similar > 0)
                WHERE group_id = 'similar';
                UPDATE group_totals SET items = items - (OLD.live >= 2) * OLD.duplicate, bytes = bytes - (OLD.live >= 2) * OLD.duplicate_bytes,
                    candidates = candidates - (OLD.live >= 2) * OLD.duplicate_candidates, freed = freed - (OLD.live >= 2) * OLD.duplicate_freed, sets = sets - (OLD.live >= 2 AND OLD.duplicate > 0)
                WHERE group_id = 'duplicate';
            END;
            CREATE TRIGGER group_counts_file_added AFTER INSERT ON files BEGIN
                INSERT INTO group_recount(file_id) VALUES(NEW.id);
            END;
            CREATE TRIGGER group_counts_file_removed AFTER DELETE ON files BEGIN
                INSERT INTO group_recount(file_id) VALUES(OLD.id);
            END;
            CREATE TRIGGER group_counts_file_changed AFTER UPDATE OF status, size, kind ON files
            WHEN (OLD.status = 'gone') IS NOT (NEW.status = 'gone') OR OLD.size IS NOT NEW.size OR OLD.kind IS NOT NEW.kind
            BEGIN
                INSERT INTO group_recount(file_id) VALUES(NEW.id);
            END;
            CREATE TRIGGER group_counts_member_added AFTER INSERT ON group_members BEGIN
                INSERT INTO group_recount(file_id) VALUES(NEW.file_id);
            END;
            CREATE TRIGGER group_counts_member_removed AFTER DELETE ON group_members BEGIN
                INSERT INTO group_recount(file_id) VALUES(OLD.file_id);
            END;
            CREATE TRIGGER group_counts_member_changed AFTER UPDATE OF group_id, file_id ON group_members BEGIN
                INSERT INTO group_recount(file_id) VALUES(OLD.file_id);
                INSERT INTO group_recount(file_id) SELECT NEW.file_id WHERE NEW.file_id IS NOT OLD.file_id;
            END;
            CREATE TRIGGER group_counts_set_added AFTER INSERT ON similar_sets BEGIN
                INSERT INTO group_recount(file_id) VALUES(NEW.file_id);
            END;
            CREATE TRIGGER group_counts_set_removed AFTER DELETE ON similar_sets BEGIN
                INSERT INTO group_recount(file_id) VALUES(OLD.file_id);
            END;
            CREATE TRIGGER group_counts_set_changed AFTER UPDATE OF file_id, set_key, keeper, duplicate_of ON similar_sets BEGIN
                INSERT INTO group_recount(file_id) VALUES(OLD.file_id);
                INSERT INTO group_recount(file_id) SELECT NEW.file_id WHERE NEW.file_id IS NOT OLD.file_id;
            END;
            CREATE TRIGGER group_counts_sidecar_added AFTER INSERT ON sidecars BEGIN
                INSERT INTO group_recount(file_id) VALUES(NEW.sidecar_id);
            END;
            CREATE TRIGGER group_counts_sidecar_removed AFTER DELETE ON sidecars BEGIN
                INSERT INTO group_recount(file_id) VALUES(OLD.sidecar_id);
            END;
            CREATE TRIGGER group_counts_sidecar_changed AFTER UPDATE OF sidecar_id ON sidecars BEGIN
                INSERT INTO group_recount(file_id) VALUES(OLD.sidecar_id);
                INSERT INTO group_recount(file_id) SELECT NEW.sidecar_id WHERE NEW.sidecar_id IS NOT OLD.sidecar_id;
            END;
            """)
}

extension Schema {
    /// v92 (fixed text): a writer of many group rows at once (a regroup's store: a part of ten
    /// thousand photos writes ~25 000 rows, each a file counted again by migration 88's triggers,
    /// ~2 s of a part and ~200 s of a million rows' regroup) may hold the recount
    /// (`Library.withGroupCountsHeld`): while `group_recount_held` has its row, a write notes the
    /// file in `group_recount_pending`, and the holder counts each noted file once before its
    /// transaction ends. A file's count is made from what the tables hold, so once at the end
    /// equals once after each write. The row is written inside the holder's transaction: no other
    /// connection sees it, and a crash or a rollback takes it away with the writes. A file noted
    /// twice is noted once by `NOT EXISTS`, not `OR IGNORE`: a trigger's conflict clause yields to
    /// the outer statement's (an upsert that fired it made the second note fail).
    static let groupRecountHeld = Migration(
        version: 92,
        sql: """
            CREATE TABLE group_recount_held(held INTEGER PRIMARY KEY CHECK(held = 1));
            CREATE TABLE group_recount_pending(file_id INTEGER PRIMARY KEY);
            DROP TRIGGER group_recount_file;
            CREATE TRIGGER group_recount_file INSTEAD OF INSERT ON group_recount
            WHEN NOT EXISTS (SELECT 1 FROM group_recount_held)
            BEGIN
                INSERT INTO group_totals(group_id, items, bytes, candidates)
                SELECT j.value, -1, -c.size, -c.candidate FROM group_counted c, json_each(c.groups) j WHERE c.file_id = NEW.file_id
                ON CONFLICT(group_id) DO UPDATE SET items = items + excluded.items, bytes = bytes + excluded.bytes,
                    candidates = candidates + excluded.candidates;
                INSERT INTO group_sets(set_key, live, similar, similar_bytes, similar_candidates, similar_freed,
                                       duplicate, duplicate_bytes, duplicate_candidates, duplicate_freed)
                SELECT set_key, -1, -similar, -similar * size, -similar * candidate, -similar * similar_freed * size,
                       -duplicate, -duplicate * size, -duplicate * candidate, -duplicate * duplicate_freed * size
                FROM group_counted WHERE file_id = NEW.file_id AND set_key IS NOT NULL
                ON CONFLICT(set_key) DO UPDATE SET live = live + excluded.live, similar = similar + excluded.similar,
                    similar_bytes = similar_bytes + excluded.similar_bytes, similar_candidates = similar_candidates + excluded.similar_candidates,
                    similar_freed = similar_freed + excluded.similar_freed, duplicate = duplicate + excluded.duplicate,
                    duplicate_bytes = duplicate_bytes + excluded.duplicate_bytes,
                    duplicate_candidates = duplicate_candidates + excluded.duplicate_candidates,
                    duplicate_freed = duplicate_freed + excluded.duplicate_freed;
                DELETE FROM group_sets WHERE live = 0 AND set_key = (SELECT set_key FROM group_counted WHERE file_id = NEW.file_id);
                DELETE FROM group_counted WHERE file_id = NEW.file_id;
                INSERT INTO group_counted(file_id, size, candidate, groups, set_key, similar, duplicate, similar_freed, duplicate_freed)
                SELECT f.id, f.size,
                       f.kind IN ('photo', 'video') AND NOT EXISTS (SELECT 1 FROM sidecars c WHERE c.sidecar_id = f.id),
                       (SELECT json_group_array(m.group_id) FROM group_members m
                        WHERE m.file_id = f.id AND m.group_id NOT IN ('similar', 'duplicate')),
                       s.set_key,
                       s.file_id IS NOT NULL AND EXISTS (SELECT 1 FROM group_members m WHERE m.group_id = 'similar' AND m.file_id = f.id),
                       s.file_id IS NOT NULL AND EXISTS (SELECT 1 FROM group_members m WHERE m.group_id = 'duplicate' AND m.file_id = f.id),
                       coalesce(s.keeper = 0, 0), s.duplicate_of IS NOT NULL
                FROM files f LEFT JOIN similar_sets s ON s.file_id = f.id
                WHERE f.id = NEW.file_id AND f.status != 'gone'
                  AND (s.file_id IS NOT NULL OR EXISTS (SELECT 1 FROM group_members m WHERE m.file_id = f.id));
                INSERT INTO group_totals(group_id, items, bytes, candidates)
                SELECT j.value, 1, c.size, c.candidate FROM group_counted c, json_each(c.groups) j WHERE c.file_id = NEW.file_id
                ON CONFLICT(group_id) DO UPDATE SET items = items + excluded.items, bytes = bytes + excluded.bytes,
                    candidates = candidates + excluded.candidates;
                INSERT INTO group_sets(set_key, live, similar, similar_bytes, similar_candidates, similar_freed,
                                       duplicate, duplicate_bytes, duplicate_candidates, duplicate_freed)
                SELECT set_key, 1, similar, similar * size, similar * candidate, similar * similar_freed * size,
                       duplicate, duplicate * size, duplicate * candidate, duplicate * duplicate_freed * size
                FROM group_counted WHERE file_id = NEW.file_id AND set_key IS NOT NULL
                ON CONFLICT(set_key) DO UPDATE SET live = live + excluded.live, similar = similar + excluded.similar,
                    similar_bytes = similar_bytes + excluded.similar_bytes, similar_candidates = similar_candidates + excluded.similar_candidates,
                    similar_freed = similar_freed + excluded.similar_freed, duplicate = duplicate + excluded.duplicate,
                    duplicate_bytes = duplicate_bytes + excluded.duplicate_bytes,
                    duplicate_candidates = duplicate_candidates + excluded.duplicate_candidates,
                    duplicate_freed = duplicate_freed + excluded.duplicate_freed;
            END;
            CREATE TRIGGER group_recount_later INSTEAD OF INSERT ON group_recount
            WHEN EXISTS (SELECT 1 FROM group_recount_held)
            BEGIN
                INSERT INTO group_recount_pending(file_id)
                SELECT NEW.file_id WHERE NOT EXISTS (SELECT 1 FROM group_recount_pending WHERE file_id = NEW.file_id);
            END;
            """)
}
