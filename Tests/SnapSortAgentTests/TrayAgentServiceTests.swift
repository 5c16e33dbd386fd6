import Foundation
import FoundationXML
import Glibc
import SnapSortCore
import SnapSortSystem
import SnapSortTestSupport
import Synchronization
import Testing

@testable import SnapSortAgent

/// A private session bus (a real `dbus-daemon`) and, when started, the fake panel tray of
/// Tests/Fixtures/dbus/fake_watcher.py (an `org.kde.StatusNotifierWatcher` that reads the item).
final class TrayBus: @unchecked Sendable {
    private let bus: PrivateBus
    private var watcher: FakeBusService?
    var dir: TempDir { bus.dir }
    var address: String { bus.address }

    /// `dir`: where the bus's socket goes (`dir/bus`; default a new temp folder).
    init(dir: TempDir = TempDir("snapsort-tray")) throws { bus = try PrivateBus(dir: dir) }

    /// Starts the fake watcher and waits until it owns its name.
    func startWatcher() throws { watcher = try FakeBusService("fake_watcher.py", on: address) }

    /// What the watcher printed, by `event`.
    func events(_ kind: String) -> [[String: Any]] { watcher?.events(kind) ?? [] }

    /// The item's signals the watcher saw, by member.
    func signals(_ member: String) -> [[String: Any]] { events("signal").filter { $0["member"] as? String == member } }

    /// Sends a command and returns the watcher's answer of `answer` kind (nil: none, or an error).
    @discardableResult
    func command(_ line: String, answer: String? = nil) throws -> [String: Any]? {
        let before = answer.map { events($0).count } ?? 0
        try watcher?.command(line)
        guard let answer else { return nil }
        return events(answer).count > before ? events(answer).last : nil
    }

    // The watcher first, then the bus under it.
    deinit { watcher?.stop() }
}

/// The tray service the agent's factory made (the factory runs on the agent's thread).
final class TrayBox: @unchecked Sendable {
    var tray: TrayAgentService?

}

/// Records the documents the agent hands its services, and the pages the tray opens.
final class TrayRecorder: AgentService, @unchecked Sendable {
    let name = "recorder"
    private let docs = LockedLines<StatusDocument>()
    private let opened = LockedLines<String>()
    private let tokens = LockedLines<String?>()
    /// The activation token each open was given.
    var openTokens: [String?] { tokens.all }
    var last: StatusDocument? { docs.all.last }
    var pages: [String] { opened.all }
    func statusChanged(_ document: StatusDocument, now: Date) { docs.append(document) }

    /// A page at a fixed URL whose opener records instead of starting a browser.
    var page: ReviewPage {
        ReviewPage(
            url: { deck in "http://127.0.0.1:1/?token=t" + (deck.isEmpty ? "" : "#deck=" + deck) },
            open: { [opened, tokens] url, token in
                opened.append(url)
                tokens.append(token)
            })
    }
}

@Suite("Tray", .serialized)
struct TrayAgentServiceTests {
    /// An agent with the tray on `bus`; `awaiting_review` is read from the agent state
    /// `test_review`, which the test writes through a second connection as the CLI would.
    static func agent(
        _ bus: TrayBus, recorder: TrayRecorder, tray: inout TrayAgentService?, clock: Clock? = nil, config: String? = nil,
        options: @escaping @Sendable (inout AgentOptions) -> Void = { _ in }
    ) throws -> AgentHarness {
        try agent(address: bus.address, recorder: recorder, tray: &tray, clock: clock, config: config, options: options)
    }

    static func agent(
        address: String, recorder: TrayRecorder, tray: inout TrayAgentService?, clock: Clock? = nil, config: String? = nil,
        options: @escaping @Sendable (inout AgentOptions) -> Void = { _ in }
    ) throws -> AgentHarness {
        let made = TrayBox()
        let h = try AgentHarness(
            setup: { dir in
                if let config {
                    try? FileSystem.makeDirectories(dir.at("config/snapsort"))
                    try? config.write(toFile: dir.at("config/snapsort/snapsort.conf"), atomically: true, encoding: .utf8)
                }
            },
            tweak: { o in
                if let clock { o.clock = clock }
                options(&o)
                var p = StatusProviders.standard
                p.awaitingReview = { i in try i.library.agentState("test_review").flatMap { Int($0) } ?? 0 }
                // The Docs & Receipts group holds the count in `test_documents` (built from the
                // status file's JSON: the group's initializer is Core's own).
                p.groups = { i in
                    guard let n = try i.library.agentState("test_documents") else { return nil }
                    let json = #"{"schema_version":1,"agent":{"state":"watching"},"groups":{"document":{"items":\#(n),"bytes":2048}}}"#
                    return JSON.parse(json).flatMap { StatusDocument(json: $0) }?.groups
                }
                o.providers = p
                let page = recorder.page
                o.services = { c in
                    let t = TrayAgentService(
                        enabled: c.configuration.tray, address: address, dbPath: c.dbPath, page: page, deck: { "rediscover-7" },
                        logger: c.logger)
                    made.tray = t
                    return [recorder, t]
                }
            })
        h.start()
        #expect(h.waitIdle())
        tray = made.tray
        return h
    }

    /// A bus with the fake watcher on it, and an agent on the manual clock serving the tray.
    static func watched(config: String? = nil, options: @escaping @Sendable (inout AgentOptions) -> Void = { _ in }) throws -> (
        bus: TrayBus, recorder: TrayRecorder, time: ManualTime, h: AgentHarness, tray: TrayAgentService?
    ) {
        let bus = try TrayBus()
        try bus.startWatcher()
        let recorder = TrayRecorder()
        let (clock, time) = Clock.manual(Date(timeIntervalSince1970: 1_800_000_000))
        var tray: TrayAgentService?
        let h = try agent(bus, recorder: recorder, tray: &tray, clock: clock, config: config, options: options)
        return (bus, recorder, time, h, tray)
    }

    /// Makes the agent read the database again (its check runs 0.1 s after the write, on its clock).
    static func tick(_ h: AgentHarness, _ time: ManualTime) {
        time.advance(0.2)
        h.agent.wake()
    }

    @Test("a watcher on the bus sees the item register, reads its properties and menu; Activate and the menu open the page and pause")
    func registersAndServes() throws {
        let (bus, recorder, time, h, tray) = try Self.watched()
        defer { h.stop() }

        // Registered with the connection's unique name.
        #expect(waitUntil { bus.events("registered").count == 1 })
        let reg = try #require(bus.events("registered").first)
        #expect(reg["service"] as? String == reg["sender"] as? String)
        #expect(((reg["service"] as? String) ?? "").hasPrefix(":"))
        #expect(waitUntil { tray?.registered == true })

        // The properties: the bars' facts.
        let props = try #require(try bus.command("props", answer: "props")?["props"] as? [String: Any])
        #expect(props["Category"] as? String == "ApplicationStatus")
        #expect(props["Id"] as? String == "snapsort")
        #expect(props["Status"] as? String == "Passive")
        #expect(props["IconName"] as? String == "snapsort")
        #expect(props["Menu"] as? String == "/MenuBar")
        #expect(props["ItemIsMenu"] as? Bool == false)
        let doc = try #require(recorder.last)
        #expect(props["Title"] as? String == StatusSummary(doc).text)
        // Every size the theme installs (issue 43): a panel picks the one that fits (22 px alone
        // was scaled up, blurred, on a 48 px panel), each SnapSort's own drawing at that size.
        let pixmaps = try #require(props["IconPixmap"] as? [[Any]])
        #expect(pixmaps.map { [$0[0] as? Int, $0[1] as? Int] } == TrayIcon.sizes.map { [$0, $0] }, "\(pixmaps.map { [$0[0], $0[1]] })")
        for (p, size) in zip(pixmaps, TrayIcon.sizes) {
            let pixels = try #require(p[2] as? [Int])
            #expect(pixels == TrayIcon.argb(.normal, size: size).map(Int.init), "\(size) px")
            // The centre pixel is opaque: alpha first (ARGB32, network byte order).
            if size == 22 { #expect(pixels[(11 * 22 + 11) * 4] == 255) }
        }
        let tip = try #require(props["ToolTip"] as? [Any])
        #expect(tip.count == 4)
        #expect(tip[0] as? String == "snapsort")
        #expect(tip[2] as? String == "SnapSort")
        // The bars' tooltip, made by the same code.
        #expect(tip[3] as? String == StatusNotifierItem.markup(StatusSummary(doc).tooltip))
        #expect(((tip[3] as? String) ?? "").contains("Agent: watching"))
        #expect(try bus.command("props", answer: "props")?["menu_version"] as? Int == 3)

        // The menu.
        let layout = try #require(try bus.command("layout", answer: "layout"))
        let root = try #require(layout["root"] as? [String: Any])
        #expect(root["id"] as? Int == 0)
        let children = try #require(root["children"] as? [[String: Any]])
        let labels = children.compactMap { ($0["props"] as? [String: Any])?["label"] as? String }
        #expect(labels == ["Open SnapSort", "Start a session", "Pause for 2 hours", "0 reviewed today · goal 25"])
        let enabled = children.compactMap { ($0["props"] as? [String: Any])?["enabled"] as? Bool }
        #expect(enabled == [true, true, true, false])
        let group = try #require(try bus.command("group", answer: "group")?["items"] as? [[String: Any]])
        #expect(group.count == 4)
        #expect(try bus.command("show 0", answer: "shown")?["update"] as? Bool == false)

        // A left click and the menu's first two entries open the page, the second on the deck.
        try bus.command("activate")
        #expect(waitUntil { recorder.pages.count == 1 })
        try bus.command("click 1")
        try bus.command("click 2")
        #expect(waitUntil { recorder.pages.count == 3 })
        #expect(recorder.pages == ["http://127.0.0.1:1/?token=t", "http://127.0.0.1:1/?token=t", "http://127.0.0.1:1/?token=t#deck=rediscover-7"])
        #expect(recorder.openTokens == [nil, nil, nil])
        // Plasma hands an activation token before the click: the browser's window gets it.
        try bus.command("activate tok-123")
        #expect(waitUntil { recorder.pages.count == 4 })
        #expect(recorder.openTokens.last == "tok-123")
        // The label does nothing.
        try bus.command("click 4")

        // Pause for 2 hours: through the database, as `snapsort pause 2h`; the agent's status
        // follows, and so do the tooltip and the menu.
        let layoutsBefore = bus.signals("LayoutUpdated").count
        let tipsBefore = bus.signals("NewToolTip").count
        let clickedAt = time.current
        try bus.command("click 3")
        let reader = try h.reader()
        #expect(
            waitUntil {
                Self.tick(h, time)
                return recorder.last?.agent.state == .paused
            })
        // Two hours from the click, by the agent's clock (the test's ticks moved it on since).
        let until = try #require(try reader.pausedUntil(now: time.current))
        #expect(until >= clickedAt.addingTimeInterval(7200) && until <= time.current.addingTimeInterval(7200))
        #expect(waitUntil { bus.signals("LayoutUpdated").count > layoutsBefore && bus.signals("NewToolTip").count > tipsBefore })
        let paused = try #require(try bus.command("layout", answer: "layout")?["root"] as? [String: Any])
        let pausedLabels = (paused["children"] as? [[String: Any]] ?? []).compactMap { ($0["props"] as? [String: Any])?["label"] as? String }
        #expect(pausedLabels.contains("Resume"))
        #expect(recorder.pages.count == 4)
        // Resume.
        try bus.command("click 3")
        #expect(
            waitUntil {
                Self.tick(h, time)
                return recorder.last?.agent.state == .watching
            })
        #expect(try reader.pausedUntil(now: time.current) == nil)
    }

    /// The text a markup parser reads from `markup`, nil when it is not well-formed (as Pango
    /// in xfce4-panel refused "Docs & Receipts" and showed a blank tooltip).
    static func markupText(_ markup: String) -> String? {
        final class Collect: NSObject, XMLParserDelegate {
            var text = ""
            func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
        }
        let parser = XMLParser(data: Data(("<markup>" + markup + "</markup>").utf8))
        let collect = Collect()
        parser.delegate = collect
        return parser.parse() ? collect.text : nil
    }

    @Test("the tooltip is markup that reads literally: a group named \"Docs & Receipts\" is escaped and parses back to its text")
    func toolTipIsEscapedMarkup() throws {
        let (bus, recorder, time, h, tray) = try Self.watched()
        defer { h.stop() }
        #expect(waitUntil { tray?.registered == true })
        try h.reader().setAgentState("test_documents", "3", at: Date())
        #expect(
            waitUntil {
                Self.tick(h, time)
                return recorder.last?.groups.contains { $0.id == "document" } == true
            })
        let plain = StatusSummary(try #require(recorder.last)).tooltip
        #expect(plain.contains("Docs & Receipts: 3"))
        var tip: [Any] = []
        #expect(
            waitUntil {
                tip = (try? bus.command("props", answer: "props")?["props"] as? [String: Any])?["ToolTip"] as? [Any] ?? []
                return ((tip.count == 4 ? tip[3] as? String : nil) ?? "").contains("Receipts")
            })
        let body = try #require(tip[3] as? String)
        #expect(body.contains("Docs &amp; Receipts: 3"))
        #expect(Self.markupText(body) == plain, "\(body)")
        #expect(Self.markupText(try #require(tip[2] as? String)) == "SnapSort")
        // Both quotes and the angle brackets too.
        let odd = "Offline: /media/Tom & \"Jerry\" <2024> 'x'"
        #expect(Self.markupText(StatusNotifierItem.markup(odd)) == odd)
        #expect(Self.markupText(odd) == nil)
    }

    @Test("the signals go out when the facts change, and only then")
    func signalsOnChange() throws {
        let (bus, recorder, time, h, tray) = try Self.watched()
        defer { h.stop() }
        #expect(waitUntil { tray?.registered == true })
        let reader = try h.reader()

        // Photos wait for review: Active, a new tooltip and title.
        let docs = { recorder.last?.awaitingReview ?? -1 }
        try reader.setAgentState("test_review", "12", at: Date())
        #expect(
            waitUntil {
                Self.tick(h, time)
                return docs() == 12
            })
        #expect(waitUntil { bus.signals("NewStatus").contains { ($0["args"] as? [String]) == ["Active"] } })
        #expect(waitUntil { !bus.signals("NewToolTip").isEmpty && !bus.signals("NewTitle").isEmpty })
        let props = try #require(try bus.command("props", answer: "props")?["props"] as? [String: Any])
        #expect(props["Status"] as? String == "Active")
        #expect(props["Title"] as? String == "SnapSort 12 to review")
        let body = ((props["ToolTip"] as? [Any])?[3] as? String) ?? ""
        #expect(body.contains("Awaiting review: 12"))

        // A database write that changes no fact: no signal. The write after it changes one, and
        // its signal is the next one the watcher sees (signals arrive in order).
        let counts = { ["NewStatus", "NewToolTip", "NewTitle", "NewIcon"].map { bus.signals($0).count } }
        let before = counts()
        try reader.setAgentState("unrelated", "1", at: Date())
        #expect(
            waitUntil {
                Self.tick(h, time)
                return h.agent.counters.databaseChanges >= 2
            })
        try reader.setAgentState("test_review", "0", at: Date())
        #expect(
            waitUntil {
                Self.tick(h, time)
                return docs() == 0
            })
        #expect(waitUntil { bus.signals("NewStatus").count == before[0] + 1 })
        #expect(bus.signals("NewStatus").last?["args"] as? [String] == ["Passive"])
        #expect(counts()[1] == before[1] + 1)
        #expect(counts()[3] == before[3] + 1)  // the pixmap's colour follows the state
    }

    @Test("each state shows SnapSort's own icon in its own look: normal, photos to review, paused, a folder offline")
    func iconsOfTheStates() throws {
        let (bus, _, time, h, tray) = try Self.watched(options: { $0.offlineCheckInterval = 0.1 })
        defer { h.stop() }
        #expect(waitUntil { tray?.registered == true })
        let reader = try h.reader()
        /// The item's icon name and pixmap as the watcher reads them, once they are `name`.
        func icon(_ name: String) -> (name: String, pixels: [Int])? {
            var seen: (String, [Int])?
            _ = waitUntil {
                Self.tick(h, time)
                guard let props = try? bus.command("props", answer: "props")?["props"] as? [String: Any],
                    let n = props["IconName"] as? String,
                    let p = (props["IconPixmap"] as? [[Any]])?.first(where: { $0[0] as? Int == 22 })?[2] as? [Int]
                else { return false }
                seen = (n, p)
                return n == name
            }
            return seen.map { (name: $0.0, pixels: $0.1) }
        }
        let normal = try #require(icon("snapsort"))
        try reader.setAgentState("test_review", "12", at: Date())
        let review = try #require(icon("snapsort-review"))
        #expect(review.name == "snapsort-review", "\(review.name)")
        try bus.command("click 3")  // Pause for 2 hours
        let paused = try #require(icon("snapsort-paused"))
        #expect(paused.name == "snapsort-paused", "\(paused.name)")
        try bus.command("click 3")  // Resume
        _ = try #require(icon("snapsort-review"))
        // The photo folder goes away (an unplugged drive): a warning.
        try FileSystem.rename(h.root, h.dir.at("away"))
        let attention = try #require(icon("snapsort-attention"))
        #expect(attention.name == "snapsort-attention", "\(attention.name)")
        // Every two states differ by their name and their pixels.
        let all = [normal, review, paused, attention]
        #expect(Set(all.map(\.name)).count == all.count)
        #expect(Set(all.map(\.pixels)).count == all.count)
        #expect(all.allSatisfy { $0.pixels.count == 22 * 22 * 4 })
    }

    @Test("with no watcher the item says so once; a watcher that starts later gets the registration")
    func watcherStartsLater() throws {
        let bus = try TrayBus()
        let recorder = TrayRecorder()
        var tray: TrayAgentService?
        let h = try Self.agent(bus, recorder: recorder, tray: &tray)
        defer { h.stop() }
        let said = { h.logs.messages.filter { $0.contains("no StatusNotifierWatcher") }.count }
        #expect(waitUntil { said() == 1 })
        #expect(tray?.problem == nil)
        #expect(h.status()?["agent"]?["last_error"]?.stringValue == nil)

        try bus.startWatcher()
        #expect(waitUntil { bus.events("registered").count == 1 })
        #expect(waitUntil { tray?.registered == true })
        #expect(said() == 1)
        let props = try #require(try bus.command("props", answer: "props")?["props"] as? [String: Any])
        #expect(props["Id"] as? String == "snapsort")
    }

    @Test("tray = no exports nothing; turning it on in snapsort.conf registers the item")
    func trayOff() throws {
        let (bus, _, time, h, tray) = try Self.watched(config: "tray = no\n")
        defer { h.stop() }
        #expect(tray?.descriptors == [])
        #expect(tray?.registered == false)
        try "tray = yes\n".write(toFile: h.dir.at("config/snapsort/snapsort.conf"), atomically: true, encoding: .utf8)
        #expect(
            waitUntil {
                Self.tick(h, time)
                return bus.events("registered").count == 1
            })
        // The registration is the first the watcher ever saw: nothing was exported before.
        #expect(tray?.descriptors.count == 1)
    }

    @Test("with no session bus the tray says why in the status file and tries again later, by the agent's clock")
    func busComesLater() throws {
        let folder = TempDir("snapsort-tray")
        let recorder = TrayRecorder()
        let (clock, time) = Clock.manual(Date(timeIntervalSince1970: 1_800_000_000))
        var tray: TrayAgentService?
        let h = try Self.agent(address: "unix:path=" + folder.at("bus"), recorder: recorder, tray: &tray, clock: clock)
        defer { h.stop() }
        #expect(waitUntil { (h.status()?["agent"]?["last_error"]?.stringValue ?? "").hasPrefix("tray: cannot show the tray icon") })
        #expect(h.status()?["agent"]?["last_error_severity"]?.stringValue == "warning")

        let bus = try TrayBus(dir: folder)
        try bus.startWatcher()
        time.advance(TrayAgentService.retryInterval + 1)
        h.agent.wake()
        #expect(waitUntil { bus.events("registered").count == 1 })
        #expect(waitUntil { tray?.problem == nil })
        let props = try #require(try bus.command("props", answer: "props")?["props"] as? [String: Any])
        #expect(props["Title"] as? String == recorder.last.map { StatusSummary($0).text })
    }

    @Test("the built agent: its tray registers with the watcher; with --no-tray it never joins the session bus")
    func builtAgent() throws {
        let bus = try TrayBus()
        try bus.startWatcher()
        let (dir, baseEnv, root, _) = AgentProcessTests.setup(0)
        defer { withExtendedLifetime(dir) {} }
        var env = baseEnv
        env["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        let statusFile = env["XDG_RUNTIME_DIR"]! + "/snapsort/status.json"
        let quiet = ["agent", "--no-web", "--no-models", "--no-reminders"]

        // The services start before the first status file: once it is there, a tray would be
        // on the bus. Nobody is, but the watcher.
        let off = try AgentProcessTests.Child(quiet + ["--no-tray", root], env: env)
        #expect(waitUntil(timeout: 20) { FileManager.default.fileExists(atPath: statusFile) }, "\(off.report)")
        #expect(try bus.command("names", answer: "names")?["names"] as? [String] == [])
        #expect(bus.events("registered").isEmpty)
        off.signal(SIGKILL)
        #expect(off.wait(timeout: 20) != nil)

        let on = try AgentProcessTests.Child(quiet + [root], env: env)
        #expect(waitUntil(timeout: 20) { bus.events("registered").count == 1 }, "\(on.report)")
        let props = try #require(try bus.command("props", answer: "props")?["props"] as? [String: Any])
        #expect(props["Id"] as? String == "snapsort")
        #expect(waitUntil(timeout: 10) { on.stderrText.contains("tray icon registered") }, "\(on.report)")
        on.signal(SIGKILL)
        #expect(on.wait(timeout: 20) != nil)
    }
}
