#!/usr/bin/env python3
"""bench/agent_bench.py BIN [--files N] [--latency-files 200] [--idle-seconds 60] [--keep DIR]

Benchmarks of `snapsort agent` (issue 5); numbers, never test assertions:
  latency   close() of a new photo -> the status file reflecting it, i.e. counting it (p50/p95
            over 200 photos; target p95 <= 1 s), and -> settled: its groups updated too (OCR and
            QR codes run after the count) and the agent "watching" again. Photos are written one
            at a time, each after the previous one settled.
  idle_cpu  CPU seconds (utime+stime from /proc/PID/stat) used by the idle agent over 60 s
            (target ~0 beyond the watchdog).
  rss       VmRSS / VmHWM of the agent watching N files (target <= 150 MB at 100 000).
  ready     time from exec to READY=1 (read from a NOTIFY_SOCKET this script binds) on the
            N-file library once it is analyzed.
The N-file library is tiny distinct JPEGs in day folders of <= 250 files (like
../shared/eval/make_scale.py, which needs OpenCV; pass --corpus DIR to use its output instead).
"""
import argparse, json, os, resource, shutil, signal, socket, statistics, subprocess, sys, tempfile, time

from procstat import vm_mb

RUNNING = []

def agent_env(home):
    run = os.path.join(home, "run")
    os.makedirs(run, mode=0o700, exist_ok=True)
    e = dict(os.environ)
    e.update(HOME=home, XDG_CONFIG_HOME=f"{home}/config", XDG_STATE_HOME=f"{home}/state", XDG_RUNTIME_DIR=run)
    for k in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "JOURNAL_STREAM", "INVOCATION_ID"):
        e.pop(k, None)
    return e

def status(home):
    try:
        with open(f"{home}/run/snapsort/status.json") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None

def wait(cond, timeout, step=0.002):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(step)
    return None

def seed_photos(binary, home):
    """Real photos to copy from: the demo library's JPEGs (the program writes them)."""
    demo = os.path.join(home, "demo")
    subprocess.run([binary, "demo", demo], env=agent_env(home), check=True, capture_output=True)
    out = []
    for d, _, fs in os.walk(demo):
        out += [os.path.join(d, f) for f in fs if f.lower().endswith((".jpg", ".jpeg"))]
    return [open(p, "rb").read() for p in sorted(out)]

def unique(data, i):
    # Bytes after the JPEG end marker are ignored by decoders but make each file distinct.
    return data + b"SNAPSORT-BENCH-%08d" % i

def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(parts[11]) + int(parts[12])) / tick

def start_agent(binary, home, root, notify=None):
    e = agent_env(home)
    if notify:
        e["NOTIFY_SOCKET"] = notify
    return subprocess.Popen([binary, "agent", root], env=e, stdout=subprocess.DEVNULL, stderr=open(f"{home}/agent.log", "ab"))

def stop(p):
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=30)

def latency(binary, home, n):
    root = os.path.join(home, "Pictures")
    os.makedirs(root, exist_ok=True)
    seeds = seed_photos(binary, home)
    p = start_agent(binary, home, root)
    RUNNING.append(p)
    wait(lambda: (status(home) or {}).get("agent", {}).get("state") == "watching", 120)
    lat, settled = [], []
    for i in range(n):
        path = os.path.join(root, f"new-{i:04d}.jpg")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        os.write(fd, unique(seeds[i % len(seeds)], i))
        os.close(fd)
        t0 = time.monotonic()
        # Reflected: the status file counts the photo (analyzed, in the library).
        ok = wait(lambda: (status(home) or {}).get("agent", {}).get("total", 0) >= i + 1, 30, 0.001)
        if not ok:
            print(f"latency: photo {i} never showed up", file=sys.stderr)
            break
        lat.append(time.monotonic() - t0)
        # Settled: its groups are updated too (OCR, QR codes) and the agent is watching again.
        wait(lambda: (status(home) or {}).get("agent", {}).get("state") == "watching", 30, 0.001)
        settled.append(time.monotonic() - t0)
    lat.sort()
    settled.sort()
    if not lat:
        return p, {"photos": 0}
    q = lambda xs, f: round(xs[max(0, int(len(xs) * f) - 1)], 3)
    res = {"photos": len(lat), "p50_s": q(lat, 0.5), "p95_s": q(lat, 0.95), "max_s": round(lat[-1], 3),
           "settled_p50_s": q(settled, 0.5), "settled_p95_s": q(settled, 0.95), "settled_max_s": round(settled[-1], 3)}
    return p, res

def idle_cpu(p, seconds):
    time.sleep(2)
    a = cpu_seconds(p.pid)
    time.sleep(seconds)
    return {"seconds": seconds, "cpu_s": round(cpu_seconds(p.pid) - a, 3)}

def make_library(root, n, seeds):
    made = 0
    day = 0
    while made < n:
        folder = os.path.join(root, f"{2019 + day // 365}", f"{(day // 28) % 12 + 1:02d}", f"{day % 28 + 1:02d}")
        os.makedirs(folder, exist_ok=True)
        for j in range(min(250, n - made)):
            with open(os.path.join(folder, f"IMG_{made:06d}.jpg"), "wb") as f:
                f.write(unique(seeds[made % len(seeds)], made))
            made += 1
        day += 1
    return day

def many(binary, home, n, corpus):
    root = corpus or os.path.join(home, "Many")
    if not corpus:
        tiny = subprocess.run([binary, "demo", os.path.join(home, "demo2")], env=agent_env(home), capture_output=True)
        small = [s for s in seed_photos(binary, home) if len(s) < 400_000] or seed_photos(binary, home)
        folders = make_library(root, n, small)
    else:
        folders = sum(len(d) for _, d, _ in os.walk(root))
    # Analyze once (the 'already analyzed' library), then measure a fresh start.
    t = time.monotonic()
    subprocess.run([binary, "scan", "--quiet", root], env=agent_env(home), check=True)
    scan_s = time.monotonic() - t
    sock_path = os.path.join(home, "notify.sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(sock_path)
    s.settimeout(300)
    t0 = time.monotonic()
    p = start_agent(binary, home, root, notify=sock_path)
    RUNNING.append(p)
    ready = None
    while ready is None:
        msg = s.recv(4096).decode()
        if "READY=1" in msg:
            ready = time.monotonic() - t0
    wait(lambda: (status(home) or {}).get("agent", {}).get("state") == "watching", 600, 0.05)
    settled = time.monotonic() - t0
    mem = vm_mb(p.pid)
    stop(p)
    return {"files": n, "folders": folders, "first_scan_s": round(scan_s, 1), "ready_s": round(ready, 3),
            "watching_after_reconcile_s": round(settled, 2), "rss_mb": mem.get("VmRSS", 0), "peak_rss_mb": mem.get("VmHWM", 0)}

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--files", type=int, default=100_000)
    ap.add_argument("--latency-files", type=int, default=200)
    ap.add_argument("--idle-seconds", type=int, default=60)
    ap.add_argument("--corpus")
    ap.add_argument("--keep")
    ap.add_argument("--only", choices=["latency", "many"])
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)
    home = a.keep or tempfile.mkdtemp(prefix="snapsort-bench-")
    try:
        out = {}
        if a.only in (None, "latency"):
            p, out["latency"] = latency(binary, os.path.join(home, "lat"), a.latency_files)
            out["idle"] = idle_cpu(p, a.idle_seconds)
            stop(p)
            print(json.dumps(out), flush=True)
        if a.only in (None, "many"):
            out["many"] = many(binary, os.path.join(home, "many"), a.files, a.corpus)
        print(json.dumps(out, indent=2))
    finally:
        for p in RUNNING:
            if p.poll() is None:
                p.kill()
        if not a.keep:
            shutil.rmtree(home, ignore_errors=True)

if __name__ == "__main__":
    main()
