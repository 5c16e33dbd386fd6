#!/usr/bin/env python3
"""The face detector's time per photo: the helper's `faces` request, new against old, one run.

    bench/faces.py [--old HELPER] [--new HELPER] [--repeat N] [--threshold S] [PHOTOS_OR_FOLDERS…]

Every JPEG (default: /tmp/snapsort-eval/dev/library, from ../shared/eval/make-dev-corpus.sh) is
decoded once with djpeg, scaled by djpeg's own 1/8 steps to a long side of at most 1024 px (the
parent sends 1024 px, upright; EXIF orientation is left alone here), and sent to each helper in turn, photo by photo, N times (default 3),
so both see the same load. The time is the helper's own `ms` (detection, and the landmarks of
the faces large enough to have them), the best of the N. `--new` defaults to the build tree's
release helper (.build/release/snapsort-vision); `--old` is a helper built from an earlier
commit with its own models beside it (e.g. `git worktree add /tmp/old COMMIT` and
`swift build -c release --product snapsort-vision` there). Prints per-helper mean, median and
90th percentile, the old/new ratios, and how many photos each finds a face in from its People
threshold (`--threshold`, default 0.8, YuNet's; `--old-threshold`, default 0.9, the SSD's; any
size).
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


def jpeg_size(path):
    """(width, height) from the JPEG's frame header (SOF0-SOF15 but DHT, JPG, DAC), or None."""
    with open(path, "rb") as f:
        data = f.read(1 << 20)
    i = 2
    while i + 9 < len(data) and data[i] == 0xFF:
        marker, length = data[i + 1], int.from_bytes(data[i + 2 : i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return int.from_bytes(data[i + 7 : i + 9], "big"), int.from_bytes(data[i + 5 : i + 7], "big")
        i += 2 + length
    return None


def decode(path):
    """(width, height, RGB bytes) at a long side of at most 1024 px (djpeg's M/8 scales), or None."""
    size = jpeg_size(path)
    if not size:
        return None
    eighths = max(1, min(8, 8 * 1024 // max(size)))
    r = subprocess.run(["djpeg", "-scale", f"{eighths}/8", "-ppm", path], capture_output=True)
    if r.returncode != 0 or not r.stdout.startswith(b"P6"):
        return None
    # P6\nW H\n255\n — djpeg writes no comments.
    head = r.stdout.split(b"\n", 3)
    w, h = map(int, head[1].split())
    return w, h, head[3]


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
    ap.add_argument("--threshold", type=float, default=0.8, help="People's face score for the new helper (VisionRules.minFaceScore)")
    ap.add_argument("--old-threshold", type=float, default=0.9, help="the same for the old helper (0.9: the res10 SSD's)")
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
            threshold = a.old_threshold if k == "old" else a.threshold
            found[k] += any(f["score"] >= threshold for f in last[k]["faces"])
    for h in helpers.values():
        h.close()
    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print(f"{n} photos, best of {a.repeat}; load average {load} on {os.cpu_count()} cores")
    print("| helper | mean ms | median ms | p90 ms | photos with a face from its threshold |")
    print("| --- | --- | --- | --- | --- |")
    for k in helpers:
        mean, median, p90 = summary(times[k])
        threshold = a.old_threshold if k == "old" else a.threshold
        print(f"| {k} | {mean:.1f} | {median:.1f} | {p90:.1f} | {found[k]} (≥ {threshold:.2f}) |")
    if "old" in helpers:
        o, m = summary(times["old"]), summary(times["new"])
        print(f"| old / new | {o[0] / m[0]:.1f}× | {o[1] / m[1]:.1f}× | {o[2] / m[2]:.1f}× | |")


if __name__ == "__main__":
    main()
