import Foundation
import SnapSortSystem
import Synchronization

/// Where a command's text goes and where its answers come from: the process's descriptors
/// (`live`) or memory (`Console.memory`, the in-process tests). Commands never touch fd 0, 1 or 2
/// themselves.
public struct Console: Sendable {
    /// Appends a line to standard output (buffered); false once the reader is gone.
    public var line: @Sendable (String) -> Bool
    /// Writes what standard output holds; false once the reader is gone.
    public var flush: @Sendable () -> Bool
    /// Writes text to standard error at once (no newline added).
    public var error: @Sendable (String) -> Void
    /// Reads a line of standard input, without its newline; nil at its end.
    public var readLine: @Sendable () -> String?
    /// Whether standard input (0), output (1) or error (2) is a terminal.
    public var isTerminal: @Sendable (Int32) -> Bool
    /// What happens when standard output's reader is gone: the live console ends the process
    /// quietly, as `head` expects (a `--follow` stream has nobody left to write to).
    public var readerGone: @Sendable () -> Void
    /// Standard output's descriptor, when it is one: a follower polls it to leave when the
    /// reader hangs up (`StatusFollow`).
    public var outputDescriptor: Int32?

    public init(
        line: @escaping @Sendable (String) -> Bool, flush: @escaping @Sendable () -> Bool, error: @escaping @Sendable (String) -> Void,
        readLine: @escaping @Sendable () -> String?, isTerminal: @escaping @Sendable (Int32) -> Bool,
        readerGone: @escaping @Sendable () -> Void, outputDescriptor: Int32? = nil
    ) {
        self.outputDescriptor = outputDescriptor
        self.line = line
        self.flush = flush
        self.error = error
        self.readLine = readLine
        self.isTerminal = isTerminal
        self.readerGone = readerGone
    }

    /// The process's standard input, output and error.
    public static let live: Console = {
        let stdout = OutputBuffer(fd: 1)
        return Console(
            line: { stdout.line($0) }, flush: { stdout.flush() },
            error: { FileHandle.standardError.write(Data($0.utf8)) },
            readLine: { Swift.readLine() }, isTerminal: { Terminal.isTerminal($0) },
            readerGone: { SystemProcess.exit(ExitCode.ok) }, outputDescriptor: 1)
    }()

    /// A console in memory: standard input is the capture's, no descriptor is a terminal, and what a
    /// command writes is read back from `capture`.
    public static func memory(_ capture: ConsoleCapture) -> Console {
        Console(
            line: { capture.append(out: $0 + "\n") }, flush: { true }, error: { capture.append(err: $0) },
            readLine: { capture.nextInputLine() }, isTerminal: { _ in false }, readerGone: {})
    }
}

/// What a command wrote to a memory console, and its standard input.
public final class ConsoleCapture: Sendable {
    private struct State {
        var out = ""
        var err = ""
        var input: [Substring]
    }
    private let state: Mutex<State>

    public init(stdin: String = "") {
        state = Mutex(State(input: stdin.split(separator: "\n", omittingEmptySubsequences: false)))
    }

    /// Everything written to standard output.
    public var stdout: String { state.withLock { $0.out } }
    /// Everything written to standard error.
    public var stderr: String { state.withLock { $0.err } }

    @discardableResult
    func append(out text: String) -> Bool {
        state.withLock { $0.out += text }
        return true
    }

    func append(err text: String) { state.withLock { $0.err += text } }

    func nextInputLine() -> String? {
        state.withLock { s in
            // The text after the last newline is a line only when not empty (as readLine reads it).
            guard let first = s.input.first, !(s.input.count == 1 && first.isEmpty) else { return nil }
            s.input.removeFirst()
            return String(first)
        }
    }
}
