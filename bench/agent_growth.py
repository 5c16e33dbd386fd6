#!/usr/bin/env python3
"""bench/agent_growth.py BIN SRC [--photos 400] [--every 50]: the watching agent's memory as
photos are added one at a time (issue 40 item 3: <= 60 MB watching); numbers, never a test.

The agent (`BIN agent`, isolated HOME and XDG dirs under a temp folder, no models unless the
helper sits beside BIN) watches an empty folder; the first --photos files of SRC (distinct
pictures, e.g. bench/make_mix_tree.py's chat/ folder: each a pHash of its own, so each added
photo's sliced regroup asks the library for a new pHash ball) are copied in one at a time, each
after the previous one is counted and the agent is watching again. Prints the photos added and
the agent's VmRSS (MB) every --every photos.

  bench/agent_growth.py .build-rel/release/snapsort /tmp/mix10k/chat
"""
import argparse, os, shutil, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from agent_bench import RUNNING, start_agent, status, stop, wait
from procstat import vm_mb

ap = argparse.ArgumentParser()
ap.add_argument("binary")
ap.add_argument("src")
ap.add_argument("--photos", type=int, default=400)
ap.add_argument("--every", type=int, default=50)
a = ap.parse_args()

home = tempfile.mkdtemp(prefix="snapsort-growth.")
try:
    root = os.path.join(home, "Pictures")
    os.makedirs(root)
    files = sorted(os.path.join(a.src, f) for f in os.listdir(a.src))[: a.photos]
    p = start_agent(os.path.abspath(a.binary), home, root)
    RUNNING.append(p)
    if not wait(lambda: (status(home) or {}).get("agent", {}).get("state") == "watching", 120):
        sys.exit("the agent never got to watching")
    print("photos\trss_mb", flush=True)
    for i, f in enumerate(files):
        shutil.copy(f, os.path.join(root, os.path.basename(f)))
        if not wait(lambda: (status(home) or {}).get("agent", {}).get("total", 0) >= i + 1, 30, 0.005):
            sys.exit(f"photo {i} never showed up")
        wait(lambda: (status(home) or {}).get("agent", {}).get("state") == "watching", 30, 0.005)
        if (i + 1) % a.every == 0 or i + 1 == len(files):
            print(f"{i + 1}\t{vm_mb(p.pid)['VmRSS']:.0f}", flush=True)
    stop(p)
finally:
    shutil.rmtree(home, ignore_errors=True)
