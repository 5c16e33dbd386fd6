import Foundation
import SnapSortSystem

/// When a photo was taken, and how we know.
///
/// Fallback order (documented contract): EXIF DateTimeOriginal (with OffsetTimeOriginal when
/// present) → the container's creation time (videos) → a date in the file name
/// (`IMG_20240501_123456`, `Screenshot From 2024-05-01 12-34-56`, `IMG-20240501-WA0001`, …)
/// → the file's mtime.
public struct CaptureTime: Sendable, Equatable {
    /// `metadata`: a metadata file beside the photo (a Google Takeout's JSON, `photoTakenTime`).
    public enum Source: String, Sendable { case exif, container, metadata, filename, mtime }

    /// RFC 3339: with an offset when one is known, else local wall time without one.
    public var text: String
    /// Seconds since 1970 (a time without offset is read in the local time zone).
    public var timestamp: Double
    public var source: Source
    /// The UTC offset as "+hh:mm" when known.
    public var offset: String?

    /// Parses EXIF "YYYY:MM:DD HH:MM:SS" (sub-seconds and "+hh:mm" optional).
    public static func fromExif(_ dateTime: String, subSec: String? = nil, offset: String? = nil) -> CaptureTime? {
        let digits = dateTime.unicodeScalars.filter { CharacterSet.decimalDigits.contains($0) }.map { Int($0.value - 48) }
        guard digits.count >= 14 else { return nil }
        func num(_ a: Int, _ n: Int) -> Int { digits[a..<a + n].reduce(0) { $0 * 10 + $1 } }
        let c = Components(year: num(0, 4), month: num(4, 2), day: num(6, 2), hour: num(8, 2), minute: num(10, 2), second: num(12, 2))
        guard c.isValid else { return nil }
        // 1970-01-01: a clock that was never set counts from the epoch (a scan of an old photo
        // dated by hand keeps its year).
        if c.year == 1970 && c.month == 1 && c.day == 1 { return nil }
        var frac = 0.0
        if let s = subSec, let v = Int(s.prefix(3).filter(\.isNumber)), !s.isEmpty {
            frac = Double(v) / pow(10, Double(min(3, s.prefix(3).filter(\.isNumber).count)))
        }
        return make(c, offset: offset.flatMap(parseOffset), fraction: frac, source: .exif)
    }

    /// A UTC instant from a container (seconds since 1970), shown in local time with its offset.
    public static func fromContainer(unixSeconds: Double) -> CaptureTime? {
        guard unixSeconds > 0 else { return nil }
        return fromInstant(unixSeconds, source: .container)
    }

    /// An instant (mtime) shown in local time with its offset.
    public static func fromInstant(_ seconds: Double, source: Source) -> CaptureTime {
        let local = CalendarTime.local(Int64(seconds.rounded(.down)))
        let off = local.offsetSeconds
        let c = Components(
            year: local.year, month: local.month, day: local.day, hour: local.hour, minute: local.minute, second: local.second)
        return CaptureTime(text: c.rfc3339 + formatOffset(off), timestamp: seconds, source: source, offset: formatOffset(off))
    }

    /// A date (and time) in a file name, as phones and desktops write them.
    public static func fromFileName(_ name: String) -> CaptureTime? {
        let s = Array(name.utf8)
        var i = 0
        while i + 8 <= s.count {
            // A year 1990...2099 starting at a non-digit boundary.
            if i == 0 || !isDigit(s[i - 1]), let c = parseAt(s, i) { return make(c, offset: nil, fraction: 0, source: .filename) }
            i += 1
        }
        return nil
    }

    private static func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }

    private static func parseAt(_ s: [UInt8], _ start: Int) -> Components? {
        var i = start
        func digits(_ n: Int) -> Int? {
            guard i + n <= s.count else { return nil }
            var v = 0
            for k in 0..<n { guard isDigit(s[i + k]) else { return nil }; v = v * 10 + Int(s[i + k] - 48) }
            i += n
            return v
        }
        func sep(_ allowed: String) { if i < s.count, allowed.utf8.contains(s[i]) { i += 1 } }
        guard let y = digits(4), (1990...2099).contains(y) else { return nil }
        sep("-_.")
        guard let mo = digits(2) else { return nil }
        sep("-_.")
        guard let d = digits(2) else { return nil }
        var c = Components(year: y, month: mo, day: d, hour: 12, minute: 0, second: 0)
        guard c.isValid else { return nil }
        // Optional time.
        let save = i
        if i < s.count, " _T-".utf8.contains(s[i]) { i += 1 }
        // A word or two between the date and the time, as macOS writes them in each language:
        // "at", "um", "à", "a las", "om", "alle", "às", "kl." — letters (any script), dots and
        // spaces, ending in a space before the hour's two digits.
        var j = i
        while j < s.count, j - i < 8,
            s[j] >= 0x80 || s[j] == UInt8(ascii: " ") || s[j] == UInt8(ascii: ".")
                || (s[j] | 0x20 >= UInt8(ascii: "a") && s[j] | 0x20 <= UInt8(ascii: "z"))
        {
            j += 1
        }
        if j > i, s[j - 1] == UInt8(ascii: " "), j + 1 < s.count, isDigit(s[j]), isDigit(s[j + 1]) { i = j }
        if let h = digits(2) {
            sep("-_.:h")
            if let m = digits(2) {
                sep("-_.:m")
                let sec = digits(2) ?? 0
                let t = Components(year: y, month: mo, day: d, hour: h, minute: m, second: sec)
                if t.isValid { c = t } else { i = save }
            }
        }
        if i < s.count, isDigit(s[i]), c.hour == 12 && c.minute == 0 && i == save { return nil }
        return c
    }

    struct Components {
        var year, month, day, hour, minute, second: Int
        var isValid: Bool {
            (1900...2200).contains(year) && (1...12).contains(month) && (1...31).contains(day)
                && (0...23).contains(hour) && (0...59).contains(minute) && (0...60).contains(second)
        }
        var rfc3339: String {
            String(format: "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day, hour, minute, second)
        }
    }

    private static func make(_ c: Components, offset: Int?, fraction: Double, source: Source) -> CaptureTime {
        let wall = CalendarTime(year: c.year, month: c.month, day: c.day, hour: c.hour, minute: c.minute, second: c.second)
        if let off = offset {
            let utc = Double(wall.secondsReadAsUTC) - Double(off) + fraction
            return CaptureTime(text: c.rfc3339 + formatOffset(off), timestamp: utc, source: source, offset: formatOffset(off))
        }
        let local = Double(wall.secondsReadAsLocal) + fraction
        return CaptureTime(text: c.rfc3339, timestamp: local, source: source, offset: nil)
    }

    /// "+02:00" / "-05:30" / "Z" → seconds east of UTC.
    static func parseOffset(_ s: String) -> Int? {
        let t = s.trimmingCharacters(in: .whitespaces)
        if t == "Z" { return 0 }
        let u = Array(t.utf8)
        guard u.count >= 5, u[0] == UInt8(ascii: "+") || u[0] == UInt8(ascii: "-") else { return nil }
        let digits = u.dropFirst().filter(isDigit)
        guard digits.count == 4 else { return nil }
        let h = Int(digits[digits.startIndex] - 48) * 10 + Int(digits[digits.startIndex + 1] - 48)
        let m = Int(digits[digits.startIndex + 2] - 48) * 10 + Int(digits[digits.startIndex + 3] - 48)
        guard h <= 14, m < 60 else { return nil }
        return (u[0] == UInt8(ascii: "-") ? -1 : 1) * (h * 3600 + m * 60)
    }

    static func formatOffset(_ off: Int) -> String {
        let sign = off < 0 ? "-" : "+"
        let a = abs(off)
        return String(format: "%@%02d:%02d", sign, a / 3600, (a % 3600) / 60)
    }
}
