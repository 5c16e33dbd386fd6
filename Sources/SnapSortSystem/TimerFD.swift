import CLinux
import Foundation
import Glibc

/// A wall-clock alarm on a descriptor: a `timerfd` on `CLOCK_REALTIME` armed at an absolute
/// time with `TFD_TIMER_CANCEL_ON_SET` (see man 2 timerfd_create).
///
/// It becomes readable when the wall clock reaches the deadline — also after a suspend, which a
/// `poll` timeout (counted on the monotonic clock) would sleep through — and when the wall
/// clock is set (NTP step, `date -s`, a manual change), so the owner can recompute deadlines.
/// Time-zone changes do not set the clock; callers recompute local times on their own.
public final class RealtimeTimer: @unchecked Sendable {
    /// What a readable timer means.
    public enum Event: Sendable, Equatable {
        /// The deadline passed.
        case expired
        /// The wall clock was set; the timer is disarmed until armed again.
        case clockChanged
        /// Nothing (spurious wakeup, or not armed).
        case none
    }

    public let fd: Int32

    public init() throws {
        fd = try valueOrErrno("timerfd_create") {
            timerfd_create(CLOCK_REALTIME, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        }
    }

    deinit { Glibc.close(fd) }

    /// Arms the timer at `deadline` (wall clock), or disarms it when nil.
    public func arm(at deadline: Date?) throws {
        var spec = itimerspec()
        if let deadline {
            // An all-zero it_value would disarm; a deadline in the past fires at once.
            let t = max(deadline.timeIntervalSince1970, 0.000_001)
            let sec = t.rounded(.down)
            spec.it_value = timespec(tv_sec: Int(sec), tv_nsec: Int(((t - sec) * 1e9).rounded(.down)))
        }
        let flags = Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET)
        _ = try valueOrErrno("timerfd_settime") { timerfd_settime(fd, deadline == nil ? 0 : flags, &spec, nil) }
    }

    /// Reads the timer after `poll` said it is readable.
    public func read() -> Event {
        var count: UInt64 = 0
        let fd = self.fd
        // ECANCELED: the realtime clock was set (TFD_TIMER_CANCEL_ON_SET).
        switch try? valueOrErrno("read timerfd", expecting: [ECANCELED], { withUnsafeMutableBytes(of: &count) { Glibc.read(fd, $0.baseAddress, 8) } })
        {
        case .success(8)?: return .expired
        case .failure?: return .clockChanged
        default: return .none
        }
    }
}
