import CSysShim
import Glibc

/// Lowers the calling thread's CPU and IO priority (analysis threads never starve the desktop).
public enum Priority {
    /// nice 10 for this thread (`setpriority(PRIO_PROCESS, tid)`, see man 2 setpriority: on
    /// Linux a thread id names one thread) and the best-effort IO class at its lowest level
    /// (see man 2 ioprio_set). Failures are ignored: priority is a courtesy, not a requirement.
    public static func lowerCurrentThread(nice: Int32 = 10) {
        let tid = ss_gettid()
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(tid), nice)
        _ = ss_ioprio_set_self(2, 7)
    }
}
