import Foundation
import SnapSortSystem

/// The expensive looks at a file: QR decoding and OCR. Only candidates the cheap gates in
/// `GroupRules` select get here, and results are cached per analysis in `file_findings`.
public struct FileInspector: Sendable {
    /// The decoded QR payload of a file, nil when none is found.
    var decodeQR: @Sendable (GroupItem) -> String?
    /// The number of confidently recognized words, and the text.
    var recognizeText: @Sendable (GroupItem) -> (Int, String)

    /// Inspects nothing (tests of the other rules).
    public static let none = FileInspector(decodeQR: { _ in nil }, recognizeText: { _ in (0, "") })

    /// zbar and Tesseract through SnapSortSystem, on the file decoded upright at a reduced size
    /// where text and QR modules still resolve (long side ≥ `inspectLongSide`: a 12 MP JPEG
    /// decodes at 1/2 through DCT scaling; a code spanning 6 % of the short side keeps ≥ 3 px per
    /// module).
    public static let live = FileInspector(
        decodeQR: { item in
            guard let b = decodeUpright(item) else { return nil }
            return (try? QR.decode(b)) ?? nil
        },
        recognizeText: { item in
            guard let b = decodeUpright(item), let r = try? OCR.recognize(b) else { return (0, "") }
            return (r.words, r.text)
        })

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
