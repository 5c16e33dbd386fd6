import SnapSortSystem

/// A hash of the data a picture's pixels are decoded from (64 bits, and the data's length), without its metadata
/// (`files.pixel_hash`): two files with one pixel hash decode to the same pixels, whatever else
/// their bytes hold. A tagger that rewrites a photo's EXIF, XMP or comment, a tool that appends
/// bytes after the image, a backup that adds a segment: each makes a file of other bytes (its
/// content hash) but of the same picture. The grouper joins such files by this hash as it joins
/// the same bytes by the content hash, instead of comparing every two of them
/// (`SimilarClustering`'s picture classes).
///
/// - JPEG: every segment from SOI to EOI but the application segments (APP0–APP15: JFIF, EXIF,
///   XMP, ICC profiles, MPF) and comments (COM), with the entropy-coded data of each scan; the
///   bytes after EOI are left out. The quantization and Huffman tables, the frame and the scans
///   are what a decoder reads, so equal data decodes equally.
/// - PNG: the signature and the chunks that make the pixels (IHDR, PLTE, tRNS, IDAT, IEND), not
///   the text, time, EXIF or colour-space chunks.
/// - Nil for other formats and for a file whose structure does not hold to its end (a cut-off
///   JPEG has no EOI): such files keep being compared pair by pair.
enum PixelHash {
    static func of(_ bytes: [UInt8], format: MediaFormat) -> [UInt8]? {
        let pieces: [Range<Int>]?
        switch format {
        case .jpeg: pieces = jpegPieces(bytes)
        case .png: pieces = pngPieces(bytes)
        default: pieces = nil
        }
        guard let pieces, !pieces.isEmpty else { return nil }
        // One pass of XXH64 and the data's length (16 bytes, as `files.content_hash`): the
        // content hash's second seed doubled the cost (~1.4 ms of a 12 MP photo's ~25 ms on one
        // core, bench/throughput.py), and a pixel class also shares size, orientation, capture
        // time and camera (`SimilarClustering.PixelClass`).
        var stream = XXH64Stream(seed: 0x9_1C5E)
        var length: UInt64 = 0
        bytes.withUnsafeBytes { raw in
            for r in pieces {
                stream.update(UnsafeRawBufferPointer(rebasing: raw[r]))
                length += UInt64(r.count)
            }
        }
        return ContentHash.toBytes(stream.digest()) + ContentHash.toBytes(length)
    }

    /// The byte ranges of a JPEG that its pixels come from (see above); nil without SOI, a scan
    /// and EOI in order.
    static func jpegPieces(_ bytes: [UInt8]) -> [Range<Int>]? {
        let n = bytes.count
        guard n >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var pieces: [Range<Int>] = [0..<2]
        var i = 2
        var scans = 0
        while i + 1 < n {
            guard bytes[i] == 0xFF else { return nil }
            // Fill bytes may precede a marker.
            var m = i + 1
            while m < n && bytes[m] == 0xFF { m += 1 }
            guard m < n else { return nil }
            let marker = bytes[m]
            let start = m - 1
            if marker == 0xD9 {
                pieces.append(start..<m + 1)
                return scans > 0 ? pieces : nil
            }
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {
                pieces.append(start..<m + 1)
                i = m + 1
                continue
            }
            guard m + 2 < n else { return nil }
            let length = Int(bytes[m + 1]) << 8 | Int(bytes[m + 2])
            let end = m + 1 + length
            guard length >= 2, end <= n else { return nil }
            let metadata = (0xE0...0xEF).contains(marker) || marker == 0xFE
            if !metadata { pieces.append(start..<end) }
            i = end
            guard marker == 0xDA else { continue }
            // The entropy-coded data: up to the next marker that is not a stuffed zero, a
            // restart marker or a fill byte.
            scans += 1
            guard let j = entropyEnd(bytes, from: i) else { return nil }
            pieces.append(i..<j)
            i = j
        }
        return nil
    }

    /// Where the entropy-coded data that starts at `start` ends: the first marker that is not a
    /// stuffed zero, a restart marker or a fill byte (nil: none before the end). The 0xFF bytes
    /// are found with memchr (`ByteSearch`): a byte-by-byte loop over a 12 MP photo's data cost ~1 ms.
    static func entropyEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        bytes.withUnsafeBufferPointer { p -> Int? in
            let n = p.count
            var j = start
            while j + 1 < n {
                guard let hit = ByteSearch.firstIndex(of: 0xFF, in: p, from: j) else { return nil }
                j = hit
                guard j + 1 < n else { return nil }
                let next = p[j + 1]
                if next == 0x00 || (0xD0...0xD7).contains(next) {
                    j += 2
                } else if next == 0xFF {
                    j += 1
                } else {
                    return j
                }
            }
            return nil
        }
    }

    /// The byte ranges of a PNG that its pixels come from; nil without IHDR, IDAT and IEND whole.
    static func pngPieces(_ bytes: [UInt8]) -> [Range<Int>]? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count >= 8, Array(bytes[0..<8]) == signature else { return nil }
        var pieces: [Range<Int>] = [0..<8]
        var i = 8
        var sawData = false
        while i + 12 <= bytes.count {
            let length = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            let end = i + 12 + length
            guard length >= 0, end <= bytes.count else { return nil }
            let type = String(decoding: bytes[i + 4..<i + 8], as: UTF8.self)
            if ["IHDR", "PLTE", "tRNS", "IDAT", "IEND"].contains(type) { pieces.append(i..<end) }
            if type == "IDAT" { sawData = true }
            if type == "IEND" { return sawData && pieces.count > 2 ? pieces : nil }
            i = end
        }
        return nil
    }
}
