import COCR

/// Tesseract OCR (English) behind a typed wrapper; one engine is shared by the process.
public enum OCR {
    /// What recognition found: confidently read words (≥ 2 letters or digits) and their text.
    public struct Result: Sendable, Equatable {
        public var words: Int
        public var text: String
    }

    /// Recognizes text in a gray (1-channel) bitmap; an RGB bitmap is converted to luma first.
    public static func recognize(_ bitmap: Bitmap, minConfidence: Int = 70, maxTextBytes: Int = 4096) throws -> Result {
        let gray = bitmap.channels == 1 ? bitmap.pixels : QR.luma(bitmap)
        var words: Int32 = 0
        var text = [CChar](repeating: 0, count: maxTextBytes)
        var msg = [CChar](repeating: 0, count: Int(SS_OCR_MSG))
        let rc = gray.withUnsafeBufferPointer { g in
            ss_ocr_recognize(g.baseAddress, Int32(bitmap.width), Int32(bitmap.height), Int32(minConfidence), &words, &text, text.count, &msg)
        }
        guard rc == 0 else { throw SystemError(.unsupported, String(cBuffer: msg), operation: "ocr") }
        return Result(words: Int(words), text: String(cBuffer: text))
    }

    /// The most Tesseract engines started at once (one per thread recognizing at the same time,
    /// ~17 MB each; by default the online cores, at most 4).
    public static func setMaxEngines(_ n: Int) { ss_ocr_set_max_engines(Int32(clamping: n)) }

    /// How many engines are alive in this process.
    public static var engines: Int { Int(ss_ocr_engines()) }

    /// Lets the engines no thread is using go (~17 MB each): a long-running agent keeps none
    /// between scans; the next recognition starts one again (~0.15 s). Returns how many.
    @discardableResult
    public static func releaseIdleEngines() -> Int { Int(ss_ocr_release_idle()) }

    /// Runs `body` while holding one engine out of the pool, as another thread recognizing
    /// would (tests of the pool). False when Tesseract cannot start.
    @discardableResult
    public static func withEngineHeld(_ body: () throws -> Void) rethrows -> Bool {
        let held = ss_ocr_hold()
        guard held >= 0 else { return false }
        defer { ss_ocr_release(held) }
        try body()
        return true
    }

    /// OpenMP's max-active-levels on the calling thread: 0 after `recognize` ran on it (Debian's
    /// Tesseract then runs its `num_threads(4)` regions on that thread alone, so no team of
    /// spinning threads is ever started), -1 when OpenMP is not loaded.
    public static func openMPMaxActiveLevelsOnThisThread() -> Int {
        Int(ss_ocr_max_active_levels())
    }
}
