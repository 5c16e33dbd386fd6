#!/usr/bin/env python3
"""Geometric verification of the pairs the Similar Shots grouper compared, against the truth.

  bench/match_pairs.py --helper BUILD/snapsort-vision --trace STDERR --labels LABELS --root LIBRARY

STDERR is a scan's stderr under SNAPSORT_GROUPS_TRACE=1 (its `pair` lines). Each pair's two
photos are decoded grey with djpeg at the smallest DCT scale whose long side reaches 512 px and
sent to the helper's `match` request (ORB + RANSAC homography). Prints one line per pair: truth
(same: one labelled set; mustnot: a must-not-group pair; diff: anything else), the time apart, the
thumbnail score and overlap, keypoints, matches, inliers, shared area, and the helper's ms.
"""
import argparse, json, os, subprocess, sys


def grey(path, long_side=512):
    for scale in ("1/8", "1/4", "1/2", "1"):
        out = subprocess.run(["djpeg", "-scale", scale, "-grayscale", "-pnm", path], capture_output=True, check=True).stdout
        parts = out.split(maxsplit=4)  # P5 W H MAX data
        w, h = int(parts[1]), int(parts[2])
        if max(w, h) >= long_side or scale == "1":
            return w, h, parts[4][: w * h] if len(parts[4]) >= w * h else out[-w * h:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--helper", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--labels", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--max-dt", type=float, default=1e9)
    a = ap.parse_args()
    labels = json.load(open(a.labels))
    group = {f["path"]: f.get("similar_group") for f in labels["files"]}
    mustnot = {frozenset(p[:2]) for p in labels.get("must_not_group", [])}
    helper = subprocess.Popen([a.helper], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    seen = set()
    for line in open(a.trace, errors="replace"):
        f = line.rstrip("\n").split("\t")
        if f[0] != "pair":
            continue
        pa, pb = (os.path.relpath(p, a.root) if p.startswith("/") else p for p in f[1:3])
        key = frozenset((pa, pb))
        if key in seen:
            continue
        seen.add(key)
        kv = dict(x.split("=", 1) for x in f[3:] if "=" in x)
        if float(kv["dt"]) > a.max_dt:
            continue
        truth = "mustnot" if key in mustnot else ("same" if group.get(pa) and group.get(pa) == group.get(pb) else "diff")
        try:
            wa, ha, ga = grey(os.path.join(a.root, pa))
            wb, hb, gb = grey(os.path.join(a.root, pb))
        except (subprocess.CalledProcessError, ValueError, IndexError):
            continue
        helper.stdin.write(f"match {wa} {ha} {wb} {hb}\n".encode() + ga + gb)
        helper.stdin.flush()
        r = json.loads(helper.stdout.readline())
        if "error" in r:
            print("error", pa, pb, r["error"], file=sys.stderr)
            continue
        print(truth, kv["dt"], kv["score"], kv["overlap"], r["keypoints"][0], r["keypoints"][1], r["matches"], r["inliers"], r["shared"], r["ms"], pa, pb, sep="\t", flush=True)


if __name__ == "__main__":
    main()
