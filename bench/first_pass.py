#!/usr/bin/env python3
"""first_pass.py --bin DIR --root LIBRARY [--nice 5] [--workers N] [--timeout 7200] [--every 5]

The agent's first pass (issue 41 item 4): a fresh `snapsort agent LIBRARY` (an empty state
folder, the models on, at the service's nice level and the agent's own worker count unless
--workers says otherwise) from its start to "every model result in" — the status file's
`models.done == models.total` with the agent back to `watching`. Never a timed test.

Samples the status file every --every seconds: the agent's state, tier 1's `done/total`, the
models' `done/total` (what a person sees in the bars and the page), and the CPU time of the
agent and its helpers (`snapsort-vision`, from /proc; exited children's time is in the agent's
cutime/cstime once reaped) and their peak RSS (VmHWM: the agent, its largest helper). Prints
the milestones (every file counted, every model result in) in wall time and in CPU time. On a host shared with other work the wall times are upper bounds;
the CPU seconds are what an idle host needs (the agent's models run one helper per worker, so
with one worker the pass is serial and its idle-host wall time is about its CPU time).

Library: ../shared/eval/make_scale.py --count 10000 (640x480 real crops with camera EXIF), or
any folder of photos.
"""
import argparse, json, os, shutil, signal, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--bin", required=True, help="folder with snapsort and snapsort-vision")
ap.add_argument("--root", required=True)
ap.add_argument("--nice", type=int, default=5, help="the unit's Nice= (systemd/snapsort.service.in)")
ap.add_argument("--workers", type=int)
ap.add_argument("--timeout", type=float, default=7200)
ap.add_argument("--every", type=float, default=5)
ap.add_argument("--keep", action="store_true", help="keep the scratch home")
a = ap.parse_args()

TICK = os.sysconf("SC_CLK_TCK")
home = tempfile.mkdtemp(prefix="snapsort-firstpass.")
run = os.path.join(home, "run")
os.makedirs(run, mode=0o700)
env = dict(os.environ, HOME=home, XDG_RUNTIME_DIR=run, XDG_CONFIG_HOME=os.path.join(home, "config"),
           XDG_STATE_HOME=os.path.join(home, "state"))
for k in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "SNAPSORT_DB", "JOURNAL_STREAM", "INVOCATION_ID"):
    env.pop(k, None)


def stat(pid):
    """(utime+stime, cutime+cstime) in seconds, and the parent pid."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            s = f.read()
    except OSError:
        return None
    fields = s[s.rindex(")") + 2:].split()
    own = (int(fields[11]) + int(fields[12])) / TICK
    children = (int(fields[13]) + int(fields[14])) / TICK
    return own, children, int(fields[1])


def cpu(root_pid):
    """The agent's CPU with every live descendant's and every reaped child's."""
    total = 0.0
    helpers = 0
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            s = stat(int(name))
            if s:
                parents[int(name)] = s
    todo = [root_pid]
    while todo:
        pid = todo.pop()
        if pid not in parents:
            continue
        own, children, _ = parents[pid]
        total += own + children
        for child, (_, _, ppid) in parents.items():
            if ppid == pid:
                todo.append(child)
                helpers += pid == root_pid
    return total, helpers


def peak_kb(root_pid):
    """The agent's peak RSS (VmHWM, kB) and its helpers' largest, while they live."""
    def hwm(pid):
        try:
            with open(f"/proc/{pid}/status") as f:
                return next((int(l.split()[1]) for l in f if l.startswith("VmHWM:")), 0)
        except OSError:
            return 0
    kids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            s = stat(int(name))
            if s and s[2] == root_pid:
                kids.append(int(name))
    return hwm(root_pid), max((hwm(k) for k in kids), default=0)


def status():
    try:
        with open(os.path.join(run, "snapsort", "status.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


cmd = ["nice", "-n", str(a.nice), os.path.join(a.bin, "snapsort"), "agent"]
if a.workers:
    cmd += ["--workers", str(a.workers)]
cmd.append(a.root)
log = open(os.path.join(home, "agent.log"), "ab")
p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log)
t0 = time.monotonic()
counted = None
done = None
last = None
peaks = (0, 0)
print("  wall_s  cpu_s  state         files        models       helpers")
try:
    while time.monotonic() - t0 < a.timeout:
        time.sleep(a.every)
        if p.poll() is not None:
            raise SystemExit(f"the agent stopped ({p.returncode}); log: {home}/agent.log")
        doc = status()
        spent, helpers = cpu(p.pid)
        got = peak_kb(p.pid)
        peaks = (max(peaks[0], got[0]), max(peaks[1], got[1]))
        now = time.monotonic() - t0
        if not doc:
            continue
        ag = doc.get("agent", {})
        models = doc.get("models") or {}
        state = ag.get("state")
        line = (f"{now:8.0f} {spent:6.0f}  {state:<12} {ag.get('done', 0):>6}/{ag.get('total', 0):<6} "
                f"{models.get('done', '-'):>6}/{models.get('total', '-'):<6} {helpers}")
        if line[16:] != last:
            print(line, flush=True)
            last = line[16:]
        if counted is None and ag.get("total", 0) > 0 and state == "watching":
            counted = (now, spent)
        if (models and models.get("total", 0) > 0 and models.get("done") == models.get("total")
                and state == "watching"):
            done = (now, spent, models["total"])
            break
finally:
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(30)
    except subprocess.TimeoutExpired:
        p.kill()
    if not a.keep:
        shutil.rmtree(home, ignore_errors=True)
    else:
        print(f"kept {home}")

print(f"peak RSS: agent {peaks[0] / 1024:.1f} MB, largest helper {peaks[1] / 1024:.1f} MB")
if counted:
    print(f"every file counted (watching): {counted[0]:.0f} s wall, {counted[1]:.0f} s CPU")
if done:
    n = done[2]
    print(f"every model result in: {done[0]:.0f} s wall, {done[1]:.0f} s CPU for {n} photos "
          f"({1000 * done[1] / n:.1f} ms CPU per photo; {n / done[1]:.2f} photos per CPU second)")
    print(json.dumps({"photos": n, "counted_wall_s": round(counted[0], 1) if counted else None,
                      "models_wall_s": round(done[0], 1), "cpu_s": round(done[1], 1),
                      "cpu_ms_per_photo": round(1000 * done[1] / n, 1)}))
else:
    sys.exit("the first pass did not finish within the timeout")
