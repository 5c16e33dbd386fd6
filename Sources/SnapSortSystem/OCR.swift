import COCR
import Glibc

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

    /// Debian's Tesseract runs OpenMP teams of four threads (`num_threads(4)` in its LSTM) whose
    /// idle members spin between parallel regions: on a busy core that is time taken from the
    /// scan, and a background agent should never spin. libgomp reads its limits from the
    /// environment only, when it is loaded — before `main` runs — so a process that may run OCR
    /// calls this first thing: it sets `OMP_THREAD_LIMIT=1` and re-executes itself once (same
    /// pid, arguments and environment otherwise; systemd and the notify socket see no change).
    /// A limit the user set is respected; if the re-exec fails the process simply goes on.
    public static func limitOpenMPThreadsByReexecuting() {
        guard getenv("OMP_THREAD_LIMIT") == nil else { return }
        setenv("OMP_THREAD_LIMIT", "1", 1)
        _ = execv("/proc/self/exe", CommandLine.unsafeArgv)
    }
}

