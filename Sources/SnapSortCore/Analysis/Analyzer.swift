import Foundation
import SnapSortSystem

/// Why an item has the status it has: a stable code plus text, one line (a library's own
/// message, libheif's, can end in a newline or hold one: `info` printed a blank line).
public struct Reason: Sendable, Equatable {
    public var code: ReasonCode
    public var text: String
    /// The status an item with this reason has (`ReasonCode.status`).
    public var status: ItemStatus { code.status }
    public init(_ code: ReasonCode, _ text: String) {
        self.code = code
        self.text = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .joined(separator: " ")
    }
}

/// Everything one analysis learns about a file.
public struct AnalysisResult: Sendable {
    public var kind: MediaFormat.Kind
    public var format: MediaFormat
    public var status: ItemStatus
    public var reason: Reason?
    public var width: Int?
    public var height: Int?
    public var exif: ExifFields?
    /// The user's rating (−1 rejected, 0…5 stars): an XMP sidecar's, else the file's own XMP
    /// segment's, else EXIF's (0x4746); nil when none says.
    public var rating: Int?
    /// The XMP sidecar's modification time (ns) when the file has one: a rescan analyzes the
    /// file again when its sidecar changed, came or went.
    public var sidecarModified: Int64?
    public var exifOffset: String?
    public var capture: CaptureTime?
    public var durationSeconds: Double?
    /// What a video's container says (brand, encoder, handler names, codec); nil for photos.
    public var video: VideoInfo?
    /// A video's frames over its length (`VideoSignature`); nil for photos and videos that
    /// do not decode.
    public var videoSignature: VideoSignature?
    /// A video's poster for the page's cards: the frame nearest its middle, upright, as a small
    /// JPEG made on the confined worker (`files.video_poster`); nil for photos.
    public var videoPoster: [UInt8]?
    public var metrics: Metrics?
    public var signature: VisualSignature?
    public var contentHash: [UInt8]?
    /// The hash of the data its pixels are decoded from (`PixelHash`; JPEG and PNG read whole).
    public var pixelHash: [UInt8]?
    public var quickHash: [UInt8]?
    /// Records why the item could not be analyzed (or was found damaged), with the status its
    /// reason's code implies: one rule for the analysis and for a tombstone that comes back.
    public mutating func fail(_ reason: Reason) {
        status = reason.status
        self.reason = reason
    }

    /// How many image decodes this analysis ran (tests assert that moves decode nothing).
    public var decodes: Int = 0
    /// QR and OCR findings when the scanner ran the gated inspections on its worker.
    var inspection: Findings?
    /// The bitmap the metrics measured, kept only until the scanner's worker has run the gated
    /// inspections, which look at it instead of decoding the file again; never stored.
    var preview: DecodedPreview?
}

/// A decode of a file as the metrics got it: as stored (not upright), at `scale`/8 of the full
/// size through DCT scaling (8 for formats decoded whole).
struct DecodedPreview: Sendable {
    let bitmap: Bitmap
    let scale: Int
}

/// Decoders and limits, injectable for tests.
public struct AnalyzerLimits: Sendable {
    /// Refuse images whose header claims more pixels than this (real panoramas are < 300 MP).
    public var maxHeaderPixels: Int64 = 500_000_000
    /// Never allocate a decode buffer beyond this many pixels (after DCT scaling).
    public var maxDecodePixels: Int64 = 40_000_000
    /// Photos larger than this are not read into memory.
    public var maxPhotoBytes: Int = 512 * 1024 * 1024
    /// A picture larger than this is not read whole by the scan (each worker would hold one):
    /// a JPEG is decoded from the file through libjpeg's source manager, scaled as any; another
    /// format decoded in memory (PNG, WebP, HEIC, …) is refused with a clear reason.
    public var maxInMemoryBytes: Int64 = 64 << 20
    /// What of a JPEG too large to hold is read for its metadata (EXIF, XMP: APP segments of
    /// at most 64 KiB each, before the frame).
    public var jpegMetadataBytes = 1 << 20
    /// A header claiming more pixels than this per byte of its file is not believed: no
    /// picture compresses that far (zlib stops near 1 000:1 on bytes, about 8 000 pixels a byte
    /// for a bilevel PNG), a decompression bomb or a damaged header does.
    public var maxPixelsPerByte: Int64 = 10_000
    /// A PNG whose samples inflate to more than this is not decoded: the cost of a decode is
    /// its pixels × bytes per pixel, not its pixels (a 20 000 × 20 000 16-bit PNG of 3 MB took
    /// 9 s of CPU). A 300 MP panorama of 8-bit RGB inflates to 900 MB.
    public var maxInflatedBytes: Int64 = 1 << 30
    /// A file of no known format larger than this is not read whole for its content hash (a
    /// 4 GB sparse file named `.jpg` was read for 10 s): it has the quick hash of its ends.
    public var maxUnknownHashBytes: Int64 = 64 << 20
    public init() {}

    /// Whether a header's `width`×`height` can be a real picture stored in `bytes` bytes.
    public func believes(width: Int, height: Int, bytes: Int) -> Bool {
        Int64(width) * Int64(height) <= Int64(bytes) * maxPixelsPerByte
    }
}

extension AnalysisContext {
    /// A real picture larger than this format is analyzed at (a stitched panorama, a 48 MP
    /// HEIF, a long screenshot): not analyzed, and not "unreadable" either — it is in no group
    /// and never offered for cleanup as broken. A header nobody can believe is a bomb instead.
    mutating func tooLargeToAnalyze(width: Int, height: Int, limit: Int64, format: String) {
        guard limits.believes(width: width, height: height, bytes: bytes.count) else {
            fail(
                Reason(
                    .tooLarge,
                    "the header claims \(width)×\(height) pixels, far more than its \(bytes.count) bytes can hold: a damaged header or a decompression bomb"
                ))
            return
        }
        result.width = width
        result.height = height
        fail(
            Reason(
                .tooLargeToAnalyze,
                "\(width)×\(height) pixels (\(Int64(width) * Int64(height) / 1_000_000) MP): larger than SnapSort analyzes a \(format) at (\(limit / 1_000_000) MP); a real picture, kept out of every group"
            ))
    }
}

/// Reads and measures one file. Stateless and thread-safe.
public struct Analyzer: Sendable {
    /// Bump when any metric, decoder or status rule changes: rows analyzed by an older version
    /// are re-analyzed by the next scan.
    /// 3: HEIC, WebP, RAW previews and videos analyzed; damaged JPEGs take their visual
    /// signature from the EXIF thumbnail.
    /// 5: `finderPatterns` counts cross-checked finder-pattern centres (the QR gate).
    /// 6: `noise`, `lapFineMax` and the directional second differences (Blurry by the subject
    /// and by the direction of motion; Oops by the noise of an underexposed frame).
    /// 7: videos decoded through FFmpeg (`Video.probe`): a `VideoSignature` for copies; AVI,
    /// MPG and MTS analyzed (migration 70 keeps the other rows at 7: only videos are read again).
    /// 8: videos sampled again (MPEG-2 4:2:2 decoded right, concealed frames refused, the samples
    /// spread whatever the budget allows, long GOPs bounded) with a poster stored at scan time
    /// (migration 78 keeps the other rows at 8: only videos are read again).
    /// 9: videos sampled again (an MPEG-PS seek that lands past the time at the start or between
    /// keyframes is sought again; a frame without a time is no sample), so a short DVD copy
    /// gives the samples its original gives (migration 84 keeps the other rows at 9).
    /// 10: the brightest channel's bright and clipped shares (migration 94 reads again only the
    /// photos whose median is bright, where they count).
    public static let version = 10

    /// The oldest analyzer version whose decoders give the pixels this one gives: a file of the
    /// same bytes that such a version analyzed keeps its models' results when it is analyzed
    /// again (`Library.store`). Raise it to `version` with any change to what a decoder gives
    /// (a colour conversion, an orientation, a DCT scale): the models must then look again.
    public static let samePixelsSince = 9

    public var limits = AnalyzerLimits()
    /// Extra format handlers (the engine's second part plugs in HEIC, WebP, RAW, video here).
    public var extraHandlers: [MediaFormat: @Sendable (inout AnalysisContext) -> Void] = [:]

    public init() {}

    /// Analyzes the file at `path`, whose `lstat` is `status`, and reads its XMP sidecar.
    public func analyze(path: String, status st: FileStatus) -> AnalysisResult {
        var r = analyzeContent(path: path, status: st)
        Analyzer.applySidecar(&r, path: path)
        if r.capture.map({ $0.source == .filename || $0.source == .mtime }) ?? true, let t = TakeoutMetadata.takenTime(for: path) {
            r.capture = .fromInstant(t, source: .metadata)
        }
        return r
    }

    private func analyzeContent(path: String, status st: FileStatus) -> AnalysisResult {
        let name = String(path.split(separator: "/").last ?? "")
        let hint = MediaFormat.fromName(name)
        var r = AnalysisResult(kind: hint?.kind ?? .other, format: hint ?? .unknown, status: .pending)
        if st.size == 0 {
            r.fail(Reason(.empty, "the file is empty (0 bytes)"))
            r.quickHash = ContentHash.quick(size: 0, head: [], tail: [])
            r.contentHash = ContentHash.content([])
            r.capture = CaptureTime.fromFileName(name) ?? .fromInstant(Double(st.mtimeNanoseconds) / 1e9, source: .mtime)
            return r
        }
        // Videos and RAW files are not read whole: their handlers read the container's boxes or
        // IFDs with pread, and the content hash streams the file through a fixed buffer.
        let headOnly = hint?.kind == .video || hint.map(Analyzer.tiffBased.contains) == true
        var bytes: [UInt8]
        do {
            // The format from the first bytes before anything more is read: only a picture whose
            // decoder wants it in memory is read whole. Junk named `.jpg` (random bytes, a
            // download cut short, a disk image) has its hash streamed: four 500 MB of them held
            // a scan at 1 GB with two workers (issue 40).
            let head = try FileSystem.readRange(path, offset: 0, count: 64 * 1024)
            let sniffed = MediaFormat.sniff(head[...], nameHint: hint)
            let whole =
                st.size <= limits.maxInMemoryBytes
                && (Int64(head.count) >= st.size || (!headOnly && Analyzer.decodedInMemory.contains(sniffed)))
            if whole {
                bytes = Int64(head.count) >= st.size ? head : try FileSystem.readFile(path, limit: Int(limits.maxInMemoryBytes))
                r.quickHash = Analyzer.quickHash(of: bytes)
                r.contentHash = ContentHash.content(bytes)
            } else {
                let tail = try FileSystem.readRange(path, offset: max(0, st.size - 64 * 1024), count: 64 * 1024)
                r.quickHash = ContentHash.quick(size: st.size, head: head, tail: tail)
                // A JPEG too large to hold: its metadata segments (the pixels come from the file).
                bytes = sniffed == .jpeg ? try FileSystem.readRange(path, offset: 0, count: limits.jpegMetadataBytes) : head
            }
        } catch let e as SystemError {
            r.fail(
                e.code == .errno(EACCES) || e.code == .errno(EPERM)
                    ? Reason(.permission, "permission denied: SnapSort may not read it (its permissions); it is analyzed once they allow")
                    : Reason(.ioError, e.message))
            return r
        } catch {
            r.fail(Reason(.ioError, "\(error)"))
            return r
        }
        let format = MediaFormat.sniff(bytes[...], nameHint: hint)
        r.format = format
        r.kind = format.kind
        if headOnly, Analyzer.decodedInMemory.contains(format), Int64(bytes.count) < st.size, st.size <= limits.maxInMemoryBytes {
            // A name promised a video or RAW file but the content is an image decoded in memory.
            do {
                bytes = try FileSystem.readFile(path, limit: limits.maxPhotoBytes)
                r.contentHash = ContentHash.content(bytes)
            } catch {
                r.fail(Reason(.ioError, error.message))
                return r
            }
        }
        var ctx = AnalysisContext(path: path, name: name, status: st, bytes: bytes, result: r, limits: limits)
        if let h = hint, h != format, format.kind != .other, !(h.kind == format.kind && Analyzer.sameFamily(h, format)) {
            ctx.warn(Reason(.wrongExtension, "the name says \(h.rawValue) but the content is \(format.rawValue)"))
        }
        if format != .jpeg, Analyzer.decodedInMemory.contains(format), Int64(bytes.count) < st.size {
            // Its decoder wants it whole, and a worker holds at most `maxInMemoryBytes`.
            ctx.fail(
                Reason(
                    .tooLargeToAnalyze,
                    "a \(format.rawValue.uppercased()) file of \(st.size >> 20) MB: larger than SnapSort reads into memory (\(limits.maxInMemoryBytes >> 20) MB); a real picture, kept out of every group"
                ))
            ctx.result.contentHash = try? Analyzer.contentHash(path: path)
            if ctx.result.capture == nil {
                ctx.result.capture = CaptureTime.fromFileName(name) ?? .fromInstant(Double(st.mtimeNanoseconds) / 1e9, source: .mtime)
            }
            return ctx.result
        }
        switch format {
        case .jpeg: JPEGHandler.analyze(&ctx)
        case .png: PNGHandler.analyze(&ctx)
        case .heic: HEIFHandler.analyze(&ctx)
        case .webp: WebPHandler.analyze(&ctx)
        case .dng, .cr2, .nef, .arw, .orf, .rw2: RawHandler.analyze(&ctx)
        case .mp4, .mov, .m4v, .threegp, .mkv, .webm, .avi, .mpg, .mts, .ogv: VideoHandler.analyze(&ctx)
        case .gif, .tiff, .avif, .bmp:
            if let handler = extraHandlers[format] {
                handler(&ctx)
            } else {
                ctx.fail(Reason(.unsupportedFormat, Analyzer.unsupportedReasons[format] ?? "\(format.rawValue.uppercased()) files are not analyzed"))
            }
        case .empty:
            ctx.fail(Reason(.empty, "the file is empty"))
        case .html:
            ctx.result.kind = hint?.kind ?? .other
            ctx.fail(Reason(.notMedia, "the file is an HTML page, not \(hint.map { "a \($0.rawValue) image" } ?? "media") (a failed download?)"))
        case .unknown:
            ctx.result.kind = hint?.kind ?? .other
            ctx.fail(Reason(.unknownFormat, "the content is not a known image or video format"))
        }
        let unknown = [MediaFormat.unknown, .html, .empty].contains(ctx.result.format)
        if ctx.result.contentHash == nil, ctx.result.reason?.code != .ioError, !unknown || st.size <= limits.maxUnknownHashBytes {
            // Head-only reads (an unsupported TIFF, a RAW file): move detection still needs the
            // content hash.
            ctx.result.contentHash = try? Analyzer.contentHash(path: path)
        }
        if ctx.result.capture == nil {
            ctx.result.capture = CaptureTime.fromFileName(name) ?? .fromInstant(Double(st.mtimeNanoseconds) / 1e9, source: .mtime)
        }
        if ctx.result.status == .pending { ctx.result.status = .ok }
        if ctx.result.status == .ok, Int64(ctx.bytes.count) == st.size {
            ctx.result.pixelHash = PixelHash.of(ctx.bytes, format: ctx.result.format)
        }
        return ctx.result
    }

    /// The rating an XMP sidecar gives overrides the file's own (the editor's current word);
    /// the file's XMP segment, then EXIF, otherwise.
    static func applySidecar(_ r: inout AnalysisResult, path: String) {
        if let sidecar = XMPSidecar.find(for: path) {
            r.sidecarModified = sidecar.modified
            if let v = sidecar.rating() { r.rating = v }
        }
        if r.rating == nil { r.rating = r.exif?.rating }
    }

    /// Formats whose names make the analyzer read only the head (TIFF structures, read by IFD).
    static let tiffBased: Set<MediaFormat> = [.tiff, .dng, .cr2, .nef, .arw, .orf, .rw2]
    /// Formats whose decoders want the whole file in memory.
    static let decodedInMemory: Set<MediaFormat> = [.jpeg, .png, .webp, .heic, .gif, .bmp, .avif]
    /// Why a format is `unsupported`: a clear reason, never an error of the scan.
    static let unsupportedReasons: [MediaFormat: String] = [
        .gif: "GIF images (often animations) are not analyzed",
        .tiff: "TIFF images are not analyzed (only TIFF-based RAW files with an embedded JPEG preview are)",
        .avif: "AVIF images are not analyzed yet (no AV1 decoding)",
        .bmp: "BMP images are not analyzed",
    ]

    static func sameFamily(_ a: MediaFormat, _ b: MediaFormat) -> Bool {
        let videos: Set<MediaFormat> = [.mp4, .mov, .m4v, .threegp]
        let raws: Set<MediaFormat> = [.tiff, .dng, .cr2, .nef, .arw, .orf, .rw2]
        return (videos.contains(a) && videos.contains(b)) || (raws.contains(a) && raws.contains(b))
    }

    /// The quick fingerprint of bytes already in memory.
    public static func quickHash(of bytes: [UInt8]) -> [UInt8] {
        let k = 64 * 1024
        return ContentHash.quick(size: Int64(bytes.count), head: Array(bytes.prefix(k)), tail: Array(bytes.suffix(k)))
    }

    /// The quick fingerprint read from disk.
    public static func quickHash(path: String, size: Int64) throws -> [UInt8] {
        let k = 64 * 1024
        let head = try FileSystem.readRange(path, offset: 0, count: k)
        let tail = try FileSystem.readRange(path, offset: max(0, size - Int64(k)), count: k)
        return ContentHash.quick(size: size, head: head, tail: tail)
    }

    /// The content hash read from disk, streamed through a fixed buffer (never the whole file
    /// in memory): the same bytes `ContentHash.content` gives for the file read whole.
    public static func contentHash(path: String) throws -> [UInt8] {
        let fd = try FileDescriptor.openForReading(path)
        defer { fd.close() }
        return try contentHash(fd: fd, size: try fd.status().size)
    }

    /// The content hash of an open file of `size` bytes.
    static func contentHash(fd: FileDescriptor, size: Int64) throws -> [UInt8] {
        let chunk = 1 << 20
        var hash = ContentHash.Streaming()
        var offset: Int64 = 0
        while offset < size {
            let piece = try fd.pread(offset: offset, count: Int(min(Int64(chunk), size - offset)))
            if piece.isEmpty { break }  // the file shrank meanwhile: hash what is there
            piece.withUnsafeBytes { hash.update($0) }
            offset += Int64(piece.count)
        }
        return hash.digest()
    }
}

/// The state a format handler works on.
public struct AnalysisContext: Sendable {
    public let path: String
    public let name: String
    public let status: FileStatus
    public let bytes: [UInt8]
    public var result: AnalysisResult
    public let limits: AnalyzerLimits

    /// Records a non-fatal problem (the first one is kept as the reason).
    public mutating func warn(_ reason: Reason) {
        if result.reason == nil { result.reason = reason }
    }

    /// Fails the item with a reason, and the status its code implies (`ReasonCode.status`).
    public mutating func fail(_ reason: Reason) { result.fail(reason) }

    /// Applies EXIF fields: capture time, orientation, camera.
    public mutating func apply(exif: ExifFields) {
        result.exif = exif
        if let dto = exif.dateTimeOriginal, let t = CaptureTime.fromExif(dto, subSec: exif.subSecOriginal, offset: exif.offsetTimeOriginal) {
            result.capture = t
            result.exifOffset = exif.offsetTimeOriginal
        }
    }

    /// Measures a decoded bitmap (orientation applied) and records size and metrics.
    public mutating func measure(_ bitmap: Bitmap, fullWidth: Int, fullHeight: Int, decodeScale: Int) {
        let o = result.exif?.orientation ?? 1
        let (m, sig) = MetricsComputer.measure(bitmap, orientation: o, decodeScale: decodeScale)
        result.metrics = m
        result.signature = sig
        result.preview = DecodedPreview(bitmap: bitmap, scale: decodeScale)
        result.decodes += 1
        let swap = o >= 5 && o <= 8
        result.width = swap ? fullHeight : fullWidth
        result.height = swap ? fullWidth : fullHeight
    }
}
