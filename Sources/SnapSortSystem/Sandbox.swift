import CSysShim
import Glibc

/// The least the kernel lets a thread do that decodes untrusted files (image decoders are a
/// classic exploit route: libwebp's CVE-2023-4863 was exploited through images).
public enum Sandbox {
    /// Confines the calling thread, for good: it may still open files read-only and read them,
    /// but creating, writing (by name), renaming, removing or re-permissioning files, sockets,
    /// starting programs and touching other processes fail with `EPERM` (a seccomp filter; see
    /// `ss_sandbox_analysis_thread`). Other threads are not affected. Throws where the kernel
    /// has no seccomp filters.
    public static func confineAnalysisThread() throws {
        try zeroOrErrorNumber("seccomp") { ss_sandbox_analysis_thread() }
    }
}
