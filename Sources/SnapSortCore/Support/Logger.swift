import Foundation
import SnapSortSystem
import Synchronization

/// A small structured logger: constant messages, data in dotted metadata keys.
/// Under systemd, lines carry the sd-daemon(3) `<N>` priority prefixes so journald keeps levels.
public struct Logger: Sendable {
    public enum Level: Int, Sendable, Comparable, CustomStringConvertible {
        case debug = 7
        case info = 6
        case notice = 5
        case warning = 4
        case error = 3
        public static func < (a: Level, b: Level) -> Bool { a.rawValue > b.rawValue }
        public var description: String {
            switch self {
            case .debug: "debug";
            case .info: "info";
            case .notice: "notice";
            case .warning: "warning";
            case .error: "error"
            }
        }
    }

    public var label: String
    public var level: Level
    public var sink: @Sendable (Level, String) -> Void

    public init(label: String, level: Level = .info, sink: @escaping @Sendable (Level, String) -> Void) {
        self.label = label
        self.level = level
        self.sink = sink
    }

    /// Logs to stderr; with `systemdPrefixes` each line starts with `<N>`.
    public static func stderr(label: String, level: Level = .info, systemdPrefixes: Bool) -> Logger {
        Logger(label: label, level: level) { lvl, line in
            let text = (systemdPrefixes ? "<\(lvl.rawValue)>" : "") + line + "\n"
            FileHandle.standardError.write(Data(text.utf8))
        }
    }

    /// A logger that drops everything.
    public static let silent = Logger(label: "silent", level: .error) { _, _ in }

    public func log(_ lvl: Level, _ message: String, _ metadata: [String: String] = [:]) {
        guard lvl.rawValue <= level.rawValue else { return }
        let meta = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        sink(lvl, PathName.display(meta.isEmpty ? "\(label): \(message)" : "\(label): \(message) \(meta)"))
    }

    public func debug(_ m: String, _ md: [String: String] = [:]) { log(.debug, m, md) }
    public func info(_ m: String, _ md: [String: String] = [:]) { log(.info, m, md) }
    public func notice(_ m: String, _ md: [String: String] = [:]) { log(.notice, m, md) }
    public func warning(_ m: String, _ md: [String: String] = [:]) { log(.warning, m, md) }
    public func error(_ m: String, _ md: [String: String] = [:]) { log(.error, m, md) }
}

/// Collects log lines in memory (tests).
public final class LogCapture: Sendable {
    private let lines = Mutex<[(Logger.Level, String)]>([])
    public init() {}
    public func logger(label: String = "test", level: Logger.Level = .debug) -> Logger {
        Logger(label: label, level: level) { [self] l, s in lines.withLock { $0.append((l, s)) } }
    }
    public var messages: [String] { lines.withLock { $0.map(\.1) } }
}
