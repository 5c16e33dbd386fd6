import Foundation
import SnapSortCore
import Testing

@testable import SnapSortAgent

/// The debounce and move pairing, on a manual clock (no sleeps).
@Suite struct ChangeTrackerTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aFileWrittenInSeveralPassesIsDueOnceAfterItGoesQuiet() {
        let (clock, time) = Clock.manual(start)
        var t = ChangeTracker(debounce: 1, moveTimeout: 0.5)
        t.written("/p/a.jpg", at: clock.now())
        time.advance(0.6)
        t.written("/p/a.jpg", at: clock.now())  // still being written
        time.advance(0.6)
        #expect(t.due(at: clock.now()) == [])
        #expect(t.nextDeadline == start.addingTimeInterval(1.6))
        time.advance(0.5)
        #expect(t.due(at: clock.now()) == [.file("/p/a.jpg")])
        #expect(t.due(at: clock.now()) == [])
        #expect(t.nextDeadline == nil)
    }

    @Test func fromAndToWithTheSameCookieAreAMove() {
        var t = ChangeTracker(debounce: 1, moveTimeout: 0.5)
        t.movedFrom("/p/a.jpg", cookie: 7, isDirectory: false, at: start)
        t.movedTo("/p/b.jpg", cookie: 7, isDirectory: false, at: start)
        #expect(t.due(at: start) == [.moved(from: "/p/a.jpg", to: "/p/b.jpg", isDirectory: false)])
        #expect(t.isEmpty)
    }

    @Test func aLoneFromIsARemovalAfterTheTimeout() {
        let (clock, time) = Clock.manual(start)
        var t = ChangeTracker(debounce: 1, moveTimeout: 0.5)
        t.movedFrom("/p/old", cookie: 9, isDirectory: true, at: clock.now())
        #expect(t.due(at: clock.now()) == [])
        time.advance(0.5)
        #expect(t.due(at: clock.now()) == [.removed("/p/old", isDirectory: true)])
    }

    @Test(arguments: [(true, Change.folder("/p/new")), (false, Change.file("/p/new"))])
    func aLoneToIsNewContent(isDirectory: Bool, expected: Change) {
        let (clock, time) = Clock.manual(start)
        var t = ChangeTracker(debounce: 0.25, moveTimeout: 0.5)
        t.movedTo("/p/new", cookie: 3, isDirectory: isDirectory, at: clock.now())
        time.advance(0.25)
        #expect(t.due(at: clock.now()) == [expected])
    }

    @Test func aMoveOutOfTheWatchedTreeIsARemovalAndAPendingWriteFollowsARename() {
        var t = ChangeTracker(debounce: 1, moveTimeout: 0.5)
        t.movedFrom("/p/a.jpg", cookie: 1, isDirectory: false, at: start)
        t.movedTo(nil, cookie: 1, isDirectory: false, at: start)
        #expect(t.due(at: start) == [.removed("/p/a.jpg", isDirectory: false)])
        t.written("/p/c.jpg", at: start)
        t.movedFrom("/p/c.jpg", cookie: 2, isDirectory: false, at: start)
        t.movedTo("/p/d.jpg", cookie: 2, isDirectory: false, at: start)
        #expect(t.due(at: start.addingTimeInterval(1)) == [.moved(from: "/p/c.jpg", to: "/p/d.jpg", isDirectory: false), .file("/p/d.jpg")])
    }

    @Test func deletionCancelsAPendingWrite() {
        var t = ChangeTracker(debounce: 1, moveTimeout: 0.5)
        t.written("/p/a.jpg", at: start)
        t.deleted("/p/a.jpg", isDirectory: false)
        #expect(t.due(at: start.addingTimeInterval(5)) == [.deleted("/p/a.jpg", isDirectory: false)])
    }
}
