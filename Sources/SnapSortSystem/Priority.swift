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

    /// The calling thread's kernel id.
    public static var currentThreadID: Int32 { ss_gettid() }

    /// The calling thread's nice value.
    public static var currentNice: Int32 { getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(ss_gettid())) }
}

/// Process-wide memory allocator settings.
public enum Memory {
    /// A scan allocates a few buffers of megabytes per photo (the file, the decoded pixels, the
    /// working planes). glibc serves each from a fresh mmap and unmaps it at free, so every photo
    /// paid for ~1 000 page faults of freshly zeroed pages (a tenth of the scan's time went to
    /// the kernel). With blocks up to 64 MB kept in the heap and trimmed only past 256 MB of
    /// free space, the next photo reuses them: a third of the faults, the same working set.
    public static func keepLargeBlocksInTheHeap() {
        _ = ss_malloc_keep_blocks(64 << 20, 256 << 20)
    }

    /// Gives free heap memory back to the kernel (`malloc_trim`). A regroup of a large library
    /// holds a few hundred megabytes for a few seconds; the agent then waits for hours, and
    /// should not wait at that size. Returns whether anything was released.
    @discardableResult
    public static func releaseFreeMemory() -> Bool {
        ss_malloc_release() == 1
    }

    /// The heap memory in use (allocated and not freed), which the resident set exceeds by
    /// what the heap keeps for reuse (`keepLargeBlocksInTheHeap`): a tuning aid.
    public static func heapInUseBytes() -> Int { Int(ss_malloc_in_use()) }

    /// This process's resident set in bytes (`/proc/self/statm`), nil when unreadable.
    public static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
