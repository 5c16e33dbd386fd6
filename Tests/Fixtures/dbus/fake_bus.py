"""What SnapSort's fake D-Bus services share: JSON events on stdout, and a main loop that owns a
name on the bus given as the first argument and reads commands from stdin, one a line.
Needs Debian's python3-dbus and python3-gi (run with /usr/bin/python3).
"""
import json
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib


def emit(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def serve(name, make, on_line):
    """Owns `name` on the bus at sys.argv[1] with the object `make(bus)`, prints
    {"event": "ready", "name": ...}, then hands each line of stdin, split, to `on_line`; ends at
    end of input or when `on_line` returns False."""
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(sys.argv[1])
    make(bus)
    owned = dbus.service.BusName(name, bus, do_not_queue=True)
    loop = GLib.MainLoop()

    def on_input(source, condition):
        line = sys.stdin.readline()
        if not line or on_line(line.split()) is False:
            loop.quit()
            return False
        return True

    GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, on_input)
    emit({"event": "ready", "name": owned.get_name()})
    loop.run()
