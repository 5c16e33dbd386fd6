import SnapSortSystem

extension Library {
    /// Rebuilds People, Pets, Food and Scenery from the current tier-2 results (one statement
    /// each: cheap at any library size). A result counts only while it belongs to the file's
    /// current analysis. People are scored by faces, the others by their summed probability (Scenery
    /// also by the sky cue, `VisionCategories.members`).
    public func refreshModelGroups() throws {
        let live =
            "FROM vision v JOIN files f ON f.id = v.file_id WHERE f.status = \(ItemStatus.ok.sql) AND v.status = \(VisionStatus.ok.sql) AND v.analyzed_at IS f.analyzed_at"
        try db.transaction {
            try db.run("DELETE FROM group_members WHERE group_id IN \(GroupID.sql([.people, .pets, .food, .scenery]))")
            try db.run(
                "INSERT INTO group_members(group_id, file_id, score) SELECT \(GroupID.people.sql), v.file_id, v.people_faces \(live) AND v.people_faces > 0"
            )
            var rows: [(GroupID, Int64, Double)] = []
            try db.forEach(
                """
                SELECT v.file_id, v.pets, v.food, v.scenery, v.horizon, v.top_score, v.people_faces, v.top_class \(live) AND v.top_class IS NOT NULL
                """
            ) { r in
                let (pets, food, scenery) = (r.double(1) ?? 0, r.double(2) ?? 0, r.double(3) ?? 0)
                let m = VisionCategories.members(
                    pets: pets, food: food, scenery: scenery, horizon: r.double(4) ?? 0,
                    topScore: r.double(5) ?? 1, peopleFaces: Int(r.int(6) ?? 0), topClass: r.int(7).map(Int.init))
                if m.pets { rows.append((.pets, r.int(0)!, pets)) }
                if m.food { rows.append((.food, r.int(0)!, food)) }
                if m.scenery { rows.append((.scenery, r.int(0)!, scenery)) }
            }
            for (group, id, score) in rows {
                try db.run("INSERT INTO group_members(group_id, file_id, score) VALUES(?, ?, ?)", group.rawValue, id, score)
            }
        }
    }

    /// The agent-state key of the models' version string the last tier-2 pass used.
    static let modelsVersionKey = "models_version"

    /// How far tier 2 is: the live photos with a result of the current models (the version the
    /// last pass ran with) for their current analysis, of all live photos; nil before any pass
    /// ran with the models.
    ///
    /// Counted again only when the count can have changed: the models' version, or the mark
    /// SQLite sets anew at every write of a file's row or a tier-2 result (`models_mark`,
    /// migration 79), whichever connection made it. A decision, an undo, a session leave it:
    /// the page's summary after each of them was a join over every photo.
    public func modelsProgress() throws -> (done: Int, total: Int)? {
        guard let version = try agentState(Self.modelsVersionKey) else { return nil }
        // The mark before the count: a write between the two makes the mark kept here old, and
        // the next call counts again. No mark (a library opened read-only before migration 79):
        // counted every time, as before.
        let mark = try? db.scalar("SELECT mark FROM models_mark WHERE id = 1")
        if let c = modelsCounted, c.version == version, c.mark == mark, mark != nil { return (c.done, c.total) }
        let total = try db.scalar("SELECT count(*) FROM files WHERE status = \(ItemStatus.ok.sql) AND kind = \(MediaFormat.Kind.photo.sql)") ?? 0
        let done =
            try db.scalar(
                """
                SELECT count(*) FROM files f JOIN vision v ON v.file_id = f.id
                WHERE f.status = \(ItemStatus.ok.sql) AND f.kind = \(MediaFormat.Kind.photo.sql) AND v.version = ?
                  AND v.analyzed_at IS f.analyzed_at
                """, version) ?? 0
        modelsCounted = ModelsCount(version: version, mark: mark, done: Int(done), total: Int(total), counts: (modelsCounted?.counts ?? 0) + 1)
        return (Int(done), Int(total))
    }

    /// The models' progress as last counted (`modelsProgress`), with what it was counted at.
    struct ModelsCount {
        var version: String
        var mark: Int64?
        var done: Int
        var total: Int
        /// How many times this connection counted (tests: a decision does not count again).
        var counts: Int
    }

    /// Whether the local models ran at the last tier-2 pass (nil: never tried), and why not;
    /// `classesProblem` is set when the classifier (Pets, Food, Scenery) was unavailable.
    public func modelsAvailability() throws -> (available: Bool, problem: String?, classesProblem: String?)? {
        guard let r = try db.row("SELECT available, problem, classes_problem FROM vision_state WHERE id = 1") else { return nil }
        return (r.int(0) == 1, r.string(1), r.string(2))
    }

    /// What the local models found in the photo `id` (`snapsort info`): nil when they have not
    /// looked at it, or looked at an earlier version of the file. The faces the detector
    /// reported, those People counts, those taken for a dog's or a cat's, the worst eye
    /// openness; the classifier's Pets, Food, Scenery and page scores; the sheet of paper found.
    public func modelFindings(of id: Int64) throws -> JSON? {
        guard
            let r = try db.row(
                """
                SELECT v.status, v.faces, v.people_faces, v.animal_faces, v.worst_eyes, v.pets, v.food, v.scenery, v.document,
                       v.sheet_share, v.sheet_lines
                FROM vision v JOIN files f ON f.id = v.file_id WHERE v.file_id = ? AND v.analyzed_at IS f.analyzed_at
                """, id)
        else { return nil }
        func int(_ i: Int) -> JSON { .opt(r.int(i)) }
        func double(_ i: Int) -> JSON { .opt(r.double(i)) }
        let sheet: JSON =
            r.double(9).map { share in .object([("share", .double(share)), ("lines", .opt(r.int(10)))]) } ?? .null
        return .object([
            ("status", .opt(r.string(0))), ("faces", int(1)), ("people_faces", int(2)), ("animal_faces", int(3)),
            ("worst_eyes", double(4)), ("pets", double(5)), ("food", double(6)), ("scenery", double(7)), ("page", double(8)),
            ("sheet", sheet),
        ])
    }
}
