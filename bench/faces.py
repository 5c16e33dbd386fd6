#!/usr/bin/env python3
"""The face detector's time per photo: the helper's `faces` request, new against old, one run.

    bench/faces.py [--old HELPER] [--new HELPER] [--repeat N] [--threshold S] [PHOTOS_OR_FOLDERS…]

Every JPEG (default: /tmp/snapsort-eval/dev/library, from ../shared/eval/make-dev-corpus.sh) is
decoded once with djpeg, scaled by djpeg's own 1/8 steps to a long side of at most 1024 px (the
parent sends 1024 px), and sent to each helper in turn, photo by photo, N times (default 3),
so both see the same load. The time is the helper's own `ms` (detection, and the landmarks of
the faces large enough to have them), the best of the N. `--new` defaults to the build tree's
release helper (.build/release/snapsort-vision); `--old` is a helper built from an earlier
commit with its own models beside it (e.g. `git worktree add /tmp/old COMMIT` and
`swift build -c release --product snapsort-vision` there). Prints per-helper mean, median and
90th percentile, the old/new ratios, and how many photos each finds a face in from `--threshold`
(default: each helper's People threshold is not known here, so 0.9 for both).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def photos(paths):
    for p in paths:
        if os.path.isdir(p):
            for d, _, names in sorted(os.walk(p)):
                for n in sorted(names):
                    if n.lower().endswith((".jpg", ".jpeg")):
                        yield os.path.join(d, n)
        else:
            yield p


def decode(path):
    """(width, height, RGB bytes) at a long side of at most 1024 px, or None."""
    for scale in ("8/8", "4/8", "2/8", "1/8"):
        r = subprocess.run(["djpeg", "-scale", scale, "-ppm", path], capture_output=True)
        if r.returncode != 0 or not r.stdout.startswith(b"P6"):
            return None
        # P6\nW H\n255\n — djpeg writes no comments.
        head = r.stdout.split(b"\n", 3)
        w, h = map(int, head[1].split())
        if max(w, h) <= 1024 or scale == "1/8":
            return w, h, head[3]
    return None


class Helper:
    def __init__(self, path):
        self.path = path
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.ask(b"hello\n")

    def ask(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def faces(self, w, h, rgb):
        return self.ask(b"faces %d %d\n" % (w, h) + rgb)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def summary(times):
    times = sorted(times)
    return statistics.mean(times), statistics.median(times), times[int(0.9 * (len(times) - 1))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old")
    ap.add_argument("--new", default=os.path.join(ROOT, ".build/release/snapsort-vision"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threshold", type=float, default=0.9)
    ap.add_argument("paths", nargs="*", default=["/tmp/snapsort-eval/dev/library"])
    a = ap.parse_args()
    helpers = {"new": Helper(a.new)}
    if a.old:
        helpers = {"old": Helper(a.old), **helpers}
    times = {k: [] for k in helpers}
    found = {k: 0 for k in helpers}
    n = 0
    for path in photos(a.paths):
        picture = decode(path)
        if not picture:
            continue
        n += 1
        best = {k: float("inf") for k in helpers}
        last = {}
        for _ in range(a.repeat):
            for k, h in helpers.items():
                last[k] = h.faces(*picture)
                if "error" in last[k]:
                    sys.exit(f"{k}: {path}: {last[k]['error']}")
                best[k] = min(best[k], last[k]["ms"])
        for k in helpers:
            times[k].append(best[k])
            found[k] += any(f["score"] >= a.threshold for f in last[k]["faces"])
    for h in helpers.values():
        h.close()
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"{n} photos, best of {a.repeat}; load average {load} on {os.cpu_count()} cores")
    print("| helper | mean ms | median ms | p90 ms | photos with a face ≥ %.2f |" % a.threshold)
    print("| --- | --- | --- | --- | --- |")
    for k in helpers:
        mean, median, p90 = summary(times[k])
        print(f"| {k} | {mean:.1f} | {median:.1f} | {p90:.1f} | {found[k]} |")
    if "old" in helpers:
        o, m = summary(times["old"]), summary(times["new"])
        print(f"| old / new | {o[0] / m[0]:.1f}× | {o[1] / m[1]:.1f}× | {o[2] / m[2]:.1f}× | |")


if __name__ == "__main__":
    main()
