import Foundation
import Glibc
import SnapSortTestSupport
import Testing

@testable import SnapSortSystem

/// The agent loop's descriptors, each on its own against the kernel: inotify, an eventfd, a
/// timerfd, a signalfd, and `poll` over them. Waits are `poll` timeouts (deadlines), never sleeps.
@Suite("System: event descriptors and poll")
struct EventDescriptorTests {
    /// Five seconds: a deadline for an event that is due at once, never a measure of speed.
    static let deadlineMs: Int32 = 5000

    @Test func inotifySaysAFileWasWrittenAndRenamedWithOneCookie() throws {
        let dir = TempDir()
        let watcher = try Inotify()
        let wd = try watcher.addWatch(dir.path, mask: Inotify.closeWrite | Inotify.movedFrom | Inotify.movedTo)
        #expect(try Poll.readable([watcher.fd], timeoutMs: 0).isEmpty)
        #expect(try watcher.read().isEmpty)

        dir.write("a.jpg", [1, 2, 3])
        // Foundation writes through a temporary name and may rename it before it closes the
        // file: the close can come in a later read than the rename. Read until it came.
        var written: [Inotify.Event] = []
        let closed = { written.contains { $0.wd == wd && $0.name == "a.jpg" && $0.has(Inotify.closeWrite) } }
        while !closed(), try Poll.readable([watcher.fd], timeoutMs: Self.deadlineMs) == [watcher.fd] { written += try watcher.read() }
        #expect(closed(), "\(written)")

        try FileSystem.rename(dir.at("a.jpg"), dir.at("b.jpg"))
        #expect(try Poll.readable([watcher.fd], timeoutMs: Self.deadlineMs) == [watcher.fd])
        let moved = try watcher.read()
        let from = try #require(moved.first { $0.has(Inotify.movedFrom) }, "\(moved)")
        let to = try #require(moved.first { $0.has(Inotify.movedTo) }, "\(moved)")
        #expect(from.name == "a.jpg" && to.name == "b.jpg")
        #expect(from.cookie == to.cookie && from.cookie != 0)
    }

    @Test func inotifyRefusesAFolderThatIsNotThere() throws {
        let dir = TempDir()
        let watcher = try Inotify()
        do {
            _ = try watcher.addWatch(dir.at("missing"), mask: Inotify.create)
            Issue.record("a watch on a missing folder was added")
        } catch let e as SystemError {
            #expect(e.code == .errno(ENOENT), "\(e)")
        }
    }

    @Test func aWakeupIsReadableUntilDrained() throws {
        let w = try WakeupFD()
        #expect(try Poll.readable([w.fd], timeoutMs: 0).isEmpty)
        w.wake()
        w.wake()
        #expect(try Poll.readable([w.fd], timeoutMs: Self.deadlineMs) == [w.fd])
        w.drain()
        #expect(try Poll.readable([w.fd], timeoutMs: 0).isEmpty)
    }

    @Test func pollSaysWhichOfSeveralIsReadableAndWhenTheOtherEndHangsUp() throws {
        let a = try WakeupFD()
        let b = try WakeupFD()
        b.wake()
        #expect(try Poll.readable([a.fd, b.fd], timeoutMs: Self.deadlineMs) == [b.fd])
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[1]) }
        #expect(try Poll.readable([a.fd], orHangUpOf: ends[1], timeoutMs: 0).hungUp == false)
        close(ends[0])
        let r = try Poll.readable([a.fd], orHangUpOf: ends[1], timeoutMs: Self.deadlineMs)
        #expect(r.hungUp && r.readable.isEmpty)
    }

    @Test func aTimerInThePastExpiresAtOnceAndADisarmedOneNever() throws {
        let t = try RealtimeTimer()
        #expect(t.read() == .none)
        try t.arm(at: Date().addingTimeInterval(-1))
        #expect(try Poll.readable([t.fd], timeoutMs: Self.deadlineMs) == [t.fd])
        #expect(t.read() == .expired)
        #expect(t.read() == .none)
        try t.arm(at: Date().addingTimeInterval(3600))
        try t.arm(at: nil)
        #expect(try Poll.readable([t.fd], timeoutMs: 0).isEmpty)
        #expect(t.read() == .none)
    }

    @Test func aBlockedSignalArrivesOnTheDescriptor() throws {
        // SIGUSR2, blocked in this thread by the descriptor and raised at this thread: pending
        // here, it is read from the descriptor instead of running an action.
        let sig = SIGUSR2
        let s = try SignalFD([sig])
        defer {
            var mask = sigset_t()
            sigemptyset(&mask)
            sigaddset(&mask, sig)
            pthread_sigmask(SIG_UNBLOCK, &mask, nil)
        }
        #expect(s.read().isEmpty)
        #expect(raise(sig) == 0)
        #expect(try Poll.readable([s.fd], timeoutMs: Self.deadlineMs) == [s.fd])
        #expect(s.read() == [sig])
        #expect(s.read().isEmpty)
    }
}
