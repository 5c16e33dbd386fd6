import Glibc

/// Numbers in C text.
public enum CNumber {
    /// `strtod(3)` of the text at `text`: the value, and in `end` where the number stopped
    /// (`text` itself when none was read). It also reads hex, `inf` and `nan`.
    public static func double(_ text: UnsafePointer<CChar>, end: inout UnsafeMutablePointer<CChar>?) -> Double {
        strtod(text, &end)
    }
}
