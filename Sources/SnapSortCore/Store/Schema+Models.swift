extension Schema {
    /// Migrations owned by the local models (versions 50–53, 67, 79).
    ///
    /// - `vision`: the second analysis tier of a file. `version` names the tier-2 code and the
    ///   models it ran with (a model change re-runs only this tier); `analyzed_at` copies the
    ///   tier-1 `files.analyzed_at` it belongs to (a changed file is looked at again). `status` is
    ///   `ok` or `failed` (the helper crashed or refused the photo: not retried until either
    ///   changes). `faces`: faces found; `people_faces`: those of a reasonable size (the People
    ///   group); `worst_eyes`: the smallest eye openness over those faces (the keeper score);
    ///   `detail`: the faces as JSON (normalized boxes, confidence, eye aspect ratios).
    /// - `vision_state`: whether the models ran at the last pass, and why not (groups say
    ///   "unavailable").
    static let models: [Migration] = [
        Migration(
            version: 50,
            sql: """
                CREATE TABLE vision(
                    file_id INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
                    version TEXT NOT NULL,
                    analyzed_at TEXT,
                    status TEXT NOT NULL,
                    faces INTEGER,
                    people_faces INTEGER,
                    worst_eyes REAL,
                    detail TEXT,
                    ms REAL
                );
                CREATE TABLE vision_state(
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    available INTEGER NOT NULL,
                    problem TEXT
                );
                """),
        // v51: the classifier (OpenCV DNN, EfficientNet-Lite0): summed probabilities of the Pets,
        // Food and Scenery class ranges (`VisionCategories`) and the top ImageNet class.
        Migration(
            version: 51,
            sql: """
                ALTER TABLE vision ADD COLUMN pets REAL;
                ALTER TABLE vision ADD COLUMN food REAL;
                ALTER TABLE vision ADD COLUMN scenery REAL;
                ALTER TABLE vision ADD COLUMN top_class INTEGER;
                ALTER TABLE vision ADD COLUMN top_score REAL;
                ALTER TABLE vision_state ADD COLUMN classes_problem TEXT;
                """),
        // v52: the sky cue of the Scenery rule (`VisionSky`): `horizon`, the share of smooth sky
        // in the top third of the frame over textured ground (0 without ground; NULL when the
        // classifier did not run). `scenery` is now the Scenery score (`VisionCategories.sceneryScore`).
        Migration(
            version: 52,
            sql: """
                ALTER TABLE vision ADD COLUMN horizon REAL;
                """),
        // v53: the summed probability of the page-like classes (`VisionDocuments`).
        Migration(
            version: 53,
            sql: """
                ALTER TABLE vision ADD COLUMN document REAL;
                """),
        // v67 (54 belongs to the groups, 66 to the undo steps): a sheet of paper found in the photo (`VisionDocuments.Sheet`, the helper's
        // `page` request): its share of the frame and the text lines of the page rectified;
        // NULL when none was found.
        Migration(
            version: 67,
            sql: """
                ALTER TABLE vision ADD COLUMN sheet_share REAL;
                ALTER TABLE vision ADD COLUMN sheet_lines INTEGER;
                """),
        // v79: the mark the models' progress is kept by (`Library.modelsProgress`): SQLite
        // sets it anew (a random number: a backup put back never brings an old mark back with
        // other rows) at every write that can change the count — a file's row made or removed,
        // its status, kind or analysis changed; a tier-2 result written or removed — and at no
        // other (a decision, an undo, a session). The count joins every photo's row: the page
        // counted it at each decide and undo (~40 ms at 100 000 files, ~0.4 s at a million).
        // A migration that makes `files` or `vision` again must make these triggers again.
        Migration(
            version: 79,
            sql: """
                CREATE TABLE models_mark(
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    mark INTEGER NOT NULL
                );
                INSERT INTO models_mark(id, mark) VALUES(1, random());
                CREATE TRIGGER models_mark_file_added AFTER INSERT ON files
                BEGIN UPDATE models_mark SET mark = random() WHERE id = 1; END;
                CREATE TRIGGER models_mark_file_changed AFTER UPDATE OF status, kind, analyzed_at ON files
                WHEN OLD.status IS NOT NEW.status OR OLD.kind IS NOT NEW.kind OR OLD.analyzed_at IS NOT NEW.analyzed_at
                BEGIN UPDATE models_mark SET mark = random() WHERE id = 1; END;
                CREATE TRIGGER models_mark_file_removed AFTER DELETE ON files
                BEGIN UPDATE models_mark SET mark = random() WHERE id = 1; END;
                CREATE TRIGGER models_mark_result_added AFTER INSERT ON vision
                BEGIN UPDATE models_mark SET mark = random() WHERE id = 1; END;
                CREATE TRIGGER models_mark_result_changed AFTER UPDATE ON vision
                BEGIN UPDATE models_mark SET mark = random() WHERE id = 1; END;
                CREATE TRIGGER models_mark_result_removed AFTER DELETE ON vision
                BEGIN UPDATE models_mark SET mark = random() WHERE id = 1; END;
                """),
        // v93 (92 belongs to the groups): the People-grade faces the classifier took for a dog's
        // or a cat's (`VisionRules.animalFaceScore`); NULL where it was not asked — the rows
        // with People faces are looked at again once (`VisionAnalyzer.run`), the others keep
        // their results.
        Migration(
            version: 93,
            sql: """
                ALTER TABLE vision ADD COLUMN animal_faces INTEGER;
                """),
    ]
}
