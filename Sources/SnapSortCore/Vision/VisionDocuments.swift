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
    /// Of the photos `ids` only, unless nil.
    static func pageScores(_ db: Database, of ids: [Int64]? = nil) throws -> [Int64: Double] {
        var out: [Int64: Double] = [:]
        try Grouper.forEach(
            db,
            """
            SELECT v.file_id, v.document FROM vision v JOIN files f ON f.id = v.file_id
            WHERE v.status = \(VisionStatus.ok.sql) AND v.document IS NOT NULL AND v.analyzed_at IS f.analyzed_at
              AND coalesce(v.people_faces, 0) = 0
            """, column: "v.file_id", in: ids
        ) { out[$0.int(0)!] = $0.double(1) }
        return out
    }

    /// A sheet of paper the helper found in a photo (`VisionHelper.sheet`): a bright, colourless
    /// convex quadrilateral that it fills — a page, a receipt, a letter, seen at any angle —
    /// rectified by its perspective and measured for text lines.
    struct Sheet: Sendable, Equatable {
        /// Its share of the frame.
        var share: Double
        /// Text lines across the rectified page (bands of ink rows, each at most a tenth of the
        /// page high; along or across it, the larger count).
        var lines: Int

        init(share: Double, lines: Int) {
            self.share = share
            self.lines = lines
        }
    }

    /// The sheet of each photo with current tier-2 results and no face (a portrait before a
    /// white wall is no page).
    /// Of the photos `ids` only, unless nil.
    static func sheets(_ db: Database, of ids: [Int64]? = nil) throws -> [Int64: Sheet] {
        var out: [Int64: Sheet] = [:]
        try Grouper.forEach(
            db,
            """
            SELECT v.file_id, v.sheet_share, v.sheet_lines FROM vision v JOIN files f ON f.id = v.file_id
            WHERE v.status = \(VisionStatus.ok.sql) AND v.sheet_lines IS NOT NULL AND v.analyzed_at IS f.analyzed_at
              AND coalesce(v.people_faces, 0) = 0
            """, column: "v.file_id", in: ids
        ) { out[$0.int(0)!] = Sheet(share: $0.double(1) ?? 0, lines: Int($0.int(2) ?? 0)) }
        return out
    }
}
