import SnapSortSystem

/// RAW photos (DNG, CR2, NEF, ARW, ORF, RW2): measured on the largest embedded JPEG preview that
/// libjpeg reads, found by a bounded TIFF IFD walk (`TIFFWalker`) over `pread`s — the file is
/// never read whole here (its content hash streams it through a fixed buffer).
///
/// EXIF comes from the RAW's own TIFF structure (libexif on the first 64 KiB, where makers put
/// IFD0 and the EXIF IFD), falling back to the preview's APP1. The size reported is the
/// preview's, oriented: previews of modern cameras are full size or close to it.
enum RawHandler {
    static let exifHeadBytes = 64 * 1024

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
        guard let walk = TIFFWalker.walk(src) else {
            ctx.fail(Reason(.decodeError, "not a readable \(ctx.result.format.rawValue.uppercased()) file (no TIFF header)"))
            return
        }
        var head = src.read(at: 0, count: exifHeadBytes)
        if head.count >= 4, walk.magic != 42 {
            // ORF ("IIRO") and RW2 ("IIU\0") use their own magic; libexif wants 42.
            if walk.littleEndian { head[2] = 42; head[3] = 0 } else { head[2] = 0; head[3] = 42 }
        }
        hidePreviewPointers(&head, littleEndian: walk.littleEndian)
        if let exif = Exif.parse(head[...]) { ctx.apply(exif: exif) }
        let format = ctx.result.format.rawValue.uppercased()
        if let jpeg = preview(src, walk) {
            let hadExif = ctx.result.exif != nil
            JPEGHandler.analyze(&ctx, jpeg: jpeg, readExif: !hadExif)
            if walk.pastTheEnd && (ctx.result.status == .pending || ctx.result.status == .ok) {
                // Cut short after a small preview (at the start, as cameras write it): measured
                // on that one, and damaged, as a JPEG cut short is.
                ctx.fail(
                    Reason(.truncated, "the \(format) file is cut short: its largest preview reaches past its end (measured on a smaller one)"))
            }
            return
        }
        if walk.pastTheEnd {
            // Damaged like a JPEG cut short, and listed with them (not "unsupported").
            ctx.fail(
                Reason(
                    .truncated,
                    "the \(format) file is cut short: its preview reaches past its end (\(ctx.status.size) bytes); nothing could be read"
                ))
            return
        }
        let why = walk.warnings.first.map { " (\($0))" } ?? ""
        ctx.fail(
            Reason(
                .noPreview,
                "the \(ctx.result.format.rawValue.uppercased()) file has no embedded JPEG preview SnapSort can read\(why); RAW data itself is not decoded"
            ))
    }

    /// Zeroes IFD0's JPEGInterchangeFormat and its length (0x0201, 0x0202: where Sony's ARW and
    /// Pentax's PEF point at their preview) in the head given to libexif, when they reach past
    /// it. libexif stops reading an IFD at the first such value (its bounds check treats the
    /// length as an offset too), and these tags sort before the EXIF IFD pointer (0x8769): the
    /// capture time was lost and the file stood at its mtime. The previews are found by the
    /// `TIFFWalker`, not by libexif.
    static func hidePreviewPointers(_ head: inout [UInt8], littleEndian: Bool) {
        func u16(_ i: Int) -> Int { littleEndian ? Int(head[i]) | Int(head[i + 1]) << 8 : Int(head[i]) << 8 | Int(head[i + 1]) }
        func u32(_ i: Int) -> Int { littleEndian ? u16(i) | u16(i + 2) << 16 : u16(i) << 16 | u16(i + 2) }
        guard head.count >= 8 else { return }
        let ifd = u32(4)
        guard ifd >= 8, ifd + 2 <= head.count else { return }
        let n = u16(ifd)
        for i in 0..<min(n, 512) {
            let e = ifd + 2 + 12 * i
            guard e + 12 <= head.count else { return }
            let tag = u16(e)
            if tag == 0x0201 || tag == 0x0202, u32(e + 8) >= head.count {
                for k in (e + 8)..<(e + 12) { head[k] = 0 }
            }
        }
    }

    /// The largest embedded JPEG preview that libjpeg can read (at least 64 px a side, gray or
    /// colour), read whole; nil when there is none. Tier 1 measures it, tier 2 looks at it.
    static func preview(_ src: ByteSource, _ walk: TIFFWalker.Result) -> [UInt8]? {
        for p in walk.previews.sorted(by: { $0.length > $1.length }) {
            let magic = src.read(at: p.offset, count: 3)
            guard magic == [0xFF, 0xD8, 0xFF] else { continue }
            let jpeg = src.read(at: p.offset, count: Int(p.length))
            guard jpeg.count == Int(p.length), let header = try? JPEG.readHeader(jpeg), header.width >= 64, header.height >= 64,
                header.components == 3 || header.components == 1
            else { continue }
            return jpeg
        }
        return nil
    }
}
