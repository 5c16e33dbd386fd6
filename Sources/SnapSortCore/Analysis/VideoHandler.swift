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

/// Videos (MP4, MOV, M4V, 3GP through ISO BMFF boxes; MKV, WebM through EBML): duration,
/// display size, creation time, brand, encoder and handler names, from the container alone.
/// No frame is decoded, so a video has no metrics and no visual signature.
///
/// The content hash is a streaming XXH64 over the whole file through a fixed 1 MiB buffer (move
/// detection needs it; the file is never held in memory).
enum VideoHandler {
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
        let parsed: VideoInfo?
        switch ctx.result.format {
        case .mkv, .webm: parsed = EBML.parse(src)
        case .avi:
            ctx.fail(Reason(.unsupportedFormat, "AVI videos are not analyzed (only MP4, MOV, M4V, 3GP, MKV and WebM)"))
            return
        default: parsed = BoxParser.parse(src)
        }
        do {
            ctx.result.contentHash = try Analyzer.contentHash(fd: fd, size: ctx.status.size)
        } catch {
            ctx.fail(Reason(.ioError, error.message))
            return
        }
        guard let info = parsed else {
            ctx.fail(Reason(.decodeError, "not a readable \(ctx.result.format.rawValue.uppercased()) container"))
            return
        }
        apply(info, to: &ctx)
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
