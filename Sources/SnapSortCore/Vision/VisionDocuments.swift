import SnapSortSystem

/// Documents from the ImageNet classifier: the page-like classes, for pages OCR cannot read
/// (`GroupRules.isUnreadablePage`). Indices of share/models/imagenet_classes.txt, 0-based.
enum VisionDocuments {
    /// 549 envelope, 916 web site, 917 comic book, 918 crossword puzzle, 921 book jacket, 922 menu:
    /// what the classifier calls a photographed page of text or a printed grid. Measured on
    /// OpenCV's text and sudoku samples (defocused text 0.42, sudoku 0.59–0.71, all as menu or
    /// crossword), against ≤ 0.3 for gray wallpapers and boxes; colourful false friends (graffiti
    /// as a comic book 0.35–0.9, a portrait as a book jacket 0.45) are left to the page look.
    static let pageClasses: [ClosedRange<Int>] = [549, 916, 917, 918, 921, 922].map { $0...$0 }

    /// The summed page-class probability of each photo with current tier-2 classes and no face.
    static func pageScores(_ db: Database) throws -> [Int64: Double] {
        var out: [Int64: Double] = [:]
        try db.forEach(
            """
            SELECT v.file_id, v.document FROM vision v JOIN files f ON f.id = v.file_id
            WHERE v.status = 'ok' AND v.document IS NOT NULL AND v.analyzed_at IS f.analyzed_at
              AND coalesce(v.people_faces, 0) = 0
            """
        ) { out[$0.int(0)!] = $0.double(1) }
        return out
    }
}
