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
    /// Both look at half that size first (a quarter of the pixels, and of the time), where most
    /// of what people keep already resolves, and at the full size only when that was not enough:
    /// - QR: the codes of tickets, receipts, screens and posters span a fifth of the frame and
    ///   more; a small code that needs every pixel is read at the full size next.
    /// - OCR: a page whose text is large or dense reads its dozen confident words (a document)
    ///   at ~900 px; small print and sparse pages are read again at the full size, which is what
    ///   decides for them (and for every candidate that is no document). The text kept is the
    ///   reading that decided.
    public static let live = FileInspector(
        decodeQR: { file in
            guard let b = file.bitmap else { return nil }
            if let half = file.half, let payload = (try? QR.decode(half)) ?? nil { return payload }
            return (try? QR.decode(b)) ?? nil
        },
        recognizeText: { file in
            guard let b = file.bitmap else { return (0, "") }
            if let half = file.half, let r = try? OCR.recognize(half), r.words >= file.enoughWords { return (r.words, r.text) }
            guard let r = try? OCR.recognize(b) else { return (0, "") }
            return (r.words, r.text)
        })

    /// Below this short side (of the inspection size) the half-size look is skipped.
    static let minimumHalvedSide = 400

    static let inspectLongSide = 1800

    /// Decodes a JPEG or PNG to gray, upright, at the reduced size.
    static func decodeUpright(_ item: GroupItem) -> Bitmap? {
        guard let bytes = try? FileSystem.readFile(item.path, limit: 256 * 1024 * 1024) else { return nil }
        var bitmap: Bitmap
        switch item.format {
        case "jpeg":
            guard let h = try? JPEG.readHeader(bytes) else { return nil }
            let long = max(h.width, h.height)
            var scale = 8
            for s in 1...8 where long * s / 8 >= min(long, inspectLongSide) { scale = s; break }
            guard let d = try? JPEG.decode(bytes, scaleNumerator: scale, grayscale: true, maxHeaderPixels: 500_000_000, maxOutputPixels: 40_000_000)
            else { return nil }
            bitmap = d.bitmap
        case "png":
            guard let b = try? PNG.decode(bytes, channels: 3, maxPixels: 40_000_000) else { return nil }
            bitmap = b
        default:
            return nil
        }
        return bitmap.oriented(item.orientation ?? 1)
    }
}

/// One file under inspection: decoded on first use, once for both looks.
final class InspectedFile {
    let item: GroupItem
    /// How many confident words make a document (`GroupRules.minDocumentWords`).
    let enoughWords: Int
    private var decoded: Bitmap??

    init(_ item: GroupItem, enoughWords: Int) {
        self.item = item
        self.enoughWords = enoughWords
    }

    /// Gray, upright, at the inspection size; nil when the file cannot be decoded.
    var bitmap: Bitmap? {
        if let decoded { return decoded }
        let b = FileInspector.decodeUpright(item)
        decoded = .some(b)
        return b
    }

    private var halved: Bitmap??

    /// `bitmap` at half the size, nil when that is small already (short side under
    /// `FileInspector.minimumHalvedSide`) or nothing decoded.
    var half: Bitmap? {
        if let halved { return halved }
        var h: Bitmap?
        if let b = bitmap, min(b.width, b.height) >= FileInspector.minimumHalvedSide { h = b.halved() }
        halved = .some(h)
        return h
    }
}

extension FileInspector {
    /// Runs the QR and OCR checks `item` still needs and passes its cheap gates.
    func run(_ item: GroupItem, _ m: Metrics, rules: GroupRules, _ f: inout Findings) {
        let file = InspectedFile(item, enoughWords: rules.minDocumentWords)
        if f.qrPayload == nil && !f.qrChecked && rules.isQRCandidate(item, m) {
            f.qrPayload = decodeQR(file) ?? ""
        }
        if f.ocrWords == nil && rules.isDocumentCandidate(item, m) {
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
            id: 0, path: path, kind: r.kind.rawValue, format: r.format.rawValue, status: r.status, bytes: 0,
            width: r.width, height: r.height, taken: nil, takenSource: nil, make: r.exif?.make, model: r.exif?.model,
            software: r.exif?.software, rating: r.exif?.rating, orientation: r.exif?.orientation, duration: nil, metrics: m,
            phash: nil, dhash: nil, contentHash: nil, analyzedAt: nil, mtime: 0)
        var f = Findings()
        run(item, m, rules: rules, &f)
        return f == Findings() ? nil : f
    }
}

