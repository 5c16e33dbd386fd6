import Glibc

/// An error from the operating system or a C library, with a stable code, a human message
/// and where it came from.
public struct SystemError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A stable, extensible error code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case errno(Int32)
            case sqlite(Int32)
            case decode, limit, unsupported
        }
        private let value: Value
        /// An `errno` value.
        public static func errno(_ e: Int32) -> Code { Code(value: .errno(e)) }
        /// A SQLite primary result code.
        public static func sqlite(_ c: Int32) -> Code { Code(value: .sqlite(c)) }
        /// A decoder rejected the data.
        public static let decode = Code(value: .decode)
        /// A size or safety limit refused the input before any allocation.
        public static let limit = Code(value: .limit)
        /// The format is not supported.
        public static let unsupported = Code(value: .unsupported)

        /// The errno value, when this is one.
        public var errnoValue: Int32? { if case .errno(let e) = value { return e } else { return nil } }
        /// What `strerror(3)` says of the errno, for an errno code.
        public var errnoText: String? { errnoValue.map { String(cString: strerror($0)) } }
        /// The SQLite result code, when this is one.
        public var sqliteValue: Int32? { if case .sqlite(let c) = value { return c } else { return nil } }

        public var description: String {
            switch value {
            case .errno(let e): return "errno \(e)"
            case .sqlite(let c): return "sqlite \(c)"
            case .decode: return "decode"
            case .limit: return "limit"
            case .unsupported: return "unsupported"
            }
        }
    }

    public let code: Code
    public let message: String
    public let operation: String
    public let file: String
    public let line: Int

    public init(_ code: Code, _ message: String, operation: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.message = message
        self.operation = operation
        self.file = file
        self.line = line
    }

    /// The error for the current `errno`.
    public static func fromErrno(_ operation: String, _ e: Int32 = Glibc.errno, file: String = #fileID, line: Int = #line) -> SystemError {
        SystemError(.errno(e), String(cString: strerror(e)), operation: operation, file: file, line: line)
    }

    public var description: String { "\(operation): \(message)" }

    public static func == (a: SystemError, b: SystemError) -> Bool { a.code == b.code && a.message == b.message }
}

/// Runs a syscall-style body, retrying on `EINTR`, and turns -1 into a typed error.
/// Programmer errors (`EBADF`, `EFAULT`) trap. The one errno helper family of this module:
/// every call that reports through `errno` goes through it (or `valueOrErrno(_:expecting:_:)`,
/// `valueOrErrnoOnce`, `pointerOrErrno`, `pointerOrEnd`, `zeroOrErrorNumber`, and
/// `errnoUnless` for a failure read from a result); nothing else builds an errno error.
@inline(__always)
public func valueOrErrno<T: FixedWidthInteger>(_ operation: String, _ body: () -> T) throws -> T {
    try valueOrErrno(operation, expecting: [], body).get()
}

/// An errno the caller of `valueOrErrno(_:expecting:_:)` expects and acts on (a lock held
/// elsewhere, a folder that exists, a wait interrupted by a signal): handed back, not thrown.
public struct ExpectedErrno: Error, Equatable, Sendable {
    public let code: Int32
}

/// `valueOrErrno`, where the errnos in `expected` are outcomes, not errors: returned as
/// `.failure`. `EINTR` is retried unless it is expected (`poll` returns early on a signal).
@inline(__always)
public func valueOrErrno<T: FixedWidthInteger>(
    _ operation: String, expecting expected: Set<Int32>, _ body: () -> T
) throws -> Result<T, ExpectedErrno> {
    while true {
        let r = body()
        if r != -1 { return .success(r) }
        let e = errno
        if expected.contains(e) { return .failure(ExpectedErrno(code: e)) }
        if e == EINTR { continue }
        precondition(e != EBADF && e != EFAULT, "\(operation): programmer error (errno \(e))")
        throw SystemError.fromErrno(operation, e)
    }
}

/// `valueOrErrno` for a call that must not be repeated when a signal interrupts it
/// (`connect(2)`: an interrupted connect goes on in the background, and a second call says
/// `EALREADY`): `EINTR` is thrown like any other errno, never retried.
@inline(__always)
public func valueOrErrnoOnce<T: FixedWidthInteger>(_ operation: String, _ body: () -> T) throws -> T {
    let r = body()
    if r != -1 { return r }
    let e = errno
    precondition(e != EBADF && e != EFAULT, "\(operation): programmer error (errno \(e))")
    throw SystemError.fromErrno(operation, e)
}

/// A failure a wrapper finds in a call's result rather than in `errno` (a short write, a wait
/// that timed out, a file where a folder should be), thrown as the errno that names it
/// (`EIO`, `ETIMEDOUT`, `ENOTDIR`), the same typed error the calls' own failures are.
@inline(__always)
public func errnoUnless(_ ok: Bool, _ operation: String, _ e: Int32) throws {
    guard !ok else { return }
    throw SystemError.fromErrno(operation, e)
}

/// A C call that returns nil both at its end and on failure, told apart by `errno`
/// (`readdir(3)`: nil with `errno` left at 0 is the end of the folder): the pointer, nil at
/// the end, or a typed error.
@inline(__always)
public func pointerOrEnd<P>(_ operation: String, _ body: () -> P?) throws -> P? {
    while true {
        errno = 0
        if let p = body() { return p }
        let e = errno
        if e == 0 { return nil }
        if e == EINTR { continue }
        precondition(e != EBADF && e != EFAULT, "\(operation): programmer error (errno \(e))")
        throw SystemError.fromErrno(operation, e)
    }
}

/// A C call that returns a pointer, nil with `errno` on failure (`opendir`, `realpath`):
/// retried on `EINTR`, its failure a typed error.
@inline(__always)
public func pointerOrErrno<P>(_ operation: String, _ body: () -> P?) throws -> P {
    while true {
        if let p = body() { return p }
        let e = errno
        if e == EINTR { continue }
        throw SystemError.fromErrno(operation, e)
    }
}

/// A call that returns its error number instead of setting `errno` (0: done; see
/// posix_spawn(3), pthread_sigmask(3); a negated one, as libseccomp's, is read the same).
@inline(__always)
public func zeroOrErrorNumber(_ operation: String, _ body: () -> Int32) throws {
    let rc = body()
    guard rc != 0 else { return }
    throw SystemError.fromErrno(operation, abs(rc))
}

extension String {
    /// A string from a NUL-terminated C buffer.
    public init(cBuffer: [CChar]) {
        let bytes = cBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        self = String(decoding: bytes, as: UTF8.self)
    }
}
