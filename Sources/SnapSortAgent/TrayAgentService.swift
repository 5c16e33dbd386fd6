import Foundation
import SnapSortCore
import SnapSortSystem

/// The tray icon (issue 33): a StatusNotifierItem on the session bus with a dbusmenu menu, for
/// the panels of KDE Plasma, GNOME (AppIndicator extension), Xfce, Cinnamon, MATE, Budgie and
/// waybar's tray. It registers with `org.kde.StatusNotifierWatcher` at start and again whenever
/// a watcher appears; its facts change only when the status document does (`statusChanged`).
/// A left click opens the review page; the menu opens it, starts a session on the reminders'
/// deck, pauses analysis for two hours or resumes it, and says today's progress.
public final class TrayAgentService: AgentService {
    /// The menu's entries.
    public enum Entry: Int32, Sendable, CaseIterable {
        case open = 1
        case startSession = 2
        case pause = 3
        case today = 4
        case space = 5
        case problem = 6
        case recovery = 7
    }

    /// How long "Pause for 2 hours" pauses.
    public static let pauseInterval: TimeInterval = 2 * 3600
    /// How long a tray that could not reach the session bus waits before it tries again.
    public static let retryInterval: TimeInterval = 600

    private var enabled: Bool
    private let address: String?
    private let dbPath: String
    private let page: ReviewPage
    private let deck: @Sendable () -> String
    private let logger: Logger
    /// The agent waits on a refused or damaged library (`LibraryWait`): no page, no session, no
    /// pause — the icon says ⚠ and the menu says what is wrong and how a backup comes back.
    private let waitingForLibrary: Bool
    private var item: StatusNotifierItem?
    private var current: TrayStatus?
    private var saidNoWatcher = false
    /// The token the host sent for the next click (good for that click only).
    private var activationToken: String?
    private var retryAt: Date?
    public private(set) var problem: String?
    /// Whether the watcher took the registration (tests).
    public private(set) var registered = false

    /// `address`: the session bus (nil: the user's). `page` opens the review page (the
    /// reminders' opener); `deck` is the deck "Start a session" opens. `waitingForLibrary`: the
    /// tray of an agent that waits on its library (`LibraryWait`).
    public init(
        enabled: Bool, address: String?, dbPath: String, page: ReviewPage, deck: @escaping @Sendable () -> String, logger: Logger,
        waitingForLibrary: Bool = false
    ) {
        self.waitingForLibrary = waitingForLibrary
        self.enabled = enabled
        self.address = address
        self.dbPath = dbPath
        self.page = page
        self.deck = deck
        self.logger = logger
    }

    /// The live tray for the agent's library: the session bus of the agent's environment, the
    /// reminders' page and deck.
    public convenience init(_ c: AgentServiceContext) {
        let library = c.library
        let clock = c.clock
        self.init(
            enabled: c.configuration.tray, address: c.env["DBUS_SESSION_BUS_ADDRESS"], dbPath: c.dbPath,
            page: .live(c.env, database: c.dbPath, logger: c.logger),
            deck: { ReminderDependencies.standardDeck(library: library, clock: clock) }, logger: c.logger)
    }

    public var name: String { "tray" }
    public var descriptors: [Int32] { item.map { [$0.fd] } ?? [] }

    public func start(now: Date) { if enabled { connect(now: now) } }

    public func nextDeadline(now: Date) -> Date? { enabled && item == nil ? retryAt : nil }

    public func stop() {
        item = nil
        registered = false
    }

    public func configurationChanged(_ configuration: Configuration, now: Date) {
        guard configuration.tray != enabled else { return }
        enabled = configuration.tray
        if enabled {
            connect(now: now)
        } else {
            stop()
            problem = nil
            logger.info("tray icon removed (tray = no)")
        }
    }

    public func statusChanged(_ document: StatusDocument, now: Date) {
        let t = TrayStatus(document)
        guard t != current else { return }
        current = t
        publish()
    }

    public func fire(now: Date, readable: [Int32]) {
        if item == nil, enabled, let at = retryAt, at <= now { connect(now: now) }
        guard let item else { return }
        let events: [StatusNotifierItem.Event]
        do { events = try item.events() } catch {
            self.item = nil
            registered = false
            retryAt = now.addingTimeInterval(TrayAgentService.retryInterval)
            note("lost the session bus: \(error)")
            return
        }
        for e in events { handle(e, now: now) }
    }

    private func handle(_ e: StatusNotifierItem.Event, now: Date) {
        switch e {
        case .activated where waitingForLibrary, .menuClicked where waitingForLibrary:
            activationToken = nil
            logger.notice("the library cannot be used until a backup is put back or the file is moved aside (snapsort backup list)")
        case .activated, .menuClicked(Entry.open.rawValue): openPage(deck: nil)
        case .menuClicked(Entry.startSession.rawValue): openPage(deck: deck())
        case .menuClicked(Entry.pause.rawValue): togglePause(now: now)
        case .menuClicked, .secondaryActivated: activationToken = nil
        case .activationToken(let token): activationToken = token
        case .watcherAppeared:
            logger.info("a StatusNotifierWatcher appeared; registering the tray icon")
            register()
        case .registered:
            registered = true
            saidNoWatcher = false
            logger.info("tray icon registered")
        case .noWatcher:
            registered = false
            // Once: no panel shows tray icons now; one that starts later is seen (NameOwnerChanged).
            if !saidNoWatcher { logger.info("no StatusNotifierWatcher on the session bus; the tray icon shows when a panel starts one") }
            saidNoWatcher = true
        case .registrationFailed(let why):
            registered = false
            logger.warning("the StatusNotifierWatcher refused the tray icon", ["error": why])
        }
    }

    /// The same opener as `snapsort open` and the reminders' "Start a session".
    private func openPage(deck: String?) {
        guard let url = page.url(deck ?? "") else {
            activationToken = nil
            logger.notice("the review page is not running; start it to review from the tray")
            return
        }
        page.open(url, activationToken)
        activationToken = nil
        // The opener logs which one ran (`ReviewPage.log`).
        logger.info("opening the review page")
    }

    /// Through the database, as `snapsort pause 2h` and `snapsort resume` do: the agent sees
    /// the change as another connection's commit and the document (and this menu) follows.
    private func togglePause(now: Date) {
        do {
            let library = try Library(path: dbPath)
            if try library.pausedUntil(now: now) != nil {
                try library.resume(now: now)
            } else {
                try library.pause(until: now.addingTimeInterval(TrayAgentService.pauseInterval), now: now)
            }
        } catch {
            logger.warning("cannot pause or resume from the tray", ["error": "\(error)"])
        }
    }

    private func connect(now: Date) {
        guard item == nil else { return }
        do {
            item = try StatusNotifierItem(address: address, id: "snapsort")
            if problem != nil { logger.notice("the tray icon is back on the session bus") }
            problem = nil
            retryAt = nil
            publish()
            register()
        } catch {
            retryAt = now.addingTimeInterval(TrayAgentService.retryInterval)
            note("cannot show the tray icon: \(error)")
        }
    }

    private func register() {
        do { try item?.register() } catch { note("cannot register the tray icon: \(error)") }
    }

    /// The facts and the menu from the last document (a placeholder before the first).
    private func publish() {
        guard let item else { return }
        let t = current
        // Every size the theme installs (16 to 48 px): a panel picks the one that fits, and a
        // 22 px icon scaled to 48 on a HiDPI panel was blurred.
        let pixmaps =
            t.map { t in TrayIcon.sizes.map { StatusNotifierItem.Pixmap(width: Int32($0), height: Int32($0), argb: t.pixmap(size: $0)) } } ?? []
        if waitingForLibrary {
            publishWaiting(item, t, pixmaps)
            return
        }
        var menu = [
            StatusNotifierItem.MenuItem(id: Entry.open.rawValue, label: "Open SnapSort"),
            StatusNotifierItem.MenuItem(id: Entry.startSession.rawValue, label: "Start a session"),
            StatusNotifierItem.MenuItem(id: Entry.pause.rawValue, label: t?.paused == true ? "Resume" : "Pause for 2 hours"),
        ]
        if let today = t?.today { menu.append(StatusNotifierItem.MenuItem(id: Entry.today.rawValue, label: today, enabled: false)) }
        if let space = t?.space { menu.append(StatusNotifierItem.MenuItem(id: Entry.space.rawValue, label: space, enabled: false)) }
        do {
            try item.set(
                StatusNotifierItem.Facts(
                    title: t?.title ?? "SnapSort", status: t?.status ?? "Passive", iconName: t?.iconName ?? TrayStatus.iconName, pixmaps: pixmaps,
                    toolTipTitle: "SnapSort", toolTipBody: t?.toolTip ?? ""))
            try item.setMenu(menu)
        } catch {
            note("cannot update the tray icon: \(error)")
        }
    }

    /// The waiting agent's item: ⚠, the refusal in the tooltip (it names the backups), and a menu
    /// that says what is wrong and the commands that bring a backup back — nothing to open.
    private func publishWaiting(_ item: StatusNotifierItem, _ t: TrayStatus?, _ pixmaps: [StatusNotifierItem.Pixmap]) {
        let menu = [
            StatusNotifierItem.MenuItem(id: Entry.problem.rawValue, label: "The library cannot be used: see the tooltip", enabled: false),
            StatusNotifierItem.MenuItem(
                id: Entry.recovery.rawValue, label: "The backups, to bring one back: snapsort backup list", enabled: false),
        ]
        do {
            try item.set(
                StatusNotifierItem.Facts(
                    title: t?.title ?? "SnapSort", status: "NeedsAttention", iconName: TrayIcon.name(.attention), pixmaps: pixmaps,
                    toolTipTitle: "SnapSort", toolTipBody: t?.toolTip ?? ""))
            try item.setMenu(menu)
        } catch {
            note("cannot update the tray icon: \(error)")
        }
    }

    private func note(_ message: String) {
        if problem != message { logger.warning(message) }
        problem = message
    }
}
