import CExif

/// EXIF fields read through libexif.
public struct ExifFields: Sendable, Equatable {
    public var dateTimeOriginal: String?
    public var subSecOriginal: String?
    public var offsetTimeOriginal: String?
    public var dateTime: String?
    public var make: String?
    public var model: String?
    public var lens: String?
    public var software: String?
    public var orientation: Int?
    public var hasGPS: Bool
    public var pixelWidth: Int?
    public var pixelHeight: Int?
    public var rating: Int?
    public var entryCount: Int
    public var thumbnail: [UInt8]?

    public init() {
        hasGPS = false
        entryCount = 0
    }
}

/// libexif behind a typed wrapper.
public enum Exif {
    /// Parses an APP1 payload ("Exif\0\0" + TIFF) or a bare TIFF block. nil when no entry was found.
    public static func parse(_ data: ArraySlice<UInt8>) -> ExifFields? {
        var raw = ss_exif()
        let rc = data.withUnsafeBufferPointer { ss_exif_parse($0.baseAddress, $0.count, &raw) }
        defer { ss_exif_release(&raw) }
        guard rc == 0 else { return nil }
        func str<T>(_ tuple: inout T) -> String? {
            let s = withUnsafeBytes(of: &tuple) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
            let t = s.trimmingSpaces
            return t.isEmpty ? nil : t
        }
        var f = ExifFields()
        f.dateTimeOriginal = str(&raw.datetime_original)
        f.subSecOriginal = str(&raw.subsec_original)
        f.offsetTimeOriginal = str(&raw.offset_time_original)
        f.dateTime = str(&raw.datetime)
        f.make = str(&raw.make)
        f.model = str(&raw.model)
        f.lens = str(&raw.lens)
        f.software = str(&raw.software)
        f.orientation = raw.orientation > 0 ? Int(raw.orientation) : nil
        f.hasGPS = raw.has_gps != 0
        f.pixelWidth = raw.pixel_x > 0 ? Int(raw.pixel_x) : nil
        f.pixelHeight = raw.pixel_y > 0 ? Int(raw.pixel_y) : nil
        f.rating = raw.rating >= 0 ? Int(raw.rating) : nil
        f.entryCount = Int(raw.entries)
        if let t = raw.thumbnail, raw.thumbnail_len > 0 {
            f.thumbnail = Array(UnsafeBufferPointer(start: t, count: raw.thumbnail_len))
        }
        return f
    }

    /// Builds a TIFF EXIF block (for tests and the demo library's own encoders).
    public static func build(
        dateTimeOriginal: String? = nil, offsetTimeOriginal: String? = nil, make: String? = nil,
        model: String? = nil, software: String? = nil, orientation: Int = 0
    ) -> [UInt8] {
        var len = 0
        guard let p = ss_exif_build(dateTimeOriginal, offsetTimeOriginal, make, model, software, Int32(orientation), &len) else { return [] }
        defer { ss_exif_free(p) }
        return Array(UnsafeBufferPointer(start: p, count: len))
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\0" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\0" { s = s.dropLast() }
        return String(s)
    }
}
