import Foundation
import SnapSortSystem

/// The expensive looks at a file: QR decoding and OCR. Only candidates the cheap gates in
/// `GroupRules` select get here, and results are cached per analysis in `file_findings`.
public struct FileInspector: Sendable {
    /// The decoded QR payload of a file, nil when none is found.
    var decodeQR: @Sendable (InspectedFile) -> String?
    /// The number of confidently recognized words, and the text.
    var recognizeText: @Sendable (InspectedFile) -> (Int, String)

    /// Inspects nothing (tests of the other rules).
    public static let none = FileInspector(decodeQR: { _ in nil }, recognizeText: { _ in (0, "") })

    /// zbar and Tesseract through SnapSortSystem, on the file decoded once, gray and upright, at
    /// a reduced size where text and QR modules still resolve (long side ≥ `inspectLongSide`: a
    /// 12 MP JPEG decodes at 1/2 through DCT scaling; a code spanning 6 % of the short side keeps
    /// ≥ 3 px per module).
    /// Both look at the smallest size first and go up only when that was not enough: about a
    /// quarter of that size (~450 px, where the picture is large enough to leave 360 px on its
    /// short side), then about half (a quarter of the pixels, and of the time: the analysis's own
    /// decode where it is that size, see `InspectedFile`), then the full size:
    /// - QR: the codes of tickets, receipts, screens and posters span a fifth of the frame and
    ///   more, 3 px a module and more at the first look; a small code that needs every pixel is
    ///   read at the larger sizes next.
    /// - OCR: Tesseract's time grows with the pixels its layout analysis walks and the line
    ///   images it recognizes (a phone's receipt: ~80 ms at ~500 px, ~170 ms at ~1000 px). A page
    ///   whose text is large (a receipt or a note photographed close) reads its dozen confident
    ///   words (a document) at the first look; a letter's print at ~900 px; small print and
    ///   sparse pages are read again at the full size, which is what decides for them (and for
    ///   every candidate that is no document). The text kept is the reading that decided.
    /// - A page that reads neither way may lie sideways in a file that does not say so (no EXIF
    ///   orientation: a messenger's copy, a scan saved on its side): it is read a quarter turn
    ///   each way at the first look's size, and the best reading is kept. Only candidates that
    ///   did not read pay for it (two more passes at the small size).
    public static let live = FileInspector(
        decodeQR: { file in
            for look in [file.quarter, file.half] {
                if let look, let payload = (try? QR.decode(look)) ?? nil { return payload }
            }
            guard let b = file.bitmap else { return nil }
            return (try? QR.decode(b)) ?? nil
        },
        recognizeText: { file in
            for look in [file.quarter, file.half] {
                if let look, let r = try? OCR.recognize(look), r.words >= file.enoughWords { return (r.words, r.text) }
            }
            guard let b = file.bitmap else { return (0, "") }
            var best = try? OCR.recognize(b)
            if let r = best, r.words >= file.enoughWords { return (r.words, r.text) }
            let page = file.half ?? b
            for turn in [6, 8] {  // EXIF orientations: a quarter turn clockwise, counter-clockwise
                guard let r = try? OCR.recognize(page.oriented(turn)), r.words > best?.words ?? 0 else { continue }
                best = r
                if r.words >= file.enoughWords { break }
            }
            return best.map { ($0.words, $0.text) } ?? (0, "")
        })

    /// Below this short side (of the inspection size) the half-size look is skipped.
    static let minimumHalvedSide = 400

    /// The short side the quarter-size look needs at least (of that look): text lines and QR
    /// modules of what is photographed close still resolve there.
    static let minimumQuarterSide = 360

    static let inspectLongSide = 1800

    /// The DCT scale numerator (of 8) of the inspection decode of a JPEG whose long side is
    /// `long`: the smallest that keeps `inspectLongSide` px, or the whole picture.
    static func inspectionScale(long: Int) -> Int {
        for s in 1...8 where long * s / 8 >= min(long, inspectLongSide) { return s }
        return 8
    }

    /// Decodes a JPEG or PNG to gray, upright, at the reduced size (a PNG stays RGB).
    static func decodeUpright(_ item: GroupItem) -> Bitmap? {
        item.decodedUpright(readLimit: 256 * 1024 * 1024, pngPixels: 40_000_000) { bytes in
            let h = try JPEG.readHeader(bytes)
            let scale = inspectionScale(long: max(h.width, h.height))
            return try JPEG.decode(bytes, scaleNumerator: scale, grayscale: true, maxHeaderPixels: 500_000_000, maxOutputPixels: 40_000_000).bitmap
        }
    }
}

extension GroupItem {
    /// The file read (at most `readLimit` bytes) and decoded upright: a JPEG through `jpeg`, a
    /// PNG as RGB within `pngPixels`; nil for any other format and on any error.
    func decodedUpright(readLimit: Int, pngPixels: Int64, jpeg: ([UInt8]) throws -> Bitmap) -> Bitmap? {
        guard let bytes = try? FileSystem.readFile(path, limit: readLimit) else { return nil }
        let bitmap: Bitmap
        switch format {
        case "jpeg":
            guard let b = try? jpeg(bytes) else { return nil }
            bitmap = b
        case "png":
            guard let b = try? PNG.decode(bytes, channels: 3, maxPixels: pngPixels) else { return nil }
            bitmap = b
        default:
            return nil
        }
        return bitmap.oriented(orientation ?? 1)
    }
}

/// One file under inspection: decoded on first use, once for both looks.
///
/// The scanner's worker hands over the decode the metrics measured (`DecodedPreview`), so a
/// candidate is often not decoded again:
/// - a PNG, or a JPEG small enough that both decode it at the same DCT scale: it is the
///   inspection size itself;
/// - a JPEG the metrics decoded at most 0.6 of the inspection size (a 12 MP photo: 1/4 against
///   1/2): it is the first look, in place of the halved inspection decode, and the file is
///   decoded at the inspection size only when that look was not enough.
final class InspectedFile {
    let item: GroupItem
    /// How many confident words make a document (`GroupRules.minDocumentWords`).
    let enoughWords: Int
    private let preview: DecodedPreview?
    private var decoded: Bitmap??

    init(_ item: GroupItem, enoughWords: Int, preview: DecodedPreview? = nil) {
        self.item = item
        self.enoughWords = enoughWords
        self.preview = preview
    }

    /// What the preview can stand for: the inspection size itself, the first look, or nothing.
    private enum PreviewUse { case inspection, firstLook, none }

    private var previewUse: PreviewUse {
        guard let p = preview else { return .none }
        switch item.format {
        case "png":
            return p.scale == 8 ? .inspection : .none
        case "jpeg":
            guard let w = item.width, let h = item.height else { return .none }
            let full = FileInspector.inspectionScale(long: max(w, h))
            if p.scale == full { return .inspection }
            return p.scale * 5 <= full * 3 ? .firstLook : .none
        default:
            return .none
        }
    }

    /// The preview, gray and upright.
    private func uprightPreview() -> Bitmap? {
        preview.map { $0.bitmap.gray().oriented(item.orientation ?? 1) }
    }

    /// Gray, upright, at the inspection size; nil when the file cannot be decoded.
    var bitmap: Bitmap? {
        if let decoded { return decoded }
        let b = previewUse == .inspection ? uprightPreview() : FileInspector.decodeUpright(item)
        decoded = .some(b)
        return b
    }

    private var halved: Bitmap??

    /// The first look: about half the inspection size (the preview, or `bitmap` halved); nil
    /// when that is small already (short side under `FileInspector.minimumHalvedSide`) or
    /// nothing decoded.
    var half: Bitmap? {
        if let halved { return halved }
        var h: Bitmap?
        if previewUse == .firstLook, let p = uprightPreview() {
            if min(p.width, p.height) >= FileInspector.minimumHalvedSide { h = p }
        } else if let b = bitmap, min(b.width, b.height) >= FileInspector.minimumHalvedSide {
            h = b.halved()
        }
        halved = .some(h)
        return h
    }

    private var quartered: Bitmap??

    /// The smallest look: `half` halved, when that leaves at least
    /// `FileInspector.minimumQuarterSide` on its short side; else nil.
    var quarter: Bitmap? {
        if let quartered { return quartered }
        var q: Bitmap?
        if let h = half, min(h.width, h.height) >= 2 * FileInspector.minimumQuarterSide { q = h.halved() }
        quartered = .some(q)
        return q
    }
}

extension FileInspector {
    /// Runs the QR and OCR checks `item` still needs and passes its cheap gates.
    func run(_ item: GroupItem, _ m: Metrics, rules: GroupRules, _ f: inout Findings, preview: DecodedPreview? = nil) {
        let file = InspectedFile(item, enoughWords: rules.minDocumentWords, preview: preview)
        if f.qrPayload == nil && !f.qrChecked && rules.isQRCandidate(item, m) {
            f.qrPayload = decodeQR(file) ?? ""
        }
        // A screenshot is never a document (`GroupRules.categories`), so it is not read; its
        // words stay unknown, and a regroup reads it should it stop being a screenshot.
        if f.ocrWords == nil && rules.isDocumentCandidate(item, m) && !rules.isScreenshot(item, m) {
            let (words, text) = recognizeText(file)
            f.ocrWords = words
            f.ocrText = text
        }
    }

    /// The checks of a file just analyzed, run by the analysis worker that analyzed it (so zbar
    /// and Tesseract spread over the cores instead of waiting for the regroup's one thread); the
    /// scanner stores them in `file_findings` with the row, and the grouper finds them there.
    /// Nil when the file passes no gate.
    func inspection(path: String, of r: AnalysisResult, rules: GroupRules) -> Findings? {
        guard r.status == .ok, let m = r.metrics else { return nil }
        let item = GroupItem(
            id: 0, path: path, kind: r.kind, format: r.format.rawValue, status: r.status, bytes: 0,
            width: r.width, height: r.height, taken: nil, takenSource: nil, make: r.exif?.make, model: r.exif?.model,
            software: r.exif?.software, rating: r.rating, orientation: r.exif?.orientation, duration: nil, metrics: m,
            phash: nil, dhash: nil, contentHash: nil, analyzedAt: nil, mtime: 0)
        var f = Findings()
        run(item, m, rules: rules, &f, preview: r.preview)
        return f == Findings() ? nil : f
    }
}
