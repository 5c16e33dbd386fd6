import Foundation
import Glibc
import SnapSortSystem
import SnapSortTestSupport
import Testing

@testable import SnapSortCore

/// Each bar's output, key by key against the bar's documented keys and value types.
@Suite struct StatusFormatTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let documents: [StatusDocument] = [
        StatusDocument(updatedAt: now, agent: .init(state: .analyzing, pid: 42, done: 1204, total: 5310)),
        StatusDocument(updatedAt: now, agent: .init(state: .grouping, pid: 42, done: 5556, total: 5556), awaitingReview: 12),
        StatusDocument(
            updatedAt: now, agent: .init(state: .watching, pid: 42, done: 12431, total: 12431),
            groups: [.init(id: "similar", items: 40, bytes: 80_000_000), .init(id: "blurry", items: 2, bytes: 4_000_000)],
            awaitingReview: 42, trash: .init(count: 3, bytes: 9_000_000, inTrashBytes: 387_000), cleared: .init(today: 5, week: 20, total: 300),
            streak: .init(current: 3, longest: 9), goal: .init(target: 25, doneToday: 5), nextReminder: now,
            movedToTrash: .init(today: 387_000, week: 387_000, total: 400_000)),
        StatusDocument(updatedAt: now, agent: .init(state: .paused, pid: 42, done: 10, total: 20, pending: 3)),
        StatusDocument(updatedAt: now, agent: .init(state: .stopped, done: 3, total: 3)),
        StatusDocument(updatedAt: now, agent: .init(state: .watching, pid: 42, done: 3, total: 3, degraded: true, lastError: "watch limit")),
        StatusDocument(
            updatedAt: now,
            agent: .init(
                state: .watching, pid: 42, done: 3, total: 3,
                lastError: "reminders: cannot show a notification", lastErrorSeverity: "warning")),
    ]

    /// The keys and JSON types of one bar's object.
    enum Kind { case string, int, stringOrArray }
    static func check(_ line: String, required: [String: Kind], optional: [String: Kind] = [:]) {
        #expect(!line.contains("\n"), "one line per update")
        guard let data = line.data(using: .utf8), let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            Issue.record("not a JSON object: \(line)")
            return
        }
        for (k, _) in required { #expect(obj[k] != nil, "missing \(k) in \(line)") }
        for (k, v) in obj {
            guard let kind = required[k] ?? optional[k] else {
                Issue.record("undocumented key \(k)")
                continue
            }
            switch kind {
            case .string: #expect(v is String, "\(k) must be a string")
            case .int:
                // JSONSerialization gives NSNumber for numbers; an integer prints without a point.
                #expect((v as? NSNumber).map { !"\($0)".contains(".") && !($0 is Bool) } == true, "\(k) must be an integer")
            case .stringOrArray: #expect(v is String || v is [String], "\(k) must be a string or array of strings")
            }
        }
    }

    @Test(arguments: documents) func waybar(_ d: StatusDocument) throws {
        let line = StatusFormat.waybar.render(d)
        // https://github.com/Alexays/Waybar/wiki/Module:-Custom — return-type json.
        Self.check(line, required: ["text": .string, "alt": .string, "tooltip": .string, "class": .stringOrArray, "percentage": .int])
        let obj = try #require(JSON.parse(line))
        #expect((0...100).contains(obj["percentage"]?.intValue ?? -1))
        #expect(obj["alt"]?.stringValue == d.agent.state.rawValue)
    }

    /// Waybar reads `text` and `tooltip` as Pango markup: a folder's "&" or "<" is escaped, or
    /// the whole tooltip fails to parse.
    @Test func waybarEscapesMarkup() throws {
        let d = StatusDocument(
            updatedAt: Self.now, agent: .init(state: .watching, pid: 42, done: 1, total: 1, offlineRoots: ["/media/Tom & Jerry <2024>"]))
        let obj = try #require(JSON.parse(StatusFormat.waybar.render(d)))
        let tooltip = try #require(obj["tooltip"]?.stringValue)
        #expect(tooltip.contains("/media/Tom &amp; Jerry &lt;2024&gt;"), "\(tooltip)")
        #expect(
            !tooltip.replacingOccurrences(of: "&amp;", with: "").replacingOccurrences(of: "&lt;", with: "").replacingOccurrences(of: "&gt;", with: "")
                .contains { "&<>".contains($0) })
        // Other bars get the text as it is.
        #expect(StatusSummary(d).tooltip.contains("Tom & Jerry <2024>"))
    }

    @Test(arguments: documents) func i3blocks(_ d: StatusDocument) throws {
        let line = StatusFormat.i3blocks.render(d)
        // i3blocks(1) format=json: the i3bar protocol's block keys.
        Self.check(line, required: ["full_text": .string], optional: ["short_text": .string, "color": .string])
        let color = try #require(JSON.parse(line)?["color"]?.stringValue)
        #expect(color.count == 7 && color.hasPrefix("#") && color.dropFirst().allSatisfy(\.isHexDigit))
    }

    @Test(arguments: documents) func i3statusRust(_ d: StatusDocument) throws {
        let line = StatusFormat.i3statusRust.render(d)
        // i3status-rust custom block, json = true: icon, state, text, short_text.
        Self.check(line, required: ["text": .string], optional: ["icon": .string, "state": .string, "short_text": .string])
        let state = try #require(JSON.parse(line)?["state"]?.stringValue)
        #expect(["Idle", "Info", "Good", "Warning", "Critical"].contains(state))
    }

    @Test(arguments: documents) func polybar(_ d: StatusDocument) {
        let line = StatusFormat.polybar.render(d)
        // polybar custom/script: one plain line; %{F#rrggbb}…%{F-} colour tags, balanced.
        #expect(!line.contains("\n") && !line.hasPrefix("{"))
        #expect(line.hasPrefix("%{F#") && line.hasSuffix("%{F-}"))
        #expect(line.components(separatedBy: "%{F#").count == line.components(separatedBy: "%{F-}").count)
    }

    /// A newer agent's state word is read, shown and written back as it was: never dropped,
    /// never taken for another state (the bars print it; `AgentState.other`).
    @Test func aStateWordThisVersionDoesNotKnowIsKept() throws {
        let d = StatusDocument(updatedAt: Self.now, agent: .init(state: AgentState(rawValue: "hibernating"), pid: 42, done: 3, total: 3))
        #expect(d.agent.state == .other("hibernating"))
        let parsed = try #require(JSON.parse(d.json.serialized()))
        let back = try #require(StatusDocument(json: parsed))
        #expect(back.agent.state == .other("hibernating"))
        #expect(back.json["agent"]?["state"]?.stringValue == "hibernating")
        #expect(StatusSummary(back).state == "hibernating")
        #expect(StatusSummary(back).tooltip.contains("Agent: hibernating"))
        // A known word is its case, not `other`.
        for s in AgentState.allCases { #expect(AgentState(rawValue: s.rawValue) == s) }
        #expect(!AgentState.allCases.contains { if case .other = $0 { true } else { false } })
    }

    @Test(arguments: documents) func theDocumentRoundTripsThroughItsJSON(_ d: StatusDocument) throws {
        let text = d.json.serialized(pretty: true)
        let parsed = try #require(JSON.parse(text))
        var back = try #require(StatusDocument(json: parsed))
        var expected = d
        // JSON objects are unordered to a parser: compare groups by id.
        back.groups.sort { $0.id < $1.id }
        expected.groups.sort { $0.id < $1.id }
        #expect(back.content == expected.content)
        // Every contract key is present, in order.
        let keys = [
            "schema_version", "updated_at", "agent", "groups", "awaiting_review", "trash", "cleared", "streak", "goal", "next_reminder", "models",
            "moved_to_trash",
        ]
        if case .object(let o) = d.json { #expect(o.map(\.0) == keys) }
        if case .object(let a)? = d.json["agent"] {
            #expect(
                a.map(\.0) == [
                    "state", "pid", "done", "total", "degraded", "last_error", "last_error_severity", "offline_roots", "pending", "paused_until",
                ])
        }
    }

    /// Groups are listed in the product's order (Similar Shots first) whoever computed them.
    /// While the groups are made after the analysis, the bar says so instead of a finished
    /// count ("5 556/5 556" at 100 % read as done while the groups were minutes away).
    /// People read times in their own zone: the tooltip's next reminder is local, not UTC.
    @Test func theNextReminderIsShownInLocalTime() {
        let d = Date(timeIntervalSince1970: 1_796_497_200)  // 2026-12-05 19:00 UTC
        #expect(StatusSummary.localTime(d, timeZone: TimeZone(identifier: "Europe/Berlin")!) == "Sat 5 Dec 20:00")
        #expect(StatusSummary.localTime(d, timeZone: TimeZone(identifier: "America/New_York")!) == "Sat 5 Dec 14:00")
        #expect(StatusSummary(Self.documents[2]).tooltip.contains("Next reminder: \(StatusSummary.localTime(Self.now))"))
    }

    @Test func groupingIsShownAsBusyNotAsAFinishedCount() throws {
        let d = Self.documents[1]
        let s = StatusSummary(d)
        #expect(s.text == "SnapSort grouping…")
        #expect(s.i3rsState == "Info" && s.cssClass == "grouping")
        #expect(d.goal == nil || s.percentage == 100)
        #expect(!StatusFormat.polybar.render(d).contains("5 556"))
    }

    @Test func groupsAreInTheProductsOrder() throws {
        let d = StatusDocument(
            updatedAt: Self.now, agent: .init(state: .watching, pid: 42, done: 3, total: 3),
            groups: [
                .init(id: "blurry", items: 1, bytes: 1), .init(id: "screenshot", items: 1, bytes: 1),
                .init(id: "similar", items: 2, bytes: 2),
            ])
        #expect(d.groups.map(\.id) == ["similar", "blurry", "screenshot"])
        let json = try #require(
            JSON.parse(
                #"{"schema_version":1,"agent":{"state":"watching"},"groups":{"blurry":{"items":1,"bytes":1},"similar":{"items":2,"bytes":2}}}"#))
        let back = try #require(StatusDocument(json: json))
        #expect(back.groups.map(\.id) == ["similar", "blurry"])
    }

    /// The agent's own failure is an alarm on every bar; a service that cannot do its part (no
    /// notification server for the reminders, common under i3) is a warning in the tooltip,
    /// never a permanent red bar.
    @Test func anErrorIsAnAlarmAndAServiceWarningIsNot() throws {
        func agent(_ severity: String?) -> StatusDocument {
            StatusDocument(
                updatedAt: Self.now,
                agent: .init(
                    state: .watching, pid: 42, done: 3, total: 3,
                    lastError: "reminders: cannot show a notification", lastErrorSeverity: severity),
                cleared: .init(today: 1_657_225, week: 1_657_225, total: 30_000_000))
        }
        let warning = agent("warning"), error = agent("error"), old = agent(nil)
        for d in [error, old] {
            #expect(JSON.parse(StatusFormat.i3statusRust.render(d))?["state"]?.stringValue == "Critical")
            #expect(JSON.parse(StatusFormat.waybar.render(d))?["class"]?.stringValue == "error")
            #expect(JSON.parse(StatusFormat.i3blocks.render(d))?["color"]?.stringValue == "#bf616a")
        }
        #expect(JSON.parse(StatusFormat.i3statusRust.render(warning))?["state"]?.stringValue == "Warning")
        // Marked on every bar: waybar's classes keep the state and add "warning" (a style can
        // target it), the text of the others carries a sign.
        #expect(JSON.parse(StatusFormat.waybar.render(warning))?["class"] == .array([.string("watching"), .string("warning")]))
        #expect(JSON.parse(StatusFormat.waybar.render(old))?["class"] == .string("error"))
        for f in [StatusFormat.polybar, .i3blocks, .i3statusRust] { #expect(f.render(warning).contains("⚠"), "\(f)") }
        var calm = old
        calm.agent.lastError = nil
        #expect(!StatusFormat.i3blocks.render(calm).contains("⚠"))
        #expect(JSON.parse(StatusFormat.i3blocks.render(warning))?["color"]?.stringValue != "#bf616a")
        #expect(!StatusFormat.polybar.render(warning).contains("#bf616a"))
        let tooltip = try #require(JSON.parse(StatusFormat.waybar.render(warning))?["tooltip"]?.stringValue)
        #expect(tooltip.contains("Warning: reminders: cannot show a notification"))
        #expect(tooltip.contains("Cleared from the disk: 1.7 MB today, 1.7 MB this week, 30 MB in all"))
    }

    /// Numbers mean what they say (issue 43, item 4): a commit's bytes are moved to the Trash and
    /// wait there; cleared is what left the disk. The tooltip said "Cleared: 387 kB" of bytes
    /// still in the Trash; now each number has one meaning, on every bar that shows it.
    @Test func movedWaitingAndClearedAreSaidApart() throws {
        let d = StatusDocument(
            updatedAt: Self.now, agent: .init(state: .watching, pid: 42, done: 3, total: 3),
            trash: .init(count: 2, bytes: 120_000, inTrashBytes: 387_000), cleared: .init(today: 0, week: 0, total: 0),
            movedToTrash: .init(today: 387_000, week: 387_000, total: 387_000))
        let tooltip = StatusSummary(d).tooltip
        #expect(tooltip.contains("Staged for the Trash: 2 (120 kB)"), "\(tooltip)")
        #expect(tooltip.contains("Moved to the Trash: 387 kB today, 387 kB this week, 387 kB in all"), "\(tooltip)")
        #expect(tooltip.contains("Waiting in the Trash: 387 kB (emptying it frees the space)"), "\(tooltip)")
        #expect(tooltip.contains("Cleared from the disk: 0 B today, 0 B this week, 0 B in all"), "\(tooltip)")
        #expect(!tooltip.contains("Cleared: "), "\(tooltip)")
        let waybar = try #require(JSON.parse(StatusFormat.waybar.render(d))?["tooltip"]?.stringValue)
        #expect(waybar.contains("Moved to the Trash: 387 kB") && waybar.contains("Cleared from the disk: 0 B"))
        // The new keys beside the old ones, read back as written.
        #expect(d.json["moved_to_trash"]?["total"]?.intValue == 387_000 && d.json["trash"]?["in_trash_bytes"]?.intValue == 387_000)
        #expect(d.json["cleared"]?["total"]?.intValue == 0)
        let parsed = try #require(JSON.parse(d.json.serialized()))
        #expect(StatusDocument(json: parsed) == d)
        // An older agent's document (no new keys) reads back without them.
        let older = try #require(JSON.parse(#"{"schema_version":1,"agent":{"state":"watching"},"trash":{"count":1,"bytes":5}}"#))
        let old = try #require(StatusDocument(json: older))
        #expect(old.trash == .init(count: 1, bytes: 5) && old.movedToTrash == nil)
        // The tray says the same in its menu.
        #expect(TrayStatus(d).space == "387 kB waiting in the Trash")
        var emptied = d
        emptied.trash?.inTrashBytes = 0
        emptied.cleared = .init(today: 387_000, week: 387_000, total: 387_000)
        #expect(TrayStatus(emptied).space == "387 kB cleared in all")
    }

    /// The watch limit (some folders checked every few minutes, nothing missed) is marked as a
    /// warning with a class of its own; an error beside it still turns the bars red.
    @Test func aDegradedAgentIsAWarning() throws {
        var d = StatusDocument(
            updatedAt: Self.now,
            agent: .init(
                state: .watching, pid: 42, done: 3, total: 3, degraded: true, lastError: "inotify watch limit reached", lastErrorSeverity: "warning")
        )
        #expect(JSON.parse(StatusFormat.i3statusRust.render(d))?["state"]?.stringValue == "Warning")
        #expect(JSON.parse(StatusFormat.waybar.render(d))?["class"]?.stringValue == "degraded")
        #expect(JSON.parse(StatusFormat.i3blocks.render(d))?["color"]?.stringValue == "#ebcb8b")
        #expect(StatusFormat.polybar.render(d).contains("⚠") && !StatusFormat.polybar.render(d).contains("#bf616a"))
        d.agent.lastError = "cannot write the library"
        d.agent.lastErrorSeverity = "error"
        #expect(JSON.parse(StatusFormat.i3statusRust.render(d))?["state"]?.stringValue == "Critical")
        #expect(JSON.parse(StatusFormat.waybar.render(d))?["class"]?.stringValue == "error")
    }

    /// Starting and checking folders count nothing: no "282/282" at 100 % at every login; the
    /// analysis does (review 8).
    @Test func startingIsNotAFinishedAnalysis() throws {
        for state in [AgentState.starting, .scanning] {
            let d = StatusDocument(updatedAt: Self.now, agent: .init(state: state, pid: 42, done: 282, total: 282))
            let w = try #require(JSON.parse(StatusFormat.waybar.render(d)))
            #expect(w["text"]?.stringValue == "SnapSort…" && w["percentage"]?.intValue == 0, "\(state): \(w)")
        }
        let d = StatusDocument(updatedAt: Self.now, agent: .init(state: .analyzing, pid: 42, done: 141, total: 282))
        let w = try #require(JSON.parse(StatusFormat.waybar.render(d)))
        #expect(w["text"]?.stringValue == "SnapSort 141/282" && w["percentage"]?.intValue == 50)
    }

    /// A lost event queue (an overflow, a stopped agent): every bar says the backlog, never a
    /// finished count, and systemd's line says it too (issue 40).
    @Test func reconcilingSaysTheBacklog() throws {
        let d = StatusDocument(updatedAt: Self.now, agent: .init(state: .reconciling, pid: 42, done: 50_000, total: 50_000, pending: 20_000))
        let w = try #require(JSON.parse(StatusFormat.waybar.render(d)))
        let text = try #require(w["text"]?.stringValue)
        #expect(text.hasPrefix("SnapSort catching up (20") && text.hasSuffix("000 waiting)"), "\(w)")
        #expect(w["alt"]?.stringValue == "reconciling" && w["percentage"]?.intValue == 0, "\(w)")
        #expect(JSON.parse(StatusFormat.i3statusRust.render(d))?["state"]?.stringValue == "Info")
        #expect(AgentState.serviceLine(d.agent, roots: 1, holdReason: nil).hasPrefix("Catching up: 20"))
        #expect(AgentState.reconciling.isWork)
    }

    /// A timed pause says till when, on the bar and in the tooltip, and reads back; an open-ended
    /// one says nothing of an end (a bar said "paused" and never when it would go on, review 8).
    @Test func aTimedPauseSaysWhenItEnds() throws {
        let until = Self.now.addingTimeInterval(7200)
        let d = StatusDocument(updatedAt: Self.now, agent: .init(state: .paused, pid: 42, done: 3, total: 3, pausedUntil: until))
        let hhmm = try #require(StatusSummary.localTime(until).split(separator: " ").last.map(String.init))
        #expect(StatusFormat.polybar.render(d).contains("SnapSort paused until \(hhmm)"), "\(StatusFormat.polybar.render(d))")
        #expect(
            JSON.parse(StatusFormat.waybar.render(d))?["tooltip"]?.stringValue?.contains("Paused until \(StatusSummary.localTime(until))") == true)
        #expect(StatusDocument(json: d.json)?.agent.pausedUntil == until)
        let open = StatusDocument(updatedAt: Self.now, agent: .init(state: .paused, pid: 42, done: 3, total: 3))
        #expect(JSON.parse(StatusFormat.i3blocks.render(open))?["full_text"]?.stringValue == "SnapSort paused")
    }
}

extension StatusDocument: CustomTestStringConvertible {
    public var testDescription: String { "\(agent.state)\(agent.degraded ? " degraded" : "")" }
}
