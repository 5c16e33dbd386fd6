import Foundation
import Glibc
import SnapSortSystem
import SnapSortTestSupport
import Synchronization
import Testing

@testable import SnapSortCore

/// `Parallel.map`: results in order, work spread over the threads asked for, at low priority.
@Suite struct ParallelTests {
    @Test func mapKeepsTheOrderAndUsesTheThreads() {
        let threadsSeen = Mutex(Set<Int32>())
        let niceSeen = Mutex(Set<Int32>())
        let items = Array(0..<400)
        let out = Parallel.map(items, threads: 3) { i -> Int in
            threadsSeen.withLock { _ = $0.insert(Priority.currentThreadID) }
            niceSeen.withLock { _ = $0.insert(Priority.currentNice) }
            // No element is done before a second thread has taken one, so one thread cannot
            // take every element however the host schedules them (a map on one thread waits
            // out the deadline, and the count below fails).
            _ = waitUntil(timeout: 10, poll: 0.0005) { threadsSeen.withLock { $0.count } >= 2 }
            return i * i
        }
        #expect(out == items.map { $0 * $0 })
        #expect(threadsSeen.withLock { $0.count } >= 2)
        #expect(!threadsSeen.withLock { $0.contains(Priority.currentThreadID) })  // never the caller's thread
        #expect(niceSeen.withLock { $0.allSatisfy { $0 >= 10 } })
    }

    @Test func smallInputsRunOnTheCallingThread() {
        let caller = Priority.currentThreadID
        let seen = Mutex(Set<Int32>())
        let out = Parallel.map([1, 2, 3], threads: 4) { i -> Int in
            seen.withLock { _ = $0.insert(Priority.currentThreadID) }; return i + 1
        }
        #expect(out == [2, 3, 4])
        #expect(seen.withLock { $0 } == [caller])
        #expect(Parallel.map([Int](), threads: 4) { $0 }.isEmpty)
    }
}
