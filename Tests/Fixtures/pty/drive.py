#!/usr/bin/python3
"""Runs a command on a pseudo-terminal and types keys into it, for end-to-end tests of
`snapsort review` (a real terminal: raw mode, arrow keys, the screen it draws).

Usage: drive.py KEYS -- COMMAND ARG...
KEYS: comma-separated names: left, right, up, down, u, q, any other single character.
Each key is sent once the program has drawn something new since the previous key (or after
2 s), then the output is read until the program exits (at most 60 s). The exit status is the
program's; everything it drew goes to stdout.
"""
import os, pty, select, sys, time

KEYS = {"left": b"\x1b[D", "right": b"\x1b[C", "up": b"\x1b[A", "down": b"\x1b[B"}

def main():
    sep = sys.argv.index("--")
    keys = [k for k in ",".join(sys.argv[1:sep]).split(",") if k]
    cmd = sys.argv[sep + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm-256color"
        os.execvp(cmd[0], cmd)
    out = bytearray()

    def pump(timeout):
        """Reads what is there within timeout; False when the program closed the terminal."""
        r, _, _ = select.select([fd], [], [], timeout)
        if not r:
            return True
        try:
            data = os.read(fd, 65536)
        except OSError:
            return False
        if not data:
            return False
        out.extend(data)
        return True

    alive = True
    for k in keys:
        before = len(out)
        end = time.monotonic() + 2
        # Wait until the screen changed (the program read the previous key and redrew).
        while alive and time.monotonic() < end and len(out) == before:
            alive = pump(0.05)
        # Let a redraw finish.
        while alive and pump(0.1) and time.monotonic() < end + 1:
            if not select.select([fd], [], [], 0.1)[0]:
                break
        if not alive:
            break
        os.write(fd, KEYS.get(k, k.encode()))
    end = time.monotonic() + 60
    while alive and time.monotonic() < end:
        alive = pump(0.2)
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            while pump(0.05):
                if not select.select([fd], [], [], 0.05)[0]:
                    break
            sys.stdout.write(out.decode("utf-8", "replace"))
            sys.exit(os.waitstatus_to_exitcode(status))
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(out.decode("utf-8", "replace"))
    sys.exit(os.waitstatus_to_exitcode(status))

if __name__ == "__main__":
    main()
