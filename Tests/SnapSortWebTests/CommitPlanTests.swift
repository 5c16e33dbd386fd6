import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortWeb

/// The commit's question is one `CommitPlan`: the page's dialog (its words come from the API)
/// and the CLI's `trash commit` (the binary, on a terminal) ask it in the same words.
@Suite("Commit plan: the page and the CLI ask one question")
struct CommitPlanTests {
    @Test func thePageAndTheCLIAskTheSameQuestionOfTheSameStagedFiles() throws {
        // script(1) gives the binary a terminal to ask on (util-linux, in scripts/packages.txt).
        try #require(FileSystem.exists("/usr/bin/script"))
        let h = try WebHarness()
        // What goes with a photo at the commit (an .xmp), found by the scan.
        h.lib.dir.write("Pictures/IMG_0001.xmp", Array(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"></x:xmpmeta>"#.utf8))
        try h.lib.scan([h.lib.root])
        // The burst staged whole (nothing of its set stays), and a photo changed since its review.
        for name in ["IMG_0001.jpg", "IMG_0002.jpg", "IMG_0003.jpg", "beach.jpg"] {
            #expect(try h.post("/api/decide", #"{"id":\#(h.id(name)),"decision":"trash"}"#).status == 200)
        }
        h.lib.dir.write("Pictures/beach.jpg", Fixtures.jpeg(seed: 12, width: 80, height: 60))

        let commit = try #require(h.json(try h.get("/api/trash"))["commit"])
        #expect(commit["moving"]?.intValue == 3 && commit["staying_count"]?.intValue == 1, "\(commit)")
        #expect(commit["sidecars"]?.intValue == 1)
        #expect(commit["last_copy_count"]?.intValue == 3)
        #expect(commit["ids"]?.arrayValue?.count == 4)
        let question = try #require(commit["question"]?.stringValue)
        #expect(question.hasPrefix("Move 3 files and 1 file that goes with them (IMG_0001.xmp) ("), "\(question)")
        #expect(commit["confirm"]?.stringValue == "Move 3 files")
        let staying = try #require(commit["staying"]?.stringValue)
        #expect(staying == "1 stays in place: beach.jpg (changed since it was reviewed).")
        let last = try #require(commit["last_copies"]?.stringValue)
        #expect(last.hasPrefix("3 of them are the last copies of "), "\(last)")
        let pageWords = try #require(commit["text"]?.stringValue)
        #expect(pageWords == [last, question, staying].joined(separator: " "))

        // The CLI, on a terminal, answered no: the same words, and nothing moves.
        let q = try SnapsortBinary.run(
            ["-qec", "'\(SnapsortBinary.path)' --db '\(h.lib.dbPath)' trash commit", "/dev/null"], stdin: "n\n", launcher: "/usr/bin/script")
        #expect(q.stdout.contains(pageWords + " [y/N]"), "\(q.stdout)\n— the page asked: \(pageWords)")
        #expect(q.stdout.contains("Nothing moved."))
        for name in ["IMG_0001.jpg", "IMG_0001.xmp", "IMG_0002.jpg", "IMG_0003.jpg", "beach.jpg"] {
            #expect(FileSystem.exists(h.lib.root + "/" + name), "\(name)")
        }
        // And both are Core's plan.
        #expect(try CommitPlan.load(library: h.lib.library).text == pageWords)
    }

    /// A plan of what a part of the staged files would do: the page's bulk actions can tell
    /// how many last copies they left (issue 43).
    @Test func aPlanOfPartOfTheStagedFilesCountsItsOwnLastCopies() throws {
        let h = try WebHarness()
        for name in ["IMG_0001.jpg", "IMG_0002.jpg", "IMG_0003.jpg", "beach.jpg"] {
            #expect(try h.post("/api/decide", #"{"id":\#(h.id(name)),"decision":"trash"}"#).status == 200)
        }
        let all = try TrashOverview.load(library: h.lib.library).staged
        let whole = CommitPlan(all)
        #expect(whole.moving.count == 4 && whole.staying.isEmpty)
        #expect(whole.lastCopyCount == 3 && whole.lastCopySets.count == 1)
        #expect(whole.bytes == all.reduce(0) { $0 + $1.item.bytes })
        let beach = CommitPlan(all.filter { $0.item.path.hasSuffix("/beach.jpg") })
        #expect(beach.lastCopyCount == 0 && beach.lastCopiesWarning == nil)
        #expect(beach.question.hasPrefix("Move 1 file ("), "\(beach.question)")
        #expect(beach.stayingSentence == nil)
    }
}
