"""What the benches read of a running process in /proc (see proc(5))."""


def vm_mb(pid):
    """The process's resident set now and at its peak, in MB to a tenth: {"VmRSS": …, "VmHWM": …}."""
    vals = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS", "VmHWM")):
                k, v = line.split(":")
                vals[k] = round(int(v.split()[0]) / 1024, 1)
    return vals
