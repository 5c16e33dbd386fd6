import Foundation
import Glibc
import SnapSortSystem
import SnapSortTestSupport
import Synchronization
import Testing

/// What a confined analysis thread may do: read, and nothing else (safety issue, item 7).
@Suite struct SandboxTests {
    /// What the calls a decoder exploit would make answered on one thread.
    struct Outcome: Sendable {
        var confined = false
        var readOnlyOpen: Int32 = -1
        var createErrno: Int32 = 0
        var writeOpenErrno: Int32 = 0
        var unlinkErrno: Int32 = 0
        var renameErrno: Int32 = 0
        var inetSocketErrno: Int32 = 0
        var unixSocketErrno: Int32 = 0
    }

    /// Runs `body` on a thread of its own (confined first when `confine`), which then ends.
    static func onThread(confine: Bool, _ body: @escaping @Sendable (inout Outcome) -> Void) -> Outcome {
        let result = Mutex(Outcome())
        let done = DispatchSemaphore(value: 0)
        let t = Thread {
            var o = Outcome()
            if confine { o.confined = (try? Sandbox.confineAnalysisThread()) != nil }
            body(&o)
            let final = o
            result.withLock { $0 = final }
            done.signal()
        }
        t.start()
        done.wait()
        return result.withLock { $0 }
    }

    static func attempts(_ dir: TempDir) -> @Sendable (inout Outcome) -> Void {
        let existing = dir.write("photo.jpg", [1, 2, 3])
        let created = dir.at("dropped.sh")
        return { o in
            let fd = open(existing, O_RDONLY | O_CLOEXEC)
            o.readOnlyOpen = fd
            if fd >= 0 { close(fd) }
            let c = open(created, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
            o.createErrno = c < 0 ? errno : 0
            if c >= 0 { close(c) }
            let w = open(existing, O_RDWR | O_CLOEXEC)
            o.writeOpenErrno = w < 0 ? errno : 0
            if w >= 0 { close(w) }
            o.renameErrno = rename(existing, existing + ".moved") == 0 ? 0 : errno
            if o.renameErrno == 0 { _ = rename(existing + ".moved", existing) }
            o.unlinkErrno = unlink(existing) == 0 ? 0 : errno
            let s4 = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            o.inetSocketErrno = s4 < 0 ? errno : 0
            if s4 >= 0 { close(s4) }
            let su = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            o.unixSocketErrno = su < 0 ? errno : 0
            if su >= 0 { close(su) }
        }
    }

    @Test func aConfinedThreadReadsButMakesNoFileAndNoSocket() throws {
        let dir = TempDir()
        let o = Self.onThread(confine: true, Self.attempts(dir))
        #expect(o.confined)
        #expect(o.readOnlyOpen >= 0)
        #expect(o.createErrno == EPERM && !FileSystem.exists(dir.at("dropped.sh")))
        #expect(o.writeOpenErrno == EPERM)
        #expect(o.renameErrno == EPERM && o.unlinkErrno == EPERM && FileSystem.exists(dir.at("photo.jpg")))
        #expect(o.inetSocketErrno == EPERM && o.unixSocketErrno == EPERM)
    }

    /// The filter is the confined thread's alone: the process's other threads (the agent's
    /// loop, the database writer, the page) go on as before.
    @Test func otherThreadsAreNotConfined() throws {
        let dir = TempDir()
        _ = Self.onThread(confine: true) { _ in }
        let o = Self.onThread(confine: false, Self.attempts(dir))
        #expect(o.createErrno == 0 && FileSystem.exists(dir.at("dropped.sh")))
        #expect(o.inetSocketErrno == 0 && o.unixSocketErrno == 0)
        #expect(o.unlinkErrno == 0)
    }
}
