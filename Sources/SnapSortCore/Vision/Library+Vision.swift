import SnapSortSystem

extension Library {
    /// Rebuilds the People group from the current tier-2 results (one statement: cheap at any
    /// library size). A face result counts only while it belongs to the file's current analysis.
    public func refreshPeopleGroup() throws {
        try db.transaction {
            try db.run("DELETE FROM group_members WHERE group_id = 'people'")
            try db.run("""
                INSERT INTO group_members(group_id, file_id, score)
                SELECT 'people', v.file_id, v.people_faces FROM vision v JOIN files f ON f.id = v.file_id
                WHERE f.status = 'ok' AND v.status = 'ok' AND v.people_faces > 0 AND v.analyzed_at IS f.analyzed_at
                """)
        }
    }

    /// Whether the local models ran at the last tier-2 pass (nil: never tried), and why not.
    public func modelsAvailability() throws -> (available: Bool, problem: String?)? {
        guard let r = try db.row("SELECT available, problem FROM vision_state WHERE id = 1") else { return nil }
        return (r.int(0) == 1, r.string(1))
    }
}
