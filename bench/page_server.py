"""The review page's server for the benches (first_screen.py, summary_cost.py), never a test:
`BIN --db LIBRARY serve --port 0` in a scratch runtime folder, its `web-KEY.json` read for the
port and token, its CPU time read from /proc (on a loaded host the wall time is an upper bound,
the CPU time is what a request cost)."""
import glob, json, os, signal, subprocess, tempfile, time, urllib.request


class PageServer:
    def __init__(self, binary, db, prefix="snapsort-page.", timeout=900):
        home = tempfile.mkdtemp(prefix=prefix)
        run = os.path.join(home, "run")
        os.makedirs(run, mode=0o700)
        env = dict(os.environ, HOME=home, XDG_RUNTIME_DIR=run, XDG_CONFIG_HOME=os.path.join(home, "config"),
                   XDG_STATE_HOME=os.path.join(home, "state"))
        for k in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "SNAPSORT_DB"):
            env.pop(k, None)
        self.process = subprocess.Popen([binary, "--db", db, "serve", "--port", "0"], env=env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.info = None
        t0 = time.monotonic()
        while self.info is None and time.monotonic() - t0 < timeout and self.process.poll() is None:
            for path in glob.glob(os.path.join(run, "snapsort", "web*.json")):
                try:
                    with open(path) as f:
                        self.info = json.load(f)
                except (OSError, ValueError):
                    pass
            time.sleep(0.1)
        self.ready_after = time.monotonic() - t0
        if self.info is None:
            why = self.process.stderr.read().decode()[-2000:] if self.process.poll() is not None else "timeout"
            self.stop()
            raise SystemExit(f"the page did not start: {why}")

    def cpu(self):
        """The server's CPU time (user + system), seconds."""
        with open(f"/proc/{self.process.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def call(self, path, body=None):
        """(wall s, server CPU s, response bytes) of one API request (GET, or POST with a JSON body)."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.info['port']}/api/{path}", data=data,
                                     headers={"Authorization": f"Bearer {self.info['token']}", "Content-Type": "application/json"})
        start, c0 = time.monotonic(), self.cpu()
        with urllib.request.urlopen(req, timeout=3600) as r:
            out = r.read()
        return time.monotonic() - start, self.cpu() - c0, out

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
