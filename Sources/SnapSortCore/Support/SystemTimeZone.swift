import Foundation
import SnapSortSystem

/// The user's `TZ`, in a form Foundation reads.
///
/// glibc takes every form POSIX and tzset(3) give `TZ` — a zone name (`Europe/Stockholm`), the
/// same after a colon (`:Europe/Stockholm`), a file (`:/usr/share/zoneinfo/Asia/Tokyo`) or a
/// rule (`CET-1CEST,M3.5.0,M10.5.0/3`, `JST-9`) — but Foundation's `TimeZone.current` takes only
/// the first and falls back to UTC for the rest: days, streaks, "today" and 19:00 reminders were
/// then counted in UTC, an hour or nine off, without a word. `resolve` turns each form into a
/// zone name: a rule into the zone whose TZif file ends in that same rule (TZif 2+ files carry
/// the POSIX rule for times after their table, so the two agree from now on).
public enum SystemTimeZone {
    /// Where zone files are.
    public static let zoneinfo = "/usr/share/zoneinfo"

    /// The zone name for `tz` (a `TZ` value), or nil when it names nothing known (glibc then
    /// reads it as UTC too, or as a rule no zone file has).
    public static func resolve(_ tz: String, zoneinfo: String = zoneinfo) -> String? {
        var name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
        if name.hasPrefix(zoneinfo + "/") { name = String(name.dropFirst(zoneinfo.count + 1)) }
        if name.isEmpty { return nil }
        if !name.hasPrefix("/"), !name.contains(".."), (try? FileSystem.status(zoneinfo + "/" + name))?.isRegular == true,
            TimeZone(identifier: name) != nil
        {
            return name
        }
        guard !tz.hasPrefix(":"), isRule(tz) else { return nil }
        if let zone = zone(withRule: tz, zoneinfo: zoneinfo) { return zone }
        // A rule no zone file ends in: without summer time (`XYZ-7`), its fixed offset as an
        // `Etc/GMT` zone when it is whole hours (whose sign POSIX inverts, as TZ rules do).
        let abbreviation = tz.hasPrefix("<") ? tz.prefix { $0 != ">" } + ">" : tz.prefix { $0.isASCII && $0.isLetter }
        let offset = tz.dropFirst(abbreviation.count)
        guard let hours = Int(offset.hasPrefix("+") ? offset.dropFirst() : offset), (-14...12).contains(hours) else { return nil }
        if hours == 0 { return "Etc/UTC" }
        return "Etc/GMT" + (hours > 0 ? "+\(hours)" : "\(hours)")
    }

    /// At the start of a process: when `TZ` is set in a form Foundation misreads, sets it to the
    /// zone's name (for Foundation; glibc reads that name the same way). Returns the message to
    /// log when the value names no zone (UTC is then used, as glibc would), else nil.
    @discardableResult
    public static func normalizeEnvironment() -> String? {
        guard let tz = ProcessInfo.processInfo.environment["TZ"], !tz.isEmpty else { return nil }
        if !tz.hasPrefix(":"), !tz.hasPrefix("/"), !isRule(tz), TimeZone(identifier: tz) != nil { return nil }
        guard let name = resolve(tz) else {
            return "TZ='\(tz)' names no time zone this system knows; times are shown in UTC"
        }
        if name != tz {
            SystemProcess.setEnvironment("TZ", name)
            NSTimeZone.resetSystemTimeZone()
        }
        return nil
    }

    /// Whether `tz` has the shape of a POSIX rule: a name of letters or `<…>`, then an offset.
    static func isRule(_ tz: String) -> Bool {
        var rest = Substring(tz)
        if rest.hasPrefix("<") {
            guard let close = rest.firstIndex(of: ">") else { return false }
            rest = rest[rest.index(after: close)...]
        } else {
            let letters = rest.prefix { $0.isASCII && $0.isLetter }
            guard letters.count >= 3 else { return false }
            rest = rest.dropFirst(letters.count)
        }
        guard let c = rest.first else { return false }
        return c.isASCII && (c.isNumber || c == "+" || c == "-")
    }

    /// The first zone, in name order, whose file ends in `rule` (read only for a `TZ` that is a
    /// rule, once a process).
    static func zone(withRule rule: String, zoneinfo: String) -> String? {
        var names: [String] = []
        func walk(_ dir: String, _ prefix: String) {
            guard let entries = try? FileSystem.listDirectory(dir) else { return }
            for e in entries {
                // posix/ and right/ repeat every zone; right/ counts leap seconds.
                if prefix.isEmpty && (e.name == "posix" || e.name == "right" || e.name == "Etc") { continue }
                let path = dir + "/" + e.name
                guard let st = FileSystem.lstatusIfExists(path) else { continue }
                if st.isDirectory {
                    walk(path, prefix + e.name + "/")
                } else if st.isRegular, e.name.first?.isUppercase == true {
                    names.append(prefix + e.name)
                }
            }
        }
        walk(zoneinfo, "")
        return names.sorted().first { footer(zoneinfo + "/" + $0) == rule && TimeZone(identifier: $0) != nil }
    }

    /// A TZif 2+ file's footer: the POSIX rule between the last two newlines.
    static func footer(_ path: String) -> String? {
        guard let bytes = try? FileSystem.readFile(path, limit: 1 << 20), bytes.count > 44,
            bytes.starts(with: Array("TZif".utf8)), bytes[4] >= UInt8(ascii: "2"), bytes.last == UInt8(ascii: "\n")
        else { return nil }
        let body = bytes.dropLast()
        guard let start = body.lastIndex(of: UInt8(ascii: "\n")) else { return nil }
        let rule = String(decoding: body[(start + 1)...], as: UTF8.self)
        return rule.isEmpty ? nil : rule
    }
}
