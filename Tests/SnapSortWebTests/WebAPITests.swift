import Foundation
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortWeb

/// The JSON API over decks, decisions, undo, groups, trash and stats.
@Suite(.serialized) struct WebAPITests {
    @Test func deckDecideUndo() throws {
        let h = try WebHarness()
        let decks = h.json(try h.get("/api/decks"))["decks"]?.arrayValue ?? []
        #expect(decks.contains { $0["id"]?.stringValue == "month:2024-05" })
        let s = h.json(try h.post("/api/sessions", #"{"deck":"month:2024-05"}"#))
        let sid = try #require(s["id"]?.intValue)
        let cards = s["cards"]?.arrayValue ?? []
        // May 2024: the burst, and the clip (its container says it was recorded then).
        let names = Set(cards.compactMap { $0["name"]?.stringValue })
        #expect(names == ["IMG_0001.jpg", "IMG_0002.jpg", "IMG_0003.jpg", "clip.mp4"], "\(names)")
        let first = try #require(cards.first?["id"]?.intValue)
        let d = h.json(try h.post("/api/decide", #"{"id":\#(first),"decision":"trash","session":\#(sid)}"#))
        #expect(d["session"]?["position"]?.intValue == 1)
        #expect(d["summary"]?["trash"]?["count"]?.intValue == 1)
        // The goal is one a day: a decision made elsewhere (the terminal deck) counts on the page too.
        let other = try #require(cards.last?["id"]?.intValue)
        try Review.decide(.keep, fileID: Int64(other), library: h.lib.library, clock: .live)
        let again = h.json(try h.post("/api/sessions", #"{"deck":"month:2024-05"}"#))
        #expect(again["done_today"]?.intValue == 2 && again["decisions"]?.intValue == 1, "\(again.serialized())")
        _ = try Review.undo(library: h.lib.library, clock: .live)
        let u = h.json(try h.post("/api/undo", "{}"))
        #expect(u["id"]?.intValue == first && u["session"]?["position"]?.intValue == 0)
        // It names the file, so a decision taken back from another window is recognizable.
        #expect(u["name"]?.stringValue == cards.first?["name"]?.stringValue && u["committed_since"]?.intValue == 0)
        #expect(try h.post("/api/undo", "{}").status == 409)
        let bad = try h.post("/api/decide", #"{"id":999999,"decision":"trash"}"#)
        #expect(bad.status == 404 && h.json(bad)["error"]?["message"]?.stringValue != nil)
        #expect(try h.post("/api/decide", #"{"id":1,"decision":"burn"}"#).status == 400)
        #expect(try h.post("/api/decide", "not json").status == 400)
        #expect(try h.get("/api/nope").status == 404)
    }

    /// A card carries what the scan read: a ticket's QR payload, a page's first words; a
    /// photo nothing was read on carries neither. Also in a group deck's session.
    @Test func cardsCarryACodesPayloadAndAPagesWords() throws {
        let h = try WebHarness(pages: true)
        let ticket = h.json(try h.get("/api/items/\(h.id("ticket.png"))"))
        #expect(ticket["qr"]?.stringValue == "https://example.com/t/SNAPSORT-42")
        let letter = h.json(try h.get("/api/items/\(h.id("letter.png"))"))
        let text = try #require(letter["text"]?.stringValue)
        #expect(text.contains("students") && !text.contains("\n") && text.count <= 201, "\(text)")
        #expect(letter["qr"] == .null)
        let photo = h.json(try h.get("/api/items/\(h.id("IMG_0001.jpg"))"))
        #expect(photo["qr"] == .null && photo["text"] == .null)
        let s = h.json(try h.post("/api/sessions", #"{"deck":"group:qr"}"#))
        let cards = s["cards"]?.arrayValue ?? []
        #expect(cards.first?["qr"]?.stringValue == "https://example.com/t/SNAPSORT-42", "\(s)")
    }

    /// Undo right after a commit puts nothing back and says so (409); the page's second press,
    /// `past_commit`, takes back the decision before the commit (review 8).
    @Test func anUndoRightAfterACommitAsksBeforeGoingPastIt() throws {
        let h = try WebHarness()
        let kept = h.id("IMG_0001.jpg"), gone = h.id("beach.jpg")
        _ = try h.post("/api/decide", #"{"id":\#(kept),"decision":"keep"}"#)
        _ = try h.post("/api/decide", #"{"id":\#(gone),"decision":"trash"}"#)
        #expect(h.json(try h.post("/api/trash/commit", #"{"confirm":true}"#))["committed"]?.intValue == 1)
        let first = try h.post("/api/undo", "{}")
        #expect(first.status == 409 && first.text.contains("press Undo again"), "\(first.status) \(first.text)")
        #expect(try Review.decision(for: kept, library: h.lib.library)?.decision == .keep)
        let second = h.json(try h.post("/api/undo", #"{"past_commit":true}"#))
        #expect(second["id"]?.intValue == Int(kept) && second["undone"]?.stringValue == "keep", "\(second)")
        #expect(try Review.decision(for: kept, library: h.lib.library) == nil)
    }

    @Test func trashCommitGoesToTheHomeTrash() throws {
        let h = try WebHarness()
        let id = h.id("beach.jpg")
        _ = try h.post("/api/decide", #"{"id":\#(id),"decision":"trash"}"#)
        // Its .xmp goes with it, and the page is told so before the commit.
        try FileSystem.writeAtomically(h.lib.root + "/beach.xmp", Array("<x:xmpmeta/>".utf8))
        let t = h.json(try h.get("/api/trash"))
        #expect(t["count"]?.intValue == 1)
        #expect(t["items"]?.arrayValue?.first?["sidecars"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["beach.xmp"])
        #expect(try h.post("/api/trash/commit", "{}").status == 400)
        let c = h.json(try h.post("/api/trash/commit", #"{"confirm":true}"#))
        #expect(c["committed"]?.intValue == 1)
        let trash = h.home + "/.local/share/Trash"
        #expect(FileSystem.exists(trash + "/files/beach.jpg"))
        let info = String(decoding: try FileSystem.readFile(trash + "/info/beach.jpg.trashinfo", limit: 4096), as: UTF8.self)
        #expect(info.hasPrefix("[Trash Info]\nPath=" + h.lib.root + "/beach.jpg"))
        #expect(!FileSystem.exists(h.lib.root + "/beach.jpg"))
        let ledger = try #require(c["in_system_trash"]?.arrayValue?.first?["ledger"]?.intValue)
        _ = try h.post("/api/trash/restore", #"{"ledger":[\#(ledger)]}"#)
        #expect(FileSystem.exists(h.lib.root + "/beach.jpg"))
    }

    /// Stats notices what happened in the system Trash where every front end notices it
    /// (`LibraryUpdate.noticeRestores`, issue 42): a photo a file manager put back is counted
    /// as restored when the person looks at Stats, and the page's log says so as the CLI's does.
    @Test func statsNoticeAFileManagersRestoreThroughTheOneUpdate() throws {
        let logs = LogCapture()
        let h = try WebHarness(logger: logs.logger(label: "web"))
        let id = h.id("beach.jpg")
        _ = try h.post("/api/decide", #"{"id":\#(id),"decision":"trash"}"#)
        #expect(h.json(try h.post("/api/trash/commit", #"{"confirm":true}"#))["committed"]?.intValue == 1)
        #expect(h.json(try h.get("/api/stats"))["bytes_moved_to_trash"]?["total"]?.intValue ?? 0 > 0)
        // A file manager's Restore: the file back where it was, its .trashinfo gone.
        let trash = h.home + "/.local/share/Trash"
        try FileSystem.rename(trash + "/files/beach.jpg", h.lib.root + "/beach.jpg")
        try FileSystem.remove(trash + "/info/beach.jpg.trashinfo")
        let stats = h.json(try h.get("/api/stats"))
        #expect(stats["bytes_moved_to_trash"]?["total"]?.intValue == 0 && stats["bytes_cleared"]?["total"]?.intValue == 0, "\(stats)")
        #expect(try Review.decision(for: id, library: h.lib.library) == nil)
        #expect(logs.messages.contains { $0.contains("restores from the Trash noticed") }, "\(logs.messages)")
    }

    /// The commit moves what its dialog showed (`ids`): a file staged meanwhile in another
    /// window or the terminal stays staged for the next commit, and the page is told.
    @Test func aCommitMovesOnlyWhatItsDialogShowed() throws {
        let h = try WebHarness()
        let shown = h.id("beach.jpg"), later = h.id("IMG_0001.jpg")
        _ = try h.post("/api/decide", #"{"id":\#(shown),"decision":"trash"}"#)
        #expect(h.json(try h.get("/api/trash"))["count"]?.intValue == 1)
        _ = try h.post("/api/decide", #"{"id":\#(later),"decision":"trash"}"#)
        let c = h.json(try h.post("/api/trash/commit", #"{"confirm":true,"ids":[\#(shown)]}"#))
        #expect(c["committed"]?.intValue == 1 && c["left_staged"]?.intValue == 1, "\(c)")
        #expect(!FileSystem.exists(h.lib.root + "/beach.jpg") && FileSystem.exists(h.lib.root + "/IMG_0001.jpg"))
        #expect(c["items"]?.arrayValue?.compactMap { $0["id"]?.intValue } == [Int(later)])
    }

    /// A half-done rediscovery deck resumes where it was (a reload dealt a new random deck and
    /// lost the place); a finished one deals anew.
    @Test func aRediscoveryDeckResumesOnReload() throws {
        let h = try WebHarness()
        let first = h.json(try h.post("/api/sessions", #"{"deck":"rediscover:0"}"#))
        let sid = try #require(first["id"]?.intValue)
        let card = try #require(first["cards"]?.arrayValue?.first?["id"]?.intValue)
        _ = try h.post("/api/decide", #"{"id":\#(card),"decision":"keep","session":\#(sid)}"#)
        let again = h.json(try h.post("/api/sessions", #"{"deck":"rediscover:0"}"#))
        #expect(again["id"]?.intValue == sid, "\(again)")
        #expect(again["cards"]?.arrayValue?.first?["id"]?.intValue != card)
    }

    /// A finished deck opened again (a reload of `#deck=…`) answers its last session, with its
    /// recap, not an empty new one ("Nothing in this deck"); new cards since deal a new session.
    @Test func aFinishedDeckKeepsItsRecap() throws {
        let h = try WebHarness()
        let first = h.json(try h.post("/api/sessions", #"{"deck":"month:2022-07"}"#))
        let sid = try #require(first["id"]?.intValue)
        let card = try #require(first["cards"]?.arrayValue?.first?["id"]?.intValue)
        #expect(first["cards"]?.arrayValue?.count == 1)
        _ = try h.post("/api/decide", #"{"id":\#(card),"decision":"keep","session":\#(sid)}"#)
        let again = h.json(try h.post("/api/sessions", #"{"deck":"month:2022-07"}"#))
        #expect(again["id"]?.intValue == sid && again["total"]?.intValue == 1 && again["cards"]?.arrayValue?.isEmpty == true, "\(again)")
        #expect(again["recap"]?["kept"]?.intValue == 1 && again["finished"] == .bool(true), "\(again)")
        // Undecided again: the deck has a card, and a session deals it.
        _ = try h.post("/api/decide", #"{"id":\#(card),"decision":"skip"}"#)
        let anew = h.json(try h.post("/api/sessions", #"{"deck":"month:2022-07"}"#))
        #expect(anew["id"]?.intValue != sid && anew["cards"]?.arrayValue?.count == 1, "\(anew)")
    }

    /// A file deleted since the scan: its renditions are a 404 the page can word (a 500 "stat:
    /// No such file or directory" drew a broken image on the card).
    @Test func aFileGoneSinceTheScanIsA404() throws {
        let h = try WebHarness()
        let id = h.id("IMG_0002.jpg")
        try FileSystem.remove(h.lib.root + "/IMG_0002.jpg")
        for kind in ["display", "thumb", "original"] {
            let r = try h.get("/media/\(id)/\(kind)")
            #expect(r.status == 404, "\(kind): \(r.status) \(r.text)")
        }
    }

    /// Issue 32, item 2, on the page: a Similar Shots set staged whole (its keeper with it) is
    /// a set of last copies, named for the commit's dialog; with its keeper left, none is.
    /// Cards say which photo is its set's keeper and which is a copy of what.
    @Test func aSetStagedWholeIsNamedBeforeTheCommit() throws {
        let h = try WebHarness()
        let set = try #require(h.json(try h.get("/api/similar"))["sets"]?.arrayValue?.first)
        let sid = try #require(set["id"]?.stringValue)
        let members = (set["members"]?.arrayValue ?? []).compactMap { $0["id"]?.intValue }
        let keeper = try #require(members.first)
        #expect(members.count == 3, "\(set)")
        // The cards: the keeper says so, in any deck (here the month's).
        let session = h.json(try h.post("/api/sessions", #"{"deck":"month:2024-05"}"#))
        let cards = session["cards"]?.arrayValue ?? []
        let keeperCard = try #require(cards.first { $0["id"]?.intValue == keeper })
        #expect(keeperCard["keeper"]?.boolValue == true && keeperCard["set_role"]?.stringValue == "suggested keeper", "\(keeperCard)")
        #expect(cards.filter { $0["keeper"]?.boolValue == true }.count == 1)
        for id in members.dropFirst() { _ = try h.post("/api/decide", #"{"id":\#(id),"decision":"trash"}"#) }
        var t = h.json(try h.get("/api/trash"))
        #expect(t["items"]?.arrayValue?.allSatisfy { $0["last_copy"]?.boolValue == false } == true, "\(t)")
        #expect(t["last_copies"]?["count"]?.intValue == 0 && t["last_copies"]?["message"] == .null)
        // The keeper staged too: nothing of the set stays.
        _ = try h.post("/api/decide", #"{"id":\#(keeper),"decision":"trash"}"#)
        t = h.json(try h.get("/api/trash"))
        #expect(t["items"]?.arrayValue?.count == 3 && t["items"]?.arrayValue?.allSatisfy { $0["last_copy"]?.boolValue == true } == true, "\(t)")
        let named = try #require(t["last_copies"]?["sets"]?.arrayValue?.first)
        // The burst's frames are one scene re-encoded: near-copies, so its set is a duplicate set too.
        let copies = set["members"]?.arrayValue?.contains { $0["duplicate_of"]?.intValue != nil } == true
        #expect(named["id"]?.stringValue == sid && named["kind"]?.stringValue == (copies ? "duplicate" : "similar"), "\(named)")
        #expect(named["names"]?.arrayValue?.count == 3)
        let message = try #require(t["last_copies"]?["message"]?.stringValue)
        // Named by its keeper's file name and the day it was taken, never by its id (issue 43, item 5).
        let keeperName = try #require(set["members"]?.arrayValue?.first?["name"]?.stringValue)
        let title = (copies ? "the duplicate set of " : "the Similar Shots set of ") + keeperName + " (4 May 2024)"
        #expect(message.hasPrefix("3 of them are the last copies of \(title) (") && message.contains("IMG_0001.jpg"), "\(message)")
        #expect(!message.contains(sid) && t["commit"]?["text"]?.stringValue?.contains(sid) == false, "\(message)")
    }

    /// A copy of a picture elsewhere in the library: its card says whose copy it is while the
    /// original stays; every copy staged names the duplicate set, one kept leaves none named.
    @Test func aCopysCardNamesItsOriginalAndTheLastCopiesAreNamed() throws {
        let h = try WebHarness()
        let beach = h.lib.root + "/beach.jpg"
        _ = h.lib.dir.write("Pictures/Backup/beach.jpg", try FileSystem.readFile(beach, limit: 1 << 24))
        try h.lib.scan([h.lib.root])
        try Grouper(library: h.lib.library).regroupAll()
        let original = h.id("beach.jpg")
        let copy = try #require(try h.lib.library.item(path: h.lib.root + "/Backup/beach.jpg")?.id)
        let (copyCard, originalCard) = (h.json(try h.get("/api/items/\(copy)")), h.json(try h.get("/api/items/\(original)")))
        // Which of the two is the original is the grouper's call (`GroupRules.originalOrder`).
        let pair = [copyCard, originalCard]
        #expect(pair.filter { $0["copy_of"]?.stringValue == "beach.jpg" }.count == 1, "\(pair)")
        #expect(pair.contains { $0["set_role"]?.stringValue == "copy of beach.jpg" })
        _ = try h.post("/api/decide", #"{"id":\#(original),"decision":"trash"}"#)
        #expect(h.json(try h.get("/api/trash"))["items"]?.arrayValue?.first?["last_copy"]?.boolValue == false)
        _ = try h.post("/api/decide", #"{"id":\#(copy),"decision":"trash"}"#)
        let t = h.json(try h.get("/api/trash"))
        #expect(t["items"]?.arrayValue?.allSatisfy { $0["last_copy"]?.boolValue == true } == true, "\(t)")
        #expect(t["last_copies"]?["sets"]?.arrayValue?.first?["kind"]?.stringValue == "duplicate")
        // Named by its keeper's file name and date, never its id (issue 43, item 5).
        let message = t["last_copies"]?["message"]?.stringValue ?? ""
        #expect(message.contains("are the last copies of the duplicate set of beach.jpg (14 Jul 2022)"), "\(t)")
        #expect(message.range(of: #"\bs[0-9]+\b"#, options: .regularExpression) == nil, "\(message)")
        // A staged original is no original to point at: its copy's card no longer says "copy of".
        let copyID = try #require(pair.first { $0["copy_of"]?.stringValue != nil }?["id"]?.intValue)
        #expect(h.json(try h.get("/api/items/\(copyID)"))["copy_of"] == .null)
    }

    @Test func similarKeeperAndTrashRest() throws {
        let h = try WebHarness()
        let sets = h.json(try h.get("/api/similar"))["sets"]?.arrayValue ?? []
        let set = try #require(sets.first)
        let members = set["members"]?.arrayValue ?? []
        #expect(members.count >= 2 && members.first?["keeper"]?.boolValue == true)
        let other = try #require(members.last?["id"]?.intValue)
        let after = h.json(try h.post("/api/similar/keeper", #"{"id":\#(other)}"#))
        let first = after["sets"]?.arrayValue?.first { s in s["members"]?.arrayValue?.contains { $0["id"]?.intValue == other } ?? false }
        #expect(first?["members"]?.arrayValue?.first?["id"]?.intValue == other)
        let sid = try #require(first?["id"]?.stringValue)
        let r = h.json(try h.post("/api/similar/trash-rest", #"{"set":"\#(sid)"}"#))
        #expect(r["staged"]?.intValue == members.count - 1)
        #expect(members.count - 1 >= 2, "a set whose rest is more than one file")
        // One action, one undo: every file it staged is undecided again.
        let before = h.json(try h.post("/api/decide", #"{"id":\#(other),"decision":"keep"}"#))
        #expect(before["decision"]?.stringValue == "keep")
        _ = h.json(try h.post("/api/undo", "{}"))  // the keep
        let undone = h.json(try h.post("/api/undo", "{}"))
        #expect(undone["count"]?.intValue == members.count - 1, "\(undone.serialized())")
        #expect(h.json(try h.get("/api/summary"))["trash"]?["count"]?.intValue == 0)
        // The keeper choice is a step of its own, older than "trash the rest".
        #expect(h.json(try h.get("/api/summary"))["undo_depth"]?.intValue == 1)
        #expect(h.json(try h.post("/api/undo", "{}"))["kind"]?.stringValue == "keeper")
        #expect(h.json(try h.get("/api/summary"))["undo_depth"]?.intValue == 0)
    }

    /// A card decided in another window since the page showed it (a second tab, the terminal):
    /// the page's press says so instead of replacing that decision silently; a second press,
    /// without what it saw, replaces it (review 7, F13).
    @Test func aDecisionMadeElsewhereIsNotReplacedWithoutAWord() throws {
        let h = try WebHarness()
        let s = h.json(try h.post("/api/sessions", #"{"deck":"month:2024-05"}"#))
        let card = try #require(s["cards"]?.arrayValue?.first)
        let id = try #require(card["id"]?.intValue)
        #expect(card["decision"] == .null || card["decision"] == nil)
        try Review.decide(.keep, fileID: Int64(id), library: h.lib.library, clock: .live)
        let stale = try h.post("/api/decide", #"{"id":\#(id),"decision":"trash","seen":null}"#)
        #expect(stale.status == 409 && stale.text.contains("was kept in another window meanwhile"), "\(stale.status) \(stale.text)")
        #expect(try Review.decision(for: Int64(id), library: h.lib.library)?.decision == .keep)
        // What the page saw matches: taken.
        #expect(try h.post("/api/decide", #"{"id":\#(id),"decision":"skip","seen":"keep"}"#).status == 200)
        // Told, the user presses again (no `seen`): taken.
        #expect(try h.post("/api/decide", #"{"id":\#(id),"decision":"trash"}"#).status == 200)
        #expect(try Review.decision(for: Int64(id), library: h.lib.library)?.decision == .trash)
    }

    /// "Trash the rest", a change of mind (a staged frame becomes the keeper), "trash the rest"
    /// again: the new keeper is un-staged and stays; the set is never staged whole. A keeper
    /// staged from a deck holds "trash the rest" back until a keeper is chosen.
    @Test func aStagedFrameChosenAsKeeperIsUnstagedAndTheSetNeverGoesWhole() throws {
        let h = try WebHarness()
        let set = try #require(h.json(try h.get("/api/similar"))["sets"]?.arrayValue?.first)
        let sid = try #require(set["id"]?.stringValue)
        let members = (set["members"]?.arrayValue ?? []).compactMap { $0["id"]?.intValue }
        let keeper = members[0], other = members[members.count - 1]
        func decision(_ id: Int) throws -> String? {
            h.json(try h.get("/api/similar"))["sets"]?.arrayValue?.flatMap { $0["members"]?.arrayValue ?? [] }
                .first { $0["id"]?.intValue == id }?["decision"]?.stringValue
        }
        #expect(h.json(try h.post("/api/similar/trash-rest", #"{"set":"\#(sid)"}"#))["staged"]?.intValue == members.count - 1)
        #expect(try decision(other) == "trash")
        let chosen = h.json(try h.post("/api/similar/keeper", #"{"id":\#(other)}"#))
        #expect(chosen["unstaged"]?.boolValue == true)
        #expect(try decision(other) == nil)
        _ = try h.post("/api/similar/trash-rest", #"{"set":"\#(sid)"}"#)
        #expect(try decision(keeper) == "trash" && decision(other) == nil)
        // The keeper staged from a deck: "trash the rest" of that set is refused, of all sets skips it.
        _ = h.json(try h.post("/api/decide", #"{"id":\#(other),"decision":"trash"}"#))
        let refused = try h.post("/api/similar/trash-rest", #"{"set":"\#(sid)"}"#)
        #expect(refused.status == 400 && refused.text.contains("is staged for the Trash"), "\(refused.status) \(refused.text)")
        _ = try h.post("/api/undo", "{}")
        let staged = try Trash.staged(library: h.lib.library).map(\.fileID)
        _ = h.json(try h.post("/api/decide", #"{"id":\#(other),"decision":"trash"}"#))
        _ = try h.post("/api/similar/trash-rest", #"{"all":true}"#)
        let members2 = Set(members.map(Int64.init))
        #expect(
            try Set(Trash.staged(library: h.lib.library).map(\.fileID)).intersection(members2) == Set(staged + [Int64(other)]).intersection(members2))
    }

    /// Choosing a keeper is an undo step like a decision (Ctrl+Z took back an older decision
    /// instead, unseen): the set's keeper comes back, and a frame the choice had un-staged is
    /// staged again.
    @Test func aKeeperChoiceIsUndoneByUndo() throws {
        let h = try WebHarness()
        func sets() throws -> [JSON] { h.json(try h.get("/api/similar"))["sets"]?.arrayValue ?? [] }
        let set = try #require(try sets().first)
        let sid = try #require(set["id"]?.stringValue)
        let members = (set["members"]?.arrayValue ?? []).compactMap { $0["id"]?.intValue }
        let keeper = members[0], other = members[members.count - 1]
        func member(_ id: Int) throws -> JSON? { try sets().flatMap { $0["members"]?.arrayValue ?? [] }.first { $0["id"]?.intValue == id } }
        let depth = try Review.undoDepth(library: h.lib.library)
        _ = h.json(try h.post("/api/similar/keeper", #"{"id":\#(other)}"#))
        #expect(try member(other)?["keeper"]?.boolValue == true && Review.undoDepth(library: h.lib.library) == depth + 1)
        let undone = h.json(try h.post("/api/undo", "{}"))
        #expect(undone["kind"]?.stringValue == "keeper" && undone["id"]?.intValue == other, "\(undone)")
        #expect(try member(keeper)?["keeper"]?.boolValue == true && member(keeper)?["chosen_by_user"]?.boolValue == false)
        #expect(try member(other)?["keeper"]?.boolValue == false)
        // Staged by "trash the rest", chosen as keeper (un-staged), undone: staged again.
        _ = try h.post("/api/similar/trash-rest", #"{"set":"\#(sid)"}"#)
        #expect(try member(other)?["decision"]?.stringValue == "trash")
        _ = h.json(try h.post("/api/similar/keeper", #"{"id":\#(other)}"#))
        #expect(try member(other)?["decision"] == nil || member(other)?["decision"] == .null)
        let again = h.json(try h.post("/api/undo", "{}"))
        #expect(again["kind"]?.stringValue == "keeper" && again["restored"]?.stringValue == "trash", "\(again)")
        #expect(try member(other)?["decision"]?.stringValue == "trash" && member(keeper)?["keeper"]?.boolValue == true)
        // The next undo takes back "trash the rest".
        let rest = h.json(try h.post("/api/undo", "{}"))
        #expect(rest["kind"]?.stringValue == "decision" && rest["count"]?.intValue == members.count - 1)
        #expect(try member(other)?["decision"] == nil || member(other)?["decision"] == .null)
        // The CLI's choice is one too, and `snapsort undo` says what it took back.
        let path = try #require(try h.lib.library.item(id: Int64(other))?.path)
        let env = ["HOME": h.home, "XDG_CONFIG_HOME": h.home + "/.config", "XDG_STATE_HOME": h.home + "/.local/state"]
        #expect(try SnapsortBinary.run(["--db", h.lib.dbPath, "similar", "keeper", path], env: env).status == 0)
        #expect(try member(other)?["keeper"]?.boolValue == true)
        let cli = try SnapsortBinary.run(["--db", h.lib.dbPath, "undo"], env: env)
        #expect(
            cli.status == 0 && cli.stdout.contains("undid the keeper choice of") && cli.stdout.contains((path as NSString).lastPathComponent),
            "\(cli.stdout) \(cli.stderr)")
        #expect(try member(keeper)?["keeper"]?.boolValue == true)
    }

    @Test func statsGroupsSettingsAndOldScreenshots() throws {
        let h = try WebHarness()
        let st = h.json(try h.get("/api/stats"))
        #expect(st["streak"]?["current"]?.intValue != nil && st["last_7_days"]?.arrayValue?.count == 7)
        let g = h.json(try h.get("/api/groups"))["groups"]?.arrayValue ?? []
        #expect(g.contains { $0["id"]?.stringValue == "similar" })
        #expect(!g.contains { $0["unavailable"] != nil })
        // A tier-2 pass that could not run: the model groups say why, as `snapsort groups` does.
        try h.lib.library.db.run("INSERT OR REPLACE INTO vision_state(id, available, problem) VALUES(1, 0, 'the vision helper is not installed')")
        let off = h.json(try h.get("/api/groups"))["groups"]?.arrayValue ?? []
        let why = Dictionary(uniqueKeysWithValues: off.compactMap { e in e["unavailable"]?.stringValue.map { (e["id"]!.stringValue!, $0) } })
        #expect(
            why == [
                "people": "the vision helper is not installed", "pets": "the vision helper is not installed",
                "food": "the vision helper is not installed", "scenery": "the vision helper is not installed",
            ])
        let preview = h.json(try h.get("/api/bulk/old-screenshots?days=30"))
        #expect(preview["count"]?.intValue == 1)
        let staged = h.json(try h.post("/api/bulk/old-screenshots", #"{"days":30}"#))
        #expect(staged["summary"]?["trash"]?["count"]?.intValue == 1)
        let folder = h.home + "/Photos A"
        try FileSystem.makeDirectories(folder, mode: 0o700)
        let saved = try h.post("/api/settings", #"{"reminder":"daily","reminder_time":"20:30","session_goal":10,"roots":["\#(folder)"]}"#)
        #expect(saved.status == 200)
        let conf = h.home + "/.config/snapsort/snapsort.conf"
        let text = String(decoding: try FileSystem.readFile(conf, limit: 65536), as: UTF8.self)
        let (c, problems) = Configuration.parse(text, home: h.home)
        #expect(problems.isEmpty && c.reminder == "daily" && c.reminderTime == "20:30" && c.sessionGoal == 10 && c.roots == [folder])
        func refused(_ body: String, _ message: String) throws {
            let r = try h.post("/api/settings", body)
            #expect(r.status == 400 && h.json(r)["error"]?["message"]?.stringValue == message, "\(body): \(h.json(r))")
        }
        // The page's own words, not a line of a file the user never wrote and a fallback
        // nothing falls back to.
        try refused(#"{"session_goal":0}"#, "'session_goal' must be from 1 to 1000")
        try refused(#"{"session_goal":1e300}"#, "'session_goal' must be a whole number")
        try refused(#"{"reminder_time":"25:00"}"#, "'reminder_time': expected HH:MM")
        // A line break in a value would write a setting of its own into snapsort.conf.
        try refused(#"{"roots":["/tmp/x\nreminder = off\nexclude = /tmp"]}"#, "a folder's path holds a control character (a line break or a tab)")
        try refused(#"{"reminder_weekday":"mon\nreminder = off"}"#, "'reminder_weekday' holds a control character")
        try refused(#"{"roots":["\#(h.home)/no such folder"]}"#, "no such folder: \(h.home)/no such folder")
        try refused(#"{"roots":"\#(folder)"}"#, "'roots' must be a list of folders")
        #expect(String(decoding: try FileSystem.readFile(conf, limit: 65536), as: UTF8.self) == text)
    }

    /// The bulk stage of old screenshots and restores (from staging, from the system Trash) are
    /// one undo step each, undone newest first; an undone restore stages again and moves nothing.
    @Test func bulkStagingAndRestoresAreUndoneInOrder() throws {
        let h = try WebHarness()
        _ = h.lib.dir.write("Pictures/Screenshot_20230102_090000.png", Fixtures.png(seed: 6, width: 360, height: 640))
        try h.lib.scan([h.lib.root])
        try Grouper(library: h.lib.library).regroupAll()
        let kept = h.id("IMG_0001.jpg"), beach = h.id("beach.jpg"), frame = h.id("IMG_0002.jpg")
        _ = try h.post("/api/decide", #"{"id":\#(kept),"decision":"keep"}"#)
        let bulk = h.json(try h.post("/api/bulk/old-screenshots", #"{"days":30}"#))
        #expect(bulk["count"]?.intValue == 2 && bulk["summary"]?["undo_depth"]?.intValue == 2, "\(bulk)")
        _ = try h.post("/api/decide", #"{"id":\#(beach),"decision":"trash"}"#)
        let c = h.json(try h.post("/api/trash/commit", #"{"confirm":true,"ids":[\#(beach)]}"#))
        let ledger = try #require(c["in_system_trash"]?.arrayValue?.first?["ledger"]?.intValue)
        _ = try h.post("/api/trash/restore", #"{"ledger":[\#(ledger)]}"#)
        #expect(FileSystem.exists(h.lib.root + "/beach.jpg"))
        _ = try h.post("/api/decide", #"{"id":\#(frame),"decision":"trash"}"#)
        let unstaged = h.json(try h.post("/api/trash/restore", #"{"ids":[\#(frame)]}"#))
        #expect(unstaged["count"]?.intValue == 2, "the two screenshots stay staged: \(unstaged)")
        func undo() throws -> JSON {
            let r = try h.post("/api/undo", "{}")
            #expect(r.status == 200, "\(r.text)")
            return h.json(r)
        }
        let u1 = try undo()
        #expect(u1["kind"]?.stringValue == "restore" && u1["restored_from"]?.stringValue == "staging" && u1["id"]?.intValue == Int(frame))
        #expect(try Review.decision(for: frame, library: h.lib.library)?.decision == .trash)
        #expect(try undo()["undone"]?.stringValue == "trash")
        #expect(try Review.decision(for: frame, library: h.lib.library) == nil)
        let u3 = try undo()
        #expect(u3["kind"]?.stringValue == "restore" && u3["restored_from"]?.stringValue == "trash" && u3["name"]?.stringValue == "beach.jpg")
        // Staged again, not moved: the photo is in its folder until the next commit.
        let staged = h.json(try h.get("/api/trash"))
        #expect(FileSystem.exists(h.lib.root + "/beach.jpg") && staged["count"]?.intValue == 3)
        let u4 = try undo()
        #expect(u4["kind"]?.stringValue == "decision" && u4["count"]?.intValue == 2, "the bulk stage, at once: \(u4)")
        #expect(h.json(try h.get("/api/trash"))["count"]?.intValue == 1)
        #expect(try undo()["undone"]?.stringValue == "keep")
        #expect(try h.post("/api/undo", "{}").status == 409)
    }

    /// What the page browses besides decks: the Later stack with when each item comes back,
    /// the kept items, the chapters of finished sessions with a finished deck's recap, the
    /// reminder's monthly day and quiet hours; and a version that moves when the library does
    /// (another connection — the agent, the terminal — or this page), and only then.
    @Test func laterKeptChaptersSettingsAndTheVersion() throws {
        let h = try WebHarness()
        let v0 = try #require(h.json(try h.get("/api/version"))["version"]?.stringValue)
        #expect(h.json(try h.get("/api/version"))["version"]?.stringValue == v0, "nothing changed, the version stays")
        // Decided in another connection (the terminal): the page sees the version move.
        try Review.decide(.later, fileID: h.id("beach.jpg"), library: h.lib.library, clock: .live)
        let v1 = try #require(h.json(try h.get("/api/version"))["version"]?.stringValue)
        #expect(v1 != v0)
        let later = h.json(try h.get("/api/later"))
        let resting = try #require(later["resting"]?.arrayValue?.first)
        #expect(resting["name"]?.stringValue == "beach.jpg" && later["back"]?.arrayValue?.isEmpty == true, "\(later)")
        let backAt = try #require(resting["back_at"]?.doubleValue)
        #expect(backAt > Date().timeIntervalSince1970 + 6 * 86_400 && backAt < Date().timeIntervalSince1970 + 8 * 86_400)
        // Its week over, it is back.
        try h.lib.library.db.run("UPDATE decisions SET later_until = 1 WHERE file_id = ?", h.id("beach.jpg"))
        #expect(h.json(try h.get("/api/later"))["back"]?.arrayValue?.first?["name"]?.stringValue == "beach.jpg")
        // A whole deck decided: its session has a recap and becomes a chapter.
        let s = h.json(try h.post("/api/sessions", #"{"deck":"month:2024-05"}"#))
        let sid = try #require(s["id"]?.intValue)
        var last = JSON.null
        for (i, card) in (s["cards"]?.arrayValue ?? []).enumerated() {
            let verdict = ["keep", "trash", "keep", "later"][i % 4]
            last = h.json(try h.post("/api/decide", #"{"id":\#(card["id"]!.intValue!),"decision":"\#(verdict)","session":\#(sid)}"#))
        }
        #expect(h.json(try h.get("/api/version"))["version"]?.stringValue != v1, "this page's own decisions move the version too")
        let recap = try #require(last["session"]?["recap"])
        #expect(recap["kept"]?.intValue == 2 && recap["trashed"]?.intValue == 1 && recap["later"]?.intValue == 1, "\(recap)")
        #expect(recap["bytes"]?.intValue ?? 0 > 0 && last["session"]?["cards"]?.arrayValue?.isEmpty == true)
        let chapters = h.json(try h.get("/api/chapters"))["chapters"]?.arrayValue ?? []
        #expect(chapters.count == 1 && chapters[0]["deck"]?.stringValue == "month:2024-05" && chapters[0]["decisions"]?.intValue == 4, "\(chapters)")
        #expect(chapters[0]["cover"]?.stringValue?.hasPrefix("/media/") == true)
        let kept = h.json(try h.get("/api/kept"))
        #expect(kept["total"]?.intValue == 2 && kept["items"]?.arrayValue?.count == 2 && kept["items"]?.arrayValue?.first?["kept_at"] != nil)
        #expect(h.json(try h.get("/api/kept?offset=1"))["items"]?.arrayValue?.count == 1)
        #expect(try h.get("/api/kept?offset=-1").status == 400)
        // The monthly day and quiet hours, written to snapsort.conf and read back.
        let saved = h.json(try h.post("/api/settings", #"{"reminder":"monthly","reminder_day":15,"quiet_hours":"23:30-07:00"}"#))
        #expect(saved["reminder_day"]?.intValue == 15 && saved["quiet_hours"]?.stringValue == "23:30-07:00", "\(saved)")
        let off = h.json(try h.post("/api/settings", #"{"quiet_hours":"off"}"#))
        #expect(off["quiet_hours"]?.stringValue == "off")
        #expect(try h.post("/api/settings", #"{"reminder_day":32}"#).status == 400)
        #expect(try h.post("/api/settings", #"{"quiet_hours":"late"}"#).status == 400)
    }

    /// A card says where its file is (copies of a picture differ only there) and, for a file
    /// the scan could not read, why; its pictures are a placeholder, not a decoding error (500).
    @Test func aCardSaysWhereItsFileIsAndWhyItCannotBeRead() throws {
        let h = try WebHarness()
        _ = h.lib.dir.write("Pictures/Old/broken.jpg", Array(Fixtures.jpeg(seed: 5).prefix(300)))
        _ = h.lib.dir.write("Pictures/Old/page.jpg", Array("<html><body>not found</body></html>".utf8))
        _ = try h.lib.scan([h.lib.root])
        let id = try #require(try h.lib.library.item(path: h.lib.root + "/Old/broken.jpg")?.id)
        let card = h.json(try h.get("/api/items/\(id)"))
        #expect(card["folder"]?.stringValue == h.lib.root + "/Old" && card["name"]?.stringValue == "broken.jpg")
        #expect(card["status"]?.stringValue == "unreadable" && (card["reason"]?.stringValue ?? "").contains("not a readable JPEG"), "\(card)")
        let html = try #require(try h.lib.library.item(path: h.lib.root + "/Old/page.jpg")?.id)
        #expect(h.json(try h.get("/api/items/\(html)"))["reason"]?.stringValue?.contains("HTML") == true)
        for variant in ["thumb", "display"] {
            let r = try h.get("/media/\(id)/\(variant)")
            #expect(r.status == 200 && r.headers["content-type"] == "image/svg+xml", "\(variant): \(r.status)")
        }
        let ok = h.json(try h.get("/api/items/\(h.id("beach.jpg"))"))
        #expect(ok["status"]?.stringValue == "ok" && ok["reason"] == .null && ok["folder"]?.stringValue == h.lib.root)
    }

    /// A number no whole number holds, or a fraction, is the client's mistake: 400, and the
    /// server goes on serving (`1e19` as an id trapped the conversion and took the agent down).
    @Test func hugeAndFractionalNumbersAreRefusedNotFatal() throws {
        let h = try WebHarness()
        for body in [
            #"{"id":1e19,"decision":"skip"}"#, #"{"id":99999999999999999999,"decision":"skip"}"#,
            #"{"id":1.5,"decision":"skip"}"#, #"{"id":1,"decision":"keep","session":1e300}"#,
        ] {
            #expect(try h.post("/api/decide", body).status == 400, "\(body)")
        }
        #expect(try h.post("/api/similar/keeper", #"{"id":-1e300}"#).status == 400)
        #expect(try h.post("/api/trash/restore", #"{"ids":[1e300]}"#).status == 400)
        #expect(try h.get("/api/bulk/old-screenshots?days=99999999999999").status == 400)
        #expect(try h.post("/api/bulk/old-screenshots", #"{"days":1e300}"#).status == 400)
        #expect(try h.get("/api/summary").status == 200)
        #expect(try Review.undoDepth(library: h.lib.library) == 0)
    }
}
