import Glibc

/// File names on Linux are bytes, SnapSort's paths are Strings. A name that is not UTF-8 (a
/// Latin-1 name from an old camera or a zip made on Windows: `caf\xE9.jpg`) is kept byte for
/// byte: every byte that is not part of well-formed UTF-8 stands for itself as one scalar of
/// U+EF80…U+EFFF, a Private Use range (the mapping of MirBSD's OPTU-8). So that the mapping
/// goes both ways for every name, a name that really holds one of those scalars has that
/// scalar's three bytes escaped too. Every path handed to the kernel goes through `withCString`
/// (the bytes back), every name read from it through `decode`.
///
/// Elsewhere the escapes show as U+FFFD in text for people (`display`) and as `\udcXX` in
/// JSON (`jsonEscape`: Python's `surrogateescape`, so `os.fsencode` gives the bytes back).
public enum PathName {
    /// The first and last escape scalar: U+EF80 + (byte - 0x80).
    static let first: UInt32 = 0xEF80
    static let last: UInt32 = 0xEFFF

    /// The String of a name or path read from the system (no NUL inside).
    public static func decode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        if let s = bytes.withContiguousStorageIfAvailable({ decode(buffer: $0) }) { return s }
        return Array(bytes).withUnsafeBufferPointer { decode(buffer: $0) }
    }

    /// `decode` of the NUL-terminated name at `p` (a `d_name`, a `realpath` result).
    public static func decode(cString p: UnsafePointer<CChar>) -> String {
        let n = strlen(p)
        return p.withMemoryRebound(to: UInt8.self, capacity: n + 1) { decode(buffer: UnsafeBufferPointer(start: $0, count: n)) }
    }

    private static func decode(buffer a: UnsafeBufferPointer<UInt8>) -> String {
        // Most names: ASCII, or UTF-8 without escape-like sequences, taken as they are.
        var ascii = true
        var escapeLike = false
        var previous: UInt8 = 0
        for b in a {
            if b >= 0x80 {
                ascii = false
                if previous == 0xEE && (b == 0xBE || b == 0xBF) { escapeLike = true }
            }
            previous = b
        }
        if ascii { return String(decoding: a, as: UTF8.self) }
        if !escapeLike, let s = String(validating: a, as: UTF8.self) { return s }
        var out = String.UnicodeScalarView()
        var i = 0
        while i < a.count {
            let b = a[i]
            if b < 0x80 {
                out.append(Unicode.Scalar(b))
                i += 1
            } else if let (scalar, n) = wellFormed(a, at: i), !(first...last).contains(scalar.value) {
                out.append(scalar)
                i += n
            } else {
                out.append(Unicode.Scalar(first + UInt32(b) - 0x80)!)
                i += 1
            }
        }
        return String(out)
    }

    /// The bytes of `path` (without a terminating NUL).
    public static func encode(_ path: String) -> [UInt8] {
        guard hasEscapes(path) else { return Array(path.utf8) }
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count)
        for u in path.unicodeScalars {
            if (first...last).contains(u.value) {
                out.append(UInt8(u.value - first + 0x80))
            } else {
                out.append(contentsOf: String(u).utf8)
            }
        }
        return out
    }

    /// Calls `body` with the NUL-terminated bytes of `path`, as the kernel names the file.
    public static func withCString<R>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        guard hasEscapes(path) else { return try path.withCString(body) }
        let bytes = encode(path).map { CChar(bitPattern: $0) } + [0]
        return try bytes.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// Whether `path` holds an escaped byte (its UTF-8 has EE BE xx or EE BF xx).
    public static func hasEscapes(_ path: String) -> Bool {
        var previous: UInt8 = 0
        for b in path.utf8 {
            if previous == 0xEE && (b == 0xBE || b == 0xBF) { return true }
            previous = b
        }
        return false
    }

    /// `path` for people: each escaped byte as U+FFFD, as file managers show such names.
    public static func display(_ path: String) -> String {
        guard hasEscapes(path) else { return path }
        var out = String.UnicodeScalarView()
        for u in path.unicodeScalars { out.append((first...last).contains(u.value) ? "\u{FFFD}" : u) }
        return String(out)
    }

    /// The escaped byte `u` stands for, nil for any other scalar.
    public static func escapedByte(_ u: Unicode.Scalar) -> UInt8? {
        (first...last).contains(u.value) ? UInt8(u.value - first + 0x80) : nil
    }

    /// The scalar of the well-formed UTF-8 sequence at `i` and its length (Unicode Table 3-7:
    /// no overlong forms, no surrogates, nothing above U+10FFFF).
    private static func wellFormed(_ a: UnsafeBufferPointer<UInt8>, at i: Int) -> (Unicode.Scalar, Int)? {
        let b0 = a[i]
        let n: Int
        var lo: UInt8 = 0x80
        var hi: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF: n = 2
        case 0xE0: n = 3; lo = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: n = 3
        case 0xED: n = 3; hi = 0x9F
        case 0xF0: n = 4; lo = 0x90
        case 0xF1...0xF3: n = 4
        case 0xF4: n = 4; hi = 0x8F
        default: return nil
        }
        guard i + n <= a.count else { return nil }
        var value = UInt32(b0) & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07)
        for k in 1..<n {
            let c = a[i + k]
            if k == 1 ? !(lo...hi).contains(c) : !(0x80...0xBF).contains(c) { return nil }
            value = value << 6 | UInt32(c & 0x3F)
        }
        return Unicode.Scalar(value).map { ($0, n) }
    }
}

/// Text that reaches a terminal: the characters a terminal acts on instead of showing.
public enum TextSafety {
    /// DEL, the C1 controls (U+0080–U+009F; a terminal takes U+009B as ESC [) and the
    /// bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), which
    /// can make a name read as another. C0 controls are the caller's (tabs and newlines of
    /// output are meant).
    public static func isUnsafe(_ u: Unicode.Scalar) -> Bool {
        let v = u.value
        return v == 0x7F || (0x80...0x9F).contains(v) || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }

    /// `text` with every control character but tab and newline, and every `isUnsafe` one,
    /// written as `\xHH` or `\u{HHHH}`: a file name cannot recolour the terminal, move the
    /// cursor over a line (`ESC[2K`, `\r`) or reverse its own letters.
    public static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t" && $0 != "\n") || isUnsafe($0) }) else { return text }
        var out = String.UnicodeScalarView()
        for u in text.unicodeScalars {
            if (u.value < 0x20 && u != "\t" && u != "\n") || u.value == 0x7F || (0x80...0x9F).contains(u.value) {
                out.append(contentsOf: String(format: "\\x%02x", u.value).unicodeScalars)
            } else if isUnsafe(u) {
                out.append(contentsOf: String(format: "\\u{%04X}", u.value).unicodeScalars)
            } else {
                out.append(u)
            }
        }
        return String(out)
    }
}
