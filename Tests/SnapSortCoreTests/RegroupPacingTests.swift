import Foundation
import Testing

@testable import SnapSortCore

/// When the agent's models pass regroups the sets it changed (`RegroupPacing`): durations given,
/// none measured.
@Suite struct RegroupPacingTests {
    @Test func regroupsWhenThePassEndsOrAfterTenTimesTheLastRegroupsCost() {
        var p = RegroupPacing(minimumWork: 30)
        // Nothing changed: never, even when the pass is over.
        #expect(!p.due(changes: false, passOver: true))
        // A change waits for the pass's end or for 30 s of model work.
        p.worked(0.5)
        #expect(!p.due(changes: true, passOver: false))
        #expect(p.due(changes: true, passOver: true))
        for _ in 0..<59 { p.worked(0.5) }
        #expect(p.due(changes: true, passOver: false))
        // A regroup that cost 5 s: the next one after 50 s of work, not 30.
        p.regrouped(cost: 5)
        #expect(p.workSince == 0)
        p.worked(40)
        #expect(!p.due(changes: true, passOver: false))
        p.worked(10)
        #expect(p.due(changes: true, passOver: false))
        // A cheap regroup (a small library): the minimum holds.
        p.regrouped(cost: 0.01)
        p.worked(29)
        #expect(!p.due(changes: true, passOver: false))
        #expect(p.due(changes: true, passOver: true))
    }
}
