import Glibc

/// A wall-clock date and time in plain numbers (the full year, month 1–12), with the offset
/// from UTC it is shown in: what `struct tm` holds, without its 1900 and 0-based month.
/// See: man 3 localtime_r, man 3 timegm.
public struct CalendarTime: Sendable, Equatable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
    /// Seconds east of UTC (`tm_gmtoff`); 0 in UTC.
    public var offsetSeconds: Int

    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, offsetSeconds: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.offsetSeconds = offsetSeconds
    }

    init(_ t: tm) {
        self.init(
            year: Int(t.tm_year) + 1900, month: Int(t.tm_mon) + 1, day: Int(t.tm_mday),
            hour: Int(t.tm_hour), minute: Int(t.tm_min), second: Int(t.tm_sec), offsetSeconds: Int(t.tm_gmtoff))
    }

    /// The instant `seconds` after 1970 in the local time zone (`localtime_r`: `TZ` and its
    /// daylight saving rules), with the offset in force then.
    public static func local(_ seconds: Int64) -> CalendarTime {
        var t = time_t(seconds)
        var parts = tm()
        localtime_r(&t, &parts)
        return CalendarTime(parts)
    }

    /// The instant `seconds` after 1970 in UTC (`gmtime_r`).
    public static func utc(_ seconds: Int64) -> CalendarTime {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        return CalendarTime(parts)
    }

    private var parts: tm {
        var t = tm()
        t.tm_year = Int32(year - 1900)
        t.tm_mon = Int32(month - 1)
        t.tm_mday = Int32(day)
        t.tm_hour = Int32(hour)
        t.tm_min = Int32(minute)
        t.tm_sec = Int32(second)
        t.tm_isdst = -1
        return t
    }

    /// Seconds since 1970 of this wall time read as UTC (`timegm`; `offsetSeconds` is not applied).
    public var secondsReadAsUTC: Int64 {
        var t = parts
        return Int64(timegm(&t))
    }

    /// Seconds since 1970 of this wall time read in the local time zone, the C library finding
    /// whether daylight saving time was in force (`mktime` with `tm_isdst = -1`).
    public var secondsReadAsLocal: Int64 {
        var t = parts
        return Int64(mktime(&t))
    }
}
