#!/usr/bin/python3
"""A fake org.kde.StatusNotifierWatcher (a panel's tray) for SnapSort's tests.

Usage: fake_watcher.py BUS_ADDRESS

Owns org.kde.StatusNotifierWatcher on the bus at BUS_ADDRESS and prints one JSON object per
line on stdout:
  {"event": "ready"}                          once the name is owned
  {"event": "registered", "service": S, "sender": U}   RegisterStatusNotifierItem(S) from U
  {"event": "signal", "member": M, "args": [...], "path": P}   a signal of the registered item
  {"event": "props", "props": {...}}          answer to "props"
  {"event": "layout", "revision": N, "root": {...}}   answer to "layout"
  {"event": "group", "items": [...]}          answer to "group"
  {"event": "done", "command": C} / {"event": "error", "command": C, "message": M}
and takes commands on stdin, one a line (they act on the item registered last):
  props        GetAll on org.kde.StatusNotifierItem (and Version of the menu)
  layout       com.canonical.dbusmenu.GetLayout(0, -1, [])
  group        GetGroupProperties([], [])
  activate [TOKEN]   ProvideXdgActivationToken(TOKEN) first when given (Plasma does), then Activate(0, 0)
  click ID     Event(ID, "clicked", "", 0)
  show ID      AboutToShow(ID)
  names        the unique names on the bus ({"event": "names", "names": [...]}, its own left out)
  quit         exit (also on end of input)
Needs Debian's python3-dbus and python3-gi (run with /usr/bin/python3).
"""
import dbus
import dbus.service

from fake_bus import emit, serve

IFACE = "org.kde.StatusNotifierWatcher"
ITEM = "org.kde.StatusNotifierItem"
MENU = "com.canonical.dbusmenu"


def plain(v):
    """A D-Bus value as JSON (byte arrays as lists of ints)."""
    if isinstance(v, dbus.Boolean):
        return bool(v)
    if isinstance(v, (dbus.Byte, dbus.Int32, dbus.UInt32, dbus.Int64, dbus.UInt64, dbus.Int16, dbus.UInt16)):
        return int(v)
    if isinstance(v, (dbus.String, dbus.ObjectPath, str)):
        return str(v)
    if isinstance(v, dbus.ByteArray):
        return list(bytes(v))
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return str(v)


def node(n):
    nid, props, children = n
    return {"id": int(nid), "props": plain(props), "children": [node(c) for c in children]}


class Watcher(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/StatusNotifierWatcher")
        self.bus = bus
        self.items = []

    @dbus.service.method(IFACE, in_signature="s", out_signature="", sender_keyword="sender")
    def RegisterStatusNotifierItem(self, service, sender=None):
        # A path alone means the sender's unique name (as KDE's watcher does).
        name = str(sender) if str(service).startswith("/") else str(service)
        self.items.append(name)
        emit({"event": "registered", "service": str(service), "sender": str(sender)})

    @dbus.service.method(IFACE, in_signature="s", out_signature="")
    def RegisterStatusNotifierHost(self, service):
        pass

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, prop):
        if prop == "RegisteredStatusNotifierItems":
            return dbus.Array(self.items, signature="s")
        if prop == "IsStatusNotifierHostRegistered":
            return True
        return dbus.Int32(0)


def main():
    watcher = None

    def on_signal(*args, **kw):
        emit({"event": "signal", "member": kw["member"], "path": kw["path"], "sender": kw["sender"],
              "args": [plain(a) for a in args]})

    def make(bus):
        nonlocal watcher
        watcher = Watcher(bus)
        for iface in (ITEM, MENU):
            bus.add_signal_receiver(on_signal, dbus_interface=iface, member_keyword="member", path_keyword="path",
                                    sender_keyword="sender")

    def on_line(parts):
        if not parts:
            return True
        cmd = parts[0]
        bus = watcher.bus
        try:
            if cmd == "quit":
                return False
            if cmd == "names":
                own = bus.get_unique_name()
                names = bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus").ListNames(
                    dbus_interface="org.freedesktop.DBus")
                emit({"event": "names", "names": sorted(str(n) for n in names if n.startswith(":") and n != own)})
                emit({"event": "done", "command": cmd})
                return True
            item = watcher.items[-1]
            if cmd == "props":
                props = bus.get_object(item, "/StatusNotifierItem").GetAll(ITEM, dbus_interface=dbus.PROPERTIES_IFACE)
                menu = bus.get_object(item, "/MenuBar").Get(MENU, "Version", dbus_interface=dbus.PROPERTIES_IFACE)
                emit({"event": "props", "props": plain(props), "menu_version": int(menu)})
            elif cmd == "layout":
                revision, root = bus.get_object(item, "/MenuBar").GetLayout(0, -1, dbus.Array([], signature="s"),
                                                                          dbus_interface=MENU)
                emit({"event": "layout", "revision": int(revision), "root": node(root)})
            elif cmd == "group":
                items = bus.get_object(item, "/MenuBar").GetGroupProperties(
                    dbus.Array([], signature="i"), dbus.Array([], signature="s"), dbus_interface=MENU)
                emit({"event": "group", "items": [{"id": int(i), "props": plain(p)} for i, p in items]})
            elif cmd == "activate":
                obj = bus.get_object(item, "/StatusNotifierItem")
                if len(parts) > 1:
                    obj.ProvideXdgActivationToken(parts[1], dbus_interface=ITEM)
                obj.Activate(0, 0, dbus_interface=ITEM)
            elif cmd == "click":
                bus.get_object(item, "/MenuBar").Event(int(parts[1]), "clicked", dbus.String("", variant_level=1),
                                                       dbus.UInt32(0), dbus_interface=MENU)
            elif cmd == "show":
                emit({"event": "shown", "update": bool(bus.get_object(item, "/MenuBar").AboutToShow(
                    int(parts[1]), dbus_interface=MENU))})
        except Exception as e:  # said, so the test fails with the reason
            emit({"event": "error", "command": cmd, "message": str(e)})
        emit({"event": "done", "command": cmd})
        return True

    serve(IFACE, make, on_line)


if __name__ == "__main__":
    main()
