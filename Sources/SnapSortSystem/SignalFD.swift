import CLinux
import Glibc

/// Signals delivered as readable data on a descriptor (see man 2 signalfd), so the event loop
/// handles SIGTERM, SIGINT and SIGHUP in its own thread instead of in a handler.
///
/// The signals are blocked in the calling thread; threads created afterwards inherit the mask,
/// so create this before any worker thread.
public final class SignalFD: @unchecked Sendable {
    public let fd: Int32

    public init(_ signals: [Int32]) throws {
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in signals { sigaddset(&mask, s) }
        try zeroOrErrorNumber("pthread_sigmask") { pthread_sigmask(SIG_BLOCK, &mask, nil) }
        fd = try valueOrErrno("signalfd") { signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC)) }
    }

    deinit { Glibc.close(fd) }

    /// Puts `signals` back to their default action (see man 2 sigaction, man 2 signalfd): a
    /// signal the parent left ignored (nohup, some launchers) is discarded when sent, blocked or
    /// not, so it would never reach the descriptor.
    public static func restoreDefaultActions(_ signals: [Int32]) {
        for s in signals { _ = Glibc.signal(s, SIG_DFL) }
    }

    /// Reads the pending signals (empty when none).
    public func read() -> [Int32] {
        var out: [Int32] = []
        var info = signalfd_siginfo()
        while true {
            // Nothing pending (EAGAIN) or a short read: every signal is read.
            let fd = self.fd
            let n = (try? valueOrErrno("read signalfd") { withUnsafeMutableBytes(of: &info) { Glibc.read(fd, $0.baseAddress, $0.count) } }) ?? -1
            guard n == MemoryLayout<signalfd_siginfo>.size else { return out }
            out.append(Int32(info.ssi_signo))
        }
    }
}

/// A counter descriptor used to wake the event loop from another thread (see man 2 eventfd).
public final class WakeupFD: @unchecked Sendable {
    public let fd: Int32

    public init() throws {
        fd = try valueOrErrno("eventfd") { eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC)) }
    }

    deinit { Glibc.close(fd) }

    /// Wakes a `poll` waiting on `fd`. Safe from any thread.
    public func wake() {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { Glibc.write(fd, $0.baseAddress, 8) }
    }

    /// Clears pending wakeups.
    public func drain() {
        var v: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &v) { Glibc.read(fd, $0.baseAddress, 8) }
    }
}
