#!/usr/bin/python3
"""A fake org.freedesktop.Notifications server for SnapSort's tests.

Usage: fake_notifications.py BUS_ADDRESS

Registers on the bus at BUS_ADDRESS, prints one JSON object per line on stdout:
  {"event": "ready"}                       once the name is owned
  {"event": "call", "method": "Notify", "signature": "susssasa{sv}i", "app_name": ..., "replaces_id": ...,
   "icon": ..., "summary": ..., "body": ..., "actions": [...], "hints": {"urgency": ["y", 1], ...},
   "expire_timeout": -1, "id": N}
  {"event": "call", "method": "GetCapabilities"} / "CloseNotification"
and takes commands on stdin, one a line:
  action ID KEY        emit ActionInvoked(ID, KEY)
  activate ID KEY TOK  emit ActivationToken(ID, TOK), then ActionInvoked(ID, KEY) (spec 1.2)
  close ID REASON      emit NotificationClosed(ID, REASON)
  caps A,B,...         the capabilities GetCapabilities returns (empty: none)
  hang on|off          stop (or resume) answering Notify, to test call timeouts
  quit                 exit (also on end of input)
Needs Debian's python3-dbus and python3-gi (run with /usr/bin/python3).
"""
import dbus
import dbus.service

from fake_bus import emit, serve

IFACE = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"


def typed(v):
    # dbus.Boolean and dbus.Byte are ints: test the specific types first.
    for t, code in ((dbus.Boolean, "b"), (dbus.Byte, "y"), (dbus.Int32, "i"), (dbus.UInt32, "u"), (dbus.String, "s")):
        if isinstance(v, t):
            return [code, bool(v) if code == "b" else (str(v) if code == "s" else int(v))]
    return ["?", str(v)]


class Server(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, PATH)
        self.next_id = 1
        self.caps = ["actions", "body", "icon-static"]
        self.hang = False

    @dbus.service.method(IFACE, in_signature="", out_signature="as")
    def GetCapabilities(self):
        emit({"event": "call", "method": "GetCapabilities"})
        return dbus.Array(self.caps, signature="s")

    @dbus.service.method(IFACE, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ("fake", "snapsort-tests", "1", "1.2")

    @dbus.service.method(IFACE, in_signature="susssasa{sv}i", out_signature="u", message_keyword="msg",
                         async_callbacks=("ok", "err"))
    def Notify(self, app_name, replaces_id, icon, summary, body, actions, hints, expire_timeout, msg=None, ok=None, err=None):
        if replaces_id:
            nid = int(replaces_id)
        else:
            nid = self.next_id
            self.next_id += 1
        emit({"event": "call", "method": "Notify", "signature": msg.get_signature(), "app_name": str(app_name),
              "replaces_id": int(replaces_id), "icon": str(icon), "summary": str(summary), "body": str(body),
              "actions": [str(a) for a in actions], "hints": {str(k): typed(v) for k, v in hints.items()},
              "expire_timeout": int(expire_timeout), "id": nid, "answered": not self.hang})
        if not self.hang:
            ok(dbus.UInt32(nid))

    @dbus.service.method(IFACE, in_signature="u", out_signature="")
    def CloseNotification(self, nid):
        emit({"event": "call", "method": "CloseNotification", "id": int(nid)})
        self.NotificationClosed(dbus.UInt32(nid), dbus.UInt32(3))

    @dbus.service.signal(IFACE, signature="us")
    def ActionInvoked(self, nid, key):
        pass

    @dbus.service.signal(IFACE, signature="us")
    def ActivationToken(self, nid, token):
        pass

    @dbus.service.signal(IFACE, signature="uu")
    def NotificationClosed(self, nid, reason):
        pass


def main():
    server = None

    def make(bus):
        nonlocal server
        server = Server(bus)

    def on_line(parts):
        if not parts:
            return True
        cmd = parts[0]
        if cmd == "action":
            server.ActionInvoked(dbus.UInt32(int(parts[1])), parts[2])
        elif cmd == "activate":
            server.ActivationToken(dbus.UInt32(int(parts[1])), parts[3])
            server.ActionInvoked(dbus.UInt32(int(parts[1])), parts[2])
        elif cmd == "close":
            server.NotificationClosed(dbus.UInt32(int(parts[1])), dbus.UInt32(int(parts[2])))
        elif cmd == "caps":
            server.caps = [c for c in (parts[1].split(",") if len(parts) > 1 else []) if c]
        elif cmd == "hang":
            server.hang = parts[1] == "on"
        elif cmd == "quit":
            return False
        emit({"event": "done", "command": cmd})
        return True

    serve(IFACE, make, on_line)


if __name__ == "__main__":
    main()
