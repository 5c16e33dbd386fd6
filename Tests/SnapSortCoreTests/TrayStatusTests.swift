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

    @Test(
        "the icon tells the states apart: normal, photos to review, paused, a warning",
        arguments: [
            (StatusDocument(updatedAt: now, agent: .init(state: .watching), awaitingReview: 0), TrayIcon.State.normal, "snapsort"),
            (StatusDocument(updatedAt: now, agent: .init(state: .watching), awaitingReview: 4), .review, "snapsort-review"),
            (StatusDocument(updatedAt: now, agent: .init(state: .paused), awaitingReview: 4), .paused, "snapsort-paused"),
            (
                StatusDocument(updatedAt: now, agent: .init(state: .watching, offlineRoots: ["/media/disk"]), awaitingReview: 4), .attention,
                "snapsort-attention"
            ),
            (
                StatusDocument(updatedAt: now, agent: .init(state: .watching, lastError: "scan: disk full", lastErrorSeverity: "error")), .attention,
                "snapsort-attention"
            ),
        ])
    func icon(_ d: StatusDocument, _ state: TrayIcon.State, _ name: String) {
        let t = TrayStatus(d)
        #expect(t.icon == state && t.iconName == name)
        // The fallback pixmap is that icon: ARGB32 in network byte order, transparent corners.
        let p = t.pixmap(size: 22)
        #expect(p == TrayIcon.argb(state, size: 22))
        #expect(Array(p[0..<4]) == [0, 0, 0, 0])
        let centre = (11 * 22 + 11) * 4
        #expect(p[centre] == 255)
    }
}
