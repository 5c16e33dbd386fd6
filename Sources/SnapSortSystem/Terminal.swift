import CReviewShim
import Glibc

/// A terminal in raw mode for key-at-a-time input (see man 3 termios). Restores the previous
/// mode on `restore()` and when released.
public final class Terminal: @unchecked Sendable {
    /// A key the review deck understands.
    public enum Key: Equatable, Sendable { case left, right, up, down, character(Character), escape, end }

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

    /// Writes text to the terminal.
    public func write(_ s: String) {
        var bytes = Array(s.utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(output, $0.baseAddress! + done, $0.count - done) }
            if n < 0 { if errno == EINTR { continue }; return }
            done += n
        }
    }

    /// Reads one key (blocking). Arrow keys arrive as `ESC [ A`…`ESC [ D` (or `ESC O A` in
    /// application mode); end of input is `.end`.
    public func readKey() -> Key {
        guard let b = readByte() else { return .end }
        if b == 0x1B {
            var fds = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            guard poll(&fds, 1, 50) > 0, let b2 = readByte() else { return .escape }
            guard b2 == UInt8(ascii: "[") || b2 == UInt8(ascii: "O"), let b3 = readByte() else { return .escape }
            switch b3 {
            case UInt8(ascii: "A"): return .up
            case UInt8(ascii: "B"): return .down
            case UInt8(ascii: "C"): return .right
            case UInt8(ascii: "D"): return .left
            default: return .escape
            }
        }
        if b == 3 || b == 4 { return .character("q") }  // ^C, ^D in raw mode
        return .character(Character(Unicode.Scalar(b)))
    }

    private func readByte() -> UInt8? {
        var b: UInt8 = 0
        while true {
            let n = Glibc.read(input, &b, 1)
            if n == 1 { return b }
            if n < 0 && errno == EINTR { continue }
            return nil
        }
    }
}
