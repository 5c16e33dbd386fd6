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
            try db.run("DELETE FROM group_members WHERE group_id IN ('people', 'pets', 'food', 'scenery')")
            try db.run(
                "INSERT INTO group_members(group_id, file_id, score) SELECT 'people', v.file_id, v.people_faces \(live) AND v.people_faces > 0")
            var rows: [(String, Int64, Double)] = []
            try db.forEach(
                """
                SELECT v.file_id, v.pets, v.food, v.scenery, v.horizon, v.top_score, v.people_faces, v.top_class \(live) AND v.top_class IS NOT NULL
                """
            ) { r in
                let (pets, food, scenery) = (r.double(1) ?? 0, r.double(2) ?? 0, r.double(3) ?? 0)
                let m = VisionCategories.members(
                    pets: pets, food: food, scenery: scenery, horizon: r.double(4) ?? 0,
                    topScore: r.double(5) ?? 1, peopleFaces: Int(r.int(6) ?? 0), topClass: r.int(7).map(Int.init))
                if m.pets { rows.append(("pets", r.int(0)!, pets)) }
                if m.food { rows.append(("food", r.int(0)!, food)) }
                if m.scenery { rows.append(("scenery", r.int(0)!, scenery)) }
            }
            for (group, id, score) in rows {
                try db.run("INSERT INTO group_members(group_id, file_id, score) VALUES(?, ?, ?)", group, id, score)
            }
        }
    }

    /// Whether the local models ran at the last tier-2 pass (nil: never tried), and why not;
    /// `classesProblem` is set when the classifier (Pets, Food, Scenery) was unavailable.
    public func modelsAvailability() throws -> (available: Bool, problem: String?, classesProblem: String?)? {
        guard let r = try db.row("SELECT available, problem, classes_problem FROM vision_state WHERE id = 1") else { return nil }
        return (r.int(0) == 1, r.string(1), r.string(2))
    }
}
