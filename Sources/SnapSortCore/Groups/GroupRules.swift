import Foundation
import SnapSortSystem

/// The documented rules and thresholds of every smart group. Thresholds are on normalized,
/// resolution-independent measures (see `Metrics`), tuned on the DEV corpus and checked on a
/// holdout corpus built from other photographs.
public struct GroupRules: Sendable {
    /// Similar Shots compares photos taken at most this many seconds apart (5 minutes).
    public var window: Double = 300
    /// …and at most this many neighbours on the timeline each way. Files without a capture
    /// time of their own sit at their mtime, and a folder copied in one go puts thousands within
    /// a few seconds: every pair of 2 000 such files was 2 million alignments (minutes); now
    /// 64 000. A burst longer than this still chains through its neighbours.
    public var windowNeighbours = 32
    /// A photo's possible copies: at most this many (same content first, then close pHashes). A
    /// crowd of identical frames (2 000 black ones) was every pair; the crowd still joins through
    /// the photos all of them list.
    public var copyCandidates = 64
    /// Minimum aligned thumbnail correlation (`Thumbnail.aligned`) for two pictures to be similar.
    public var similarThreshold: Double = 0.80
    /// …at an alignment that keeps at least this share of the frame in common. Frames of one
    /// moment (bursts, retakes reframed by ~10 % or zoomed) keep two thirds and more; the frames
    /// of a pan or crops of one scene overlap about half and correlate well where they do, so the
    /// correlation alone cannot tell them apart.
    public var minimumOverlap: Double = 0.62
    /// Geometric verification, a second opinion on the window pairs whose thumbnails score
    /// below `similarThreshold` (`SimilarClustering.verified`): 32×32 thumbnails decorrelate on
    /// fine texture (gravel, a meadow) shifted by 1–4 % and blurred, and on a small subject
    /// moving across a plain scene, while ORB keypoints matched under one RANSAC homography
    /// survive texture, blur and exposure, and the homography tells how much of the two frames
    /// is shared (a pan's frames share 20–55 %). Only pairs taken at most `verifySeconds` apart,
    /// both by a capture time of their own (a copied folder's files sit seconds apart at their
    /// mtime), are asked: a minute holds a burst, a blur ladder (DEV: up to 40 s) and a few
    /// retakes, and complete linkage needs every pair of a set…
    public var verifySeconds: Double = 60
    /// …whose aligned thumbnails still score at least this…
    public var verifyFloor: Double = 0.3
    /// …and they are one moment when at least this many matches fit the homography (DEV, fitted
    /// there: pairs of different photos reached 7 where the homography kept ≥ 62 % of the frame,
    /// and 115 of 116 same-set pairs within a minute reach 20)…
    public var verifyInliers = 20
    /// …and it keeps at least this share of each frame inside the other (`minimumOverlap`, the
    /// thumbnails' own line; DEV's pan and crop pairs share 0.23–0.54). Without the vision
    /// helper (`--no-models`) no pair is verified; pairs verified before stay as they were scored.
    public var verifyShared: Double = 0.62
    /// …or, for a camera that stood still, when at least this share of the frame is unchanged
    /// where it stands (`FrameMatch.still`): a small subject moved across a plain scene (a coin
    /// pushed over a table) leaves the homography too few corners (5–7 inliers) but keeps the
    /// rest of the frame, pixel for pixel. The coin's bursts (a pen moving through them too) keep
    /// 0.72–0.86 of it, a mall's fixed camera 0.84–0.90 one to three seconds apart; the verified
    /// scene cuts, pans, crops and moved cameras of DEV, DEV2, DEV3 and the two sets of real video
    /// bursts keep at most 0.16 (a pan over a plain sky; bench/still_pairs.py). The line is
    /// `verifyShared`'s, not fitted: the share two frames must have in common to be one moment.
    public var verifyStill: Double = 0.62
    /// Photos without a capture time of their own find the photos whose pixels may show their
    /// moment through the pHash index, wherever they are on the timeline (`SimilarClustering`'s
    /// content pairs): the pHashes within this many bits (of 64)…
    public var similarRadius = 14
    /// …at most this many of them, the nearest first.
    public var contentNeighbours = 16
    /// A folder's files without a capture time of their own whose mtimes put at least this many
    /// of them within one second were written by a copy, not a camera (`WeakClock`): their
    /// mtimes say nothing of when they were taken.
    public var copiedAtOnce = 5
    /// A photo without a clock (one of such a crowd) stands on the timeline where the copy put
    /// it, among its crowd in the copier's order (most often the names': a camera's numbering):
    /// the window pairs it with this many places on either side, not `windowNeighbours`.
    public var crowdNeighbours = 8
    /// A photo mirrored left to right is a similar shot of the picture it mirrors when their
    /// thumbnails, one mirrored, correlate at least this much unaligned (`SimilarClustering.mirrorEdges`).
    public var mirrorCorrelation = 0.98
    /// Without capture times, a pair whose thumbnails keep at least this share of the frame where
    /// it stands (`Thumbnail.stillShare`) is asked of the keypoints whatever its pHashes: the
    /// frames of a still camera over which a subject moved (below `verifyStill`'s line: the
    /// thumbnails only preselect, the frames decide).
    public var thumbnailStill = 0.45
    /// Weak clocks (`WeakClock`) this many seconds apart say two photos are two moments, as
    /// capture times `verifySeconds` apart do: a chat saved at once spreads its photos over
    /// minutes, and a day apart is another day.
    public var weakClockApart: Double = 86_400
    /// Frames at most this many seconds apart by their own capture times are a burst's: one
    /// moment whenever they show one scene, however the camera or the subject moved between them
    /// (a handheld camera following a bird whose head comes at the lens: its frames share half
    /// of each other at a zoom or a shift a pan would give, and keep 6–19 keypoints under one
    /// homography). For them the thumbnails' `similarThreshold` holds at any overlap, and
    /// verification needs `burstInliers` instead of `verifyInliers` and `verifyShared`. The real
    /// video bursts' frames are 0.3–0.7 s apart and a burst of four spans 1.2 s; DEV's pans are
    /// 2–6 s apart (the nearest 2.4 s, 34 inliers over 0.40 of the frame: it stays apart), and
    /// its different photos 1–3 s apart reach neither line (thumbnails ≤ 0.50, 4 inliers).
    public var burstSeconds: Double = 1.5
    /// A set's frames that follow each other at most `burstSeconds` apart are one burst over at
    /// most this many seconds (a burst mode's buffer, or a few presses a second), so two of its
    /// frames are judged as a burst's at any overlap (`SimilarClustering.burstChained`); further
    /// apart they are two moments whatever frames lie between.
    public var burstSpanSeconds: Double = 5
    /// …the keypoint matches under one homography that say two frames of a burst show one scene:
    /// half of `verifyInliers`. Different scenes and different moments reached 4–8 on DEV, DEV2,
    /// DEV3 and both sets of real video bursts (RANSAC's four points and chance; pans and crops
    /// of one scene more, but seconds apart); a burst's frames that the shared line refused
    /// reached 13–19 (bench/still_pairs.py). Fitted on one video set alone, the line between
    /// them falls at 11.5 (7 against 16) or 10.5 (8 against 13), and either holds on the other.
    public var burstInliers = 10
    /// What the stored pair scores (`similar_pairs`) depend on: the alignment's version, the
    /// window and the thresholds. Another key makes the next regroup align every pair again
    /// (`same-bytes-by-hash`: the pairs of one content are no longer stored, but a link each to
    /// the content's first photo; `same-pixels-by-hash`: nor those of one pixel class;
    /// `copies-nearest`: a photo's near-copy candidates are the nearest pHashes, then times, outside
    /// its own content and a few of any one content).
    var pairKey: String {
        "align4 copy-edits edit-raw-pairs edit-bridges same-bytes-by-hash same-pixels-by-hash copies-nearest window=\(window),\(windowNeighbours),\(copyCandidates) threshold=\(similarThreshold) overlap=\(minimumOverlap) copy=\(nearCopyRadius),\(nearCopyCorrelation),\(nearCopyColorDistance),\(nearCopySharpnessStops),\(sameCaptureSeconds) verify=\(verifySeconds),\(verifyFloor),\(verifyInliers),\(verifyShared),\(verifyStill) still-median burst=\(burstSeconds),\(burstInliers),chain\(burstSpanSeconds) content-edits content=\(similarRadius),\(contentNeighbours),\(copiedAtOnce),\(weakClockApart) crowd=\(crowdNeighbours) mirrors=\(mirrorCorrelation) thumb-still=\(thumbnailStill)"
    }
    /// What the stored per-file groups (blurry, oops, screenshot, document, qr, videos) depend
    /// on beyond the files themselves: the version of these rules and their thresholds. Another
    /// key makes the next regroup judge every file again (no decoding: metrics and OCR/QR
    /// findings are stored), so an upgrade applies new rules to a library already scanned.
    var fileKey: String {
        "files9 blur-reference-judged-in-set graphic-lossy favourites original-earliest original-trim edits-no-oops unreadable-not-denied page160 keeper-subject blown=\(GroupRules.blownFraction),\(GroupRules.highlightsClipped),channels\(GroupRules.channelHighlightsClipped) subject=\(subjectDetail),veil\(GroupRules.veilLevel),\(GroupRules.darkSubjectDetail),\(GroupRules.paleSubjectDetail) long=\(longVideoSeconds) docwords=\(minDocumentWords) page=\(minPageScore),\(maxPaperSpread) sheet=\(minSheetLines),\(minSheetShare),\(wholeFrameSheet),\(GroupRules.paperLevel),inked softpage-unclipped ink=\(softPageInkRatio),\(softPageInkDepth) blurstops=\(relativeBlurStops),\(relativeMotionStops) setoops=\(setOopsStops)stops-brightest,veil\(setVeilContrast) samepage=\(samePageWords) pagefloor=\(sheetPageFloor),\(classifiedSheetShare)"
    }
    /// Near-copies: pHash within this Hamming distance…
    public var nearCopyRadius = 6
    /// …whose unaligned thumbnails correlate at least this much…
    public var nearCopyCorrelation: Double = 0.9995
    /// …and whose 8×8 colours differ by at most this (mean absolute, 0–255).
    public var nearCopyColorDistance: Double = 1
    /// …and, when both are measured at the same working size, whose sharpest tiles differ by less
    /// than this many stops (log2 of the Laplacian variance). A copy keeps the picture's
    /// sharpness; a blur ladder of a smooth, low-contrast scene keeps its 32×32 thumbnail but not
    /// its sharpness. (A copy smaller than the working size is measured sharper, so sizes that
    /// differ skip this check.)
    public var nearCopySharpnessStops: Double = 0.65

    /// Whether the sharpness of two candidate copies allows them to be one picture.
    func sameSharpness(_ a: GroupItem, _ b: GroupItem) -> Bool {
        guard let ma = a.metrics, let mb = b.metrics,
            ma.workingWidth == mb.workingWidth && ma.workingHeight == mb.workingHeight
        else { return true }
        return abs(log2(max(ma.lapTileMax, 1e-3) / max(mb.lapTileMax, 1e-3))) < nearCopySharpnessStops
    }
    /// Two files whose own capture times (see `ownCaptureTime`) differ by more than this many
    /// seconds are two captures, never copies of one picture.
    public var sameCaptureSeconds: Double = 2

    /// Whether `a` and `b` are two captures: each says itself when it was taken, to the second,
    /// and they disagree. Copies keep their capture time (backups and cloud re-encodes keep the
    /// EXIF, exports keep the camera's file name; messenger copies lose both), but a camera never
    /// takes the same picture twice: frames of a static scene on a tripod, a time-lapse or a
    /// burst of a still subject look identical at the 32×32 thumbnail the near-copy check sees,
    /// and deleting them "as copies" would lose captures. They stay candidates for Similar Shots.
    func separateCaptures(_ a: GroupItem, _ b: GroupItem) -> Bool {
        separateCaptures(GroupRules.ownCaptureTime(a), GroupRules.ownCaptureTime(b))
    }

    /// `separateCaptures` of two files' `ownCaptureTime`s.
    func separateCaptures(_ ta: Double?, _ tb: Double?) -> Bool {
        guard let ta, let tb else { return false }
        return abs(ta - tb) > sameCaptureSeconds
    }

    /// The wall-clock time (seconds, time zone ignored: copies keep the wall clock, not always the
    /// offset) at which a file says itself it was taken, to the second: its EXIF DateTimeOriginal,
    /// or a time of day in a camera-style file name (`IMG_20241019_123231`, `PXL_20241019_…`).
    /// Nil for a date without a time (WhatsApp's `IMG-20241019-WA0001`), container times and
    /// mtimes, which say when a copy was made rather than when the picture was taken.
    static func ownCaptureTime(_ item: GroupItem) -> Double? { item.ownCaptureTime }

    /// `ownCaptureTime` of a file named `name` whose capture time `takenAt` came from `source`.
    /// The name is read only when the time came from it (every row of a regroup asks).
    static func ownCaptureTime(takenAt text: String?, source: String?, name: @autoclosure () -> String) -> Double? {
        guard let text else { return nil }
        switch source {
        case "exif", "metadata":
            break
        case "filename":
            guard
                name().range(
                    of: #"(19|20)\d\d[-_.]?\d\d[-_.]?\d\d[ _T-]?([^\d]{1,8} )?\d\d[-_.:h]?\d\d[-_.:m]?\d\d"#,
                    options: .regularExpression) != nil
            else { return nil }
        default:
            return nil
        }
        // "YYYY-MM-DDTHH:MM:SS…" → seconds on a proleptic Gregorian wall clock.
        let d = fixedTimestamp(text) ?? text.prefix(19).split(whereSeparator: { "-T:".contains($0) }).compactMap { Int($0) }
        guard d.count == 6 else { return nil }
        let (y, m) = d[1] <= 2 ? (d[0] - 1, d[1] + 12) : (d[0], d[1])
        let days = 365 * y + y / 4 - y / 100 + y / 400 + (153 * (m - 3) + 2) / 5 + d[2]
        return Double(days) * 86400 + Double(d[3] * 3600 + d[4] * 60 + d[5])
    }

    /// The six fields of a text that starts with exactly "YYYY-MM-DDTHH:MM:SS" in ASCII (the form
    /// the scanner writes), read without splitting; nil for anything else (`ownCaptureTime`
    /// then splits it). The 20th byte must not continue the 19th character (ASCII or none), so
    /// the fields are those the split of the first 19 characters gives.
    static func fixedTimestamp(_ text: String) -> [Int]? {
        var utf8 = text.utf8.makeIterator()
        var d = [0, 0, 0, 0, 0, 0]
        for i in 0..<19 {
            guard let b = utf8.next() else { return nil }
            switch i {
            case 4, 7: guard b == UInt8(ascii: "-") else { return nil }
            case 10: guard b == UInt8(ascii: "T") else { return nil }
            case 13, 16: guard b == UInt8(ascii: ":") else { return nil }
            default:
                guard b >= 48 && b <= 57 else { return nil }
                let field = i < 4 ? 0 : (i - 2) / 3
                d[field] = d[field] * 10 + Int(b - 48)
            }
        }
        if let next = utf8.next(), next >= 0x80 { return nil }
        return d
    }

    /// Heavy Photos: any photo from this size up…
    public var heavyBytes: Int64 = 20_000_000
    /// …and the library's largest `heavyShare` of photos when they are at least `heavyMinimumBytes`.
    public var heavyShare = 0.05
    public var heavyMinimumBytes: Int64 = 4_000_000
    /// Long Videos: this many seconds or more (60 counts).
    public var longVideoSeconds: Double = 60
    /// Copies of a video whatever their encoding (`VideoCopies`).
    public var videoCopies = VideoCopies.Rules()

    public init() {}

    // MARK: Candidates

    /// Photos that take part in Similar Shots and duplicates: analyzed images with a signature.
    /// The RAW of a RAW+JPEG pair is none: its preview is its JPEG's picture, and the pair is
    /// one item.
    func isSimilarCandidate(_ item: GroupItem) -> Bool {
        item.status == .ok && item.kind == .photo && item.phash != nil && item.rawPair != .sidecar
    }

    /// Whether two photos that look alike may be Similar Shots of each other (copies are
    /// decided apart, `mayBeCopy`):
    /// - never a screenshot (`isScreenshot`): it is kept for what it shows — two screens of one
    ///   app differ in the words that matter (a booking reference, a door code), and a
    ///   screenshot of a photo is no retake of it (its crisp interface text made it the keeper
    ///   over the photo, and the photo "blurry" against it);
    /// - two pages that both read (`pageWords`) only when they share at least
    ///   `samePageWords` of their words (Jaccard): two pages of one contract share a letterhead
    ///   and a footer, and "trash the rest" would lose a page. A retake that does not read (a
    ///   shaken one) still joins the page it retakes.
    func maySimilar(_ a: GroupItem, _ b: GroupItem, pageWords: (Int64) -> Set<String>?) -> Bool {
        if GroupRules.isEditPair(a, b) || GroupRules.isRawAgainstRendered(a, b) { return false }
        for item in [a, b] {
            if let m = item.metrics, isScreenshot(item, m) { return false }
        }
        guard let wa = pageWords(a.id), let wb = pageWords(b.id), !wa.isEmpty, !wb.isEmpty else { return true }
        return Double(wa.intersection(wb).count) / Double(wa.union(wb).count) >= samePageWords
    }

    public var samePageWords = 0.5

    /// The words of a page's text that tell pages apart: runs of at least three letters or
    /// digits, lowercased.
    static func pageWords(_ text: String) -> Set<String> {
        Set(
            text.lowercased().split { !($0.isLetter || $0.isNumber) }.filter { $0.count >= 3 }.map(String.init))
    }

    // MARK: Per-file groups

    /// The per-file groups of `item` with a score each (higher = listed first).
    func categories(of item: GroupItem, findings: Findings) -> [(GroupID, Double)] {
        var out: [(GroupID, Double)] = []
        // The RAW of a pair goes with its JPEG, which is judged for the shot.
        if item.rawPair == .sidecar { return [] }
        switch item.status {
        case .unreadable, .damaged:
            // A file its permissions (or a failing disk) kept from being read is no clutter: it
            // may be a perfectly good photo, read once they allow (`LibraryScanner.passingReasons`).
            if let code = item.reasonCode, LibraryScanner.passingReasons.contains(code) { return [] }
            return [(.unreadable, Double(item.bytes))]
        case .ok, .unsupported:
            break
        default:
            return []
        }
        if item.kind == .video {
            if let d = item.duration, d >= longVideoSeconds { out.append((.longVideo, d)) }
            if isDownloadedVideo(item) { out.append((.downloadedVideo, Double(item.bytes))) }
            return out
        }
        guard item.kind == .photo, item.status == .ok, let m = item.metrics else { return out }
        let screenshot = isScreenshot(item, m)
        if screenshot { out.append((.screenshot, Double(item.mtime) / 1e9)) }
        if let p = findings.qrPayload, !p.isEmpty { out.append((.qr, 0)) }
        let reads = (findings.ocrWords ?? 0) >= minDocumentWords
        // A page's look without words needs a picture a page could be read in: a 32×32 icon of
        // grey dots on light grey had "ink on paper" (91 of 20 000 icons were receipts).
        let pageSized = min(item.width ?? 0, item.height ?? 0) >= GroupRules.minUnreadPageSide
        let softPage = !screenshot && !reads && pageSized && isSoftPage(m) && !classifierSeesNoPage(item, share: 1)
        let sheet = isPhotographedSheet(item, m)
        let document = !screenshot && (reads || (pageSized && isUnreadablePage(item, m)) || softPage || sheet)
        if document {
            out.append((.document, reads ? Double(findings.ocrWords ?? 0) : sheet ? Double(item.sheet?.lines ?? 0) : item.pageScore ?? 0))
        }
        // A page that reads is a document, not a failed exposure (white paper clips; a soft
        // page is low-contrast); a graphic was never exposed or focused.
        // A favourite (4 or 5 stars) was chosen as it is: a soft portrait, a dark night scene.
        if (item.rating ?? 0) >= GroupRules.favouriteRating { return out }
        // An edit (IMG_E1234, -edited, _edit) was exposed on purpose: a brightened copy is no
        // failed exposure to trash (its original stays judged as it is).
        let edit = GroupRules.editBase(item.name) != nil
        let oops = !screenshot && !document && !edit && !isGraphic(item, m) ? oopsScore(m) : nil
        if let oops { out.append((.oops, oops)) }
        // A soft page is blurry whatever the re-blur measure says: its ink never gets darker than
        // the paper's greys because the strokes were spread (a paper page is not a soft scene).
        if !screenshot && !isGraphic(item, m) && oops == nil, let b = blurScore(m) ?? (softPage ? m.reblurTile : nil) {
            out.append((.blurry, b))
        }
        return out
    }

    // MARK: Screenshots

    /// Screenshots: a screenshot tool's file name (GNOME "Screenshot from …", KDE Spectacle
    /// "Screenshot_YYYYMMDD_hhmmss", Android/Samsung "Screenshot_…", Flameshot, grim, macOS
    /// "Screen Shot …"), a `Screenshots` folder, or a PNG without camera EXIF that is either at a
    /// known screen size or named like iOS (`IMG_nnnn.PNG`) — in both PNG cases the content must
    /// look rendered (`isRendered`: flat UI areas), so a wallpaper or an exported photo is not one.
    func isScreenshot(_ item: GroupItem, _ m: Metrics) -> Bool {
        let name = item.name.lowercased()
        let prefixes = ["screenshot", "screen shot", "screen_shot", "scrnshot", "bildschirmfoto", "capture d", "flameshot"]
        if prefixes.contains(where: name.hasPrefix) || name.contains("_grim.") || name.hasPrefix("grim") { return true }
        // Each folder name below starts with "screen": a path without it (ASCII, any case; no
        // other character lowercases to these letters) needs no split.
        if GroupRules.containsScreen(item.path) {
            let folders = item.path.lowercased().split(separator: "/").dropLast()
            if folders.contains(where: { $0 == "screenshots" || $0 == "screenshot" || $0 == "screen shots" }) { return true }
        }
        guard item.format == "png", !item.hasCamera, let w = item.width, let h = item.height else { return false }
        let iosName = name.range(of: #"^img_\d{4}\.png$"#, options: .regularExpression) != nil
        let screen = GroupRules.screenSizes.contains(ScreenSize(min(w, h), max(w, h)))
        return (iosName || screen) && isRendered(item, m)
    }

    /// Whether `path` holds "screen" in any case of ASCII letters.
    static func containsScreen(_ path: String) -> Bool {
        let word = Array("screen".utf8)
        let bytes = path.utf8.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 }
        guard bytes.count >= word.count else { return false }
        for i in 0...(bytes.count - word.count) where bytes[i] == word[0] && bytes[i..<(i + word.count)].elementsEqual(word) {
            return true
        }
        return false
    }

    struct ScreenSize: Hashable {
        let short: Int, long: Int
        init(_ s: Int, _ l: Int) { short = s; long = l }
    }

    /// Common phone, tablet and desktop screen sizes in pixels (short × long side).
    static let screenSizes: Set<ScreenSize> = Set(
        [
            (640, 1136), (750, 1334), (828, 1792), (1080, 1920), (1125, 2436), (1170, 2532), (1179, 2556), (1242, 2208),
            (1242, 2688), (1284, 2778), (1290, 2796), (720, 1280), (720, 1600), (1080, 2340), (1080, 2400), (1080, 2160),
            (1440, 2560), (1440, 3040), (1440, 3200), (1080, 2280), (1082, 2402), (1536, 2048), (1620, 2160), (1668, 2388),
            (2048, 2732), (768, 1024), (768, 1366), (800, 1280), (900, 1440), (900, 1600), (1050, 1680), (1200, 1920),
            (1080, 1920), (1440, 2560), (1600, 2560), (2160, 3840), (1800, 2880), (1964, 3024), (2234, 3456), (864, 1536),
            (1600, 2560), (1080, 1080),
        ].map { ScreenSize($0.0, $0.1) })

    /// Rendered content (UI, pages): a large share of exactly flat pixels, which photographs,
    /// with their noise and texture, do not have.
    func isRendered(_ item: GroupItem, _ m: Metrics) -> Bool {
        m.flatFraction >= 0.30
    }

    /// A graphic: rendered content without camera EXIF, never exposed or focused through a lens,
    /// so neither Oops nor Blurry. A camera photo is judged whatever its flatness: clipped
    /// highlights, a black frame and a heavily blurred frame are flat too.
    ///
    /// Without camera EXIF (a messenger's copy, a download) a lossy picture is a graphic only
    /// when its flat areas are neither clipped highlights nor black (a blown-out photo's are) and
    /// its edges stand far above its noise (`hasSharpSubject`: text, lines), which the smooth
    /// ramps of a heavily blurred photo lack: such photos stayed out of Oops and Blurry once a
    /// messenger took their EXIF. A lossless picture without a camera is judged as before.
    func isGraphic(_ item: GroupItem, _ m: Metrics) -> Bool {
        guard isRendered(item, m), !item.hasCamera else { return false }
        if item.isLossless { return true }
        // Flat nearly everywhere (a white poster with a line of text): rendered whatever its levels.
        return (m.flatFraction - m.clippedFraction - m.blackFraction >= 0.30 || m.flatFraction >= 0.9) && hasSharpSubject(m)
    }

    // MARK: Documents and QR codes

    /// At least this many confidently recognized words make a document.
    public var minDocumentWords = 12

    /// The short side a picture needs to be a page that does not read (a soft or unreadable
    /// page): smaller ones are icons and thumbnails.
    public static let minUnreadPageSide = 160

    /// A page the image classifier recognizes (tier 2: a menu, a book cover, a crossword, an
    /// envelope, a web page; `VisionDocuments.pageScore`) is a document even when OCR cannot
    /// read it (defocused or shaken text, a grid of single digits) — if it also looks like a page:
    /// nearly colourless (mean saturation < 0.1), bright paper (p95 ≥ 140) filling most of the
    /// frame, so that its median pixel is paper too (p50 within `maxPaperSpread` of p95), and no
    /// face (the score is only kept for photos without one). Colourful scenes the classifier takes
    /// for comic books or book jackets (graffiti, a portrait, a poster) fail the look, and so do
    /// gray textures and black-and-white scenes it takes for pages: their median sits in the
    /// mid-tones, 130–200 levels below their highlights (pages: 8–42).
    public var minPageScore = 0.35
    public var maxPaperSpread = 80.0

    func isUnreadablePage(_ item: GroupItem, _ m: Metrics) -> Bool {
        guard let score = item.pageScore else { return false }
        return score >= minPageScore && m.saturation < 0.1 && m.p95 >= GroupRules.paperLevel && m.p95 - m.p50 <= maxPaperSpread
    }

    /// Paper is bright: the 95th percentile of a frame that is mostly paper reaches this level
    /// (DEV's pages photographed in dim light: 146 and up; its pages and receipts 194–255).
    static let paperLevel = 140.0

    /// A sheet of paper photographed at any angle (tier 2, `VisionDocuments.Sheet`): the helper
    /// found a colourless quadrilateral (by its brightness or its edges) filling at least
    /// `minSheetShare` of the frame and, rectified by its perspective, at least `minSheetLines`
    /// text lines on it. The whole-frame tests miss such a page: its median pixel is the table
    /// around it (the OCR gate wants paper there), and Tesseract reads keystoned, turned lines
    /// poorly. A real photo of printed text that fills the frame is its own sheet. Fitted on
    /// DEV (seed 1): its photographed receipts and letters show 13–36 lines, its scans 14–27,
    /// its real photos of printed text (defocused, shaken) 15 and 19; its 57 other photos with
    /// a bright or outlined quadrilateral (a light box, a white façade, a chessboard target, a
    /// foggy sky over a pier) 0–5. On 24 pages photographed turned and keystoned over DEV's
    /// scenes (`bench/docs_angle.py`): 22 show 13–35 lines, 2 letters on a bright grey façade or
    /// in fog 3 (their outline merges with it); the 12 scenes alone at most 2.
    /// A sheet that fills the frame (`wholeFrameSheet`: the helper found no outline inside it)
    /// is the frame, so it must look like paper by the frame's own levels (`paperLevel`): the
    /// helper's "bright" is Otsu's split of the frame, and a grey moon's craters (p95 124)
    /// rectified as a whole-frame sheet showed 11–21 "lines" in a held-out corpus. Its ink must
    /// stand below its paper as a soft page's does (`softPageInkDepth`: the darkest 1 % at
    /// least 35 levels under the median): the corpora's whole-frame pages, scans and shaken or
    /// defocused text 38–200 levels, a held-out corpus's pale wood grain, shaken and a stop
    /// under, 27–30 (15–19 "lines" along its grain).
    public var minSheetLines = 10
    public var minSheetShare = 0.1
    public var wholeFrameSheet = 0.9

    func isPhotographedSheet(_ item: GroupItem, _ m: Metrics) -> Bool {
        guard let s = item.sheet, s.lines >= minSheetLines, s.share >= minSheetShare, !classifierSeesNoPage(item, share: s.share) else {
            return false
        }
        return s.share < wholeFrameSheet || m.p95 >= GroupRules.paperLevel && m.p50 - m.p01 >= softPageInkDepth
    }

    /// Whether the image classifier (tier 2) rules out a page that would fill `share` of the
    /// frame: the classifier sees the whole frame, so when a sheet (or a soft page, the frame
    /// itself) is at least `classifiedSheetShare` of it, a page of text is most of what it sees
    /// and reads as one — at least 0.048 of page-like classes over every corpus's documents (a
    /// shaken page of text; photographed letters and receipts 0.08–0.8, scans 0.69–0.87, the
    /// OCR sample page 0.41–0.74) — while the textures the helper outlined or read as a soft
    /// page gave 0.002–0.004 (held-out seeds: a shaken pale wood grain's 13 "lines" over 84–91 %
    /// of the frame, a blurred dragonfly's 17 over 70 %, a soft wallpaper pan as a soft page).
    /// `sheetPageFloor` is a decade under the least document and four times over the textures.
    /// A small sheet is not judged so: a receipt held over a scene (24 % of the frame) leaves
    /// the classifier the scene (0.00). Without models, or with a face (no page score), nothing
    /// is ruled out.
    func classifierSeesNoPage(_ item: GroupItem, share: Double) -> Bool {
        guard share >= classifiedSheetShare, let page = item.pageScore else { return false }
        return page < sheetPageFloor
    }

    public var sheetPageFloor = 0.015
    public var classifiedSheetShare = 2.0 / 3

    /// A page too soft to read: washed out like fog (`isWashedOut`), colourless (mean saturation
    /// < 0.1) and bright (median ≥ 140), with the histogram of ink on paper — the paper half of
    /// the frame packed within a few levels (p50 to p95), the blurred strokes spread far below it
    /// (p01 to p50: at least `softPageInkRatio` times as wide, and at least `softPageInkDepth`
    /// levels deep). Fog or a veil keeps the shape of the scene it covers, squeezed into a fifth
    /// of the range or less: its darks and lights spread alike, and rarely that deep below the
    /// median. Measured: the corpora's defocused and shaken pages 3.5–6.5 wide, 38–52 deep; their
    /// fog shots 0.5–1.8 wide; the corpus's fog formula over all 38 DEV scenes that are no
    /// document, 12 crops each, 1 % both wide and deep enough (a fogged façade of windows).
    /// Such a page is a document (and blurry), not an exposure failure, even when OCR reads
    /// nothing and the models are off.
    ///
    /// Its median is paper below white: a median in the clip (≥ 250) is packed against the
    /// sensor's ceiling, as a blown-out frame's is (a pale pebble texture two stops over, in a
    /// held-out corpus, had a soft page's histogram: p50 252, p95 255, 59 % clipped). DEV's
    /// soft pages sit at 184; a page that clips its paper is read by OCR or not a soft page.
    func isSoftPage(_ m: Metrics) -> Bool {
        GroupRules.isWashedOut(m) && m.saturation < 0.1 && m.p50 >= 140 && m.p50 < 250 && m.p50 - m.p01 >= softPageInkDepth
            && m.p50 - m.p01 >= softPageInkRatio * max(1, m.p95 - m.p50)
    }

    public var softPageInkRatio = 2.5
    public var softPageInkDepth = 35.0

    /// The cheap test in front of OCR: a bright, low-saturation page with text-like edge density
    /// that fills much of the frame — its median pixel is paper (p50 ≥ 150; pages that read sit
    /// at 170–255). Without that last condition a third of ordinary photos (gray, misty, snowy,
    /// overcast) went through Tesseract on a 100 000-photo library for a few dozen documents.
    func isDocumentCandidate(_ item: GroupItem, _ m: Metrics) -> Bool {
        guard item.kind == .photo else { return false }
        return m.saturation < 0.35 && m.edgeDensity >= 0.015 && m.p95 >= 150 && m.p50 >= 150
    }

    /// The cheap test in front of zbar: at least two cross-checked QR finder-pattern centres (a
    /// code shows three; two leave room for one lost to blur, glare or a fold). Camera photos
    /// without a code show 0 or 1, so zbar (and its larger decode) stays off the hot path.
    func isQRCandidate(_ item: GroupItem, _ m: Metrics) -> Bool {
        item.kind == .photo && m.finderPatterns >= 2
    }

    // MARK: Oops and blur

    /// How badly exposed a frame is: 0 fine … 1 unusable. From the histogram's shape, not only its
    /// mean: a dark frame whose highlights still reach mid-tones (a night sky, the moon, a lit
    /// window) is dark on purpose.
    static func exposurePenalty(_ m: Metrics) -> Double {
        max(failedExposurePenalty(m), brightToneScalePenalty(m))
    }

    /// The readings of `exposurePenalty` that no scene shows when exposed right: dark throughout,
    /// most of the frame clipped, or washed out.
    static func failedExposurePenalty(_ m: Metrics) -> Double {
        max(darkOrClippedPenalty(m), veilPenalty(m))
    }

    /// Dark throughout or clipped over most of the frame: a failed exposure whatever the scene.
    static func darkOrClippedPenalty(_ m: Metrics) -> Double {
        var p = 0.0
        // Underexposed: even the brightest 1 % stays dark, and nothing in the frame stands sharp
        // above its noise. An accident's detail drowns in the grain of a sensor pushed in the
        // dark (a pocket shot has none); the moon on a black sky, stars, a lit window at night
        // keep edges of their full contrast over a clean black.
        if m.p99 < 100 && subjectDetail(m) < darkSubjectDetail { p = max(p, min(1, (100 - m.p99) / 60)) }
        // Blown out: most of the frame clipped (an Oops Shot from half of it). A bright sky,
        // a window or a light box clips a third of a frame exposed right for what is under it
        // (the scene keeps its median, `brightToneScalePenalty` does not apply); a frame
        // clipped over half its area has lost its picture whatever it showed.
        if m.clippedFraction > 0.1 { p = max(p, min(1, (m.clippedFraction - 0.1) / (2 * (blownFraction - 0.1)))) }
        return p
    }

    /// Washed out: the whole histogram squeezed into a narrow, bright band (an oops from a
    /// spread of 75 levels down: fog or a veil over a contrasty scene keeps about a fifth of its
    /// 0–255 range), and the detail squeezed with it into the sensor's grain. A pale subject in
    /// focus (wood grain, a white wall, snow, a sheet of paper) has a narrow band of its own but
    /// keeps edges of its full contrast far above the grain. A veil is light scattered towards
    /// the camera, so it is bright (`veilLevel`). In a set the set tells a veil from a pale
    /// scene (`oopsInSet`).
    static func veilPenalty(_ m: Metrics) -> Double {
        guard isWashedOut(m) && m.p50 >= veilLevel && subjectDetail(m) < paleSubjectDetail else { return 0 }
        return min(1, (100 - (m.p99 - m.p01)) / 50)
    }

    /// A washed-out frame whose sharpest tile stands this many times above its noise
    /// (`subjectDetail`) shows a pale subject in focus, not a veil. A veil keeps a fifth of the
    /// scene's contrast or less (the corpora's fog 0.12–0.22), detail included, while the
    /// grain stays: the corpora's camera photos stand at most 41, 46 and 42 times above their
    /// noise (DEV, DEV2, DEV3), so a veiled one at most about 10, and their fog shots stand
    /// 1.8–9.4 (every washed-out DEV file, pages too, at most 9.4: none moves). Debian's
    /// `mate-backgrounds` wood grain (`Wood.jpg`, a 58-level band at 172–230) stands 20
    /// (`bench/wallpapers.py`); the line leaves room on both sides.
    static let paleSubjectDetail = 15.0

    /// Fog, mist or a veil of flare is light scattered between the scene and the lens (the
    /// air's light, as bright as the sky or the light source): it lifts the whole frame towards
    /// that light, so a veiled frame's median is bright. The corpora's fog shots sit at 157–213
    /// (their veils 150–215); a low-contrast scene in the mid-tones — grey gravel blurred, a
    /// wall in shade, a dim room — is no veil (a held-out corpus's blurred gravel, 128, was an
    /// Oops Shot before this line).
    static let veilLevel = 140.0

    /// A dark frame whose sharpest tile stands this many times above its noise (`subjectDetail`)
    /// shows a subject: it is dark on purpose. The line of `GroupRules.subjectDetail`: DEV's
    /// underexposed and pocket frames stand 1.2–1.9 times above their noise.
    static let darkSubjectDetail = 6.0

    /// The reading of `exposurePenalty` a bright scene shares with an overexposed frame: a tenth
    /// clipped, a fifth in the highlights and the median bright too — the whole tone scale pushed
    /// up. A bright sky over a normal scene clips as much but keeps its median; a page clips less
    /// (its paper sits just below white); but a white façade under a bright sky, snow or a beach
    /// reads the same as a frame two stops over, so in a set the set decides (`oopsInSet`).
    ///
    /// …and the highlights piled against the ceiling: at least `highlightsClipped` of the
    /// highlights (> 232) clipped (≥ 250). A bright subject exposed right — snow, a white wall,
    /// a high-key portrait — keeps its gradation under white (an exposure meters for it); a
    /// frame pushed a stop or more drives its highlights into the clip.
    ///
    /// …or the same by the brightest channel of each pixel (`Metrics.channelClippedFraction`):
    /// a sensor clips each channel on its own, so a green garden or a red apple pushed two
    /// stops clips its green or red over half the frame while its luma stays under white (a
    /// held-out corpus's blown wings: 7 % of the luma clipped). A vivid colour exposed right
    /// reaches the top of its channel too, but with its gradation under it; a pushed frame piles
    /// nearly all of it there: at least `channelHighlightsClipped` of the pixels whose brightest
    /// channel is over 232 have it clipped.
    static func brightToneScalePenalty(_ m: Metrics) -> Double {
        guard m.p50 >= 170 else { return 0 }
        let luma = m.clippedFraction >= 0.1 && m.brightFraction >= 0.2 && m.clippedFraction >= highlightsClipped * m.brightFraction
        let channels =
            m.channelClippedFraction >= 0.1 && m.channelBrightFraction >= 0.2
            && m.channelClippedFraction >= channelHighlightsClipped * m.channelBrightFraction
        guard luma || channels else { return 0 }
        return min(1, 0.5 + (m.p50 - 170) / 170)
    }

    /// The share of a frame's channel highlights (a pixel's brightest channel over 232) clipped
    /// (≥ 250) from which its tone scale reads pushed by its channels. Measured on the 80
    /// photographs of DEV's and the held-out corpora's sources, exposed as the corpus generator
    /// and a camera do: pushed 2.3–3.5 stops they pile 0.82–1.0 of them there (the luma's test
    /// missed 14 of 213 such frames with a bright median, this one finds 13 of them); at their
    /// own exposure and 0.4 stops over, none that the luma's test leaves out is found.
    static let channelHighlightsClipped = 0.85

    /// The share of a frame clipped from which it is blown out (`failedExposurePenalty`):
    /// most of it. DEV's blown frames clip 13–40 % with the whole tone scale pushed up (the
    /// bright tone scale finds them); real photos of the tests' fixtures pushed a stop and
    /// more clip 20–68 %.
    static let blownFraction = 0.5

    /// The share of a frame's highlights clipped from which its tone scale reads pushed
    /// (`brightToneScalePenalty`): about what highlights spread evenly over their 23 levels
    /// (233–255) leave in the top 6 (≥ 250), 0.26. A bright subject exposed right thins out
    /// towards white (a snow field peaking 14 levels under it: 0.20); a pushed frame piles up
    /// there. DEV's blown frames (seed 1) clip 52–54 % of theirs, the tests' real photos pushed
    /// by 1–3 stops 33–92 %.
    static let highlightsClipped = 0.25

    /// Fog or a veil: the 1st–99th percentile spread under 100 levels with the darkest 1 % above 60.
    static func isWashedOut(_ m: Metrics) -> Bool {
        m.p99 - m.p01 < 100 && m.p01 > 60
    }

    /// Oops Shots (too dark, blown out, pocket shots, fog): an exposure penalty of at least 0.5.
    func oopsScore(_ m: Metrics) -> Double? {
        let p = GroupRules.exposurePenalty(m)
        return p >= 0.5 ? p : nil
    }

    /// Oops within a Similar Shots set, for a member whose own groups hold Oops (`oopsScore`,
    /// given as `score`). The frames of a set share one scene, so the set tells a bright or a
    /// pale scene from a failed exposure:
    /// - dark throughout or mostly clipped (`darkOrClippedPenalty`) stays an Oops Shot whatever
    ///   its set;
    /// - washed out (`veilPenalty`) stays one when it keeps less than `setVeilContrast` of the
    ///   contrast (p01–p99) of its most contrasty mate: a veil takes four fifths of a scene's,
    ///   while the frames of a pale, soft scene share theirs (a held-out corpus's pale wood
    ///   grain, shaken and a stop under, 40 levels wide beside a sharp frame's 62: four frames
    ///   were fog);
    /// - bright only by its tone scale (`brightToneScalePenalty`) stays one when it is at least
    ///   `setOopsStops` brighter than the set's right exposure — its brightest mate that is no
    ///   Oops Shot on its own (another pushed frame is no reference), else its brightest. Not
    ///   the mates' median: a burst with frames a stop under leaves its one right exposure
    ///   alone at the top (a held-out corpus's bird before a bright, soft background, its mates
    ///   0.6–1.1 stops under, was its set's Oops Shot and its darkest frame the keeper).
    /// A member whose mates have no metrics stays one.
    func oopsInSet(_ item: GroupItem, score: Double, mates: [GroupItem]) -> Double? {
        guard let m = item.metrics else { return score }
        let measured = mates.compactMap(\.metrics)
        guard !measured.isEmpty else { return score }
        return exposurePenalty(m, mates: measured) >= 0.5 ? score : nil
    }

    /// Whether `item` is an Oops Shot in a set of `pictures` (itself among them) as the grouper
    /// stores it: its own Oops (an edit, a screenshot or a graphic never is one) that its set
    /// agrees with.
    func isOopsInSet(_ item: GroupItem, mates pictures: [GroupItem]) -> Bool {
        guard let m = item.metrics, !GroupRules.looksEdited(item.path), !isScreenshot(item, m), !isGraphic(item, m),
            let score = oopsScore(m)
        else { return false }
        return oopsInSet(item, score: score, mates: pictures.filter { $0.id != item.id }) != nil
    }

    /// The exposure penalty (`GroupRules.exposurePenalty`) of a frame that its set agrees with
    /// (`oopsInSet`): dark or clipped whatever the set, washed out when its mates show the
    /// scene's contrast, bright by its tone scale when it is `setOopsStops` over the set's right
    /// exposure (`rightExposure` of its mates). Without mates, its own.
    func exposurePenalty(_ m: Metrics, mates: [Metrics]) -> Double {
        guard let widest = mates.map(GroupRules.contrast).max(), let reference = GroupRules.rightExposure(mates) else {
            return GroupRules.exposurePenalty(m)
        }
        var p = GroupRules.darkOrClippedPenalty(m)
        if GroupRules.contrast(m) < setVeilContrast * widest { p = max(p, GroupRules.veilPenalty(m)) }
        if GroupRules.stops(m.p50, over: reference) >= setOopsStops { p = max(p, GroupRules.brightToneScalePenalty(m)) }
        return p
    }

    /// The median level of a set's right exposure among `frames`: its brightest frame that is no
    /// Oops Shot on its own (a pushed frame is no reference), else its brightest.
    static func rightExposure(_ frames: [Metrics]) -> Double? {
        let exposedRight = frames.filter { exposurePenalty($0) < 0.5 }
        return (exposedRight.isEmpty ? frames : exposedRight).map(\.p50).max()
    }

    /// A frame's contrast: the levels between its darkest and its brightest 1 %.
    static func contrast(_ m: Metrics) -> Double { m.p99 - m.p01 }

    /// The share of its set's widest contrast a washed-out member keeps and is still fog: half.
    /// The corpora's fog keeps 0.12–0.22 of its scene's; frames of one scene exposed and focused
    /// differently keep more than half of each other's (the held-out wood: 0.65).
    public var setVeilContrast = 0.5

    /// How many stops of exposure lie between two levels of one scene (sRGB-like gamma 2.2: a
    /// stop moves a mid-tone by a factor of 1.37).
    static func stops(_ level: Double, over reference: Double) -> Double {
        2.2 * log2(max(level, 1) / max(reference, 1))
    }

    /// A frame pushed two stops and more over its set's right exposure is blown (the corpora's
    /// blown frames are 2.3–3.5 stops over their scene). A set's frames exposed right differ by
    /// more than one would think: a burst's frames a stop under leave its right exposure alone
    /// at the top, and over DEV, DEV2, DEV3 and two held-out corpora every set member's median
    /// stood at most 1.42 stops (by `stops`) over its brightest mate. A frame pushed further
    /// than that clips most of its frame and stays an Oops Shot by `darkOrClippedPenalty`
    /// whatever its set.
    public var setOopsStops = 1.5

    /// Blurry, for a photo outside any Similar Shots set: judged on the sharpest region (a sharp
    /// subject on a soft background is not blurry) with the re-blur measure, which is normalized
    /// by the image's own contrast. A global threshold cannot tell a soft scene from a blurred
    /// one, so members of a set are judged against their set instead (`relativelyBlurry`; the
    /// grouper drops this score for them).
    ///
    /// The re-blur of a 4×4 tile reads a small sharp subject (a glass, drops in macro, an eye)
    /// on a soft background as soft, so a photo whose sharpest 16×16 tile holds detail well above
    /// its noise (`hasSharpSubject`) is not blurry either.
    func blurScore(_ m: Metrics) -> Double? {
        m.reblurTile >= 0.45 && !hasSharpSubject(m) ? m.reblurTile : nil
    }

    /// Whether the sharpest 16×16 tile's Laplacian stands `subjectDetail` times (in standard
    /// deviations) above what the frame's noise gives (`Metrics.noise`: white noise of σ has a
    /// Laplacian variance of 20σ²; σ is taken as at least half a level, a JPEG's rounding). A
    /// blurred frame keeps only noise and soft ramps in every tile; a focused subject keeps
    /// edges of its full contrast. False for metrics measured before analyzer version 6.
    func hasSharpSubject(_ m: Metrics) -> Bool { GroupRules.subjectDetail(m) >= subjectDetail }

    /// How many times the sharpest 16×16 tile's Laplacian (standard deviation) stands above the
    /// Laplacian the frame's noise alone would give; 0 before analyzer version 6.
    static func subjectDetail(_ m: Metrics) -> Double {
        guard m.lapFineMax > 0 else { return 0 }
        let noise = max(m.noise, 0.5)
        return (m.lapFineMax / (20 * noise * noise)).squareRoot()
    }
    /// Fitted on DEV (seed 1): of the photos judged alone whose sharpest 4×4 tile reads soft,
    /// a real motion-blurred photo stands 3.8 times above its noise, a sharp subject on a soft
    /// background 7.7–9.9 times; about the middle.
    public var subjectDetail = 6.0

    /// The detail of a frame along each of four directions (`Metrics.dir0` … `dir135`) over its
    /// contrast: the mean square second difference less the noise's share (white noise of σ adds
    /// 6σ² in each direction; at most three quarters are taken off, as the estimate runs high on
    /// texture), over the luma variance. Nil before analyzer version 6.
    static func directionalDetail(_ m: Metrics) -> [Double]? {
        let raw = [m.dir0, m.dir45, m.dir90, m.dir135]
        guard raw.contains(where: { $0 > 0 }) else { return nil }
        let noise = 6 * m.noise * m.noise
        let contrast = pow(max(m.stdLuma, 1), 2)
        return raw.map { max($0 - noise, $0 / 4, 1e-6) / contrast }
    }

    /// Blurry within a Similar Shots set: a frame whose sharpest tile has at least this many
    /// stops (log2) less contrast-normalized Laplacian variance (`lapTileMax / stdLuma²`) than the
    /// set's sharpest frame is blurry, whatever the content — the set itself is the reference, so
    /// no global threshold is needed. The Laplacian's variance grows with the square of the
    /// contrast, so an underexposed frame of a burst is not taken for a blurred one.
    public var relativeBlurStops = 1.0
    /// …or at least this many stops less detail along one direction (`directionalDetail`) than
    /// the set's best frame in that direction. Fitted on DEV (seed 1): sharp frames lose up to
    /// 1.03 (one underexposed by 1.3 EV, its grain not all taken off), frames with motion blur
    /// of 0.6 % of the width and more from 1.66; the middle.
    public var relativeMotionStops = 1.35

    /// Members of one set that are blurry relative to the set, with how many stops they lose.
    /// A favourite (4 or 5 stars) never is: the user chose it as it is (it was a card of the
    /// Blurry deck, though the keeper of its set).
    ///
    /// A frame loses its stops in the sharpest tile (defocus, shake), or along one direction
    /// (`directionalDetail`): motion blur of 0.5–1 % of the width takes the fine detail along
    /// its path and leaves the detail across it, so the isotropic Laplacian loses less than a
    /// stop while the detail along the motion loses two to six. The direction's loss is counted
    /// against the set's best frame in that same direction, so a scene of lines (a wall, water)
    /// is its own reference; the noise is taken off first, so an underexposed frame's grain is
    /// not taken for detail.
    ///
    /// Only a photo that can be judged is the set's reference: not an Oops Shot of the set
    /// (`isOopsInSet`), a screenshot or a graphic. A pocket shot's detail over its contrast is
    /// its noise over a spread of a few levels — 25 times a sharp sunset's in a held-out corpus,
    /// whose sunset then read blurry beside it and lost the keeper to the pocket shot. A bright
    /// scene's right exposure that is an Oops Shot only on its own is one: a held-out burst's
    /// shaken frame, a stop under, was judged against nothing sharper than itself.
    func relativelyBlurry(_ members: [GroupItem]) -> [(Int64, Double)] {
        let all = members
        let members = members.filter { item in
            guard let m = item.metrics else { return false }
            return !isScreenshot(item, m) && !isGraphic(item, m) && !isOopsInSet(item, mates: all)
        }
        let tiles = members.map { item -> Double in
            let m = item.metrics!
            return max(m.lapTileMax, 1e-3) / pow(max(m.stdLuma, 1), 2)
        }
        guard let best = tiles.max() else { return [] }
        // The directions count only when every member measured them.
        let details = members.map { $0.metrics.flatMap(GroupRules.directionalDetail) }
        let measured = details.allSatisfy { $0 != nil }
        let bestDetail = (0..<4).map { k in details.map { $0?[k] ?? 0 }.max() ?? 0 }
        var out: [(Int64, Double)] = []
        for ((item, t), detail) in zip(zip(members, tiles), details) {
            guard (item.rating ?? 0) < GroupRules.favouriteRating else { continue }
            var stops = log2(best / t)
            if stops < relativeBlurStops, measured, let detail {
                let along = (0..<4).map { log2(bestDetail[$0] / detail[$0]) }.max() ?? 0
                if along >= relativeMotionStops { stops = along }
            }
            if stops >= relativeBlurStops { out.append((item.id, stops)) }
        }
        return out
    }

    // MARK: Videos

    /// Downloaded Videos: under a Downloads / Telegram / WhatsApp / Messenger / Signal folder, or
    /// named by such an app (`VID-YYYYMMDD-WAnnnn`, Telegram `video_YYYY-MM-DD_…`), or written by a
    /// downloader (`yt-dlp`, `youtube-dl` in the encoder tag), or without camera metadata and
    /// without a camera-style name. Never by container brand alone (Android cameras write mp4).
    func isDownloadedVideo(_ item: GroupItem) -> Bool {
        let folders = item.path.lowercased().split(separator: "/").dropLast()
        let appFolders = ["download", "downloads", "telegram", "telegram video", "whatsapp", "whatsapp video", "messenger", "signal"]
        if folders.contains(where: { appFolders.contains(String($0)) }) { return true }
        let name = item.name.lowercased()
        if name.range(of: #"^vid-\d{8}-wa\d+"#, options: .regularExpression) != nil || name.hasPrefix("video_20") { return true }
        if let s = item.software?.lowercased(), s.contains("yt-dlp") || s.contains("youtube-dl") { return true }
        let cameraName =
            name.range(of: #"^(vid|pxl|img|mvimg|mov)[_-]?\d"#, options: .regularExpression) != nil
            || name.range(of: #"^\d{8}_\d{6}"#, options: .regularExpression) != nil
        return !item.hasCamera && !cameraName
    }

    // MARK: Originals and edits

    /// Whether `a` is more likely the original than `b` among copies of one picture — the earliest
    /// and least processed file: camera EXIF, then a capture time of its own (`ownCaptureTime`),
    /// the earlier one when both have one, then more pixels, then what the user added to one copy
    /// (an edit or a darktable / RawTherapee sidecar, `looksEdited`; the RAW it was shot with,
    /// `GroupItem.rawPair`), then not in a backup / download / messenger / export folder or named
    /// as a copy, then, of one format, the file written a day or more earlier (a copy is written
    /// after its original: a 2021 re-encode at q92 of a 2019 camera file is larger, and was "the
    /// original", issue 43), then the larger file (the bytes of one format at one size stand for
    /// its quality: a re-encode at a lower quality, a cloud's "storage saver" copy, keeps EXIF
    /// and size but loses detail), then the shallower path, the earlier modification time, the
    /// shorter path.
    /// `edited` is `looksEdited` of a file (two looks for sidecars on disk: a caller comparing
    /// many pairs passes it memoized).
    func originalOrder(_ a: GroupItem, _ b: GroupItem, edited: (GroupItem) -> Bool = { GroupRules.looksEdited($0.path) }) -> Bool {
        if a.hasCamera != b.hasCamera { return a.hasCamera }
        let (oa, ob) = (GroupRules.ownCaptureTime(a), GroupRules.ownCaptureTime(b))
        if (oa != nil) != (ob != nil) { return oa != nil }
        if let oa, let ob, oa != ob { return oa < ob }
        let pa = (a.width ?? 0) * (a.height ?? 0), pb = (b.width ?? 0) * (b.height ?? 0)
        if pa != pb && !GroupRules.sameSizeButATrim(a, b) { return pa > pb }
        let ea = edited(a), eb = edited(b)
        if ea != eb { return ea }
        if (a.rawPair == .owner) != (b.rawPair == .owner) { return a.rawPair == .owner }
        let ca = GroupRules.copyHints(a.path), cb = GroupRules.copyHints(b.path)
        if ca != cb { return ca < cb }
        if a.format == b.format && abs(a.mtime - b.mtime) >= GroupRules.copiedLater { return a.mtime < b.mtime }
        if a.format == b.format && a.bytes != b.bytes { return a.bytes > b.bytes }
        let da = a.path.split(separator: "/").count, dbb = b.path.split(separator: "/").count
        if da != dbb { return da < dbb }
        if a.mtime != b.mtime { return a.mtime < b.mtime }
        return (a.path.count, a.id) < (b.path.count, b.id)
    }

    /// Whether two pictures have one size up to what a lossless JPEG transform trims: a rotation
    /// or flip (`jpegtran -trim`, `exiftran`, a metadata stripper turning a photo upright) drops the
    /// partial block column or row at an edge, up to 15 px of a side (a 16 px MCU). The camera's
    /// file, turned upright so, is then 2 px narrower than a PNG exported from it before: no copy
    /// made smaller (a resized copy loses hundreds of pixels a side), and the folder, not the
    /// size, says which file is the original (held-out seed 5 without EXIF: the PNG in
    /// `Pictures/Export` was the keeper and the camera file offered for the Trash).
    static func sameSizeButATrim(_ a: GroupItem, _ b: GroupItem) -> Bool {
        guard let wa = a.width, let ha = a.height, let wb = b.width, let hb = b.height else { return false }
        let (dw, dh) = (wa - wb, ha - hb)
        guard abs(dw) < 16, abs(dh) < 16 else { return false }
        // One picture is the other's trim: no side of it longer.
        return (dw <= 0 && dh <= 0) || (dw >= 0 && dh >= 0)
    }

    /// Whether `copy` can be a copy of `original`, as far as what each file holds tells (the
    /// pictures already look the same; the same bytes need no such check). A copy loses
    /// things, it never gains them:
    /// - **a capture record**: a file that says when it was taken (`ownCaptureTime`) or which
    ///   camera took it is no copy of a file that says neither — a camera wrote that record,
    ///   not a messenger or an export;
    /// - **pixels**: a lossless copy (PNG) is an export or a recompression, with the original's
    ///   size and pixels (`samePixels`, asked only here). Messengers, clouds and backups copy
    ///   bytes or write JPEGs; a PNG whose pixels differ from a picture it looks like was made
    ///   on purpose — resized for a page or a wallpaper, or the lossless source a JPEG was
    ///   saved from (then only the JPEG can be the copy).
    /// - **an edit**: a file that looks edited (`looksEdited`) is no copy of one that does not —
    ///   a retouch can stay under the near-copy thresholds, and the edit is what the user made.
    /// A pair with no possible direction is no pair of copies: a JPEG with a camera-style name
    /// saved from a PNG at the same size, next to that PNG, is two files the user made.
    func mayBeCopy(
        _ copy: GroupItem, of original: GroupItem, samePixels: () -> Bool, edited: (GroupItem) -> Bool = { GroupRules.looksEdited($0.path) }
    ) -> Bool {
        if GroupRules.isEditPair(copy, original) || GroupRules.isRawAgainstRendered(copy, original) { return false }
        if copy.hasCamera && !original.hasCamera { return false }
        if GroupRules.ownCaptureTime(copy) != nil && GroupRules.ownCaptureTime(original) == nil { return false }
        if edited(copy) && !edited(original) { return false }
        if copy.isLossless {
            return copy.width == original.width && copy.height == original.height && samePixels()
        }
        return true
    }

    /// How much later (ns) a file of one format and size was written than another for
    /// `originalOrder` to call it the copy: a day (copies made together, by `cp` or a sync,
    /// are told apart by their size and folder instead).
    static let copiedLater: Int64 = 86_400 * 1_000_000_000

    /// How many signs of a copy a path has.
    static func copyHints(_ path: String) -> Int {
        let p = path.lowercased()
        let hints = [
            "backup", "download", "whatsapp", "telegram", "messenger", "signal", "export", "google photos", " copy", "(1)", "(2)", "copy of", "-wa0",
        ]
        return hints.filter { p.contains($0) }.count
    }

    /// The rating from which a photo is a favourite (the Favourites deck, the keeper; never in
    /// Blurry or Oops, never staged by "trash the rest").
    public static let favouriteRating = 4

    /// Whether a path's name says it is an edit (`looksEdited` without its sidecars).
    static func namedAsEdit(_ path: String) -> Bool {
        let n = path.lowercased()
        if n.contains("-edited") || n.contains("_edit") || n.contains("-bearbeitet") { return true }
        return editBase(String(n.split(separator: "/").last ?? "")) != nil
    }

    /// Edited versions: `-edited`, `_edit`, `-bearbeitet` names, iOS's `IMG_E1234` (the edit
    /// Photos exports beside `IMG_1234`), or a darktable (`.xmp`) or RawTherapee (`.pp3`) sidecar
    /// next to the file.
    static func looksEdited(_ path: String) -> Bool {
        let n = path.lowercased()
        if n.contains("-edited") || n.contains("_edit") || n.contains("-bearbeitet") { return true }
        if editBase(String(n.split(separator: "/").last ?? "")) != nil { return true }
        return FileSystem.exists(path + ".pp3") || FileSystem.exists(path + ".xmp")
    }

    /// The name stem (lowercased) of the original a file's name says it is an edit of:
    /// `img_1234` for iOS's `IMG_E1234.JPG`, `pxl_1` for Google Photos' `PXL_1-edited.jpg`
    /// (and its translations in a Takeout: `-bearbeitet`, `-modifié`, `-editado`, `-modificato`),
    /// `dsc_1` for `DSC_1_edit.jpg`; nil for any other name.
    static func editBase(_ name: String) -> String? {
        let lower = name.lowercased()
        let stem = lower.lastIndex(of: ".").map { String(lower[..<$0]) } ?? lower
        if stem.hasPrefix("img_e"), stem.count > 5, stem.dropFirst(5).allSatisfy({ $0.isASCII && $0.isNumber }) {
            return "img_" + stem.dropFirst(5)
        }
        for suffix in ["-edited", "_edited", "-bearbeitet", "-modifié", "-editado", "-modificato", "_edit"] where stem.hasSuffix(suffix) {
            let base = String(stem.dropLast(suffix.count))
            return base.isEmpty ? nil : base
        }
        return nil
    }

    /// Whether one of two photos is, by its name, the edit of the other (`editBase`): the user
    /// made it on purpose and Photos keeps the original for "Revert", so the two are never
    /// offered against each other as retakes or copies.
    static func isEditPair(_ a: GroupItem, _ b: GroupItem) -> Bool { isEditPair(EditName(a), EditName(b)) }

    /// What `isEditPair` reads of a name, read once: its stem (lowercased) and the original's
    /// stem when the name says it is an edit.
    struct EditName {
        var stem: String
        var base: String?
        init(_ i: GroupItem) {
            let n = i.name.lowercased()
            stem = n.lastIndex(of: ".").map { String(n[..<$0]) } ?? n
            base = GroupRules.editBase(i.name)
        }
    }

    static func isEditPair(_ a: EditName, _ b: EditName) -> Bool {
        (a.base != nil && a.base == b.stem) || (b.base != nil && b.base == a.stem)
    }

    /// Whether exactly one of two photos is a camera RAW: its embedded preview is the camera's
    /// JPEG of the same shot, but the RAW holds the sensor's data, so it is never that JPEG's
    /// copy or retake (a pair the names did not tie, `Library.pairSidecars`, stays two items).
    static func isRawAgainstRendered(_ a: GroupItem, _ b: GroupItem) -> Bool {
        Library.rawFormats.contains(a.format ?? "") != Library.rawFormats.contains(b.format ?? "")
    }
}
