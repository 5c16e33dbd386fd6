#!/usr/bin/env python3
"""first_screen.py --bin BIN --db LIBRARY [--repeat 3]

The review page's first screen on a large library (issue 40 item 3: <= 1 s at 1 000 000 rows),
never a timed test: starts `BIN --db LIBRARY serve --port 0` in a scratch runtime folder, reads
its `web-KEY.json` (port and token), then times the requests the page makes when it opens
(app.js: `summary`, then `decks`, `groups` and `bulk/old-screenshots?days=30` together), each
sequentially (an upper bound of the page's parallel requests), cold and warm; wall and the
server's CPU time per request.
"""
import argparse, glob, json, os, signal, subprocess, tempfile, time, urllib.request

ap = argparse.ArgumentParser()
ap.add_argument("--bin", required=True)
ap.add_argument("--db", required=True)
ap.add_argument("--repeat", type=int, default=3)
a = ap.parse_args()

home = tempfile.mkdtemp(prefix="snapsort-screen.")
run = os.path.join(home, "run")
os.makedirs(run, mode=0o700)
env = dict(os.environ, HOME=home, XDG_RUNTIME_DIR=run, XDG_CONFIG_HOME=os.path.join(home, "config"),
           XDG_STATE_HOME=os.path.join(home, "state"))
for k in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "SNAPSORT_DB"):
    env.pop(k, None)
p = subprocess.Popen([a.bin, "--db", a.db, "serve", "--port", "0"], env=env,
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
try:
    info = None
    t0 = time.monotonic()
    while info is None and time.monotonic() - t0 < 900 and p.poll() is None:
        for path in glob.glob(os.path.join(run, "snapsort", "web*.json")):
            try:
                with open(path) as f:
                    info = json.load(f)
            except (OSError, ValueError):
                pass
        time.sleep(0.1)
    if info is None:
        raise SystemExit(f"the page did not start: {p.stderr.read().decode()[-2000:] if p.poll() is not None else 'timeout'}")
    print(f"page ready after {time.monotonic() - t0:.2f} s")

    def cpu():
        # The server's CPU time (user + system, clock ticks), from /proc: on a loaded host the
        # wall time is an upper bound, the CPU time is what the request cost.
        with open(f"/proc/{p.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def get(path):
        req = urllib.request.Request(f"http://127.0.0.1:{info['port']}/api/{path}", headers={"Authorization": f"Bearer {info['token']}"})
        start, c0 = time.monotonic(), cpu()
        with urllib.request.urlopen(req, timeout=3600) as r:
            body = r.read()
        return time.monotonic() - start, cpu() - c0, len(body)

    for i in range(a.repeat):
        parts = [(path, *get(path)) for path in ("summary", "decks", "groups", "bulk/old-screenshots?days=30")]
        total, total_cpu = sum(t for _, t, _, _ in parts), sum(c for _, _, c, _ in parts)
        print(f"run {i + 1}: first screen {total:.3f} s wall, {total_cpu:.2f} s CPU ("
              + ", ".join(f"{n} {t:.3f} s / {c:.2f} s CPU {b} B" for n, t, c, b in parts) + ")", flush=True)
finally:
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
