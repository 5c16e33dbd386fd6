import CBus
import Glibc

/// An error from the session bus or the notification server.
public struct DBusError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A stable, extensible error code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable { case noBus, noServer, timeout, disconnected, failed }
        private let value: Value
        /// No session bus to connect to (no `$DBUS_SESSION_BUS_ADDRESS`, no socket, refused).
        public static let noBus = Code(value: .noBus)
        /// Nobody owns `org.freedesktop.Notifications` on the bus.
        public static let noServer = Code(value: .noServer)
        /// The server did not answer within the call timeout.
        public static let timeout = Code(value: .timeout)
        /// The connection broke.
        public static let disconnected = Code(value: .disconnected)
        /// The server answered with an error, or something else went wrong.
        public static let failed = Code(value: .failed)

        public var description: String {
            switch value {
            case .noBus: "no session bus"
            case .noServer: "no notification server"
            case .timeout: "timeout"
            case .disconnected: "disconnected"
            case .failed: "failed"
            }
        }
    }

    public let code: Code
    /// The D-Bus error name when the server sent one (e.g. `org.freedesktop.DBus.Error.ServiceUnknown`).
    public let name: String?
    public let message: String

    public init(_ code: Code, _ message: String, name: String? = nil) {
        self.code = code
        self.message = message
        self.name = name
    }

    public var description: String { message }

    /// What it means for someone who was not reading D-Bus specifications, then what the bus
    /// said ("GetCapabilities: The name org.freedesktop.Notifications was not provided…").
    public var explained: String {
        switch code {
        case .noServer:
            "no notification server is running (dunst, mako, or the one your desktop brings shows them) [\(message)]"
        case .noBus:
            "no session bus to show it on: a desktop session starts one (DBUS_SESSION_BUS_ADDRESS) [\(message)]"
        case .timeout:
            "the notification server did not answer in time [\(message)]"
        default:
            message
        }
    }
}

/// A desktop notification, as `org.freedesktop.Notifications.Notify` takes it
/// (`susssasa{sv}i`; see the Desktop Notifications Specification).
public struct DesktopNotification: Sendable, Equatable {
    /// `urgency` hint values.
    public enum Urgency: UInt8, Sendable {
        case low = 0
        case normal = 1
        case critical = 2
    }

    public var appName: String
    /// The id of a notification to replace (0: a new one).
    public var replacesID: UInt32
    public var icon: String
    public var summary: String
    public var body: String
    /// `(key, label)` pairs; the key `default` is the click on the notification itself.
    public var actions: [(key: String, label: String)]
    public var urgency: Urgency?
    public var category: String?
    public var desktopEntry: String?
    /// Milliseconds; -1: the server decides, 0: never expires.
    public var expireTimeout: Int32

    public init(
        appName: String, replacesID: UInt32 = 0, icon: String = "", summary: String, body: String = "",
        actions: [(key: String, label: String)] = [], urgency: Urgency? = nil, category: String? = nil,
        desktopEntry: String? = nil, expireTimeout: Int32 = -1
    ) {
        self.appName = appName
        self.replacesID = replacesID
        self.icon = icon
        self.summary = summary
        self.body = body
        self.actions = actions
        self.urgency = urgency
        self.category = category
        self.desktopEntry = desktopEntry
        self.expireTimeout = expireTimeout
    }

    public static func == (a: DesktopNotification, b: DesktopNotification) -> Bool {
        a.appName == b.appName && a.replacesID == b.replacesID && a.icon == b.icon && a.summary == b.summary && a.body == b.body
            && a.actions.map(\.key) == b.actions.map(\.key) && a.actions.map(\.label) == b.actions.map(\.label)
            && a.urgency == b.urgency && a.category == b.category && a.desktopEntry == b.desktopEntry
            && a.expireTimeout == b.expireTimeout
    }
}

/// A signal the notification server emitted.
public enum NotificationSignal: Sendable, Equatable {
    /// The user chose an action (`default` for a click on the notification).
    case actionInvoked(id: UInt32, action: String)
    /// The notification went away: reason 1 expired, 2 dismissed, 3 closed by a call, 4 other.
    case closed(id: UInt32, reason: UInt32)
    /// Sent just before `actionInvoked` by servers that follow the spec's 1.2: the token lets
    /// the window the action opens take the focus (`XDG_ACTIVATION_TOKEN` on Wayland,
    /// `DESKTOP_STARTUP_ID` on X11); without it a compositor may only flag the browser.
    case activationToken(id: UInt32, token: String)
}

/// A connection to the session bus through sd-bus (libsystemd), with what desktop
/// notifications need. Every call has a timeout, so a hung server cannot hang the caller.
/// Not thread-safe: use one connection from one thread (sd-bus(3)).
public final class DBusConnection: @unchecked Sendable {
    private let bus: OpaquePointer
    /// How long a method call waits for its reply.
    public var callTimeout: Duration

    /// Connects to `address`, or to the user's session bus when nil
    /// (`$DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`). Throws `.noBus`.
    public init(address: String? = nil, callTimeout: Duration = .seconds(3)) throws(DBusError) {
        var err = [CChar](repeating: 0, count: 512)
        var out: OpaquePointer?
        let r: Int32 = if let address { ss_bus_open(address, &out, &err, err.count) } else { ss_bus_open(nil, &out, &err, err.count) }
        guard r >= 0, let out else { throw DBusError(.noBus, String(cBuffer: err)) }
        bus = out
        self.callTimeout = callTimeout
    }

    private init(bus: OpaquePointer, callTimeout: Duration) {
        self.bus = bus
        self.callTimeout = callTimeout
    }

    /// Connects to `address`, or to the system bus when nil (`$DBUS_SYSTEM_BUS_ADDRESS`, else
    /// /run/dbus/system_bus_socket) — where UPower lives. Throws `.noBus`.
    public static func system(address: String? = nil, callTimeout: Duration = .seconds(3)) throws(DBusError) -> DBusConnection {
        var err = [CChar](repeating: 0, count: 512)
        var out: OpaquePointer?
        let r: Int32 = if let address { ss_bus_open_system(address, &out, &err, err.count) } else { ss_bus_open_system(nil, &out, &err, err.count) }
        guard r >= 0, let out else { throw DBusError(.noBus, String(cBuffer: err)) }
        return DBusConnection(bus: out, callTimeout: callTimeout)
    }

    deinit { ss_bus_close(bus) }

    /// UPower's `OnBattery`: whether the machine runs on battery now.
    public func onBattery() throws(DBusError) -> Bool {
        var err = [CChar](repeating: 0, count: 512)
        var v: Int32 = 0
        try check(ss_upower_on_battery(bus, timeoutMicros, &v, &err, err.count), err)
        return v != 0
    }

    /// Subscribes to UPower's `PropertiesChanged` (idempotent); `powerChanged()` then says
    /// whether one arrived.
    public func listenForPowerChanges() throws(DBusError) {
        var err = [CChar](repeating: 0, count: 512)
        try check(ss_upower_listen(bus, &err, err.count), err)
    }

    /// Reads what arrived (without blocking): whether UPower's properties changed since the
    /// last call. Throws `.disconnected` when the connection is gone.
    public func powerChanged() throws(DBusError) -> Bool {
        var err = [CChar](repeating: 0, count: 512)
        let r = ss_bus_process(bus, &err, err.count)
        if r < 0 { throw DBusError(.disconnected, String(cBuffer: err)) }
        _ = drain()
        defer { powerEvents = 0 }
        return powerEvents > 0
    }

    private var powerEvents = 0

    /// The descriptor to poll for input (POLLIN); then call `signals()`.
    public var fd: Int32 { ss_bus_fd(bus) }

    private var timeoutMicros: UInt64 {
        let c = callTimeout.components
        return UInt64(max(0, c.seconds)) * 1_000_000 + UInt64(max(0, c.attoseconds) / 1_000_000_000_000)
    }

    private func check(_ r: Int32, _ err: [CChar]) throws(DBusError) {
        guard r < 0 else { return }
        let name = String(cString: ss_bus_last_error_name(bus))
        let message = String(cBuffer: err)
        let code: DBusError.Code =
            switch (name, -r) {
            case ("org.freedesktop.DBus.Error.ServiceUnknown", _), ("org.freedesktop.DBus.Error.NameHasNoOwner", _): .noServer
            case ("org.freedesktop.DBus.Error.NoReply", _), ("org.freedesktop.DBus.Error.Timeout", _), (_, ETIMEDOUT): .timeout
            case (_, ECONNRESET), (_, ENOTCONN), (_, EPIPE), (_, ECONNREFUSED), (_, ENOENT): .disconnected
            default: .failed
            }
        throw DBusError(code, message, name: name.isEmpty ? nil : name)
    }

    /// `GetCapabilities`: what the server supports (`actions`, `body`, `body-markup`, …).
    public func notificationCapabilities() throws(DBusError) -> [String] {
        var err = [CChar](repeating: 0, count: 512)
        var buf = [CChar](repeating: 0, count: 4096)
        let r = ss_notifications_capabilities(bus, timeoutMicros, &buf, buf.count, &err, err.count)
        try check(r, err)
        return String(cBuffer: buf).split(separator: "\n").map(String.init)
    }

    /// `Notify`: shows (or replaces) a notification and returns its id.
    public func notify(_ n: DesktopNotification) throws(DBusError) -> UInt32 {
        var err = [CChar](repeating: 0, count: 512)
        var id: UInt32 = 0
        let flat = n.actions.flatMap { [$0.key, $0.label] }
        let cStrings = flat.map { strdup($0) }
        defer { for p in cStrings { free(p) } }
        let urgency = n.urgency.map { Int32($0.rawValue) } ?? -1
        let r: Int32 = cStrings.map { UnsafePointer<CChar>($0) }.withUnsafeBufferPointer { actions in
            withOptionalCString(n.category) { category in
                withOptionalCString(n.desktopEntry) { entry in
                    ss_notifications_notify(
                        bus, n.appName, n.replacesID, n.icon, n.summary, n.body, actions.baseAddress, actions.count,
                        urgency, category, entry, n.expireTimeout, timeoutMicros, &id, &err, err.count)
                }
            }
        }
        try check(r, err)
        return id
    }

    /// `CloseNotification`.
    public func closeNotification(_ id: UInt32) throws(DBusError) {
        var err = [CChar](repeating: 0, count: 512)
        try check(ss_notifications_close(bus, id, timeoutMicros, &err, err.count), err)
    }

    /// Subscribes to `ActionInvoked`, `ActivationToken` and `NotificationClosed` (idempotent).
    public func listenForNotificationSignals() throws(DBusError) {
        var err = [CChar](repeating: 0, count: 512)
        try check(ss_notifications_listen(bus, &err, err.count), err)
    }

    /// Reads what arrived (without blocking) and returns the notification signals, oldest first.
    /// Throws `.disconnected` when the connection is gone.
    public func signals() throws(DBusError) -> [NotificationSignal] {
        var err = [CChar](repeating: 0, count: 512)
        let r = ss_bus_process(bus, &err, err.count)
        if r < 0 { throw DBusError(.disconnected, String(cBuffer: err)) }
        return drain()
    }

    /// Waits up to `timeout` for input, then returns the notification signals (tests and
    /// one-shot commands; the agent polls `fd` instead).
    public func waitForSignals(timeout: Duration) throws(DBusError) -> [NotificationSignal] {
        var err = [CChar](repeating: 0, count: 512)
        let c = timeout.components
        let usec = UInt64(max(0, c.seconds)) * 1_000_000 + UInt64(max(0, c.attoseconds) / 1_000_000_000_000)
        let r = ss_bus_wait(bus, usec, &err, err.count)
        if r < 0 { throw DBusError(.disconnected, String(cBuffer: err)) }
        return drain()
    }

    private func drain() -> [NotificationSignal] {
        var out: [NotificationSignal] = []
        var e = ss_bus_event()
        while ss_bus_next_event(bus, &e) == 1 {
            switch e.kind {
            case 1:
                let action = withUnsafeBytes(of: e.action) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                out.append(.actionInvoked(id: e.id, action: action))
            case 2: out.append(.closed(id: e.id, reason: e.reason))
            case 4:
                let token = withUnsafeBytes(of: e.token) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                out.append(.activationToken(id: e.id, token: token))
            case 3: powerEvents += 1
            default: break
            }
        }
        return out
    }
}

private func withOptionalCString<R>(_ s: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let s else { return body(nil) }
    return s.withCString { body($0) }
}
