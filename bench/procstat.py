"""What the benches read of a running process in /proc (see proc(5)), and the environment they run it in."""
import glob, json, os, signal, subprocess


def vm_mb(pid):
    """The process's resident set now and at its peak, in MB to a tenth: {"VmRSS": …, "VmHWM": …}."""
    vals = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS", "VmHWM")):
                k, v = line.split(":")
                vals[k] = round(int(v.split()[0]) / 1024, 1)
    return vals


def env_for(home):
    """An environment of its own under `home` (its config, state and runtime folders), without the
    service manager's and the caller's SnapSort variables."""
    run = os.path.join(home, "run")
    os.makedirs(run, mode=0o700, exist_ok=True)
    e = dict(os.environ)
    e.update(HOME=home, XDG_CONFIG_HOME=f"{home}/config", XDG_STATE_HOME=f"{home}/state", XDG_RUNTIME_DIR=run)
    for k in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "JOURNAL_STREAM", "INVOCATION_ID", "SNAPSORT_DB"):
        e.pop(k, None)
    return e


def agent_state(home):
    """The agent's state in the status file under `home`'s runtime folder (`env_for`), None before it writes one."""
    for path in glob.glob(os.path.join(home, "run", "snapsort", "status*.json")):
        try:
            with open(path) as f:
                return json.load(f).get("agent", {}).get("state")
        except (OSError, ValueError):
            pass
    return None


def stop(p, grace=60):
    """Ends the process `p` (a Popen) if it still runs: SIGTERM, then SIGKILL after `grace` seconds."""
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
