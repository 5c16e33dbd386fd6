extension Schema {
    /// Migrations owned by the agent feature (none yet).
    static let agent: [Migration] = []
}
