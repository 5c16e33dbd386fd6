#!/usr/bin/python3
"""Runs a command on a pseudo-terminal and types keys into it, for end-to-end tests of
`snapsort review` (a real terminal: raw mode, arrow keys, window sizes, signals, the screen
it draws).

Usage: drive.py [--size COLSxROWS] KEYS -- COMMAND ARG...
KEYS: comma-separated steps:
  left, right, up, down, esc, ctrl-z, or any other single character: a key. Each key is sent
      once the program has drawn something new since the previous step (or after 2 s).
  wait=TEXT    waits (at most 30 s) until TEXT is on the emulated screen; a timeout is a failure.
  dump         records the emulated screen: after a key, a resize, a signal or at the start,
               once the screen shows something other than it did before that step (at most
               30 s; a timeout is a failure) and the output settled; after a wait, at once.
               No fixed delay: on a loaded host the first card can take seconds to come.
  resize=CxR   sets the window size (the kernel sends SIGWINCH to the program).
  signal=NAME  sends SIGNAME (TERM, HUP, QUIT, ...) to the program.
  sh=COMMAND   runs COMMAND (no commas) with /bin/sh and waits for it: what another window
               does meanwhile; a non-zero exit is a failure.
The window starts at --size (default 80x24). The output is read until the program exits (at
most 60 s). The exit status is the program's. stdout gets everything the program drew, then
the recorded screens, the terminal's mode after the program ended and the failures:
  @@screen COLSxROWS wraps=N scrolls=N@@ / rows... / @@end@@
  @@tty echo=0|1 icanon=0|1@@
  @@fail MESSAGE@@
wraps counts lines the terminal wrapped at the right margin and scrolls the lines it scrolled
off the top, both since the previous recorded screen.
"""
import fcntl, os, pty, select, signal, struct, sys, termios, time

KEYS = {"left": b"\x1b[D", "right": b"\x1b[C", "up": b"\x1b[A", "down": b"\x1b[B", "esc": b"\x1b", "ctrl-z": b"\x1a"}


class Screen:
    """A small VT100 emulator: enough of xterm to see what a full-screen program shows
    (cursor moves, clears, auto-wrap with the pending-wrap column, scrolling). Every code
    point is one cell wide; SGR and private modes are ignored; OSC/DCS/APC (images) skipped."""

    def __init__(self, cols, rows):
        self.wraps = self.scrolls = 0
        self.resize(cols, rows)
        self.state, self.seq = "text", ""

    def resize(self, cols, rows):
        self.cols, self.rows = cols, rows
        self.grid = [[" "] * cols for _ in range(rows)]
        self.row = self.col = 0
        self.pending = False

    def lf(self):
        if self.row == self.rows - 1:
            self.grid.pop(0)
            self.grid.append([" "] * self.cols)
            self.scrolls += 1
        else:
            self.row += 1

    def put(self, ch):
        if self.pending:
            self.col, self.pending = 0, False
            self.lf()
            self.wraps += 1
        self.grid[self.row][self.col] = ch
        if self.col == self.cols - 1:
            self.pending = True
        else:
            self.col += 1

    def csi(self, seq):
        final, body = seq[-1], seq[:-1]
        if body.startswith("?"):
            return
        nums = [int(p) if p.isdigit() else 0 for p in body.split(";")] if body else []
        n = lambda i, d: nums[i] if len(nums) > i and nums[i] else d
        self.pending = False
        if final in "Hf":
            self.row, self.col = min(n(0, 1), self.rows) - 1, min(n(1, 1), self.cols) - 1
        elif final == "J":
            mode = n(0, 0)
            if mode == 2 or mode == 3:
                self.grid = [[" "] * self.cols for _ in range(self.rows)]
            elif mode == 0:
                self.grid[self.row][self.col:] = [" "] * (self.cols - self.col)
                for r in range(self.row + 1, self.rows):
                    self.grid[r] = [" "] * self.cols
        elif final == "K":
            mode = n(0, 0)
            if mode == 0:
                self.grid[self.row][self.col:] = [" "] * (self.cols - self.col)
            elif mode == 2:
                self.grid[self.row] = [" "] * self.cols
        elif final == "A":
            self.row = max(0, self.row - n(0, 1))
        elif final == "B":
            self.row = min(self.rows - 1, self.row + n(0, 1))
        elif final == "C":
            self.col = min(self.cols - 1, self.col + n(0, 1))
        elif final == "D":
            self.col = max(0, self.col - n(0, 1))
        elif final == "G":
            self.col = min(n(0, 1), self.cols) - 1

    def feed(self, text):
        for ch in text:
            if self.state == "text":
                if ch == "\x1b":
                    self.state = "esc"
                elif ch == "\r":
                    self.col, self.pending = 0, False
                elif ch == "\n":
                    self.pending = False
                    self.lf()
                elif ch == "\b":
                    self.col, self.pending = max(0, self.col - 1), False
                elif ord(ch) >= 0x20 and ch != "\x7f":
                    self.put(ch)
            elif self.state == "esc":
                if ch == "[":
                    self.state, self.seq = "csi", ""
                elif ch in "]P_^X":
                    self.state = "string"
                elif ch in "()*+#":
                    self.state = "charset"
                else:
                    self.state = "text"
            elif self.state == "charset":
                self.state = "text"
            elif self.state == "csi":
                self.seq += ch
                if "\x40" <= ch <= "\x7e":
                    self.csi(self.seq)
                    self.state = "text"
            elif self.state == "string":
                if ch == "\x07":
                    self.state = "text"
                elif ch == "\x1b":
                    self.state = "string-esc"
            elif self.state == "string-esc":
                self.state = "text" if ch == "\\" else "string"

    def text(self):
        return "\n".join("".join(r).rstrip() for r in self.grid)

    def dump(self):
        s = "@@screen %dx%d wraps=%d scrolls=%d@@\n%s\n@@end@@\n" % (self.cols, self.rows, self.wraps, self.scrolls, self.text())
        self.wraps = self.scrolls = 0
        return s


def set_size(fd, cols, rows):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def main():
    args = sys.argv[1:]
    cols, rows = 80, 24
    if args and args[0] == "--size":
        cols, rows = map(int, args[1].split("x"))
        args = args[2:]
    sep = args.index("--")
    steps = [k for k in ",".join(args[:sep]).split(",") if k]
    cmd = args[sep + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm-256color"
        # Start the program as a shell would: default signal actions, nothing blocked (the
        # test runner and Python itself may ignore or block some, and exec keeps that).
        for name in ("SIGTERM", "SIGHUP", "SIGQUIT", "SIGINT", "SIGPIPE", "SIGWINCH", "SIGTSTP"):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        set_size(0, cols, rows)
        os.execvp(cmd[0], cmd)
    out = bytearray()
    screen = Screen(cols, rows)
    decoder = __import__("codecs").getincrementaldecoder("utf-8")("replace")
    dumps, failures = [], []
    screen_blank = lambda: "\n".join([""] * screen.rows)

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
        screen.feed(decoder.decode(data))
        return True

    def settle(alive, limit):
        """Reads until nothing new comes for 0.1 s (at most until limit)."""
        while alive and time.monotonic() < limit:
            r = select.select([fd], [], [], 0.1)[0]
            if not r:
                break
            alive = pump(0)
        return alive

    alive = True
    settled = False
    # The screen as the previous step left it: a dump after a key waits until it changed.
    before_step = screen.text()
    for k in steps:
        if not alive:
            failures.append("the program ended before step '%s'" % k)
            break
        if k.startswith("wait="):
            text, end = k[5:], time.monotonic() + 30
            while alive and text not in screen.text() and time.monotonic() < end:
                alive = pump(0.05)
            if text not in screen.text():
                failures.append("timed out waiting for '%s'" % text)
            settled = True
            continue
        if k == "dump":
            if not settled:
                end = time.monotonic() + 30
                while alive and time.monotonic() < end and screen.text() in (before_step, screen_blank()):
                    alive = pump(0.05)
                if screen.text() in (before_step, screen_blank()):
                    failures.append("timed out waiting for the screen to change before a dump")
            alive = settle(alive, time.monotonic() + 2)
            dumps.append(screen.dump())
            before_step = screen.text()
            settled = True
            continue
        if k.startswith("resize="):
            alive = settle(alive, time.monotonic() + 2)
            cols, rows = map(int, k[7:].split("x"))
            screen.resize(cols, rows)
            set_size(fd, cols, rows)
            before_step = screen.text()
            settled = False
            continue
        if k.startswith("sh="):
            alive = settle(alive, time.monotonic() + 2)
            import subprocess
            r = subprocess.run(["/bin/sh", "-c", k[3:]], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if r.returncode != 0:
                failures.append("'%s' exited %d: %s" % (k[3:], r.returncode, r.stderr.decode(errors="replace").strip()))
            settled = True
            continue
        if k.startswith("signal="):
            alive = settle(alive, time.monotonic() + 2)
            before_step = screen.text()
            os.kill(pid, getattr(signal, "SIG" + k[7:]))
            settled = False
            continue
        if not settled:
            before = len(out)
            end = time.monotonic() + 2
            # Wait until the screen changed (the program read the previous key and redrew).
            while alive and time.monotonic() < end and len(out) == before:
                alive = pump(0.05)
        alive = settle(alive, time.monotonic() + 1)
        before_step = screen.text()
        settled = False
        if alive:
            os.write(fd, KEYS.get(k, k.encode()))

    def finish(status):
        while pump(0.05):
            if not select.select([fd], [], [], 0.05)[0]:
                break
        try:
            lflag = termios.tcgetattr(fd)[3]
            tty = "@@tty echo=%d icanon=%d@@\n" % (bool(lflag & termios.ECHO), bool(lflag & termios.ICANON))
        except termios.error:
            tty = "@@tty unknown@@\n"
        sys.stdout.write(out.decode("utf-8", "replace"))
        sys.stdout.write("\n" + "".join(dumps) + tty + "".join("@@fail %s@@\n" % f for f in failures))
        sys.exit(os.waitstatus_to_exitcode(status))

    # The program's exit is waited for on a pidfd (readable once it ended), beside its output.
    exited = os.pidfd_open(pid)
    end = time.monotonic() + 60
    while time.monotonic() < end:
        if alive:
            alive = pump(0.2)
        else:
            select.select([exited], [], [], max(0, end - time.monotonic()))
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            finish(status)
    failures.append("the program did not exit within 60 s")
    os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    finish(status)


if __name__ == "__main__":
    main()
