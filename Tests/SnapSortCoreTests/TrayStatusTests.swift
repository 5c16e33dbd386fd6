import Foundation
import Testing

@testable import SnapSortCore

@Suite("TrayStatus")
struct TrayStatusTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(
        "the item's Status: Passive when nothing waits, Active when photos wait, NeedsAttention on a warning",
        arguments: [
            (StatusDocument(updatedAt: now, agent: .init(state: .watching), awaitingReview: 0), "Passive"),
            (StatusDocument(updatedAt: now, agent: .init(state: .watching), awaitingReview: 12), "Active"),
            (StatusDocument(updatedAt: now, agent: .init(state: .paused), awaitingReview: 3), "Active"),
            (StatusDocument(updatedAt: now, agent: .init(state: .watching, offlineRoots: ["/media/disk"]), awaitingReview: 3), "NeedsAttention"),
            (
                StatusDocument(
                    updatedAt: now, agent: .init(state: .watching, lastError: "reminders: no notification server", lastErrorSeverity: "warning")),
                "NeedsAttention"
            ),
            (StatusDocument(updatedAt: now, agent: .init(state: .watching, degraded: true)), "NeedsAttention"),
        ])
    func status(_ d: StatusDocument, _ expected: String) {
        #expect(TrayStatus(d).status == expected)
    }

    @Test("title and tooltip are the bars' own; today's label comes from the goal")
    func sameWordsAsTheBars() {
        let d = StatusDocument(
            updatedAt: Self.now, agent: .init(state: .watching, done: 10, total: 10), awaitingReview: 4,
            streak: .init(current: 3, longest: 9), goal: .init(target: 25, doneToday: 7), nextReminder: Self.now.addingTimeInterval(3600))
        let t = TrayStatus(d)
        let s = StatusSummary(d)
        #expect(t.title == s.text)
        #expect(t.toolTip == s.tooltip)
        #expect(t.toolTip.contains("Streak: 3 days (longest 9)"))
        #expect(t.toolTip.contains("Goal: 7/25 today"))
        #expect(t.toolTip.contains("Next reminder: "))
        // What each number is: "Today: 29 of 10" read as a fraction gone wrong (issue 43).
        #expect(t.today == "7 reviewed today · goal 25")
        #expect(
            TrayStatus(StatusDocument(updatedAt: Self.now, agent: .init(state: .watching), goal: .init(target: 10, doneToday: 29))).today
                == "29 reviewed today · goal 10")
        #expect(!t.paused)
        #expect(TrayStatus(StatusDocument(updatedAt: Self.now, agent: .init(state: .paused))).paused)
        #expect(TrayStatus(StatusDocument(updatedAt: Self.now, agent: .init(state: .watching))).today == nil)
    }

    @Test("the fallback pixmap is ARGB32 in network byte order: a disc in the bars' colour")
    func pixmap() {
        let t = TrayStatus(StatusDocument(updatedAt: Self.now, agent: .init(state: .watching), awaitingReview: 4))
        #expect(t.color == "#ebcb8b")
        let p = t.pixmap(size: 22)
        #expect(p.count == 22 * 22 * 4)
        let centre = (11 * 22 + 11) * 4
        #expect(Array(p[centre..<centre + 4]) == [255, 0xeb, 0xcb, 0x8b])
        #expect(Array(p[0..<4]) == [0, 0, 0, 0])  // the corner is transparent
    }
}
