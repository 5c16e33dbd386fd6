extension Schema {
    /// Migrations owned by the review feature (none yet).
    static let review: [Migration] = []
}
