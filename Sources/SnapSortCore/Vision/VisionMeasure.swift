import Dispatch
import SnapSortSystem
import Synchronization

/// Where tier 2's CPU goes, in seconds summed over photos: the parent's decode and scale, each
/// request (the helper's CPU for it, its reply's `cpu_ms`, and the parent's for sending the
/// pixels and reading the answer), the sky cue, and the database writes (wall time, on the
/// writing thread). CPU, not wall time: a profile that a busy machine does not distort, and that
/// adds up over helpers running side by side. `bench/stages.py` reads it from `snapsort scan
/// --jsonl`'s `models` event.
public struct VisionStages: Sendable, Equatable {
    public var decode = 0.0
    public var faces = 0.0
    public var page = 0.0
    public var classes = 0.0
    public var sky = 0.0
    public var write = 0.0

    public init() {}

    public mutating func add(_ o: VisionStages) {
        decode += o.decode
        faces += o.faces
        page += o.page
        classes += o.classes
        sky += o.sky
        write += o.write
    }

    /// The stages by name, in pipeline order.
    public var named: [(String, Double)] {
        [("decode", decode), ("faces", faces), ("page", page), ("classes", classes), ("sky", sky), ("write", write)]
    }
}

/// One photo's tier-2 measurement, apart from the library: decode, faces, the sheet of paper,
/// classes and sky. Sendable, so several helpers can look at photos side by side (each photo
/// sees one helper; the rows are written by the caller, in order).
struct VisionMeasure: Sendable {
    let rules: VisionRules
    /// Whether the classifier is there to ask.
    let classify: Bool

    /// A photo to look at (what the pending query gave).
    struct Photo: Sendable {
        var fileID: Int64
        var path: String
        var format: String
        var orientation: Int
        var analyzedAt: String?
        var shortSide: Int
    }

    enum Outcome: Sendable, Equatable {
        case analyzed
        case skipped
        case failed(String)
    }

    /// What a photo came to: its row (file id filled by the caller), the outcome, a classifier
    /// failure to log, and the stages' times.
    struct Output: Sendable {
        var row: VisionRow
        var outcome: Outcome
        var classesFailed: String?
        var stages = VisionStages()
    }

    /// Measures `photos`, in order; with more than one helper, side by side (helper k on one
    /// thread, taking the next photo when it is done with one).
    func measure(_ photos: [Photo], helpers: [VisionHelper]) -> [Output] {
        guard helpers.count > 1, photos.count > 1 else { return photos.map { measure($0, with: helpers[0]) } }
        let next = Atomic<Int>(0)
        let outputs = Mutex<[Output?]>(Array(repeating: nil, count: photos.count))
        DispatchQueue.concurrentPerform(iterations: min(helpers.count, photos.count)) { w in
            while true {
                let k = next.add(1, ordering: .relaxed).oldValue
                guard k < photos.count else { return }
                let out = measure(photos[k], with: helpers[w])
                outputs.withLock { $0[k] = out }
            }
        }
        return outputs.withLock { $0.map { $0! } }
    }

    /// Measures one photo with `helper`.
    func measure(_ photo: Photo, with helper: VisionHelper) -> Output {
        var out = Output(row: VisionRow(fileID: photo.fileID, analyzedAt: photo.analyzedAt, status: .ok), outcome: .analyzed)
        if !VisionImage.formats.contains(photo.format) || (photo.shortSide > 0 && photo.shortSide < rules.minPictureSide) {
            out.row.status = .skipped
            out.outcome = .skipped
            return out
        }
        let t0 = ContinuousClock.now
        var mark = CPUTime.thread()
        // The CPU since the last lap, this thread's and (after a request) the helper's for it.
        func lap(helperCPU: Bool = true) -> Double {
            let now = CPUTime.thread()
            defer { mark = now }
            return now - mark + (helperCPU ? helper.lastCPUSeconds : 0)
        }
        do {
            let bitmap = try VisionImage.load(
                path: photo.path, format: photo.format, orientation: photo.orientation, least: VisionImage.leastLongSide)
            out.stages.decode = lap(helperCPU: false)
            switch helper.faces(in: bitmap) {
            case .faces(let faces):
                out.stages.faces = lap()
                out.row.sheet = helper.sheet(in: bitmap)
                out.stages.page = lap()
                var animals = Set<Int>()
                if classify {
                    switch helper.classes(in: bitmap) {
                    case .scores(let scores):
                        out.stages.classes = lap()
                        let sky = VisionSky.measure(bitmap)
                        out.stages.sky = lap(helperCPU: false)
                        apply(scores, sky: sky, to: &out.row)
                        animals = animalFaces(faces, in: bitmap, helper: helper)
                        out.stages.classes += lap()
                    case .failed(let why):
                        out.stages.classes = lap()
                        out.classesFailed = why
                    }
                    out.row.animalFaces = animals.count
                }
                apply(faces, animals: animals, picture: bitmap, to: &out.row)
            case .failed(let why):
                out.stages.faces = lap()
                out.row.status = .failed
                out.outcome = .failed(why)
            }
        } catch {
            out.stages.decode = lap(helperCPU: false)
            out.row.status = .failed
            out.outcome = .failed("\(error)")
        }
        out.row.ms = (ContinuousClock.now - t0).seconds * 1000
        return out
    }

    /// Whether `face` counts for People in a picture whose short side is `short`.
    func countsForPeople(_ face: Face, short: Double) -> Bool {
        face.score >= rules.minFaceScore && face.width >= rules.minFaceShare * short
    }

    /// The faces (indices of `faces`) that count for People but whose crop the classifier
    /// takes for a dog's or a cat's (`VisionRules.animalFaceScore`). A crop it fails on is a
    /// person's, as before.
    func animalFaces(_ faces: [Face], in picture: Bitmap, helper: VisionHelper) -> Set<Int> {
        let short = Double(min(picture.width, picture.height))
        var out = Set<Int>()
        for (i, f) in faces.enumerated() where countsForPeople(f, short: short) {
            let side = 1.4 * max(f.width, f.height)
            let crop = VisionImage.crop(picture, x: f.x + f.width / 2 - side / 2, y: f.y + f.height / 2 - side / 2, side: side)
            guard crop.width >= 16, crop.height >= 16, case .scores(let scores) = helper.classes(in: crop) else { continue }
            if VisionCategories.sum(scores, VisionCategories.dogsAndCats) >= rules.animalFaceScore { out.insert(i) }
        }
        return out
    }

    /// Fills the face columns of `r` from what the helper found in `picture`, the faces
    /// `animals` names (a dog's, a cat's) left out of People and the eyes, and marked in the detail.
    func apply(_ faces: [Face], animals: Set<Int> = [], picture: Bitmap, to r: inout VisionRow) {
        let short = Double(min(picture.width, picture.height))
        let people = faces.enumerated().filter { !animals.contains($0.offset) && countsForPeople($0.element, short: short) }.map(\.element)
        r.faces = faces.count
        r.peopleFaces = people.count
        r.worstEyes = people.compactMap(\.eyeOpenness).min().map { ($0 * 1000).rounded() / 1000 }
        let w = Double(picture.width), h = Double(picture.height)
        func n(_ v: Double) -> JSON { .double((v * 1000).rounded() / 1000) }
        r.detail = JSON.array(
            faces.enumerated().map { i, f in
                var fields: [(String, JSON)] = [
                    ("x", n(f.x / w)), ("y", n(f.y / h)), ("w", n(f.width / w)), ("h", n(f.height / h)), ("score", n(f.score)),
                    ("eyes", f.eyes.map { JSON.array([n($0.0), n($0.1)]) } ?? .null),
                ]
                if animals.contains(i) { fields.append(("animal", .bool(true))) }
                return JSON.object(fields)
            }
        ).serialized()
    }

    /// Fills the category columns of `r` from the classifier's probabilities and the sky cue.
    func apply(_ scores: [Float], sky: VisionSky.Cue, to r: inout VisionRow) {
        func round3(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }
        r.pets = round3(VisionCategories.sum(scores, VisionCategories.pets))
        r.food = round3(VisionCategories.sum(scores, VisionCategories.food))
        r.scenery = round3(VisionCategories.sceneryScore(scores, sky: sky))
        r.horizon = round3(sky.horizon)
        r.document = round3(VisionCategories.sum(scores, VisionDocuments.pageClasses))
        if let top = scores.indices.max(by: { scores[$0] < scores[$1] }) {
            r.topClass = top
            r.topScore = round3(Double(scores[top]))
        }
    }

}
