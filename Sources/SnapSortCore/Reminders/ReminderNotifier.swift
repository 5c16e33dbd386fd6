import Foundation
import SnapSortSystem

/// Where reminders are shown: the desktop's notification server in production, a recording
/// fake in tests. Used from one thread (the agent's loop).
public protocol ReminderNotifier: AnyObject {
    /// Shows (or replaces, with `replacesID`) a notification and returns its id.
    func show(_ notification: DesktopNotification) throws -> UInt32
    /// A descriptor that becomes readable when signals may have arrived (nil: none yet).
    var fd: Int32? { get }
    /// The signals that arrived since the last call, without blocking.
    func signals() -> [NotificationSignal]
}

/// Notifications over the session bus (sd-bus): connects on first use and again after the
/// bus or the server went away, checks `GetCapabilities` once per server and leaves the
/// actions out when the server cannot show them. Every call has `callTimeout`.
public final class DesktopNotifier: ReminderNotifier, @unchecked Sendable {
    private let address: String?
    private let callTimeout: Duration
    private var connection: DBusConnection?
    private var capabilities: [String]?

    /// `address` nil: the user's session bus (`$DBUS_SESSION_BUS_ADDRESS`).
    public init(address: String? = nil, callTimeout: Duration = .seconds(3)) {
        self.address = address
        self.callTimeout = callTimeout
    }

    /// Whether the server said it shows actions (nil: not asked yet).
    public var supportsActions: Bool? { capabilities.map { $0.contains("actions") } }

    public var fd: Int32? { connection?.fd }

    public func show(_ notification: DesktopNotification) throws -> UInt32 {
        let c = try connect()
        do {
            if capabilities == nil { capabilities = try c.notificationCapabilities() }
            var n = notification
            // See the spec's "actions" capability: without it, actions must not be relied on.
            if capabilities?.contains("actions") != true { n.actions = [] }
            return try c.notify(n)
        } catch {
            if error.code == .disconnected || error.code == .noBus { connection = nil }
            // The next server (started later, or another one) may have other capabilities.
            capabilities = nil
            throw error
        }
    }

    public func signals() -> [NotificationSignal] {
        guard let c = connection else { return [] }
        do { return try c.signals() } catch {
            connection = nil
            capabilities = nil
            return []
        }
    }

    private func connect() throws(DBusError) -> DBusConnection {
        if let c = connection { return c }
        let c = try DBusConnection(address: address, callTimeout: callTimeout)
        try c.listenForNotificationSignals()
        connection = c
        return c
    }
}

/// The review page a reminder opens, and how it is opened (injected: the page is issue 7's,
/// the opener is `xdg-open`).
public struct ReviewPage: Sendable {
    /// What to open for a deck (the live one: the `file://` URL of the page's opener file,
    /// `PageOpener`), nil when the page is not running.
    public var url: @Sendable (_ deck: String) -> String?
    /// Opens a URL in the user's browser, with the notification's activation token when the
    /// server sent one (the browser's window may then take the focus).
    public var open: @Sendable (_ url: String, _ activationToken: String?) -> Void

    public init(url: @escaping @Sendable (String) -> String?, open: @escaping @Sendable (String, String?) -> Void) {
        self.url = url
        self.open = open
    }

    /// Reads where the running page of the library at `database` is (`LibraryFiles`), writes its
    /// opener file (`PageOpener`: the key stays out of the browser's arguments) and opens that
    /// with `URLOpener.start` (in its own systemd scope when a user manager runs, else, or when
    /// the scope fails, by xdg-open alone); `logger` says which opener ran, or that none did.
    public static func live(_ env: Environment, database: String? = nil, logger: Logger = .silent) -> ReviewPage {
        ReviewPage(
            url: { deck in
                guard let info = runningInfo(env, database: database) else { return nil }
                return try? PageOpener.write(info, deck: deck, env: env)
            },
            open: { url, token in
                URLOpener.start(url, env: env, silent: true, activationToken: token) { log($0, logger) }
            })
    }

    /// The opener's truth in the log (the browser's own failure is not seen: xdg-open started,
    /// not "opened").
    static func log(_ opened: URLOpener.Opened, _ logger: Logger) {
        switch opened {
        case .scope:
            logger.info("started the browser on the review page", ["opener": "systemd-run --user --scope xdg-open"])
        case .xdgOpen(nil):
            logger.info("started the browser on the review page", ["opener": "xdg-open"])
        case .xdgOpen(let status?):
            logger.notice(
                "systemd-run could not open the review page in its own scope (no user manager?); started xdg-open alone",
                ["opener": "xdg-open", "systemd_run.status": "\(status)"])
        case .nothing(let why):
            logger.warning("cannot open the review page: no opener ran", ["error": why])
        }
    }

    /// A page that is never running (commands without a browser).
    public static let none = ReviewPage(url: { _ in nil }, open: { _, _ in })

    /// `http://127.0.0.1:PORT/?token=TOKEN#deck=ID` from the page's file (`url`, else the port,
    /// and the token: without it the page answers 401 to a browser that has not been there):
    /// the library's own `web-KEY.json`, else `web.json` when it names that library (or none).
    /// With two libraries served, `web.json` names the one started last, and a reminder of the
    /// other must not open it. Nil when absent, or when the process that wrote it is gone (a
    /// server killed without removing it): nothing would answer.
    public static func webURL(_ env: Environment, deck: String, database: String? = nil) -> String? {
        guard let info = runningInfo(env, database: database) else { return nil }
        let fragment = "#deck=" + (deck.addingPercentEncoding(withAllowedCharacters: .urlFragmentAllowed) ?? deck)
        let token = "?token=" + (info.token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? info.token)
        guard info.url.hasPrefix("http") else { return "http://127.0.0.1:\(info.port)/\(token)\(fragment)" }
        let base = info.url.split(separator: "#", maxSplits: 1).first.map(String.init) ?? info.url
        return (base.split(separator: "?", maxSplits: 1).first.map(String.init) ?? base) + token + fragment
    }
}

extension ReviewPage {
    /// The page file of the library at `database` (or `web.json`), nil when absent or when the
    /// process that wrote it is gone.
    static func runningInfo(_ env: Environment, database: String?) -> WebInfo? {
        guard let info = database.map({ WebInfo.read(env, database: $0) }) ?? WebInfo.read(env) else { return nil }
        if info.pid > 0, !SystemProcess.exists(Int32(clamping: info.pid)) { return nil }
        return info
    }
}
