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
        return rotated(bitmap, orientation: item.orientation ?? 1)
    }

    /// Applies an EXIF orientation (the EXIF 2.3 table) to an interleaved bitmap.
    static func rotated(_ b: Bitmap, orientation o: Int) -> Bitmap {
        guard (2...8).contains(o) else { return b }
        let w = b.width, h = b.height, c = b.channels
        let swap = o >= 5
        let ow = swap ? h : w, oh = swap ? w : h
        var out = [UInt8](repeating: 0, count: w * h * c)
        b.pixels.withUnsafeBufferPointer { src in
            for y in 0..<oh {
                for x in 0..<ow {
                    let sx: Int, sy: Int
                    switch o {
                    case 2: sx = w - 1 - x; sy = y
                    case 3: sx = w - 1 - x; sy = h - 1 - y
                    case 4: sx = x; sy = h - 1 - y
                    case 5: sx = y; sy = x
                    case 6: sx = y; sy = h - 1 - x
                    case 7: sx = w - 1 - y; sy = h - 1 - x
                    default: sx = w - 1 - y; sy = x
                    }
                    for k in 0..<c { out[(y * ow + x) * c + k] = src[(sy * w + sx) * c + k] }
                }
            }
        }
        return Bitmap(width: ow, height: oh, channels: c, pixels: out)
    }
}
