// libFuzzer harness: the bounded EBML reader (Matroska, WebM).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if let info = EBML.parse(MemorySource(Array(UnsafeBufferPointer(start: data, count: size)))) {
        if let d = info.durationSeconds { precondition(d > 0 && d.isFinite) }
    }
    return 0
}
