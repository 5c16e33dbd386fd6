import CSysShim
import Glibc

/// A helper program run as a child and talked to over one `socketpair(2)` (its stdin and stdout),
/// request by request. Sends use `MSG_NOSIGNAL`, so a child that died makes a send fail with
/// `EPIPE` instead of raising SIGPIPE in the parent; reads wait with a deadline (`poll(2)`).
/// The child's stderr goes to /dev/null. See: man 3 posix_spawn, man 2 socketpair.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    private var socket: Int32
    private var pending: [UInt8] = []
    private var reaped = false

    /// Starts `path` with `arguments` (argv[1…]); `niceness` is added to the child's priority.
    public init(path: String, arguments: [String] = [], niceness: Int32 = 0) throws {
        var fds: [Int32] = [-1, -1]
        _ = try valueOrErrno("socketpair") { socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears FD_CLOEXEC on the copies, so only 0 and 1 (and 2) reach the child.
        posix_spawn_file_actions_adddup2(&actions, fds[1], 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts with default signal handling even where the parent ignores SIGPIPE.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { PathName.withCString($0) { strdup($0) } } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, path, &actions, &attributes, argv, environ)
        Glibc.close(fds[1])
        do { try zeroOrErrorNumber("posix_spawn \(path)") { rc } } catch {
            Glibc.close(fds[0])
            throw error
        }
        pid = child
        socket = fds[0]
        if niceness != 0 {
            let current = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(child))
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(child), min(19, current + niceness))
        }
    }

    /// Starts `path` in a session of its own with stdin, stdout and stderr on /dev/null, every
    /// other descriptor closed, every signal unblocked and at its default, and does not wait for
    /// it: a server that outlives the command that started it (`open --start`). Returns its pid.
    @discardableResult
    public static func detached(path: String, arguments: [String]) throws -> pid_t {
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { PathName.withCString($0) { strdup($0) } } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        try zeroOrErrorNumber("posix_spawn \(path)") { PathName.withCString(path) { ss_spawn_detached($0, argv, &child) } }
        return child
    }

    /// Sends `bytes` to the child's stdin.
    public func send(_ bytes: [UInt8]) throws {
        var done = 0
        while done < bytes.count {
            let socket = self.socket
            let from = done
            done += try valueOrErrno("send") {
                bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress! + from, $0.count - from, Int32(MSG_NOSIGNAL)) }
            }
        }
    }

    /// The next line the child writes (without its newline); nil when the child closed its end
    /// (it exited or crashed). Throws `ETIMEDOUT` after `timeoutMs` without a full line.
    public func readLine(timeoutMs: Int32, maxLength: Int = 1 << 20) throws -> String? {
        var waited: Int32 = 0
        while true {
            if let nl = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<nl], as: UTF8.self)
                pending.removeSubrange(...nl)
                return line
            }
            guard pending.count < maxLength else { throw SystemError(.limit, "the helper's reply is too long", operation: "read") }
            let step: Int32 = 250
            if try Poll.readable([socket], timeoutMs: step).isEmpty {
                waited += step
                try errnoUnless(waited < timeoutMs, "read", ETIMEDOUT)
                continue
            }
            var buf = [UInt8](repeating: 0, count: 65536)
            let socket = self.socket
            let got = try valueOrErrno("read", expecting: [EAGAIN, ECONNRESET]) {
                buf.withUnsafeMutableBytes { Glibc.read(socket, $0.baseAddress, $0.count) }
            }
            guard case .success(let n) = got else {
                if case .failure(let e) = got, e.code == ECONNRESET { return nil }
                continue
            }
            if n == 0 { return nil }
            pending.append(contentsOf: buf[..<n])
        }
    }

    /// Ends the child (SIGKILL) and reaps it. Safe to call more than once.
    public func terminate() {
        guard !reaped else { return }
        kill(pid, SIGKILL)
        wait()
    }

    /// Waits for the child to exit (after closing our end, a well-behaved child exits at EOF).
    /// Returns the raw wait status.
    @discardableResult
    public func wait() -> Int32 {
        if socket >= 0 { Glibc.close(socket); socket = -1 }
        guard !reaped else { return 0 }
        var status: Int32 = 0
        _ = try? valueOrErrno("waitpid") { waitpid(pid, &status, 0) }
        reaped = true
        return status
    }

    deinit { terminate() }
}
