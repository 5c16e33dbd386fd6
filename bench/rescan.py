#!/usr/bin/env python3
"""bench/rescan.py --bin BIN --db LIB --root TREE [--work DIR] [--runs 2] [--agent] [--keep]

The unchanged rescan of a scanned library (issue 40 item 3): what a `snapsort scan` that finds
nothing changed costs in CPU, wall and peak RSS, and optionally what the agent's start costs on
the same library (its start-up reconcile walks every root, skipping unchanged folders).
Numbers, never test assertions.

LIB is never written: it is copied (sparse) into --work first, and the copy is removed at the
end unless --keep. The first scan of the copy runs the binary's migrations (a newer binary's
make it list every folder once) and is reported apart; then --runs unchanged rescans, each
`BIN --db COPY scan --quiet --no-models --no-groups TREE` (no regroup: an unchanged rescan does
none, and a library whose regroup is pending from its making would otherwise regroup it whole),
measured by wait4's rusage (user + system CPU, the child's peak RSS). --agent then starts
`BIN --db COPY agent TREE` with a private HOME and runtime folder and reads its CPU and VmHWM once
the status file says "watching" (bench/memory.py reads it the same way), or with --agent-until
grouping once it says "grouping" or "watching" (its start-up reconcile over), then stops it.

At 1 000 000 rows: bench/million.py's library (files sparse, 1 000 folders of 1 000 files).
On a shared host, the CPU and peak RSS are the figures; wall time moves with the load.
"""
import argparse, json, os, resource, shutil, subprocess, sys, tempfile, time

from procstat import agent_state as state, env_for, stop, vm_mb


def measured(cmd, env, stderr):
    """Runs cmd: its exit code, wall s, CPU s (user + system) and peak RSS MB, from wait4."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return {"exit": p.returncode, "wall_s": round(time.monotonic() - t0, 2), "cpu_s": round(ru.ru_utime + ru.ru_stime, 2),
            "user_s": round(ru.ru_utime, 2), "sys_s": round(ru.ru_stime, 2), "peak_rss_mb": round(ru.ru_maxrss / 1024, 1)}


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick  # utime, stime (proc(5) fields 14 and 15)


def agent_start(binary, db, root, home, timeout, until="watching"):
    env = env_for(home)
    with open(os.path.join(home, "agent.log"), "ab") as log:
        t0 = time.monotonic()
        p = subprocess.Popen([binary, "--db", db, "agent", root], env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        # The start-up reconcile is over once the agent groups or watches: its peak then is the
        # walk's (a library never regrouped whole is regrouped next, which --agent-until
        # grouping leaves out).
        ends = ("grouping", "watching") if until == "grouping" else ("watching",)
        while state(home) not in ends and p.poll() is None and time.monotonic() - t0 < timeout:
            time.sleep(0.1)
        out = {"state": state(home), "after_s": round(time.monotonic() - t0, 1)}
        if p.poll() is None:
            mem = vm_mb(p.pid)
            out.update(cpu_s=round(cpu_seconds(p.pid), 2), rss_mb=mem.get("VmRSS"), peak_rss_mb=mem.get("VmHWM"))
        return out
    finally:
        stop(p)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--db", required=True, help="a scanned library (copied, never written)")
    ap.add_argument("--root", required=True, help="the tree it was scanned from")
    ap.add_argument("--work", default=None, help="where the copy goes (default: a temp folder)")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--agent", action="store_true", help="also the agent's start on the copy")
    ap.add_argument("--agent-timeout", type=float, default=1800)
    ap.add_argument("--agent-until", choices=["watching", "grouping"], default="watching",
                    help="grouping: stop once the start-up reconcile is over (before a regroup of every row)")
    ap.add_argument("--keep", action="store_true", help="keep the copy")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="snapsort-rescan-")
    os.makedirs(work, exist_ok=True)
    copy = os.path.join(work, "library.sqlite3")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(copy + suffix):
            os.remove(copy + suffix)
    subprocess.run(["cp", "--sparse=always", a.db, copy], check=True)
    home = os.path.join(work, "home")
    os.makedirs(home, exist_ok=True)
    env = env_for(home)
    cmd = [a.bin, "--db", copy, "scan", "--quiet", "--no-models", "--no-groups", a.root]
    out = {"bin": a.bin, "db": a.db, "root": a.root}
    try:
        with open(os.path.join(work, "scan.log"), "ab") as log:
            out["first_scan"] = measured(cmd, env, log)
            out["rescans"] = [measured(cmd, env, log) for _ in range(a.runs)]
        if a.agent:
            out["agent_start"] = agent_start(a.bin, copy, a.root, home, a.agent_timeout, a.agent_until)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
