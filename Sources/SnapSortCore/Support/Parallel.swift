import Foundation
import SnapSortSystem

/// Data-parallel loops on short-lived threads at the analysis threads' low priority (never
/// Dispatch's shared pool, whose threads must not be reniced).
enum Parallel {
    /// `transform` of every element, in order, computed on up to `threads` threads. Elements are
    /// handed out one at a time, so uneven costs balance. Below `minimum` elements (or with one
    /// thread) it runs on the calling thread.
    static func map<T: Sendable, R: Sendable>(
        _ items: [T], threads: Int, minimum: Int = 16,
        _ transform: @escaping @Sendable (T) -> R
    ) -> [R] {
        let n = items.count
        let lanes = min(max(1, threads), n)
        if lanes <= 1 || n < minimum { return items.map(transform) }
        let out = Slots<R>(count: n)
        let next = Counter()
        let group = DispatchGroup()
        for _ in 0..<lanes {
            group.enter()
            let t = Thread {
                Priority.lowerCurrentThread()
                while true {
                    let i = next.take()
                    if i >= n { break }
                    out.set(i, transform(items[i]))
                }
                group.leave()
            }
            t.stackSize = 4 << 20
            t.start()
        }
        group.wait()
        return out.values()
    }

    /// A shared index dispenser.
    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func take() -> Int {
            lock.lock(); defer { lock.unlock() }
            value += 1
            return value - 1
        }
    }

    /// One slot per index, each written by exactly one thread before `values()` reads them all.
    private final class Slots<R>: @unchecked Sendable {
        private var storage: [R?]
        private let lock = NSLock()
        init(count: Int) { storage = Array(repeating: nil, count: count) }
        func set(_ i: Int, _ v: R) { lock.lock(); storage[i] = v; lock.unlock() }
        func values() -> [R] { storage.map { $0! } }
    }
}
