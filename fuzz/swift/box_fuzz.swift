// libFuzzer harness: the bounded ISO BMFF / QuickTime box parser (MP4, MOV, M4V, 3GP).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if let info = BoxParser.parse(MemorySource(Array(UnsafeBufferPointer(start: data, count: size)))) {
        if let d = info.durationSeconds { precondition(d > 0 && d.isFinite) }
        if let w = info.width { precondition(w > 0) }
    }
    return 0
}
