import CBus
import Glibc

/// A tray icon on the session bus: `org.kde.StatusNotifierItem` at `/StatusNotifierItem` with a
/// `com.canonical.dbusmenu` menu at `/MenuBar`, through sd-bus (the vtables live in the CBus
/// shim). The facts are set as values; the properties change, with their `New…` signals, only
/// when a fact changed. Not thread-safe: one thread, like `DBusConnection`.
/// See: https://www.freedesktop.org/wiki/Specifications/StatusNotifierItem/
public final class StatusNotifierItem: @unchecked Sendable {
    /// What the item shows.
    public struct Facts: Sendable, Equatable {
        public var title: String
        /// `Passive`, `Active` or `NeedsAttention`.
        public var status: String
        /// A name from the icon theme.
        public var iconName: String
        /// The fallback when the host has no such icon, at several sizes (the host picks the one
        /// that fits its panel): ARGB32 pixels in network byte order.
        public var pixmaps: [Pixmap]
        /// The tooltip's title and body, plain text: `set` escapes them (`markup`).
        public var toolTipTitle: String
        public var toolTipBody: String

        public init(title: String, status: String, iconName: String, pixmaps: [Pixmap] = [], toolTipTitle: String, toolTipBody: String) {
            self.title = title
            self.status = status
            self.iconName = iconName
            self.pixmaps = pixmaps
            self.toolTipTitle = toolTipTitle
            self.toolTipBody = toolTipBody
        }
    }

    /// An icon as `IconPixmap` carries it (`iiay`).
    public struct Pixmap: Sendable, Equatable {
        public var width: Int32
        public var height: Int32
        /// `width × height × 4` bytes: A, R, G, B per pixel.
        public var argb: [UInt8]

        public init(width: Int32, height: Int32, argb: [UInt8]) {
            self.width = width
            self.height = height
            self.argb = argb
        }
    }

    /// One entry of the menu (`id` > 0).
    public struct MenuItem: Sendable, Equatable {
        public var id: Int32
        public var label: String
        public var enabled: Bool

        public init(id: Int32, label: String, enabled: Bool = true) {
            self.id = id
            self.label = label
            self.enabled = enabled
        }
    }

    /// What happened on the bus.
    public enum Event: Sendable, Equatable {
        /// A left click (`Activate`).
        case activated
        /// A middle click (`SecondaryActivate`).
        case secondaryActivated
        /// A menu entry was clicked (`Event` "clicked").
        case menuClicked(Int32)
        /// `org.kde.StatusNotifierWatcher` got an owner: register again.
        case watcherAppeared
        /// The watcher took the registration.
        case registered
        /// Nobody owns `org.kde.StatusNotifierWatcher` (no panel shows tray icons now).
        case noWatcher
        /// The watcher refused, or the call failed.
        case registrationFailed(String)
        /// The host's XDG activation token for the click that follows (KDE's
        /// `ProvideXdgActivationToken`): the window the click opens may take the focus.
        case activationToken(String)
    }

    private let tray: OpaquePointer

    /// Connects to `address` (nil: the session bus) and exports the item and its menu.
    public init(address: String? = nil, id: String) throws(DBusError) {
        var err = [CChar](repeating: 0, count: 512)
        var out: OpaquePointer?
        let r: Int32 = if let address { ss_tray_open(address, id, &out, &err, err.count) } else { ss_tray_open(nil, id, &out, &err, err.count) }
        guard r >= 0, let out else { throw DBusError(.noBus, String(cBuffer: err)) }
        tray = out
    }

    deinit { ss_tray_close(tray) }

    /// The descriptor to poll for input (POLLIN); then call `events()`.
    public var fd: Int32 { ss_tray_fd(tray) }

    /// The connection's unique bus name (":1.42"), the name it registers with.
    public var uniqueName: String { String(cString: ss_tray_unique_name(tray)) }

    /// Asks the watcher to show the item; the answer comes as an event.
    public func register() throws(DBusError) {
        var err = [CChar](repeating: 0, count: 512)
        if ss_tray_register(tray, &err, err.count) < 0 { throw DBusError(.disconnected, String(cBuffer: err)) }
    }

    /// Sets the facts; the signals go out for those that changed. The tooltip goes out as
    /// markup, its text escaped: the spec lets the body carry markup, and hosts such as
    /// xfce4-panel parse title and body with Pango, so a raw `&` ("Docs & Receipts") blanked
    /// the tooltip. The item's `Title` is plain text by the spec and stays as it is.
    /// See: https://www.freedesktop.org/wiki/Specifications/StatusNotifierItem/Markup/
    public func set(_ f: Facts) throws(DBusError) {
        var err = [CChar](repeating: 0, count: 512)
        // Whole pixmaps only (at most 8), each its width × height × 4 bytes: the shim checks the sum.
        let whole = Array(f.pixmaps.filter { $0.width > 0 && $0.height > 0 && $0.argb.count == Int($0.width) * Int($0.height) * 4 }.prefix(8))
        let pixels = whole.flatMap(\.argb)
        let dims = whole.flatMap { [$0.width, $0.height] }
        let (tipTitle, tipBody) = (Self.markup(f.toolTipTitle), Self.markup(f.toolTipBody))
        let r = pixels.withUnsafeBufferPointer { p in
            dims.withUnsafeBufferPointer { d in
                ss_tray_set(
                    tray, f.title, f.status, f.iconName, tipTitle, tipBody, d.baseAddress, whole.count, p.baseAddress, p.count, &err, err.count)
            }
        }
        if r < 0 { throw DBusError(.disconnected, String(cBuffer: err)) }
    }

    /// `text` as markup that reads literally (`Markup.escaped`), for the tooltip.
    public static func markup(_ text: String) -> String { Markup.escaped(text) }

    /// Sets the menu; `LayoutUpdated` goes out when it changed.
    public func setMenu(_ items: [MenuItem]) throws(DBusError) {
        var err = [CChar](repeating: 0, count: 512)
        let labels = items.map { strdup($0.label) }
        defer { for l in labels { free(l) } }
        let c = zip(items, labels).map { ss_tray_item(id: $0.id, label: UnsafePointer($1), enabled: $0.enabled ? 1 : 0) }
        let r = c.withUnsafeBufferPointer { ss_tray_set_menu(tray, $0.baseAddress, $0.count, &err, err.count) }
        if r < 0 { throw DBusError(.disconnected, String(cBuffer: err)) }
    }

    /// Serves what arrived (without blocking: property reads, menu layouts) and returns what
    /// happened, oldest first. Throws `.disconnected` when the connection is gone.
    public func events() throws(DBusError) -> [Event] {
        var err = [CChar](repeating: 0, count: 512)
        if ss_tray_process(tray, &err, err.count) < 0 { throw DBusError(.disconnected, String(cBuffer: err)) }
        return drain()
    }

    /// Waits up to `timeout` for input, then serves it (tests and one-shot use).
    public func waitForEvents(timeout: Duration) throws(DBusError) -> [Event] {
        var err = [CChar](repeating: 0, count: 512)
        let c = timeout.components
        let usec = UInt64(max(0, c.seconds)) * 1_000_000 + UInt64(max(0, c.attoseconds) / 1_000_000_000_000)
        if ss_tray_wait(tray, usec, &err, err.count) < 0 { throw DBusError(.disconnected, String(cBuffer: err)) }
        return drain()
    }

    private func drain() -> [Event] {
        var out: [Event] = []
        var e = ss_tray_event()
        while ss_tray_next_event(tray, &e) == 1 {
            switch e.kind {
            case 1: out.append(.activated)
            case 2: out.append(.secondaryActivated)
            case 3: out.append(.menuClicked(e.id))
            case 4: out.append(.watcherAppeared)
            case 5: out.append(.registered)
            case 6:
                let message = withUnsafeBytes(of: e.message) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
                out.append(.registrationFailed(message))
            case 7: out.append(.noWatcher)
            case 8:
                let token = withUnsafeBytes(of: e.message) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
                out.append(.activationToken(token))
            default: break
            }
        }
        return out
    }
}
