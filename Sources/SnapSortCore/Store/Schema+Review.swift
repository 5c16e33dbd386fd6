extension Schema {
    /// Migrations owned by review, decks, the trash and stats (versions 20–29, then 73).
    ///
    /// Decisions follow a file's identity (`files.id`) and go with it (`ON DELETE CASCADE`)
    /// when `Library.forget(under:)` drops rows; history that must outlive a forgotten row —
    /// stats events, the trash ledger, chapters — keeps its numbers and loses only the link
    /// (`ON DELETE SET NULL`), so a committed file is never lost track of.
    static let review: [Migration] = [
        Migration(
            version: 20,
            sql: """
                CREATE TABLE decisions(
                    file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
                    decision TEXT NOT NULL,                    -- trash | keep | skip | later
                    decided_ts REAL NOT NULL,                  -- seconds since 1970 (UTC)
                    session_id INTEGER,
                    later_count INTEGER NOT NULL DEFAULT 0,    -- deferrals so far (kept across decisions)
                    later_until REAL,                          -- a 'later' item returns after this time
                    reviewed_size INTEGER, reviewed_mtime_ns INTEGER, reviewed_hash BLOB  -- what the user saw
                );
                CREATE INDEX decisions_kind ON decisions(decision);

                -- One undo history shared by every front end. `before` is the decisions row as it was
                -- (JSON, null when undecided); `session_before` the deck session as it was.
                CREATE TABLE undo_steps(
                    id INTEGER PRIMARY KEY,
                    created_ts REAL NOT NULL,
                    file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
                    before TEXT,
                    session_id INTEGER,
                    session_before TEXT,
                    event_id INTEGER,
                    chapter_id INTEGER
                );

                -- Stats are computed from these events. `undone` marks a decision taken back.
                CREATE TABLE review_events(
                    id INTEGER PRIMARY KEY,
                    ts REAL NOT NULL,                          -- seconds since 1970 (UTC)
                    kind TEXT NOT NULL,                        -- decision | cleared | restored
                    file_id INTEGER REFERENCES files(id) ON DELETE SET NULL,
                    decision TEXT,
                    first_review INTEGER NOT NULL DEFAULT 0,   -- the item's first verdict
                    bytes INTEGER NOT NULL DEFAULT 0,
                    session_id INTEGER,
                    undone INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX review_events_ts ON review_events(ts);

                CREATE TABLE milestones(
                    id TEXT PRIMARY KEY,
                    reached_ts REAL NOT NULL
                );

                -- A deck being reviewed: its items are fixed when it starts so the position means
                -- the same thing across restarts and front ends.
                CREATE TABLE deck_sessions(
                    id INTEGER PRIMARY KEY,
                    deck_id TEXT NOT NULL,
                    title TEXT NOT NULL,
                    items TEXT NOT NULL,                       -- JSON array of files.id
                    position INTEGER NOT NULL DEFAULT 0,
                    goal INTEGER NOT NULL,
                    decisions INTEGER NOT NULL DEFAULT 0,
                    bytes INTEGER NOT NULL DEFAULT 0,          -- bytes staged for trash in this session
                    started_ts REAL NOT NULL,
                    updated_ts REAL NOT NULL,
                    finished_ts REAL
                );

                CREATE TABLE chapters(
                    id INTEGER PRIMARY KEY,
                    session_id INTEGER NOT NULL UNIQUE,
                    deck_id TEXT NOT NULL,
                    title TEXT NOT NULL,
                    finished_ts REAL NOT NULL,
                    decisions INTEGER NOT NULL,
                    bytes INTEGER NOT NULL,
                    cover_file_id INTEGER REFERENCES files(id) ON DELETE SET NULL
                );

                -- The commit ledger: one row per file moved (or to be moved) to a system Trash.
                -- Written before each step so a killed commit can be finished without trashing
                -- anything twice.
                CREATE TABLE trash_ledger(
                    id INTEGER PRIMARY KEY,
                    file_id INTEGER REFERENCES files(id) ON DELETE SET NULL,
                    parent_id INTEGER REFERENCES trash_ledger(id),  -- set for a sidecar
                    original_path TEXT NOT NULL,
                    trash_dir TEXT,                            -- the Trash folder (holding files/ and info/)
                    trash_name TEXT,                           -- NAME in files/NAME and info/NAME.trashinfo
                    info TEXT,                                 -- the exact .trashinfo text we write (to know it is ours)
                    state TEXT NOT NULL,                       -- planned | trashed | skipped | abandoned | restored | purged
                    reason TEXT,
                    bytes INTEGER NOT NULL,
                    device INTEGER, inode INTEGER, mtime_ns INTEGER,
                    planned_ts REAL NOT NULL,
                    trashed_ts REAL,
                    restored_ts REAL
                );
                CREATE INDEX trash_ledger_state ON trash_ledger(state);
                CREATE INDEX trash_ledger_file ON trash_ledger(file_id);
                """),
        // One action on many files (every set's rest, old screenshots) is one undo step: the
        // steps it made share a batch (its first step's id).
        Migration(
            version: 21,
            sql: """
                ALTER TABLE undo_steps ADD COLUMN batch INTEGER;
                """),
        // The decks' overview counts every live row's deck key (its kind, date, camera and the
        // named filters' flags, `Decks.DeckKey`) in an index SQLite keeps as rows are written:
        // the first screen of a million-row library reads the index, never the table (issue 40).
        // The index's text is fixed here, as it was written: SQLite uses an index on expressions
        // only for a query with the same expressions, so a change to `Decks.DeckKey` (or to a
        // constant it reads: the editors, the favourite rating, the screenshot words) needs a
        // new migration that drops `files_deck` and creates it again from the new key
        // (`DecksOverviewTests.theIndexIsTheKeyTheCountsRead` fails until there is one).
        Migration(
            version: 73,
            sql: """
                CREATE INDEX files_deck ON files(CASE WHEN typeof(path) != 'text' OR typeof(kind) != 'text' OR typeof(taken_at) NOT IN ('text', 'null')
                       OR typeof(make) NOT IN ('text', 'null') OR typeof(model) NOT IN ('text', 'null')
                       OR typeof(lens) NOT IN ('text', 'null') OR typeof(software) NOT IN ('text', 'null')
                       OR typeof(rating) NOT IN ('integer', 'null') THEN 1
                     WHEN (taken_at IS NOT NULL OR taken_ts IS NOT NULL) AND NOT coalesce((taken_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' OR taken_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][T ]*'), 0) THEN 1
                     WHEN path GLOB '*/' OR coalesce(length(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)) != length(CAST(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1) AS BLOB)), 0) OR coalesce(length(make) != length(CAST(make AS BLOB)), 0) OR coalesce(length(model) != length(CAST(model AS BLOB)), 0)
                       OR coalesce(length(lens) != length(CAST(lens AS BLOB)), 0) OR coalesce(length(software) != length(CAST(software AS BLOB)), 0) THEN 1
                     WHEN (instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'edit') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'bearbeitet') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'img_e') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'modificato') > 0) THEN 1
                     ELSE 0 END, kind, CASE WHEN (instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'screenshot') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'screen shot') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'screen_shot') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'bildschirmfoto') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'capture d') > 0) THEN 1 ELSE 0 END, CASE WHEN (taken_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' OR taken_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][T ]*') THEN substr(taken_at, 1, 10) END, trim(model, ' ' || char(9)), trim(make, ' ' || char(9)), coalesce(instr(lower(lens), 'front') > 0, 0), coalesce(rating, 0) >= 4, coalesce((instr(lower(software), 'photoshop') > 0 OR instr(lower(software), 'lightroom') > 0 OR instr(lower(software), 'gimp') > 0 OR instr(lower(software), 'snapseed') > 0 OR instr(lower(software), 'darktable') > 0 OR instr(lower(software), 'rawtherapee') > 0 OR instr(lower(software), 'affinity') > 0 OR instr(lower(software), 'pixelmator') > 0 OR instr(lower(software), 'vsco') > 0 OR instr(lower(software), 'picasa') > 0 OR instr(lower(software), 'digikam') > 0 OR instr(lower(software), 'shotwell') > 0 OR instr(lower(software), 'luminar') > 0 OR instr(lower(software), 'capture one') > 0 OR instr(lower(software), 'photos 1') > 0 OR instr(lower(software), 'instagram') > 0 OR instr(lower(software), 'edited') > 0), 0)) WHERE status != 'gone';
                """),
        // "Cleared" means left the disk (issue 43, item 4): a file no longer in its Trash is a
        // `purged` event (`Trash.recordPurged`). The files found gone before are booked once, at
        // the moment they were moved to the Trash (the moment they left it was not recorded; it
        // came after).
        Migration(
            version: 76,
            sql: """
                INSERT INTO review_events(ts, kind, file_id, bytes)
                SELECT COALESCE(trashed_ts, planned_ts), 'purged', file_id, bytes FROM trash_ledger WHERE state = 'purged';
                """),
        // The decks' counts kept as rows are written (issue 40 item 3): the overview read the
        // whole index `files_deck` at every look (0.44 s of CPU at a million rows) and every
        // decided row's file. `deck_keys` holds each live row's deck key (the columns of
        // `files_deck`, in its order: `Decks.DeckKey.columns`, written here as the literal it is
        // now — a change to the key makes these triggers again, as it makes the index:
        // `DecksOverviewTests.theIndexIsTheKeyTheCountsRead`), `deck_counts` how many live rows
        // have each key (`key`: the values quoted, one text for a unique key with NULLs in it);
        // triggers on `files` keep both, whoever writes. `files_decided` covers what the counts of
        // the decided rows read of their files (live, kind, and what `trashOnChangedBytes`
        // compares), so that 50 000 decisions are read from a narrow index in id order, not
        // from 50 000 pages of the table.
        Migration(
            version: 89,
            sql: """
                CREATE INDEX files_decided ON files(id, status, kind, size, device, inode, btime_ns, content_hash);
                CREATE TABLE deck_keys(
                    file_id INTEGER PRIMARY KEY,
                    odd, kind, shot, date, model, make, selfie, favourite, editor
                );
                CREATE TABLE deck_counts(
                    key TEXT PRIMARY KEY,
                    odd, kind, shot, date, model, make, selfie, favourite, editor,
                    n INTEGER NOT NULL
                ) WITHOUT ROWID;
                INSERT INTO deck_keys(file_id, odd, kind, shot, date, model, make, selfie, favourite, editor)
                    SELECT id, CASE WHEN typeof(path) != 'text' OR typeof(kind) != 'text' OR typeof(taken_at) NOT IN ('text', 'null')
                       OR typeof(make) NOT IN ('text', 'null') OR typeof(model) NOT IN ('text', 'null')
                       OR typeof(lens) NOT IN ('text', 'null') OR typeof(software) NOT IN ('text', 'null')
                       OR typeof(rating) NOT IN ('integer', 'null') THEN 1
                     WHEN (taken_at IS NOT NULL OR taken_ts IS NOT NULL) AND NOT coalesce((taken_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' OR taken_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][T ]*'), 0) THEN 1
                     WHEN path GLOB '*/' OR coalesce(length(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)) != length(CAST(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1) AS BLOB)), 0) OR coalesce(length(make) != length(CAST(make AS BLOB)), 0) OR coalesce(length(model) != length(CAST(model AS BLOB)), 0)
                       OR coalesce(length(lens) != length(CAST(lens AS BLOB)), 0) OR coalesce(length(software) != length(CAST(software AS BLOB)), 0) THEN 1
                     WHEN (instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'edit') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'bearbeitet') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'img_e') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'modificato') > 0) THEN 1
                     ELSE 0 END, kind, CASE WHEN (instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'screenshot') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'screen shot') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'screen_shot') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'bildschirmfoto') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'capture d') > 0) THEN 1 ELSE 0 END, CASE WHEN (taken_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' OR taken_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][T ]*') THEN substr(taken_at, 1, 10) END, trim(model, ' ' || char(9)), trim(make, ' ' || char(9)), coalesce(instr(lower(lens), 'front') > 0, 0), coalesce(rating, 0) >= 4, coalesce((instr(lower(software), 'photoshop') > 0 OR instr(lower(software), 'lightroom') > 0 OR instr(lower(software), 'gimp') > 0 OR instr(lower(software), 'snapseed') > 0 OR instr(lower(software), 'darktable') > 0 OR instr(lower(software), 'rawtherapee') > 0 OR instr(lower(software), 'affinity') > 0 OR instr(lower(software), 'pixelmator') > 0 OR instr(lower(software), 'vsco') > 0 OR instr(lower(software), 'picasa') > 0 OR instr(lower(software), 'digikam') > 0 OR instr(lower(software), 'shotwell') > 0 OR instr(lower(software), 'luminar') > 0 OR instr(lower(software), 'capture one') > 0 OR instr(lower(software), 'photos 1') > 0 OR instr(lower(software), 'instagram') > 0 OR instr(lower(software), 'edited') > 0), 0) FROM files WHERE status != 'gone';
                INSERT INTO deck_counts(key, odd, kind, shot, date, model, make, selfie, favourite, editor, n)
                    SELECT quote(odd) || ',' || quote(kind) || ',' || quote(shot) || ',' || quote(date) || ',' || quote(model) || ',' || quote(make) || ',' || quote(selfie) || ',' || quote(favourite) || ',' || quote(editor), odd, kind, shot, date, model, make, selfie, favourite, editor, count(*)
                    FROM deck_keys GROUP BY odd, kind, shot, date, model, make, selfie, favourite, editor;
                CREATE TRIGGER deck_keys_added AFTER INSERT ON deck_keys BEGIN
                    INSERT INTO deck_counts(key, odd, kind, shot, date, model, make, selfie, favourite, editor, n)
                    VALUES(quote(NEW.odd) || ',' || quote(NEW.kind) || ',' || quote(NEW.shot) || ',' || quote(NEW.date) || ',' || quote(NEW.model) || ',' || quote(NEW.make) || ',' || quote(NEW.selfie) || ',' || quote(NEW.favourite) || ',' || quote(NEW.editor), NEW.odd, NEW.kind, NEW.shot, NEW.date, NEW.model, NEW.make, NEW.selfie, NEW.favourite, NEW.editor, 1)
                    ON CONFLICT(key) DO UPDATE SET n = n + 1;
                END;
                CREATE TRIGGER deck_keys_removed AFTER DELETE ON deck_keys BEGIN
                    UPDATE deck_counts SET n = n - 1 WHERE key = quote(OLD.odd) || ',' || quote(OLD.kind) || ',' || quote(OLD.shot) || ',' || quote(OLD.date) || ',' || quote(OLD.model) || ',' || quote(OLD.make) || ',' || quote(OLD.selfie) || ',' || quote(OLD.favourite) || ',' || quote(OLD.editor);
                    DELETE FROM deck_counts WHERE key = quote(OLD.odd) || ',' || quote(OLD.kind) || ',' || quote(OLD.shot) || ',' || quote(OLD.date) || ',' || quote(OLD.model) || ',' || quote(OLD.make) || ',' || quote(OLD.selfie) || ',' || quote(OLD.favourite) || ',' || quote(OLD.editor) AND n <= 0;
                END;
                CREATE TRIGGER deck_keys_file_added AFTER INSERT ON files WHEN NEW.status != 'gone' BEGIN
                    INSERT INTO deck_keys(file_id, odd, kind, shot, date, model, make, selfie, favourite, editor)
                    SELECT id, CASE WHEN typeof(path) != 'text' OR typeof(kind) != 'text' OR typeof(taken_at) NOT IN ('text', 'null')
                       OR typeof(make) NOT IN ('text', 'null') OR typeof(model) NOT IN ('text', 'null')
                       OR typeof(lens) NOT IN ('text', 'null') OR typeof(software) NOT IN ('text', 'null')
                       OR typeof(rating) NOT IN ('integer', 'null') THEN 1
                     WHEN (taken_at IS NOT NULL OR taken_ts IS NOT NULL) AND NOT coalesce((taken_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' OR taken_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][T ]*'), 0) THEN 1
                     WHEN path GLOB '*/' OR coalesce(length(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)) != length(CAST(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1) AS BLOB)), 0) OR coalesce(length(make) != length(CAST(make AS BLOB)), 0) OR coalesce(length(model) != length(CAST(model AS BLOB)), 0)
                       OR coalesce(length(lens) != length(CAST(lens AS BLOB)), 0) OR coalesce(length(software) != length(CAST(software AS BLOB)), 0) THEN 1
                     WHEN (instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'edit') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'bearbeitet') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'img_e') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'modificato') > 0) THEN 1
                     ELSE 0 END, kind, CASE WHEN (instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'screenshot') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'screen shot') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'screen_shot') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'bildschirmfoto') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'capture d') > 0) THEN 1 ELSE 0 END, CASE WHEN (taken_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' OR taken_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][T ]*') THEN substr(taken_at, 1, 10) END, trim(model, ' ' || char(9)), trim(make, ' ' || char(9)), coalesce(instr(lower(lens), 'front') > 0, 0), coalesce(rating, 0) >= 4, coalesce((instr(lower(software), 'photoshop') > 0 OR instr(lower(software), 'lightroom') > 0 OR instr(lower(software), 'gimp') > 0 OR instr(lower(software), 'snapseed') > 0 OR instr(lower(software), 'darktable') > 0 OR instr(lower(software), 'rawtherapee') > 0 OR instr(lower(software), 'affinity') > 0 OR instr(lower(software), 'pixelmator') > 0 OR instr(lower(software), 'vsco') > 0 OR instr(lower(software), 'picasa') > 0 OR instr(lower(software), 'digikam') > 0 OR instr(lower(software), 'shotwell') > 0 OR instr(lower(software), 'luminar') > 0 OR instr(lower(software), 'capture one') > 0 OR instr(lower(software), 'photos 1') > 0 OR instr(lower(software), 'instagram') > 0 OR instr(lower(software), 'edited') > 0), 0) FROM files WHERE id = NEW.id;
                END;
                CREATE TRIGGER deck_keys_file_changed
                AFTER UPDATE OF path, kind, taken_at, taken_ts, make, model, lens, software, rating, status ON files
                WHEN OLD.path IS NOT NEW.path OR OLD.kind IS NOT NEW.kind OR OLD.taken_at IS NOT NEW.taken_at
                    OR OLD.taken_ts IS NOT NEW.taken_ts OR OLD.make IS NOT NEW.make OR OLD.model IS NOT NEW.model
                    OR OLD.lens IS NOT NEW.lens OR OLD.software IS NOT NEW.software OR OLD.rating IS NOT NEW.rating
                    OR OLD.status IS NOT NEW.status
                BEGIN
                    DELETE FROM deck_keys WHERE file_id = OLD.id;
                    INSERT INTO deck_keys(file_id, odd, kind, shot, date, model, make, selfie, favourite, editor)
                    SELECT id, CASE WHEN typeof(path) != 'text' OR typeof(kind) != 'text' OR typeof(taken_at) NOT IN ('text', 'null')
                       OR typeof(make) NOT IN ('text', 'null') OR typeof(model) NOT IN ('text', 'null')
                       OR typeof(lens) NOT IN ('text', 'null') OR typeof(software) NOT IN ('text', 'null')
                       OR typeof(rating) NOT IN ('integer', 'null') THEN 1
                     WHEN (taken_at IS NOT NULL OR taken_ts IS NOT NULL) AND NOT coalesce((taken_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' OR taken_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][T ]*'), 0) THEN 1
                     WHEN path GLOB '*/' OR coalesce(length(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)) != length(CAST(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1) AS BLOB)), 0) OR coalesce(length(make) != length(CAST(make AS BLOB)), 0) OR coalesce(length(model) != length(CAST(model AS BLOB)), 0)
                       OR coalesce(length(lens) != length(CAST(lens AS BLOB)), 0) OR coalesce(length(software) != length(CAST(software AS BLOB)), 0) THEN 1
                     WHEN (instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'edit') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'bearbeitet') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'img_e') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'modificato') > 0) THEN 1
                     ELSE 0 END, kind, CASE WHEN (instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'screenshot') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'screen shot') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'screen_shot') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'bildschirmfoto') > 0 OR instr(lower(substr(path, length(rtrim(path, replace(path, '/', ''))) + 1)), 'capture d') > 0) THEN 1 ELSE 0 END, CASE WHEN (taken_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]' OR taken_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][T ]*') THEN substr(taken_at, 1, 10) END, trim(model, ' ' || char(9)), trim(make, ' ' || char(9)), coalesce(instr(lower(lens), 'front') > 0, 0), coalesce(rating, 0) >= 4, coalesce((instr(lower(software), 'photoshop') > 0 OR instr(lower(software), 'lightroom') > 0 OR instr(lower(software), 'gimp') > 0 OR instr(lower(software), 'snapseed') > 0 OR instr(lower(software), 'darktable') > 0 OR instr(lower(software), 'rawtherapee') > 0 OR instr(lower(software), 'affinity') > 0 OR instr(lower(software), 'pixelmator') > 0 OR instr(lower(software), 'vsco') > 0 OR instr(lower(software), 'picasa') > 0 OR instr(lower(software), 'digikam') > 0 OR instr(lower(software), 'shotwell') > 0 OR instr(lower(software), 'luminar') > 0 OR instr(lower(software), 'capture one') > 0 OR instr(lower(software), 'photos 1') > 0 OR instr(lower(software), 'instagram') > 0 OR instr(lower(software), 'edited') > 0), 0) FROM files WHERE id = NEW.id AND status != 'gone';
                END;
                CREATE TRIGGER deck_keys_file_removed AFTER DELETE ON files BEGIN
                    DELETE FROM deck_keys WHERE file_id = OLD.id;
                END;
                """),
        decidedCounts,
        decidedRecountHeld,
    ]
}

extension Schema {
    /// v90 (fixed text, as every migration): what each decision counts for on the first screen
    /// kept as it is written, so that the overview, the group decks, the status's waiting count
    /// and the staged totals read a row per key, group or total instead of every decision
    /// (issue 40 item 3: ~1.2 s of CPU a first screen with 50 000 decisions at a million rows,
    /// each decision read six times). Kept by triggers on every write, whoever writes, as
    /// migration 88 keeps the groups' totals:
    /// - `decided_counted`: each decided file's part (its decision read as `Decks.Decided` reads
    ///   it — `special` where the SQL would read it otherwise than Swift, `class` its case with a
    ///   deferral as 5 whether due or not: its time decides at the read —; whether it is a card,
    ///   how it waits as `DecisionRecord.waitingSQL` says (`wait`), whether it is staged, its deck
    ///   key when the overview counts it by key, the groups it counts in as a card); a write that
    ///   can change it counts the file again (`INSERT INTO decided_recount`): its old parts taken
    ///   out of the sums, the row made again from the tables and its parts added. A conflict
    ///   clause cannot skew it: the file is counted from what the tables hold after the write.
    ///   `Decks.Decided.plain` and `DecisionRecord.trashChangedSQL` are written here as the
    ///   literals they are now (`DecidedCountsTests` fails when they change without a migration).
    /// - `decided_parts`: a decided file's parts: (`key`, its key, case), (`group`, each group,
    ///   case) for a plain card, (`cards`, '', how it waits), (`staged`, '', 0) with its bytes.
    /// - `decided_counts`: the parts summed.
    /// A set's members count in Similar Shots and Duplicates while it holds two live files
    /// (`group_sets.live`, migration 88): a set crossing two counts its decided members again.
    /// A migration that makes `files`, `decisions`, `deck_keys`, `sidecars`, `group_members`,
    /// `similar_sets` or `group_sets` again makes these triggers again.
    static let decidedCounts = Migration(
        version: 90,
        sql: """
            CREATE TABLE decided_counted(
                file_id INTEGER PRIMARY KEY,
                special INTEGER NOT NULL,
                class INTEGER,
                later INTEGER NOT NULL,
                later_until,
                card INTEGER NOT NULL,
                wait INTEGER NOT NULL,
                staged INTEGER NOT NULL,
                size,
                bytes,
                key TEXT,
                groups TEXT
            );
            CREATE INDEX decided_special ON decided_counted(special) WHERE special = 1;
            CREATE INDEX decided_later ON decided_counted(later_until) WHERE later = 1;
            CREATE TABLE decided_counts(
                scope TEXT NOT NULL,
                name TEXT NOT NULL,
                class INTEGER NOT NULL,
                n INTEGER NOT NULL,
                bytes INTEGER NOT NULL,
                PRIMARY KEY(scope, name, class)
            ) WITHOUT ROWID;
            CREATE VIEW decided_parts(file_id, scope, name, class, bytes) AS
                SELECT file_id, 'key', key, class, bytes FROM decided_counted WHERE key IS NOT NULL
                UNION ALL SELECT c.file_id, 'group', j.value, c.class, c.bytes FROM decided_counted c, json_each(c.groups) j WHERE c.special = 0
                UNION ALL SELECT file_id, 'cards', '', wait, 0 FROM decided_counted WHERE card = 1
                UNION ALL SELECT file_id, 'staged', '', 0, coalesce(size, 0) FROM decided_counted WHERE staged = 1;
            INSERT INTO decided_counted(file_id, special, class, later, later_until, card, wait, staged, size, bytes, key, groups)
            SELECT d.file_id, NOT (d.decision IN ('trash','keep','skip','later') AND typeof(f.size) = 'integer' AND typeof(f.device) = 'integer'
                AND typeof(f.inode) = 'integer' AND typeof(f.btime_ns) IN ('integer', 'null')
                AND (f.content_hash IS NULL OR (typeof(f.content_hash) = 'blob' AND length(f.content_hash) > 0))
                AND typeof(d.reviewed_size) IN ('integer', 'null')
                AND (d.reviewed_hash IS NULL OR (typeof(d.reviewed_hash) = 'blob' AND length(d.reviewed_hash) > 0))
                AND ((d.reviewed_device IS NULL AND d.reviewed_inode IS NULL)
                     OR (typeof(d.reviewed_device) = 'integer' AND typeof(d.reviewed_inode) = 'integer'))
                AND typeof(d.reviewed_btime_ns) IN ('integer', 'null') AND typeof(d.later_until) IN ('integer', 'real', 'null')),
                CASE WHEN d.decision IN ('trash','keep','skip','later') AND typeof(f.size) = 'integer' AND typeof(f.device) = 'integer'
                AND typeof(f.inode) = 'integer' AND typeof(f.btime_ns) IN ('integer', 'null')
                AND (f.content_hash IS NULL OR (typeof(f.content_hash) = 'blob' AND length(f.content_hash) > 0))
                AND typeof(d.reviewed_size) IN ('integer', 'null')
                AND (d.reviewed_hash IS NULL OR (typeof(d.reviewed_hash) = 'blob' AND length(d.reviewed_hash) > 0))
                AND ((d.reviewed_device IS NULL AND d.reviewed_inode IS NULL)
                     OR (typeof(d.reviewed_device) = 'integer' AND typeof(d.reviewed_inode) = 'integer'))
                AND typeof(d.reviewed_btime_ns) IN ('integer', 'null') AND typeof(d.later_until) IN ('integer', 'real', 'null')
                     THEN CASE d.decision WHEN 'keep' THEN 1 WHEN 'skip' THEN 4 WHEN 'later' THEN 5
                          WHEN 'trash' THEN CASE WHEN ((d.reviewed_size IS NOT NULL AND d.reviewed_size != f.size)
                 OR (d.reviewed_hash IS NOT NULL AND f.content_hash IS NOT NULL AND d.reviewed_hash != f.content_hash)
                 OR (d.reviewed_inode IS NOT NULL AND (d.reviewed_inode != f.inode OR d.reviewed_device != f.device
                     OR (d.reviewed_btime_ns IS NOT NULL AND f.btime_ns >= 0 AND d.reviewed_btime_ns != f.btime_ns)))) THEN 3 ELSE 2 END END END,
                d.decision = 'later', d.later_until,
                f.status != 'gone' AND f.kind IN ('photo','video') AND NOT EXISTS (SELECT 1 FROM sidecars WHERE sidecar_id = f.id),
                CASE WHEN d.decision = 'skip' OR (d.decision = 'trash' AND ((d.reviewed_size IS NOT NULL AND d.reviewed_size != f.size)
                 OR (d.reviewed_hash IS NOT NULL AND f.content_hash IS NOT NULL AND d.reviewed_hash != f.content_hash)
                 OR (d.reviewed_inode IS NOT NULL AND (d.reviewed_inode != f.inode OR d.reviewed_device != f.device
                     OR (d.reviewed_btime_ns IS NOT NULL AND f.btime_ns >= 0 AND d.reviewed_btime_ns != f.btime_ns))))) THEN 1 WHEN d.decision = 'later' THEN 2 ELSE 0 END,
                d.decision = 'trash' AND f.status != 'gone', f.size, CASE WHEN d.decision = 'trash' THEN f.size ELSE 0 END,
                CASE WHEN f.status != 'gone' AND k.odd = 0 AND d.decision IN ('trash','keep','skip','later') AND typeof(f.size) = 'integer' AND typeof(f.device) = 'integer'
                AND typeof(f.inode) = 'integer' AND typeof(f.btime_ns) IN ('integer', 'null')
                AND (f.content_hash IS NULL OR (typeof(f.content_hash) = 'blob' AND length(f.content_hash) > 0))
                AND typeof(d.reviewed_size) IN ('integer', 'null')
                AND (d.reviewed_hash IS NULL OR (typeof(d.reviewed_hash) = 'blob' AND length(d.reviewed_hash) > 0))
                AND ((d.reviewed_device IS NULL AND d.reviewed_inode IS NULL)
                     OR (typeof(d.reviewed_device) = 'integer' AND typeof(d.reviewed_inode) = 'integer'))
                AND typeof(d.reviewed_btime_ns) IN ('integer', 'null') AND typeof(d.later_until) IN ('integer', 'real', 'null')
                       AND NOT EXISTS (SELECT 1 FROM sidecars WHERE file_id = f.id) AND NOT EXISTS (SELECT 1 FROM sidecars WHERE sidecar_id = f.id)
                       AND NOT EXISTS (SELECT 1 FROM group_members WHERE group_id = 'screenshot' AND file_id = f.id)
                     THEN quote(k.odd) || ',' || quote(k.kind) || ',' || quote(k.shot) || ',' || quote(k.date) || ',' || quote(k.model) || ',' || quote(k.make) || ',' || quote(k.selfie) || ',' || quote(k.favourite) || ',' || quote(k.editor) END,
                CASE WHEN f.status != 'gone' AND f.kind IN ('photo','video') AND NOT EXISTS (SELECT 1 FROM sidecars WHERE sidecar_id = f.id)
                     THEN (SELECT json_group_array(m.group_id) FROM group_members m LEFT JOIN similar_sets s ON s.file_id = m.file_id
                           WHERE m.file_id = f.id AND (m.group_id NOT IN ('similar','duplicate') OR (SELECT live FROM group_sets WHERE set_key = s.set_key) >= 2)) END
            FROM decisions d JOIN files f ON f.id = d.file_id LEFT JOIN deck_keys k ON k.file_id = d.file_id;
            INSERT INTO decided_counts(scope, name, class, n, bytes)
                SELECT scope, name, class, count(*), sum(bytes) FROM decided_parts GROUP BY scope, name, class;
            CREATE VIEW decided_recount(file_id) AS SELECT NULL WHERE 0;
            CREATE TRIGGER decided_recount_file INSTEAD OF INSERT ON decided_recount BEGIN
                INSERT INTO decided_counts(scope, name, class, n, bytes)
                SELECT scope, name, class, -1, -bytes FROM decided_parts WHERE file_id = NEW.file_id
                ON CONFLICT(scope, name, class) DO UPDATE SET n = n + excluded.n, bytes = bytes + excluded.bytes;
                DELETE FROM decided_counts
                WHERE n = 0 AND (scope, name, class) IN (SELECT scope, name, class FROM decided_parts WHERE file_id = NEW.file_id);
                DELETE FROM decided_counted WHERE file_id = NEW.file_id;
                INSERT INTO decided_counted(file_id, special, class, later, later_until, card, wait, staged, size, bytes, key, groups)
                SELECT d.file_id, NOT (d.decision IN ('trash','keep','skip','later') AND typeof(f.size) = 'integer' AND typeof(f.device) = 'integer'
                AND typeof(f.inode) = 'integer' AND typeof(f.btime_ns) IN ('integer', 'null')
                AND (f.content_hash IS NULL OR (typeof(f.content_hash) = 'blob' AND length(f.content_hash) > 0))
                AND typeof(d.reviewed_size) IN ('integer', 'null')
                AND (d.reviewed_hash IS NULL OR (typeof(d.reviewed_hash) = 'blob' AND length(d.reviewed_hash) > 0))
                AND ((d.reviewed_device IS NULL AND d.reviewed_inode IS NULL)
                     OR (typeof(d.reviewed_device) = 'integer' AND typeof(d.reviewed_inode) = 'integer'))
                AND typeof(d.reviewed_btime_ns) IN ('integer', 'null') AND typeof(d.later_until) IN ('integer', 'real', 'null')),
                CASE WHEN d.decision IN ('trash','keep','skip','later') AND typeof(f.size) = 'integer' AND typeof(f.device) = 'integer'
                AND typeof(f.inode) = 'integer' AND typeof(f.btime_ns) IN ('integer', 'null')
                AND (f.content_hash IS NULL OR (typeof(f.content_hash) = 'blob' AND length(f.content_hash) > 0))
                AND typeof(d.reviewed_size) IN ('integer', 'null')
                AND (d.reviewed_hash IS NULL OR (typeof(d.reviewed_hash) = 'blob' AND length(d.reviewed_hash) > 0))
                AND ((d.reviewed_device IS NULL AND d.reviewed_inode IS NULL)
                     OR (typeof(d.reviewed_device) = 'integer' AND typeof(d.reviewed_inode) = 'integer'))
                AND typeof(d.reviewed_btime_ns) IN ('integer', 'null') AND typeof(d.later_until) IN ('integer', 'real', 'null')
                     THEN CASE d.decision WHEN 'keep' THEN 1 WHEN 'skip' THEN 4 WHEN 'later' THEN 5
                          WHEN 'trash' THEN CASE WHEN ((d.reviewed_size IS NOT NULL AND d.reviewed_size != f.size)
                 OR (d.reviewed_hash IS NOT NULL AND f.content_hash IS NOT NULL AND d.reviewed_hash != f.content_hash)
                 OR (d.reviewed_inode IS NOT NULL AND (d.reviewed_inode != f.inode OR d.reviewed_device != f.device
                     OR (d.reviewed_btime_ns IS NOT NULL AND f.btime_ns >= 0 AND d.reviewed_btime_ns != f.btime_ns)))) THEN 3 ELSE 2 END END END,
                d.decision = 'later', d.later_until,
                f.status != 'gone' AND f.kind IN ('photo','video') AND NOT EXISTS (SELECT 1 FROM sidecars WHERE sidecar_id = f.id),
                CASE WHEN d.decision = 'skip' OR (d.decision = 'trash' AND ((d.reviewed_size IS NOT NULL AND d.reviewed_size != f.size)
                 OR (d.reviewed_hash IS NOT NULL AND f.content_hash IS NOT NULL AND d.reviewed_hash != f.content_hash)
                 OR (d.reviewed_inode IS NOT NULL AND (d.reviewed_inode != f.inode OR d.reviewed_device != f.device
                     OR (d.reviewed_btime_ns IS NOT NULL AND f.btime_ns >= 0 AND d.reviewed_btime_ns != f.btime_ns))))) THEN 1 WHEN d.decision = 'later' THEN 2 ELSE 0 END,
                d.decision = 'trash' AND f.status != 'gone', f.size, CASE WHEN d.decision = 'trash' THEN f.size ELSE 0 END,
                CASE WHEN f.status != 'gone' AND k.odd = 0 AND d.decision IN ('trash','keep','skip','later') AND typeof(f.size) = 'integer' AND typeof(f.device) = 'integer'
                AND typeof(f.inode) = 'integer' AND typeof(f.btime_ns) IN ('integer', 'null')
                AND (f.content_hash IS NULL OR (typeof(f.content_hash) = 'blob' AND length(f.content_hash) > 0))
                AND typeof(d.reviewed_size) IN ('integer', 'null')
                AND (d.reviewed_hash IS NULL OR (typeof(d.reviewed_hash) = 'blob' AND length(d.reviewed_hash) > 0))
                AND ((d.reviewed_device IS NULL AND d.reviewed_inode IS NULL)
                     OR (typeof(d.reviewed_device) = 'integer' AND typeof(d.reviewed_inode) = 'integer'))
                AND typeof(d.reviewed_btime_ns) IN ('integer', 'null') AND typeof(d.later_until) IN ('integer', 'real', 'null')
                       AND NOT EXISTS (SELECT 1 FROM sidecars WHERE file_id = f.id) AND NOT EXISTS (SELECT 1 FROM sidecars WHERE sidecar_id = f.id)
                       AND NOT EXISTS (SELECT 1 FROM group_members WHERE group_id = 'screenshot' AND file_id = f.id)
                     THEN quote(k.odd) || ',' || quote(k.kind) || ',' || quote(k.shot) || ',' || quote(k.date) || ',' || quote(k.model) || ',' || quote(k.make) || ',' || quote(k.selfie) || ',' || quote(k.favourite) || ',' || quote(k.editor) END,
                CASE WHEN f.status != 'gone' AND f.kind IN ('photo','video') AND NOT EXISTS (SELECT 1 FROM sidecars WHERE sidecar_id = f.id)
                     THEN (SELECT json_group_array(m.group_id) FROM group_members m LEFT JOIN similar_sets s ON s.file_id = m.file_id
                           WHERE m.file_id = f.id AND (m.group_id NOT IN ('similar','duplicate') OR (SELECT live FROM group_sets WHERE set_key = s.set_key) >= 2)) END
            FROM decisions d JOIN files f ON f.id = d.file_id LEFT JOIN deck_keys k ON k.file_id = d.file_id WHERE d.file_id = NEW.file_id;
                INSERT INTO decided_counts(scope, name, class, n, bytes)
                SELECT scope, name, class, 1, bytes FROM decided_parts WHERE file_id = NEW.file_id
                ON CONFLICT(scope, name, class) DO UPDATE SET n = n + excluded.n, bytes = bytes + excluded.bytes;
            END;
            CREATE TRIGGER decided_counts_decision_added AFTER INSERT ON decisions BEGIN
                INSERT INTO decided_recount(file_id) VALUES(NEW.file_id);
            END;
            CREATE TRIGGER decided_counts_decision_removed AFTER DELETE ON decisions BEGIN
                INSERT INTO decided_recount(file_id) VALUES(OLD.file_id);
            END;
            CREATE TRIGGER decided_counts_decision_changed AFTER UPDATE ON decisions BEGIN
                INSERT INTO decided_recount(file_id) VALUES(OLD.file_id);
                INSERT INTO decided_recount(file_id) SELECT NEW.file_id WHERE NEW.file_id IS NOT OLD.file_id;
            END;
            CREATE TRIGGER decided_counts_file_added AFTER INSERT ON files
            WHEN EXISTS (SELECT 1 FROM decisions WHERE file_id = NEW.id) BEGIN
                INSERT INTO decided_recount(file_id) VALUES(NEW.id);
            END;
            CREATE TRIGGER decided_counts_file_removed AFTER DELETE ON files
            WHEN EXISTS (SELECT 1 FROM decided_counted WHERE file_id = OLD.id) BEGIN
                INSERT INTO decided_recount(file_id) VALUES(OLD.id);
            END;
            CREATE TRIGGER decided_counts_file_changed AFTER UPDATE OF status, kind, size, device, inode, btime_ns, content_hash ON files
            WHEN (OLD.status IS NOT NEW.status OR OLD.kind IS NOT NEW.kind OR OLD.size IS NOT NEW.size OR OLD.device IS NOT NEW.device
                  OR OLD.inode IS NOT NEW.inode OR OLD.btime_ns IS NOT NEW.btime_ns OR OLD.content_hash IS NOT NEW.content_hash)
                 AND EXISTS (SELECT 1 FROM decisions WHERE file_id = NEW.id)
            BEGIN
                INSERT INTO decided_recount(file_id) VALUES(NEW.id);
            END;
            CREATE TRIGGER decided_counts_key_added AFTER INSERT ON deck_keys BEGIN
                INSERT INTO decided_recount(file_id) SELECT file_id FROM decisions WHERE file_id = NEW.file_id;
            END;
            CREATE TRIGGER decided_counts_key_removed AFTER DELETE ON deck_keys BEGIN
                INSERT INTO decided_recount(file_id) SELECT file_id FROM decisions WHERE file_id = OLD.file_id;
            END;
            CREATE TRIGGER decided_counts_key_changed AFTER UPDATE ON deck_keys BEGIN
                INSERT INTO decided_recount(file_id) SELECT file_id FROM decisions WHERE file_id IN (OLD.file_id, NEW.file_id);
            END;
            CREATE TRIGGER decided_counts_sidecar_added AFTER INSERT ON sidecars BEGIN
                INSERT INTO decided_recount(file_id) SELECT file_id FROM decisions WHERE file_id IN (NEW.file_id, NEW.sidecar_id);
            END;
            CREATE TRIGGER decided_counts_sidecar_removed AFTER DELETE ON sidecars BEGIN
                INSERT INTO decided_recount(file_id) SELECT file_id FROM decisions WHERE file_id IN (OLD.file_id, OLD.sidecar_id);
            END;
            CREATE TRIGGER decided_counts_sidecar_changed AFTER UPDATE ON sidecars BEGIN
                INSERT INTO decided_recount(file_id)
                SELECT file_id FROM decisions WHERE file_id IN (OLD.file_id, OLD.sidecar_id, NEW.file_id, NEW.sidecar_id);
            END;
            CREATE TRIGGER decided_counts_member_added AFTER INSERT ON group_members BEGIN
                INSERT INTO decided_recount(file_id) SELECT file_id FROM decisions WHERE file_id = NEW.file_id;
            END;
            CREATE TRIGGER decided_counts_member_removed AFTER DELETE ON group_members BEGIN
                INSERT INTO decided_recount(file_id) SELECT file_id FROM decisions WHERE file_id = OLD.file_id;
            END;
            CREATE TRIGGER decided_counts_member_changed AFTER UPDATE OF group_id, file_id ON group_members BEGIN
                INSERT INTO decided_recount(file_id) SELECT file_id FROM decisions WHERE file_id IN (OLD.file_id, NEW.file_id);
            END;
            CREATE TRIGGER decided_counts_set_added AFTER INSERT ON similar_sets BEGIN
                INSERT INTO decided_recount(file_id) SELECT file_id FROM decisions WHERE file_id = NEW.file_id;
            END;
            CREATE TRIGGER decided_counts_set_removed AFTER DELETE ON similar_sets BEGIN
                INSERT INTO decided_recount(file_id) SELECT file_id FROM decisions WHERE file_id = OLD.file_id;
            END;
            CREATE TRIGGER decided_counts_set_changed AFTER UPDATE OF file_id, set_key ON similar_sets BEGIN
                INSERT INTO decided_recount(file_id) SELECT file_id FROM decisions WHERE file_id IN (OLD.file_id, NEW.file_id);
            END;
            CREATE TRIGGER decided_counts_set_live_added AFTER INSERT ON group_sets WHEN NEW.live >= 2 BEGIN
                INSERT INTO decided_recount(file_id)
                SELECT s.file_id FROM similar_sets s JOIN decisions d ON d.file_id = s.file_id WHERE s.set_key = NEW.set_key;
            END;
            CREATE TRIGGER decided_counts_set_live_removed AFTER DELETE ON group_sets WHEN OLD.live >= 2 BEGIN
                INSERT INTO decided_recount(file_id)
                SELECT s.file_id FROM similar_sets s JOIN decisions d ON d.file_id = s.file_id WHERE s.set_key = OLD.set_key;
            END;
            CREATE TRIGGER decided_counts_set_live_changed AFTER UPDATE OF set_key, live ON group_sets
            WHEN (OLD.live >= 2) IS NOT (NEW.live >= 2) OR OLD.set_key IS NOT NEW.set_key
            BEGIN
                INSERT INTO decided_recount(file_id)
                SELECT s.file_id FROM similar_sets s JOIN decisions d ON d.file_id = s.file_id WHERE s.set_key IN (OLD.set_key, NEW.set_key);
            END;
            """)
}

extension Schema {
    /// v91 (fixed text): the decided counts of 90 held as migration 92 holds the groups' (a
    /// regroup's store writes a decided set member's set row and its two groups, and each made
    /// the file counted again, ~830 µs a decided file in a store of every set): while
    /// `decided_recount_held` has its row, a write notes the file in `decided_recount_pending`,
    /// and the holder (`Library.withGroupCountsHeld`) counts each noted file once before its
    /// transaction ends. A file's count is made from what the tables hold, so once at the end
    /// equals once after each write. `decided_recount_file` is 90's with the hold's condition.
    /// A file already noted is not noted again by a test, not by `OR IGNORE`: a statement's own
    /// conflict clause gives way to the one of the statement that fired the trigger, and an
    /// upsert's (migration 88 writes `group_sets` so, and a set crossing two notes its decided
    /// members) makes it fail on the second note (SQLite 3.40: "UNIQUE constraint failed").
    static let decidedRecountHeld = Migration(
        version: 91,
        sql: """
            CREATE TABLE decided_recount_held(held INTEGER PRIMARY KEY CHECK(held = 1));
            CREATE TABLE decided_recount_pending(file_id INTEGER PRIMARY KEY);
            DROP TRIGGER decided_recount_file;
            CREATE TRIGGER decided_recount_file INSTEAD OF INSERT ON decided_recount
            WHEN NOT EXISTS (SELECT 1 FROM decided_recount_held)
            BEGIN
                INSERT INTO decided_counts(scope, name, class, n, bytes)
                SELECT scope, name, class, -1, -bytes FROM decided_parts WHERE file_id = NEW.file_id
                ON CONFLICT(scope, name, class) DO UPDATE SET n = n + excluded.n, bytes = bytes + excluded.bytes;
                DELETE FROM decided_counts
                WHERE n = 0 AND (scope, name, class) IN (SELECT scope, name, class FROM decided_parts WHERE file_id = NEW.file_id);
                DELETE FROM decided_counted WHERE file_id = NEW.file_id;
                INSERT INTO decided_counted(file_id, special, class, later, later_until, card, wait, staged, size, bytes, key, groups)
                SELECT d.file_id, NOT (d.decision IN ('trash','keep','skip','later') AND typeof(f.size) = 'integer' AND typeof(f.device) = 'integer'
                AND typeof(f.inode) = 'integer' AND typeof(f.btime_ns) IN ('integer', 'null')
                AND (f.content_hash IS NULL OR (typeof(f.content_hash) = 'blob' AND length(f.content_hash) > 0))
                AND typeof(d.reviewed_size) IN ('integer', 'null')
                AND (d.reviewed_hash IS NULL OR (typeof(d.reviewed_hash) = 'blob' AND length(d.reviewed_hash) > 0))
                AND ((d.reviewed_device IS NULL AND d.reviewed_inode IS NULL)
                     OR (typeof(d.reviewed_device) = 'integer' AND typeof(d.reviewed_inode) = 'integer'))
                AND typeof(d.reviewed_btime_ns) IN ('integer', 'null') AND typeof(d.later_until) IN ('integer', 'real', 'null')),
                CASE WHEN d.decision IN ('trash','keep','skip','later') AND typeof(f.size) = 'integer' AND typeof(f.device) = 'integer'
                AND typeof(f.inode) = 'integer' AND typeof(f.btime_ns) IN ('integer', 'null')
                AND (f.content_hash IS NULL OR (typeof(f.content_hash) = 'blob' AND length(f.content_hash) > 0))
                AND typeof(d.reviewed_size) IN ('integer', 'null')
                AND (d.reviewed_hash IS NULL OR (typeof(d.reviewed_hash) = 'blob' AND length(d.reviewed_hash) > 0))
                AND ((d.reviewed_device IS NULL AND d.reviewed_inode IS NULL)
                     OR (typeof(d.reviewed_device) = 'integer' AND typeof(d.reviewed_inode) = 'integer'))
                AND typeof(d.reviewed_btime_ns) IN ('integer', 'null') AND typeof(d.later_until) IN ('integer', 'real', 'null')
                     THEN CASE d.decision WHEN 'keep' THEN 1 WHEN 'skip' THEN 4 WHEN 'later' THEN 5
                          WHEN 'trash' THEN CASE WHEN ((d.reviewed_size IS NOT NULL AND d.reviewed_size != f.size)
                 OR (d.reviewed_hash IS NOT NULL AND f.content_hash IS NOT NULL AND d.reviewed_hash != f.content_hash)
                 OR (d.reviewed_inode IS NOT NULL AND (d.reviewed_inode != f.inode OR d.reviewed_device != f.device
                     OR (d.reviewed_btime_ns IS NOT NULL AND f.btime_ns >= 0 AND d.reviewed_btime_ns != f.btime_ns)))) THEN 3 ELSE 2 END END END,
                d.decision = 'later', d.later_until,
                f.status != 'gone' AND f.kind IN ('photo','video') AND NOT EXISTS (SELECT 1 FROM sidecars WHERE sidecar_id = f.id),
                CASE WHEN d.decision = 'skip' OR (d.decision = 'trash' AND ((d.reviewed_size IS NOT NULL AND d.reviewed_size != f.size)
                 OR (d.reviewed_hash IS NOT NULL AND f.content_hash IS NOT NULL AND d.reviewed_hash != f.content_hash)
                 OR (d.reviewed_inode IS NOT NULL AND (d.reviewed_inode != f.inode OR d.reviewed_device != f.device
                     OR (d.reviewed_btime_ns IS NOT NULL AND f.btime_ns >= 0 AND d.reviewed_btime_ns != f.btime_ns))))) THEN 1 WHEN d.decision = 'later' THEN 2 ELSE 0 END,
                d.decision = 'trash' AND f.status != 'gone', f.size, CASE WHEN d.decision = 'trash' THEN f.size ELSE 0 END,
                CASE WHEN f.status != 'gone' AND k.odd = 0 AND d.decision IN ('trash','keep','skip','later') AND typeof(f.size) = 'integer' AND typeof(f.device) = 'integer'
                AND typeof(f.inode) = 'integer' AND typeof(f.btime_ns) IN ('integer', 'null')
                AND (f.content_hash IS NULL OR (typeof(f.content_hash) = 'blob' AND length(f.content_hash) > 0))
                AND typeof(d.reviewed_size) IN ('integer', 'null')
                AND (d.reviewed_hash IS NULL OR (typeof(d.reviewed_hash) = 'blob' AND length(d.reviewed_hash) > 0))
                AND ((d.reviewed_device IS NULL AND d.reviewed_inode IS NULL)
                     OR (typeof(d.reviewed_device) = 'integer' AND typeof(d.reviewed_inode) = 'integer'))
                AND typeof(d.reviewed_btime_ns) IN ('integer', 'null') AND typeof(d.later_until) IN ('integer', 'real', 'null')
                       AND NOT EXISTS (SELECT 1 FROM sidecars WHERE file_id = f.id) AND NOT EXISTS (SELECT 1 FROM sidecars WHERE sidecar_id = f.id)
                       AND NOT EXISTS (SELECT 1 FROM group_members WHERE group_id = 'screenshot' AND file_id = f.id)
                     THEN quote(k.odd) || ',' || quote(k.kind) || ',' || quote(k.shot) || ',' || quote(k.date) || ',' || quote(k.model) || ',' || quote(k.make) || ',' || quote(k.selfie) || ',' || quote(k.favourite) || ',' || quote(k.editor) END,
                CASE WHEN f.status != 'gone' AND f.kind IN ('photo','video') AND NOT EXISTS (SELECT 1 FROM sidecars WHERE sidecar_id = f.id)
                     THEN (SELECT json_group_array(m.group_id) FROM group_members m LEFT JOIN similar_sets s ON s.file_id = m.file_id
                           WHERE m.file_id = f.id AND (m.group_id NOT IN ('similar','duplicate') OR (SELECT live FROM group_sets WHERE set_key = s.set_key) >= 2)) END
            FROM decisions d JOIN files f ON f.id = d.file_id LEFT JOIN deck_keys k ON k.file_id = d.file_id WHERE d.file_id = NEW.file_id;
                INSERT INTO decided_counts(scope, name, class, n, bytes)
                SELECT scope, name, class, 1, bytes FROM decided_parts WHERE file_id = NEW.file_id
                ON CONFLICT(scope, name, class) DO UPDATE SET n = n + excluded.n, bytes = bytes + excluded.bytes;
            END;
            CREATE TRIGGER decided_recount_later INSTEAD OF INSERT ON decided_recount
            WHEN EXISTS (SELECT 1 FROM decided_recount_held)
            BEGIN
                INSERT INTO decided_recount_pending(file_id)
                SELECT NEW.file_id WHERE NOT EXISTS (SELECT 1 FROM decided_recount_pending WHERE file_id = NEW.file_id);
            END;
            """)
}
