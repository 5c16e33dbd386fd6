import Foundation

/// Why an item has the status it has, as a stable code: the words of `files.reason_code`, which
/// `snapsort report --json` and `info` print (a contract: scripts match them).
///
/// A struct over its words rather than an enum: a library written by a newer SnapSort may hold a
/// code this one does not know, and reading it must neither fail nor drop it.
public struct ReasonCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The data is cut short or corrupt, though some of it was read.
    public static let truncated = ReasonCode(rawValue: "truncated")
    /// The file has no bytes.
    public static let empty = ReasonCode(rawValue: "empty")
    /// An HTML page (a failed download) under a picture's name.
    public static let notMedia = ReasonCode(rawValue: "not_media")
    /// The content is no image or video format SnapSort knows.
    public static let unknownFormat = ReasonCode(rawValue: "unknown_format")
    /// The decoder refused the data.
    public static let decodeError = ReasonCode(rawValue: "decode_error")
    /// A header no real picture has (a damaged header or a decompression bomb).
    public static let tooLarge = ReasonCode(rawValue: "too_large")
    /// The file's permissions do not let SnapSort read it.
    public static let permission = ReasonCode(rawValue: "permission")
    /// Reading it failed.
    public static let ioError = ReasonCode(rawValue: "io_error")
    /// A format SnapSort does not analyze (AVI, animated WebP).
    public static let unsupportedFormat = ReasonCode(rawValue: "unsupported_format")
    /// A real picture larger than SnapSort analyzes.
    public static let tooLargeToAnalyze = ReasonCode(rawValue: "too_large_to_analyze")
    /// A RAW file without an embedded preview SnapSort can read.
    public static let noPreview = ReasonCode(rawValue: "no_preview")
    /// A warning on an analyzed photo: its EXIF block could not be read.
    public static let badExif = ReasonCode(rawValue: "bad_exif")
    /// A warning on an analyzed file: its name says another format than its content.
    public static let wrongExtension = ReasonCode(rawValue: "wrong_extension")
    /// A warning on an analyzed video: FFmpeg cannot decode its video codec (listed with its
    /// duration, compared with no other video).
    public static let codecUnsupported = ReasonCode(rawValue: "codec_unsupported")
    /// A warning on an analyzed video: none of its frames decodes.
    public static let noFrames = ReasonCode(rawValue: "no_frames")

    /// The codes this version writes.
    public static let known: [ReasonCode] = [
        .truncated, .empty, .notMedia, .unknownFormat, .decodeError, .tooLarge, .permission, .ioError,
        .unsupportedFormat, .tooLargeToAnalyze, .noPreview, .badExif, .wrongExtension, .codecUnsupported, .noFrames,
    ]

    /// The status an item with this reason has: a failure's, or `ok` for a warning (`bad_exif`,
    /// `wrong_extension`) and for a code this version does not know. The analysis sets an item's
    /// status from its reason (`AnalysisContext.fail`), and a tombstone that comes back is given
    /// it again from its stored code (`Library.revivedStatus`): one rule for both.
    public var status: ItemStatus {
        switch self {
        case .truncated: .damaged
        case .empty, .notMedia, .unknownFormat, .decodeError, .tooLarge, .permission, .ioError: .unreadable
        case .unsupportedFormat, .tooLargeToAnalyze, .noPreview: .unsupported
        default: .ok
        }
    }
}
