import CReviewShim
import Glibc

/// A terminal in raw mode for key-at-a-time input (see man 3 termios). Restores the previous
/// mode on `restore()` and when released.
public final class Terminal: @unchecked Sendable {
    /// A key the review deck understands; `unknown` is an escape sequence it does not (Home,
    /// F1, a modified arrow...).
    public enum Key: Equatable, Sendable {
        case left, right, up, down
        case character(Character)
        case escape, end, unknown
    }

    /// What ended a wait for input: a key, a new window size, or a signal asking to stop.
    public enum Event: Equatable, Sendable {
        case key(Key)
        case resized
        case signal(Int32)
    }

    /// Ctrl+Z (SUB, 0x1A): raw mode turns ISIG off, so it arrives as a key instead of SIGTSTP.
    public static let ctrlZ: Character = "\u{1A}"

    public let input: Int32
    public let output: Int32
    private var saved = termios()
    private var raw = false

    /// Whether `fd` is a terminal.
    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    public init(input: Int32 = 0, output: Int32 = 1) {
        self.input = input
        self.output = output
    }

    /// Switches the input to raw mode (no echo, no line buffering; ^C reads as a key).
    public func enterRawMode() throws {
        _ = try valueOrErrno("tcgetattr") { tcgetattr(input, &saved) }
        var t = saved
        t.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        t.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &t.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        _ = try valueOrErrno("tcsetattr") { tcsetattr(input, TCSAFLUSH, &t) }
        raw = true
    }

    /// Restores the mode saved by `enterRawMode`.
    public func restore() {
        guard raw else { return }
        _ = tcsetattr(input, TCSAFLUSH, &saved)
        raw = false
    }

    deinit { restore() }

    /// Columns, rows and the pixel size of the window when the terminal reports it.
    public func size() -> (columns: Int, rows: Int, pixelWidth: Int, pixelHeight: Int) {
        var c: Int32 = 0, r: Int32 = 0, x: Int32 = 0, y: Int32 = 0
        if ss_terminal_size(output, &c, &r, &x, &y) != 0 || c == 0 || r == 0 { return (80, 24, 0, 0) }
        return (Int(c), Int(r), Int(x), Int(y))
    }

    /// Whether the locale in `environment` encodes text as UTF-8: the first non-empty of
    /// LC_ALL, LC_CTYPE and LANG (POSIX order; none is the "C" locale), asked for its
    /// nl_langinfo(CODESET) or, when that locale is not installed, judged by its name.
    public static func usesUTF8(environment: [String: String]) -> Bool {
        let name = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? "C"
        switch ss_locale_is_utf8(name) {
        case 1: return true
        case 0: return false
        default:
            let codeset = name.split(separator: ".").dropFirst().first?.split(separator: "@").first ?? ""
            return ["utf8", "utf-8"].contains(codeset.lowercased())
        }
    }

    /// Writes text to the terminal.
    public func write(_ s: String) {
        var bytes = Array(s.utf8)
        var done = 0
        let output = self.output
        while done < bytes.count {
            let from = done
            // A closed terminal (EBADF: `snapsort review >&-`) ends the output, as any other error.
            guard
                case .success(let n)? = try? valueOrErrno(
                    "write", expecting: [EBADF], { bytes.withUnsafeMutableBytes { Glibc.write(output, $0.baseAddress! + from, $0.count - from) } })
            else { return }
            done += n
        }
    }

    /// Waits for a key or one of `signals` (see man 2 signalfd): SIGWINCH is `.resized`, any
    /// other signal is `.signal`. A failed poll reads as the end of input.
    public func readEvent(signals: SignalFD) -> Event {
        while true {
            guard let ready = try? Poll.readable([signals.fd, input], timeoutMs: -1) else { return .key(.end) }
            if ready.contains(signals.fd) {
                let got = signals.read()
                if let stop = got.first(where: { $0 != SIGWINCH }) { return .signal(stop) }
                if !got.isEmpty { return .resized }
            }
            if ready.contains(input) { return .key(readKey()) }
        }
    }

    /// Reads one key (blocking). Arrow keys arrive as `ESC [ A`…`ESC [ D` (or `ESC O A` in
    /// application mode); other sequences are read to their final byte (0x40–0x7E, ECMA-48
    /// 5.4) and are `.unknown`, so Home or F1 is not taken for Esc; end of input is `.end`.
    public func readKey() -> Key {
        guard let b = readByte() else { return .end }
        if b == 0x1B {
            guard let b2 = readByteSoon() else { return .escape }
            guard b2 == UInt8(ascii: "[") || b2 == UInt8(ascii: "O") else { return .unknown }
            var final = readByteSoon()
            while let f = final, !(0x40...0x7E).contains(f) { final = readByteSoon() }
            switch final {
            case UInt8(ascii: "A"): return .up
            case UInt8(ascii: "B"): return .down
            case UInt8(ascii: "C"): return .right
            case UInt8(ascii: "D"): return .left
            default: return .unknown
            }
        }
        if b == 3 || b == 4 || b == 0x1C { return .character("q") }  // ^C, ^D, ^\ in raw mode
        return .character(Character(Unicode.Scalar(b)))
    }

    /// The next byte of an escape sequence: it follows within 50 ms, else the sequence ended.
    private func readByteSoon() -> UInt8? {
        guard let ready = try? Poll.readable([input], timeoutMs: 50), !ready.isEmpty else { return nil }
        return readByte()
    }

    private func readByte() -> UInt8? {
        var b: UInt8 = 0
        let input = self.input
        guard case .success(let n)? = try? valueOrErrno("read", expecting: [EBADF], { Glibc.read(input, &b, 1) }) else { return nil }
        return n == 1 ? b : nil
    }
}
