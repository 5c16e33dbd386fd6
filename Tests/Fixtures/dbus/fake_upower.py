#!/usr/bin/python3
"""A fake org.freedesktop.UPower for SnapSort's tests (pause on battery).

Usage: fake_upower.py BUS_ADDRESS [on|off]
Owns org.freedesktop.UPower on the bus at BUS_ADDRESS with /org/freedesktop/UPower's
`OnBattery` property (org.freedesktop.DBus.Properties Get/GetAll). Prints {"event": "ready"}
once the name is owned; on stdin, `battery on|off` changes the property and emits
PropertiesChanged like upowerd, then prints {"event": "done"}. Ends at end of input.
Needs Debian's python3-dbus and python3-gi (run with /usr/bin/python3).
"""
import sys

import dbus
import dbus.service

from fake_bus import emit, serve

NAME = "org.freedesktop.UPower"
PATH = "/org/freedesktop/UPower"
PROPS = "org.freedesktop.DBus.Properties"


class UPower(dbus.service.Object):
    def __init__(self, bus, on_battery):
        super().__init__(bus, PATH)
        self.on_battery = on_battery

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v")
    def Get(self, iface, prop):
        if prop != "OnBattery":
            raise dbus.exceptions.DBusException("no such property", name="org.freedesktop.DBus.Error.InvalidArgs")
        return dbus.Boolean(self.on_battery)

    @dbus.service.method(PROPS, in_signature="s", out_signature="a{sv}")
    def GetAll(self, iface):
        return {"OnBattery": dbus.Boolean(self.on_battery)}

    @dbus.service.signal(PROPS, signature="sa{sv}as")
    def PropertiesChanged(self, iface, changed, invalidated):
        pass


def main():
    server = None

    def make(bus):
        nonlocal server
        server = UPower(bus, len(sys.argv) > 2 and sys.argv[2] == "on")

    def on_line(parts):
        if parts[:1] == ["battery"]:
            server.on_battery = parts[1] == "on"
            server.PropertiesChanged(NAME, {"OnBattery": dbus.Boolean(server.on_battery)}, dbus.Array([], signature="s"))
        emit({"event": "done"})
        return True

    serve(NAME, make, on_line)


if __name__ == "__main__":
    main()
