import Foundation
import SnapSortSystem

/// A JSON value with ordered object keys, so outputs are stable and diffable.
public indirect enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    public static func == (a: JSON, b: JSON) -> Bool { a.serialized() == b.serialized() }

    public static func int(_ v: Int) -> JSON { .int(Int64(v)) }
    public static func opt(_ s: String?) -> JSON { s.map { .string($0) } ?? .null }
    public static func opt(_ v: Int?) -> JSON { v.map { .int(Int64($0)) } ?? .null }
    public static func opt(_ v: Int64?) -> JSON { v.map { .int($0) } ?? .null }
    public static func opt(_ v: Double?) -> JSON { v.map { .double($0) } ?? .null }

    /// Compact serialization (one line).
    public func serialized(pretty: Bool = false) -> String {
        var out = ""
        write(into: &out, pretty: pretty, indent: 0)
        return out
    }

    private func write(into out: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d):
            // The shortest exact form (durations must not be rounded).
            if d.isNaN || d.isInfinite {
                out += "null"
            } else if d == d.rounded(), abs(d) < 1e15 {
                out += String(Int64(d))
            } else {
                out += "\(d)"
            }
        case .string(let s): JSON.escape(s, into: &out)
        case .array(let a):
            if a.isEmpty { out += "[]"; return }
            out += "["
            for (i, v) in a.enumerated() {
                if i > 0 { out += "," }
                if pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
                v.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { out += "\n" + String(repeating: "  ", count: indent) }
            out += "]"
        case .object(let o):
            if o.isEmpty { out += "{}"; return }
            out += "{"
            for (i, (k, v)) in o.enumerated() {
                if i > 0 { out += "," }
                if pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
                JSON.escape(k, into: &out)
                out += pretty ? ": " : ":"
                v.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { out += "\n" + String(repeating: "  ", count: indent) }
            out += "}"
        }
    }

    static func escape(_ s: String, into out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 || TextSafety.isUnsafe(u) {
                    // Controls, and DEL, C1 and the bidirectional overrides (valid JSON raw, but a
                    // terminal acts on them): escaped, so no line of ours carries one raw.
                    out += String(format: "\\u%04x", u.value)
                } else if let byte = PathName.escapedByte(u) {
                    // A byte of a name that is not UTF-8, as Python's surrogateescape writes it
                    // (`os.fsencode` gives the name back); parsers show it as U+FFFD.
                    out += String(format: "\\udc%02x", byte)
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        out += "\""
    }

    /// Parses JSON text (through Foundation) into ordered values; key order of the input is
    /// not preserved by Foundation, so objects come back sorted by key.
    public static func parse(_ text: String) -> JSON? {
        guard let data = text.data(using: .utf8),
            let any = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        else { return nil }
        return from(any)
    }

    static func from(_ any: Any) -> JSON {
        switch any {
        case is NSNull: return .null
        case let b as Bool where type(of: any) == Bool.self: return .bool(b)
        case let n as NSNumber:
            if String(cString: n.objCType) == "c" { return .bool(n.boolValue) }
            let d = n.doubleValue
            if d == d.rounded(), abs(d) < 9e15, !"\(n)".contains(".") { return .int(n.int64Value) }
            return .double(d)
        case let s as String: return .string(s)
        case let a as [Any]: return .array(a.map(from))
        case let o as [String: Any]: return .object(o.keys.sorted().map { ($0, from(o[$0]!)) })
        default: return .null
        }
    }

    /// Member lookup on objects.
    public subscript(_ key: String) -> JSON? {
        if case .object(let o) = self { return o.first { $0.0 == key }?.1 }
        return nil
    }

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var doubleValue: Double? {
        switch self {
        case .double(let d): return d;
        case .int(let i): return Double(i);
        default: return nil
        }
    }
    /// The value as a whole number: nil for a fraction or a number no `Int` holds (`1e300` in a
    /// request or a hand-edited status file must be refused, not trap).
    public var intValue: Int? {
        switch self {
        case .int(let i): return Int(exactly: i);
        case .double(let d): return Int(exactly: d);
        default: return nil
        }
    }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var arrayValue: [JSON]? { if case .array(let a) = self { return a }; return nil }
}
