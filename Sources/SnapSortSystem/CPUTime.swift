import Glibc

/// CPU time consumed, for profiles (tier 2's stages): never a clock that paces work.
public enum CPUTime {
    /// Seconds of CPU the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`, clock_gettime(2)).
    public static func thread() -> Double {
        var ts = timespec()
        // See: man 2 clock_gettime — cannot fail for this clock id on Linux.
        _ = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Seconds of CPU the whole process has used, all its threads (`CLOCK_PROCESS_CPUTIME_ID`).
    public static func process() -> Double {
        var ts = timespec()
        // See: man 2 clock_gettime — cannot fail for this clock id on Linux.
        _ = clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
