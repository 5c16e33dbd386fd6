// libFuzzer harness: the bounded TIFF IFD walk RAW previews are found with.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let src = MemorySource(Array(UnsafeBufferPointer(start: data, count: size)))
    if let r = TIFFWalker.walk(src) {
        // Every preview it reports must lie inside the file.
        for p in r.previews { precondition(p.offset >= 0 && p.length > 0 && p.offset + p.length <= src.size) }
    }
    return 0
}
