import Foundation
import SnapSortSystem

/// What makes a face count for the People group.
public struct VisionRules: Sendable {
    /// A face of "reasonable size": its box (a square around the detector's box, of the mean of
    /// its sides) at least this share of the picture's short side.
    public var minFaceShare = 0.08
    /// The detector's confidence a face needs. The helper's YuNet scores a face
    /// sqrt(sigmoid(cls) · sigmoid(obj)), 0…1: on DEV (seed 1) the faces of People's photos
    /// (colour and grey, frontal and three-quarter, blurred, dark, 8–55 % of the short side)
    /// score 0.89 and up, everything else at most 0.72 (a squirrel; a leaf wallpaper 0.54). The
    /// threshold sits in that gap, near its middle (0.81, in log-odds 0.82).
    /// (The res10 SSD before it, with a second look, scored faces 0.99–1 and a leaf wallpaper up
    /// to 0.79, under 0.9; dlib's HOG scored faces 0.02–2 and texture up to 0.3, no gap at all.)
    public var minFaceScore = 0.8
    /// Pictures smaller than this on their short side are not looked at: an icon, an emoji, a
    /// thumbnail holds no face the detector finds (80 px) nor a class the classifier can tell
    /// (it scaled a 32×32 square up and called it a pet), and a folder of 20 000 of them took
    /// the models an hour.
    public var minPictureSide = 96
    /// A face the detector counts whose crop (the face's box, 1.4 times its side) the
    /// classifier gives at least this much of dogs and cats (`VisionCategories.dogsAndCats`) is
    /// an animal's, and no person's (a held-out corpus's spaniels looking over a balcony scored
    /// 0.83–0.87 as faces: People). Human faces on DEV, DEV2, DEV3 and a held-out corpus (30
    /// People photos, ~50 faces) give their crops 0.30 at most; the spaniels' 0.91–0.97. The
    /// line is the Pets group's own (`VisionCategories.petsThreshold`).
    public var animalFaceScore = VisionCategories.petsThreshold
    public init() {}
}

/// What one tier-2 pass did.
public struct VisionSummary: Sendable, Equatable {
    /// False when the helper or a model is missing (the pass did nothing).
    public var available = true
    public var analyzed = 0
    public var failed = 0
    /// Photos in formats tier 2 does not read (recorded, not retried; none that tier 1 measures).
    public var skipped = 0
    public var withPeople = 0
    /// Seconds spent.
    public var seconds = 0.0
    /// Files to regroup: members of a Similar Shots set whose faces changed (their keeper may
    /// change), and photos whose page score crossed `GroupRules.minPageScore` or whose sheet of
    /// paper became or stopped being a document (`GroupRules.isPhotographedSheet`; Docs & Receipts).
    public var setMembersChanged: Set<Int64> = []
    /// Where the pass's time went (`VisionStages`).
    public var stages = VisionStages()
}

/// The second analysis tier: runs the local models on photos whose fast metrics are done.
///
/// Resumable (each photo's result is committed in small batches; an interrupted pass picks up
/// where it stopped), versioned apart from tier 1 (`vision.version` = this code's version + the
/// helper's model ids, so a model change re-runs only tier 2), and at low priority (the helper
/// runs niced). Which files still need it is a query, never a queue.
public final class VisionAnalyzer {
    /// Bump when the tier-2 code or its rules change.
    /// 3: the page-class score (`vision.document`, Docs & Receipts for pages OCR cannot read).
    /// 4: faces by OpenCV's SSD detector (scores 0…1, `VisionRules.minFaceScore`).
    /// 5: the sheet of paper (`vision.sheet_share`, `sheet_lines`: Docs & Receipts for pages
    /// photographed at an angle).
    /// 6: the eye landmarks placed from the square dlib's HOG gives the face (the eyes-open term).
    /// 7: `vision.pets` sums the animal classes without `VisionCategories.glowOnBlack`.
    /// 8: faces by YuNet (scores 0…1 on another scale than the SSD's, `VisionRules.minFaceScore`;
    /// eyes only for faces large enough for People).
    public static let version = 8
    public let library: Library
    public let helper: VisionHelper
    public var rules = VisionRules()
    public var logger: Logger
    /// Photos per committed batch.
    public var batchSize = 16
    /// Helpers that look at photos side by side (each its own `snapsort-vision` process, one
    /// core each): `snapsort scan` runs one a worker, the agent one.
    public var parallel = 1
    /// The helpers beside `helper`, started on the first pass that wants them.
    private var others: [VisionHelper] = []
    /// How many helpers the last pass ran (fewer than `parallel` when one would not start).
    public private(set) var helpersRunning = 0
    /// Dates what a pass records and times it (`VisionSummary.seconds`).
    public let clock: Clock

    public init(library: Library, helper: VisionHelper, logger: Logger, clock: Clock = .live) {
        self.library = library
        self.helper = helper
        self.logger = logger
        self.clock = clock
    }

    /// `helper` and as many more as `parallel` asks for that started with the same models (one
    /// that did not is left out: the pass runs on those that did).
    private func startHelpers() -> [VisionHelper] {
        while others.count < parallel - 1 {
            others.append(VisionHelper(executable: helper.executable, arguments: helper.arguments))
        }
        let same = others.prefix(max(0, parallel - 1)).filter {
            $0.start() && $0.faceModel == helper.faceModel && $0.classModel == helper.classModel
        }
        return [helper] + same
    }

    /// Whether any helper process runs now.
    public var running: Bool { helper.isRunning || others.contains { $0.isRunning } }

    /// Ends every helper (the first one's owner may also stop it).
    public func stopHelpers() {
        helper.stop()
        for h in others { h.stop() }
        others = []
    }

    /// The stored version string for the helper's current models (nil: models unavailable).
    public func currentVersion() -> String? {
        guard helper.start(), let faces = helper.faceModel else { return nil }
        return "\(Self.version)/\(faces)" + (helper.classModel.map { "/" + $0 } ?? "")
    }

    /// Analyzes every live photo that lacks a current tier-2 result, then refreshes People.
    /// `progress` gets (done, total); `shouldStop` is asked between photos (the agent pauses),
    /// after the first.
    /// `limit`: look among the first this many photos that need it only (the agent's slices
    /// look at a few each: reading all 100 000 pending rows took ~0.4 s of every half-second
    /// slice of a first pass).
    public func run(progress: ((Int, Int) -> Void)? = nil, shouldStop: () -> Bool = { false }, limit: Int? = nil) throws -> VisionSummary {
        var summary = VisionSummary()
        let started = clock.now()
        let db = library.db
        guard let version = currentVersion() else {
            summary.available = false
            try recordAvailability(false, problem: helper.problem)
            logger.notice(
                "local models are off: People and the eyes-open keeper score are unavailable",
                ["vision.problem": helper.problem ?? "unknown"])
            return summary
        }
        try recordAvailability(true, problem: nil)
        if try library.agentState(Library.modelsVersionKey) != version {
            try library.setAgentState(Library.modelsVersionKey, version, at: clock.now())
        }
        if helper.classModel == nil {
            logger.notice(
                "the image classifier is off: Pets, Food and Scenery are unavailable",
                ["vision.problem": helper.classProblem ?? "unknown"])
        }
        let pending = try db.rows(
            """
            SELECT f.id, f.path, f.format, COALESCE(f.orientation, 1), f.analyzed_at, min(COALESCE(f.width, 0), COALESCE(f.height, 0))
            FROM files f
            LEFT JOIN vision v ON v.file_id = f.id
            WHERE f.status = \(ItemStatus.ok.sql) AND f.kind = \(MediaFormat.Kind.photo.sql)
              AND (v.file_id IS NULL OR v.version != ? OR v.analyzed_at IS NOT f.analyzed_at
                   OR (? AND v.status = \(VisionStatus.ok.sql) AND v.people_faces > 0 AND v.animal_faces IS NULL))
            ORDER BY f.id LIMIT ?
            """, version, Int64(helper.classModel != nil ? 1 : 0), Int64(limit ?? -1))
        // Nothing new (an unchanged rescan): the groups are as the last pass left them.
        guard !pending.isEmpty else {
            summary.seconds = clock.now().timeIntervalSince(started)
            return summary
        }
        var inSets = Set<Int64>()
        try db.forEach("SELECT file_id FROM similar_sets") { inSets.insert($0.int(0)!) }
        var batch: [VisionRow] = []
        func flush() throws {
            guard !batch.isEmpty else { return }
            try db.transaction {
                for r in batch {
                    try db.run(
                        """
                        INSERT OR REPLACE INTO vision(file_id, version, analyzed_at, status, faces, people_faces, worst_eyes, detail, ms,
                                                      pets, food, scenery, top_class, top_score, horizon, document,
                                                      sheet_share, sheet_lines, animal_faces)
                        VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
                        """, r.fileID, version, r.analyzedAt, r.status.rawValue, r.faces, r.peopleFaces, r.worstEyes, r.detail, r.ms,
                        r.pets, r.food, r.scenery, r.topClass, r.topScore, r.horizon, r.document, r.sheet?.share, r.sheet?.lines,
                        r.animalFaces)
                }
            }
            batch.removeAll()
        }
        let groupRules = GroupRules(), page = groupRules.minPageScore
        func sheetDocument(_ share: Double?, _ lines: Int?) -> Bool {
            (lines ?? 0) >= groupRules.minSheetLines && (share ?? 0) >= groupRules.minSheetShare
        }
        let workers = startHelpers()
        helpersRunning = workers.count
        let measure = VisionMeasure(rules: rules, classify: helper.classModel != nil)
        // One photo a helper at a time, two rounds' worth a batch: `shouldStop` is asked between
        // batches, so one helper keeps the old photo-by-photo pace.
        let round = workers.count == 1 ? 1 : workers.count * 2
        var i = 0
        while i < pending.count {
            // At least one photo a call: a slice spent finding the photos or starting the helper
            // looked at none, and the agent took that for a pass with nothing left to do.
            if i > 0 && shouldStop() { break }
            let inputs = pending[i..<min(pending.count, i + round)].map { row in
                VisionMeasure.Photo(
                    fileID: row.int(0)!, path: row.string(1) ?? "", format: row.string(2) ?? "", orientation: Int(row.int(3) ?? 1),
                    analyzedAt: row.string(4), shortSide: Int(row.int(5) ?? 0))
            }
            for (photo, out) in zip(inputs, measure.measure(inputs, helpers: workers)) {
                let id = photo.fileID
                var r = out.row
                summary.stages.add(out.stages)
                switch out.outcome {
                case .skipped: summary.skipped += 1
                case .analyzed:
                    summary.analyzed += 1
                    if (r.peopleFaces ?? 0) > 0 { summary.withPeople += 1 }
                case .failed(let why):
                    summary.failed += 1
                    logger.debug("tier 2 failed on a photo", ["photo.id": "\(id)", "vision.error": why])
                }
                if let why = out.classesFailed {
                    logger.debug("the classifier failed on a photo", ["photo.id": "\(id)", "vision.error": why])
                }
                // What the groups saw of the photo: a row of an earlier analysis of the file (an
                // analyzer upgrade re-measured it) is not read by the grouper (`analyzed_at` must
                // match), so the file was grouped without it and is regrouped once it is back.
                let before = try db.row(
                    "SELECT people_faces, worst_eyes, document, sheet_share, sheet_lines FROM vision WHERE file_id=? AND status = \(VisionStatus.ok.sql) AND analyzed_at IS ?",
                    id, photo.analyzedAt)
                if inSets.contains(id), before?.int(0) != r.peopleFaces.map(Int64.init) || before?.double(1) != r.worstEyes {
                    summary.setMembersChanged.insert(id)
                }
                if ((before?.double(2) ?? 0) >= page) != ((r.document ?? 0) >= page) { summary.setMembersChanged.insert(id) }
                if sheetDocument(before?.double(3), before?.int(4).map(Int.init)) != sheetDocument(r.sheet?.share, r.sheet?.lines) {
                    summary.setMembersChanged.insert(id)
                }
                r.fileID = id
                batch.append(r)
                if batch.count >= batchSize {
                    let t0 = ContinuousClock.now
                    try flush()
                    summary.stages.write += (ContinuousClock.now - t0).seconds
                }
                i += 1
                progress?(i, pending.count)
            }
        }
        let written = ContinuousClock.now
        try flush()
        try library.refreshModelGroups()
        summary.stages.write += (ContinuousClock.now - written).seconds
        summary.seconds = clock.now().timeIntervalSince(started)
        return summary
    }

    private func recordAvailability(_ available: Bool, problem: String?) throws {
        try library.db.run(
            "INSERT OR REPLACE INTO vision_state(id, available, problem, classes_problem) VALUES(1, ?, ?, ?)",
            available ? 1 : 0, problem, available ? (helper.classModel == nil ? helper.classProblem ?? "unavailable" : nil) : problem)
    }
}

/// One `vision` row being written.
struct VisionRow: Sendable {
    var fileID: Int64
    var analyzedAt: String?
    var status: VisionStatus
    var faces: Int?
    var peopleFaces: Int?
    var worstEyes: Double?
    var detail: String?
    var ms: Double?
    var pets: Double?
    var food: Double?
    var scenery: Double?
    var topClass: Int?
    var topScore: Double?
    var horizon: Double?
    var document: Double?
    var sheet: VisionDocuments.Sheet?
    /// The detector's People-grade faces the classifier took for a dog's or a cat's (nil: not
    /// asked, the classifier off).
    var animalFaces: Int?
}
