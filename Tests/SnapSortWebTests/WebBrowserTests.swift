import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortWeb

/// The page in a real browser: Tests/browser/run.sh drives headless Chromium (Debian's
/// /usr/bin/chromium, through Playwright from PyPI) against a live server on a temp library:
/// swipes with pointer events and keys, undo, full screen, keeper change, restore and a
/// commit into the temp home's Trash, browsing by filter and year, Later, Kept, chapters, a
/// finished deck's recap, the refresh when photos are added, the banner while the server
/// does not answer; screenshots of every view (light, dark, phone width)
/// land in .build/artifacts/web/. SNAPSORT_SKIP_BROWSER=1 skips it (no chromium).
@Suite(.serialized) struct WebBrowserTests {
    static var repo: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized.path
    }

    @Test(
        .enabled(
            if: ProcessInfo.processInfo.environment["SNAPSORT_SKIP_BROWSER"] != "1"
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")))
    func pageInHeadlessChromium() throws {
        let h = try WebHarness(pages: true)
        try h.lib.library.db.run(
            "INSERT OR REPLACE INTO vision_state(id, available, problem) VALUES(1, 0, 'the local models are off (browser test)')")
        let artifacts = Self.repo + "/.build/artifacts/web"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.repo + "/Tests/browser/run.sh")
        p.arguments = ["http://127.0.0.1:\(h.port)/?token=\(h.token)", h.home, h.lib.root, artifacts]
        var env = ProcessInfo.processInfo.environment
        env["HOME"] = h.home
        // The page refreshes when photos are added behind its back: the script adds one and
        // scans it with the real binary, as the agent would, into the served library.
        env["SNAPSORT_BIN"] = SnapsortBinary.path
        env["SNAPSORT_DB"] = h.lib.dbPath
        p.environment = env
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let log = String(decoding: data, as: UTF8.self)
        try? log.write(toFile: artifacts + "/browser.log", atomically: true, encoding: .utf8)
        for line in log.split(separator: "\n") where line.hasPrefix("FAIL") { Issue.record(Comment(rawValue: String(line))) }
        #expect(p.terminationStatus == 0, "browser tests failed:\n\(log.suffix(3000))")
    }
}
