import Foundation
import SnapSortSystem
import SnapSortTestSupport
import Synchronization
import Testing

@testable import SnapSortCore

/// Tesseract through the live inspector, on a real printed page (Tests/Fixtures/ocr).
@Suite struct OCRTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures").standardized.path

    static func page() throws -> Bitmap {
        try PNG.decode(try FileSystem.readFile("\(fixtures)/ocr/page.png", limit: 1 << 22), channels: 3, maxPixels: 1 << 22)
    }

    @Test func aPrintedPageReads() throws {
        let r = try OCR.recognize(try Self.page())
        #expect(r.words >= 60, "\(r.words) words")
        #expect(r.text.contains("students") && r.text.contains("projects"), "\(r.text)")
    }

    /// Tesseract's LSTM asks for OpenMP teams of four; their idle threads spin. A thread that
    /// recognized text has OpenMP's max-active-levels at 0, so those regions ran on it alone.
    @Test func recognitionStartsNoOpenMPTeams() throws {
        final class Outcome: @unchecked Sendable { var words = 0, levels = -2 }
        let page = try Self.page(), outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        // A thread of its own: the setting is per thread, and it must be the recognizing thread's.
        let thread = Thread {
            outcome.words = (try? OCR.recognize(page).words) ?? 0
            outcome.levels = OCR.openMPMaxActiveLevelsOnThisThread()
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
        done.wait()
        #expect(outcome.words >= 60)
        #expect(outcome.levels == 0 || outcome.levels == -1, "max-active-levels \(outcome.levels)")
    }

    /// Engines are pooled: a thread that finds every engine busy starts its own (up to the
    /// pool's size), so recognitions on the scan's workers run side by side; more threads than
    /// that wait their turn; every thread reads the same words.
    @Test func recognitionsRunSideBySideOnPooledEngines() throws {
        let page = try Self.page()
        let alone = try OCR.recognize(page)
        OCR.setMaxEngines(4)
        var second: OCR.Result?
        let held = try OCR.withEngineHeld {
            // One engine is taken: this reading needs a second one, and does not wait.
            second = try OCR.recognize(page)
            #expect(OCR.engines >= 2)
        }
        #expect(second == alone)
        #expect(held)
        let results = Mutex<[OCR.Result?]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            let r = try? OCR.recognize(page)
            results.withLock { $0.append(r) }
        }
        #expect(results.withLock { $0 } == Array(repeating: alone, count: 6))
        #expect(OCR.engines <= 4)
    }

    /// Idle engines can be let go (an agent between scans); one in use stays, and the next
    /// recognition starts an engine again and reads the same words.
    @Test func idleEnginesCanBeLetGoAndStartAgain() throws {
        let page = try Self.page()
        let first = try OCR.recognize(page)
        OCR.setMaxEngines(4)
        OCR.withEngineHeld {
            OCR.releaseIdleEngines()
            #expect(OCR.engines >= 1)  // the held one
        }
        OCR.releaseIdleEngines()
        #expect(try OCR.recognize(page) == first)
        #expect(OCR.engines >= 1)
    }

    @Test func aPhotoWithoutTextHasNoWords() throws {
        let coffee = try JPEG.decode(
            try FileSystem.readFile("\(Self.fixtures)/vision/coffee.jpg", limit: 1 << 24), scaleNumerator: 8,
            maxHeaderPixels: 1 << 24, maxOutputPixels: 1 << 24
        ).bitmap
        #expect(try OCR.recognize(coffee).words < 3)
    }

    /// End to end: the page photographed as a JPEG passes the cheap gate, the scan's worker reads
    /// it, and it lands in Docs & Receipts; the cup of coffee does not.
    @Test func aScannedPageIsADocument() throws {
        let t = try TestLibrary()
        t.dir.write("Pictures/IMG_20241019_123231.jpg", Fixtures.jpeg(try Self.page(), quality: 90, dateTimeOriginal: "2024:10:19 12:32:31"))
        t.dir.write("Pictures/coffee.jpg", try FileSystem.readFile("\(Self.fixtures)/vision/coffee.jpg", limit: 1 << 24))
        let scanner = t.scanner()
        scanner.inspector = .live
        _ = try scanner.scan([t.root])
        var grouper = Grouper(library: t.library)
        grouper.inspector = .none  // the worker's findings must be enough
        try grouper.regroupAll()
        let docs = try t.library.groupMembers(.document).map { ($0.item.path as NSString).lastPathComponent }
        #expect(docs == ["IMG_20241019_123231.jpg"])
    }

    /// The live inspector reads a page at half the inspection size first: large print proves a
    /// document there; small print (the same page, a quarter of a larger frame) does not, and the
    /// full size decides — with the reading an inspection at that size alone would give.
    @Test func largePrintReadsAtHalfSizeSmallPrintAtTheFullSize() throws {
        let dir = TempDir()
        let page = try Self.page()
        var large = Bitmap(width: page.width * 2, height: page.height * 2, channels: 3)
        for y in 0..<large.height {
            for x in 0..<large.width {
                for k in 0..<3 { large.pixels[(y * large.width + x) * 3 + k] = page.pixels[((y / 2) * page.width + x / 2) * 3 + k] }
            }
        }
        var small = Bitmap(width: page.width * 2, height: page.height * 3, channels: 3, fill: 250)
        for y in 0..<page.height {
            for x in 0..<page.width { for k in 0..<3 { small.pixels[(y * small.width + x) * 3 + k] = page.pixels[(y * page.width + x) * 3 + k] } }
        }
        func inspect(_ b: Bitmap, _ name: String) throws -> (words: Int, half: Int, full: Int) {
            let path = dir.path + "/" + name
            try FileSystem.writeAtomically(path, Fixtures.jpeg(b, quality: 92))
            let file = InspectedFile(GroupsRulesTests.item(path, width: b.width, height: b.height), enoughWords: 12)
            let decoded = try #require(file.bitmap), half = try #require(file.half)
            return (FileInspector.live.recognizeText(file).0, try OCR.recognize(half).words, try OCR.recognize(decoded).words)
        }
        let l = try inspect(large, "large.jpg")
        #expect(l.half >= 12 && l.words == l.half, "\(l)")
        let s = try inspect(small, "small.jpg")
        #expect(s.half < 12 && s.full >= 12 && s.words == s.full, "\(s)")
    }

    /// A page photographed close in a 12 MP frame (print large for its pixels) reads its dozen
    /// words at the quarter-size look (~500 px), and that reading is the one kept: the half-size
    /// look, which reads more of it, is never made.
    @Test func printLargeForItsPixelsReadsAtTheQuarterSize() throws {
        let dir = TempDir()
        let page = try Self.page()
        let k = 6
        var frame = Bitmap(width: 4000, height: 3000, channels: 3, fill: 250)
        let x0 = (frame.width - page.width * k) / 2, y0 = (frame.height - page.height * k) / 2
        for y in 0..<(page.height * k) {
            for x in 0..<(page.width * k) {
                for c in 0..<3 { frame.pixels[((y0 + y) * frame.width + x0 + x) * 3 + c] = page.pixels[((y / k) * page.width + x / k) * 3 + c] }
            }
        }
        let path = dir.path + "/IMG_0001.jpg"
        try FileSystem.writeAtomically(path, Fixtures.jpeg(frame, quality: 90))
        let file = InspectedFile(GroupsRulesTests.item(path, width: frame.width, height: frame.height), enoughWords: 12)
        let quarter = try #require(file.quarter), half = try #require(file.half)
        #expect(quarter.width == half.width / 2 && min(quarter.width, quarter.height) >= FileInspector.minimumQuarterSide)
        let atQuarter = try OCR.recognize(quarter), atHalf = try OCR.recognize(half)
        #expect(atQuarter.words >= 12 && atQuarter.text != atHalf.text, "\(atQuarter.words) at a quarter, \(atHalf.words) at half")
        let (words, text) = FileInspector.live.recognizeText(file)
        #expect(words == atQuarter.words && text == atQuarter.text)
    }

    /// A receipt photographed sideways in a file that does not say so (no EXIF orientation; the
    /// demo library's receipt) reads as a few garbled words; a quarter turn reads it.
    @Test func aSidewaysReceiptWithoutOrientationReads() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../share/demo/receipt.jpg").standardized
            .path
        let header = try JPEG.readHeader(try FileSystem.readFile(path, limit: 1 << 24))
        #expect(header.width > header.height)  // the receipt's lines run up the picture
        let file = InspectedFile(GroupsRulesTests.item(path, width: header.width, height: header.height), enoughWords: 12)
        let asIs = try OCR.recognize(try #require(file.bitmap)).words
        let (words, text) = FileInspector.live.recognizeText(file)
        #expect(asIs < 12 && words >= 12, "\(asIs) as is, \(words) turned")
        #expect(text.contains("ALEGRIA"), "\(text)")
    }

    /// The gate in front of Tesseract: the page passes; real photos do not, and neither does a
    /// page that covers only a sliver of a dark frame (its median pixel is the table, not paper).
    @Test func onlyPageLikeFramesGoThroughOCR() throws {
        let rules = GroupRules()
        let item = GroupsRulesTests.item("/p/IMG_0001.jpg")
        func candidate(_ b: Bitmap) -> Bool { rules.isDocumentCandidate(item, MetricsComputer.measure(b, orientation: 1, decodeScale: 8).0) }
        let page = try Self.page()
        #expect(candidate(page))
        for name in ["astronaut.jpg", "chelsea.jpg", "coffee.jpg", "forest-path.jpg"] {
            #expect(!candidate(try MetricsFinderPatternTests.photo(name)), "\(name)")
        }
        var sliver = Bitmap(width: page.width * 3, height: page.height, channels: 3, fill: 40)
        for y in 0..<page.height {
            for x in 0..<page.width { for k in 0..<3 { sliver.pixels[(y * sliver.width + x) * 3 + k] = page.pixels[(y * page.width + x) * 3 + k] } }
        }
        #expect(!candidate(sliver))
    }

    /// A screenshot is never a document, so nobody reads it: not the scanner's worker, not the
    /// grouper (its words stay unknown); the same page photographed is read once, by the worker.
    @Test func screenshotsAreNotRead() throws {
        let t = try TestLibrary()
        let page = try Self.page()
        t.dir.write("Pictures/Screenshots/Screenshot_20241019-101010.png", Fixtures.png(page))
        t.dir.write("Pictures/IMG_20241019_101500.jpg", Fixtures.jpeg(page, quality: 92))
        let read = Mutex<[String]>([])
        let counting = FileInspector(
            decodeQR: { _ in nil },
            recognizeText: { file in
                read.withLock { $0.append(String(file.item.path.split(separator: "/").last!)) }
                return FileInspector.live.recognizeText(file)
            })
        let scanner = t.scanner()
        scanner.inspector = counting
        _ = try scanner.scan([t.root])
        var grouper = Grouper(library: t.library)
        grouper.inspector = counting
        try grouper.regroupAll()
        #expect(read.withLock { $0 } == ["IMG_20241019_101500.jpg"])
        #expect(try t.library.groupMembers(.document).map { String($0.item.path.split(separator: "/").last!) } == ["IMG_20241019_101500.jpg"])
        #expect(try t.library.db.scalar("SELECT count(*) FROM file_findings WHERE ocr_words IS NOT NULL") == 1)
    }
}
