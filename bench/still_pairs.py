#!/usr/bin/env python3
"""The Similar Shots pairs a scan compared, with the share of the frame that stood still.

  bench/still_pairs.py --labels LABELS --report REPORT --trace STDERR [--root LIBRARY] [--all]

STDERR is a scan's stderr under SNAPSORT_GROUPS_TRACE=1 (its `pair` and `verify` lines), REPORT
its `report --jsonl`. Prints every labelled pair the report splits (a miss) and every must-not
pair, with what the grouper had: the time apart, the thumbnails' score and overlap, the pHash
distance, and the verification's keypoints, inliers, shared area and still share (the `verify`
line; none when the pair was not asked). With --all, every window pair within 60 s instead,
with the still share computed here as `FrameMatcher.stillShare` computes it (grey frames
reduced to 256 px by area, 16 x 16 blocks, the second's exposure scaled by the median of the
blocks' mean ratios, a block unchanged at a mean absolute difference of at most 4 grey levels),
to see its distribution on same-set, different and must-not pairs (djpeg and numpy).
"""
import argparse, itertools, json, subprocess
import numpy as np


def grey(path, side=256):
    for scale in ("1/8", "1/4", "1/2", "1/1"):
        out = subprocess.run(["djpeg", "-scale", scale, "-grayscale", "-pnm", path], capture_output=True, check=True).stdout
        parts = out.split(maxsplit=4)
        w, h = int(parts[1]), int(parts[2])
        if max(w, h) >= side or scale == "1/1":
            break
    a = np.frombuffer(out[-w * h :], dtype=np.uint8).reshape(h, w).astype(np.float64)
    if max(w, h) <= side:
        return a
    tw, th = max(1, w * side // max(w, h)), max(1, h * side // max(w, h))
    ys = np.arange(th + 1) * h // th
    xs = np.arange(tw + 1) * w // tw
    c = np.pad(a.cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    s = c[ys[1:]][:, xs[1:]] - c[ys[:-1]][:, xs[1:]] - c[ys[1:]][:, xs[:-1]] + c[ys[:-1]][:, xs[:-1]]
    return np.floor(s / np.outer(np.diff(ys), np.diff(xs)) + 0.5)


def still_share(a, b, n=16, limit=4.0):
    if a.shape != b.shape or min(a.shape) < n:
        return 0.0
    h, w = a.shape
    by = (np.arange(h) * n // h)[:, None]
    bx = (np.arange(w) * n // w)[None, :]
    cell = (by * n + bx).ravel()
    counts = np.bincount(cell, minlength=n * n)
    ma = np.bincount(cell, weights=a.ravel(), minlength=n * n) / counts
    mb = np.bincount(cell, weights=b.ravel(), minlength=n * n) / counts
    gain = np.sort((ma + 1) / (mb + 1))[n * n // 2]
    d = np.abs(a - gain * b)
    sums = np.bincount(cell, weights=d.ravel(), minlength=n * n)
    return float((sums <= limit * counts).sum()) / (n * n)


def rel(p):
    return p.split("/library/", 1)[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--labels", required=True)
    ap.add_argument("--report", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--root")
    ap.add_argument("--all", action="store_true")
    a = ap.parse_args()
    labels = json.load(open(a.labels))
    root = a.root or a.labels.rsplit("/", 1)[0] + "/library"
    group = {f["path"]: f.get("similar_group") for f in labels["files"]}
    clip = {f["path"]: f.get("params", {}).get("clip") for f in labels["files"]}
    mustnot = {frozenset(p[:2]) for p in labels.get("must_not_group", [])}
    pred = {}
    for line in open(a.report):
        r = json.loads(line)
        pred[rel(r["path"])] = r["similar_group"]
    seen = {}
    for line in open(a.trace, errors="replace"):
        f = line.rstrip("\n").split("\t")
        if f[0] in ("pair", "verify"):
            seen.setdefault(frozenset((rel(f[1]), rel(f[2]))), []).append("\t".join([f[0]] + f[3:]))

    def truth(x, y):
        k = frozenset((x, y))
        return "mustnot" if k in mustnot else "same" if group.get(x) and group.get(x) == group.get(y) else "diff"

    if a.all:
        for k, lines in seen.items():
            x, y = sorted(k)
            dt = int(lines[0].split("\t")[1][3:])
            if dt > 60:
                continue
            try:
                s = still_share(grey(f"{root}/{x}"), grey(f"{root}/{y}"))
            except (subprocess.CalledProcessError, ValueError, IndexError):
                continue  # not a JPEG djpeg reads
            print(truth(x, y), f"still={s:.2f}", lines[0], x, y, sep="\t")
        return
    together = lambda x, y: pred.get(x) is not None and pred.get(x) == pred.get(y)
    sets = {}
    for p, g in group.items():
        if g:
            sets.setdefault(g, []).append(p)
    for g, members in sorted(sets.items()):
        for x, y in itertools.combinations(sorted(members), 2):
            if not together(x, y):
                print("missed", g, clip.get(x) or "", x, y, sep="\t")
                for l in seen.get(frozenset((x, y)), ["(not a window pair)"]):
                    print("\t" + l)
    for k in sorted(mustnot, key=sorted):
        x, y = sorted(k)
        print("must-not", "grouped" if together(x, y) else "apart", clip.get(x) or "", x, y, sep="\t")
        for l in seen.get(k, ["(not a window pair)"]):
            print("\t" + l)


if __name__ == "__main__":
    main()
