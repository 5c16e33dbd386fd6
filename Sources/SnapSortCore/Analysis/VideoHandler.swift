import SnapSortSystem

/// A file read with `pread`, never whole: the container parsers ask for headers and boxes only.
struct FileSource: ByteSource {
    let fd: FileDescriptor
    let size: Int64
    func read(at offset: Int64, count: Int) -> [UInt8] {
        guard offset >= 0, offset < size, count > 0 else { return [] }
        return (try? fd.pread(offset: offset, count: Int(min(Int64(count), size - offset)))) ?? []
    }
}

/// Videos: MP4, MOV, M4V, 3GP through ISO BMFF boxes and MKV, WebM through EBML (duration,
/// display size, creation time, brand, encoder and handler names, from the container); AVI,
/// MPG (MPEG-PS) and MTS/M2TS (MPEG-TS) through FFmpeg's demuxers. Every video is then opened
/// with FFmpeg (`Video.probe`, on the scan's confined worker, one thread) for a few small frames
/// spread over its length, its `VideoSignature`, and the card's poster (`files.video_poster`, a
/// small upright JPEG): bounded in time (`probeBudgetSeconds`) and in frames decoded per sample
/// (a long GOP). A codec FFmpeg cannot decode leaves the video listed with its duration and that
/// reason.
///
/// The content hash is a streaming XXH64 over the whole file through a fixed 1 MiB buffer (move
/// detection needs it; the file is never held in memory).
enum VideoHandler {
    /// Past this much work on one file only keyframes are decoded, past twice it none.
    static let probeBudgetSeconds = 3.0
    /// The stored poster's JPEG quality (320 pixels on the long side: about 10–20 KB).
    static let posterQuality = 82

    static func analyze(_ ctx: inout AnalysisContext) {
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.openForReading(ctx.path)
        } catch {
            ctx.fail(Reason(.ioError, error.message))
            return
        }
        defer { fd.close() }
        let src = FileSource(fd: fd, size: ctx.status.size)
        var parsed: VideoInfo?
        switch ctx.result.format {
        case .mkv, .webm: parsed = EBML.parse(src)
        case .avi, .mpg, .mts, .ogv: parsed = nil
        default: parsed = BoxParser.parse(src)
        }
        do {
            ctx.result.contentHash = try Analyzer.contentHash(fd: fd, size: ctx.status.size)
        } catch {
            ctx.fail(Reason(.ioError, error.message))
            return
        }
        let probe: Video.Probe?
        let probeError: String?
        do {
            probe = try Video.probe(path: ctx.path, frames: VideoSignature.sampledFrames, budgetSeconds: probeBudgetSeconds, poster: true)
            probeError = nil
        } catch let e as SystemError where e.code == .unsupported {
            // FFmpeg's libraries did not open (not installed, another major version): no fault of
            // the file's. Never Unreadable clutter: a passing reason, read again at the next scan.
            ctx.fail(Reason(.ioError, "the video libraries (FFmpeg) could not be opened: \(e.message); read again at the next scan"))
            return
        } catch {
            probe = nil
            probeError = error.message
        }
        // An Ogg file is a video only with a picture (`.ogg` sound renamed `.ogv` is none).
        if parsed == nil, [.avi, .mpg, .mts, .ogv].contains(ctx.result.format), let p = probe,
            p.hasVideo || p.durationSeconds != nil && ctx.result.format != .ogv
        {
            parsed = info(of: p, format: ctx.result.format)
        }
        guard let info = parsed else {
            let why = probeError.map { " (\($0))" } ?? ""
            // Ogg sound renamed `.ogv`: a good file, no video — not Unreadable clutter.
            if ctx.result.format == .ogv, let p = probe, !p.hasVideo {
                ctx.fail(Reason(.unsupportedFormat, "an Ogg file with sound only, no picture: not a video"))
                return
            }
            ctx.fail(Reason(.decodeError, "not a readable \(ctx.result.format.rawValue.uppercased()) video\(why)"))
            return
        }
        apply(info, to: &ctx)
        guard ctx.result.status == .pending, let p = probe, p.hasVideo else { return }
        guard p.decodable else {
            ctx.warn(
                Reason(
                    .codecUnsupported,
                    "its video codec (\(p.codec.isEmpty ? "unknown" : p.codec)) cannot be decoded here: listed with its duration, compared with no other video"
                ))
            return
        }
        guard !p.frames.isEmpty, let duration = info.durationSeconds ?? p.durationSeconds else {
            ctx.warn(Reason(.noFrames, "none of its frames decodes: listed with its duration, compared with no other video"))
            return
        }
        // The picture as shown: the container's display size (its rotation applied), else the
        // stream's.
        let (w, h) = (info.width ?? p.width, info.height ?? p.height)
        let aspect = w > 0 && h > 0 ? Double(w) / Double(h) : 1
        ctx.result.videoSignature = VideoSignature(durationSeconds: duration, aspect: aspect, sampled: p.frames)
        // The card's poster, made here on the confined worker: the page's server never runs
        // FFmpeg's decoders on a library's files (it decodes this JPEG of our own making).
        ctx.result.videoPoster = p.poster.flatMap { try? JPEG.encode($0, quality: posterQuality) }
        ctx.result.decodes += 1
    }

    /// What FFmpeg says of a container SnapSort has no parser of its own for.
    static func info(of p: Video.Probe, format: MediaFormat) -> VideoInfo {
        var info = VideoInfo(container: format.rawValue)
        info.brand = p.container.isEmpty ? nil : p.container
        info.durationSeconds = p.durationSeconds
        let swap = p.rotation == 90 || p.rotation == 270
        if p.width > 0 && p.height > 0 {
            info.width = swap ? p.height : p.width
            info.height = swap ? p.width : p.height
        }
        info.rotation = p.rotation
        info.videoCodec = p.codec.isEmpty ? nil : p.codec
        info.videoTracks = p.hasVideo ? 1 : 0
        return info
    }

    static func apply(_ info: VideoInfo, to ctx: inout AnalysisContext) {
        ctx.result.video = info
        ctx.result.durationSeconds = info.durationSeconds
        ctx.result.width = info.width
        ctx.result.height = info.height
        if info.make != nil || info.model != nil || info.encoder != nil {
            var e = ExifFields()
            e.make = info.make
            e.model = info.model
            e.software = info.encoder
            ctx.result.exif = e
        }
        if let text = info.creationDateText, let t = quickTimeDate(text) {
            ctx.result.capture = t
            ctx.result.exifOffset = t.offset
        } else if let c = info.creationTime, let t = CaptureTime.fromContainer(unixSeconds: c) {
            ctx.result.capture = t
        }
        if info.durationSeconds == nil {
            let why = info.warnings.first ?? "the container has no duration"
            ctx.fail(Reason(.truncated, "the video's header is incomplete (\(why))"))
        } else if let w = info.warnings.first {
            ctx.fail(Reason(.truncated, "the video is damaged or cut short (\(w))"))
        }
    }

    /// `com.apple.quicktime.creationdate`: ISO 8601 local time with its offset
    /// ("2024-05-01T12:34:56+0200"), which beats mvhd's UTC-only creation time.
    static func quickTimeDate(_ s: String) -> CaptureTime? {
        let u = Array(s.utf8)
        guard u.count >= 19 else { return nil }
        // Whatever follows the seconds: optional fractional seconds, then the offset (or none).
        let rest = String(decoding: u[19...], as: UTF8.self).drop { $0 == "." || $0.isNumber }
        let tail: String? = rest.isEmpty ? nil : String(rest)
        guard var t = CaptureTime.fromExif(String(decoding: u[0..<19], as: UTF8.self), offset: tail) else { return nil }
        t.source = .container
        return t
    }
}

extension VideoInfo {
    /// The `files.details` JSON of a video.
    public var json: JSON {
        .object([
            ("container", .string(container)), ("brand", .opt(brand)),
            ("compatible_brands", .array(compatibleBrands.map(JSON.string))),
            ("duration_s", .opt(durationSeconds)), ("width", .opt(width)), ("height", .opt(height)),
            ("rotation", .int(rotation)), ("creation_time", .opt(creationTime)),
            ("creation_date", .opt(creationDateText)), ("encoder", .opt(encoder)),
            ("handler_names", .array(handlerNames.map(JSON.string))), ("make", .opt(make)), ("model", .opt(model)),
            ("video_codec", .opt(videoCodec)), ("video_tracks", .int(videoTracks)), ("audio_tracks", .int(audioTracks)),
            ("warnings", .array(warnings.map(JSON.string))),
        ])
    }
}
