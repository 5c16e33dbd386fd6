extension Schema {
    /// Migrations owned by the groups feature (none yet).
    static let groups: [Migration] = []
}
