import Foundation
import Synchronization

/// The current time, injectable: live in production, manual in tests.
public struct Clock: Sendable {
    public var now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date) { self.now = now }

    public static let live = Clock { Date() }

    /// A clock that only moves when told to.
    public static func manual(_ start: Date) -> (Clock, ManualTime) {
        let t = ManualTime(start)
        return (Clock { t.current }, t)
    }
}

/// The time behind a manual clock.
public final class ManualTime: Sendable {
    private let value: Mutex<Date>
    public init(_ d: Date) { value = Mutex(d) }
    public var current: Date { value.withLock { $0 } }
    public func advance(_ seconds: TimeInterval) { value.withLock { $0 = $0.addingTimeInterval(seconds) } }
    public func set(_ d: Date) { value.withLock { $0 = d } }
}
