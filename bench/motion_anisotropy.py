#!/usr/bin/env python3
"""Measures candidate statistics for motion blur in a photo judged alone (issue 29, item 3).

Linear motion blur takes the fine detail along its path and leaves the detail across it; at a
coarse scale (the frame reduced f×) a blur of 0.5–1 % of the width is about a pixel or less, so
the scene's own directional structure (stripes, horizons, buildings) should show at both scales
and the blur at the fine one only. For each direction k (0°, 45°, 90°, 135°) the mean square
second difference E_k is measured at the working scale (≤ 1024 px long side, as the analyzer;
the noise's share taken off) and at an f× coarser one (f = 2, 4, 8); loss_k = log2(Ec_k / Ef_k):
- `spreadF`: max_k loss_k − min_k loss_k;
- `orthoF`: the largest |loss_k − loss_k+90°| (against the direction across it only);
- `weakF`: loss − loss across, for the direction weakest at the fine scale;
- `tilesF`: orthoF's direction, read in each of 4×4 tiles, lower quartile (camera motion blurs
  every part of the frame the same way);
- `fine_aniso`: log2(max_k Ef_k / min_k Ef_k), the fine scale alone.
Each photo is judged as if it were alone (no set mates). Positives: photos labelled blurry by
motion (a blur ladder's motion rungs, real motion blur); negatives: photos not labelled blurry
(where a corpus does not care, skipped). A threshold is fitted on the first corpus (best
balanced accuracy) and read on the others. SYNTH=N also blurs every Nth sharp photo by 0.5, 0.7
and 0.9 % of the width (synthetic motion, angles in 22.5° steps) and counts how many pass.

    bench/motion_anisotropy.py CORPUS_DIR [CORPUS_DIR…]   (djpeg and numpy needed)
    DUMP=FILE (the per-photo statistics as JSON), VERBOSE=1 (per photo), SYNTH=3

Result (2026-12-02, bench/RESULTS.md): no statistic separates; the best (ortho8 ≥ 1.28 fitted on
DEV) finds 13–16 of 17 motion-blurred photos but takes 9–16 % of sharp ones on DEV2/DEV3, and
the real licence-plate photo reads 0.85–1.39, on either side of the line.
"""
import json
import math
import os
import subprocess
import sys

import numpy as np


def luma(path):
    """The JPEG's luma, area-averaged to at most 1024 px on its long side."""
    # The smallest DCT scale that still gives ≥ 960 px, as the analyzer decodes.
    long_side = max(jpeg_size(path))
    n = next((n for n in range(1, 9) if long_side * n / 8 >= 960), 8)
    out = subprocess.run(["djpeg", "-grayscale", "-scale", f"{n}/8", "-pnm", path], capture_output=True, check=True).stdout
    # P5 header: magic, width, height, maxval, each followed by whitespace.
    parts, pos = [], 0
    while len(parts) < 4:
        while out[pos : pos + 1].isspace():
            pos += 1
        if out[pos : pos + 1] == b"#":
            pos = out.index(b"\n", pos) + 1
            continue
        end = pos
        while not out[end : end + 1].isspace():
            end += 1
        parts.append(out[pos:end])
        pos = end
    pos += 1
    w, h = int(parts[1]), int(parts[2])
    img = np.frombuffer(out, dtype=np.uint8, count=w * h, offset=pos).reshape(h, w).astype(np.float64)
    f = int(math.ceil(max(w, h) / 1024))
    if f > 1:
        img = reduce(img, f)
    return img


def jpeg_size(path):
    """Width and height from the JPEG's start-of-frame marker."""
    data = open(path, "rb").read()
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker = data[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return int.from_bytes(data[i + 7 : i + 9], "big"), int.from_bytes(data[i + 5 : i + 7], "big")
        i += 2 + int.from_bytes(data[i + 2 : i + 4], "big")
    raise ValueError("no SOF")


def reduce(img, f):
    h, w = img.shape[0] // f * f, img.shape[1] // f * f
    return img[:h, :w].reshape(h // f, f, w // f, f).mean(axis=(1, 3))


def directional(img):
    """Mean square second difference along 0°, 45°, 90°, 135°, and the noise σ (as Metrics)."""
    c = img[1:-1, 1:-1]
    twice = 2 * c
    d0 = img[1:-1, :-2] + img[1:-1, 2:] - twice
    d90 = img[:-2, 1:-1] + img[2:, 1:-1] - twice
    d45 = img[:-2, 2:] + img[2:, :-2] - twice
    d135 = img[:-2, :-2] + img[2:, 2:] - twice
    lap = d0 + d90
    # Noise: the 10th percentile of the Laplacian variance over a 16×16 grid (white noise of σ
    # gives 20σ²).
    h, w = lap.shape
    vs = []
    for ty in range(16):
        for tx in range(16):
            t = lap[ty * h // 16 : (ty + 1) * h // 16, tx * w // 16 : (tx + 1) * w // 16]
            if t.size:
                vs.append(t.var())
    vs.sort()
    noise = math.sqrt(max(vs[(len(vs) - 1) // 10], 0) / 20)
    return [float((d * d).mean()) for d in (d0, d45, d90, d135)], noise


def motion_blur(img, length, angle):
    """A linear motion blur of `length` pixels at `angle` degrees: the mean of the frame shifted
    to each whole-pixel point of the path (edges wrap; the 8 % border is cropped after)."""
    n = max(2, int(round(length)) + 1)
    a = math.radians(angle)
    acc = np.zeros_like(img)
    for i in range(n):
        t = (i / (n - 1) - 0.5) * length
        acc += np.roll(img, (int(round(t * math.sin(a))), int(round(t * math.cos(a)))), axis=(0, 1))
    return acc / n


def statistics(path, blur=None):
    """The candidate statistics of one photo (stops); `blur` = (share of the width, angle)
    blurs its working-size luma first (with fresh noise of σ 1, as a camera adds after)."""
    img = luma(path)
    if blur:
        h, w = img.shape
        img = motion_blur(img, blur[0] * w, blur[1])
        img = img[h // 12 : h - h // 12, w // 12 : w - w // 12]
        img = np.round(img + np.random.default_rng(0).normal(0, 1, img.shape))
    fine, noise = directional(img)
    n2 = 6 * noise * noise
    # The noise's share off the fine energies (as GroupRules.directionalDetail); a coarse scale
    # averages f² pixels, so its noise is negligible.
    fine = [max(e - n2, e / 4, 1e-6) for e in fine]
    out = {"fine_aniso": math.log2(max(fine) / min(fine))}
    for f in (2, 4, 8):
        coarse = [max(e, 1e-6) for e in directional(reduce(img, f))[0]]
        loss = [math.log2(c / e) for e, c in zip(fine, coarse)]
        out[f"spread{f}"] = max(loss) - min(loss)
        # Against the orthogonal direction only: motion blur takes the detail along its path
        # and keeps it across.
        out[f"ortho{f}"] = max(abs(loss[0] - loss[2]), abs(loss[1] - loss[3]))
        # The direction weakest at the fine scale against the one across it: a stripe is weak
        # along its lines at both scales, a motion blur at the fine one only.
        k = min(range(4), key=lambda k: fine[k])
        out[f"weak{f}"] = loss[k] - loss[(k + 2) % 4]
        # Camera motion blurs every part of the frame along one direction; a scene's structure
        # changes direction from part to part. The frame's most-lost direction against the one
        # across it, in each of 4×4 tiles; the statistic is the tiles' lower quartile.
        k = max(range(4), key=lambda k: loss[k] - loss[(k + 2) % 4])
        h, w = img.shape
        per_tile = []
        for ty in range(4):
            for tx in range(4):
                t = img[ty * h // 4 : (ty + 1) * h // 4, tx * w // 4 : (tx + 1) * w // 4]
                tf = [max(e - n2, e / 4, 1e-6) for e in directional(t)[0]]
                tc = [max(e, 1e-6) for e in directional(reduce(t, f))[0]]
                tl = [math.log2(c / e) for e, c in zip(tf, tc)]
                per_tile.append(tl[k] - tl[(k + 2) % 4])
        out[f"tiles{f}"] = float(np.percentile(per_tile, 25))
    return out


def label(x):
    """motion, blur (blurry otherwise), sharp, or None where a corpus does not care."""
    if "blurry" in x.get("dont_care", []):
        return None
    p = x.get("params") or {}
    motion = p.get("blur") == "motion" or "blur:real_motion" in x["tags"]
    if "blurry" in x["groups"]:
        return "motion" if motion else "blur"
    return "sharp"


def measure(corpus):
    labels = json.load(open(os.path.join(corpus, "labels.json")))
    rows = []
    for x in labels["files"]:
        if x["kind"] != "photo" or not x["path"].lower().endswith((".jpg", ".jpeg")):
            continue
        if label(x) is None:
            continue
        try:
            stats = statistics(os.path.join(corpus, "library", x["path"]))
        except (subprocess.CalledProcessError, ValueError):
            continue
        p = x.get("params") or {}
        rows.append({"label": label(x), "path": x["path"], "source": x["source"], "motion_rel": p.get("motion_rel"),
                     "alone": x["similar_group"] is None, **stats})
    return rows


def fit(rows, key):
    """The threshold of the best balanced accuracy on `key`, at the middle of its gap."""
    values = sorted(set(r[key] for r in rows))
    pos = [r[key] for r in rows if r["label"] == "motion"]
    neg = [r[key] for r in rows if r["label"] == "sharp"]
    best = (-1.0, 0.0)
    for a, b in zip(values, values[1:]):
        t = (a + b) / 2
        acc = (sum(v >= t for v in pos) / len(pos) + sum(v < t for v in neg) / len(neg)) / 2
        if acc > best[0]:
            best = (acc, t)
    return best[1]


def counts(rows, key, t):
    pos = [r for r in rows if r["label"] == "motion"]
    neg = [r for r in rows if r["label"] == "sharp"]
    return sum(r[key] >= t for r in pos), len(pos), sum(r[key] >= t for r in neg), len(neg)


def main():
    corpora = sys.argv[1:] or ["/tmp/snapsort-eval/dev"]
    measured = [(c, measure(c)) for c in corpora]
    if os.environ.get("DUMP"):
        json.dump(measured, open(os.environ["DUMP"], "w"))
    keys = [k for k in measured[0][1][0] if k not in ("label", "path", "source", "motion_rel", "alone")]
    print(f"threshold fitted on {corpora[0]} (best balanced accuracy); motion-blurred found / sharp taken")
    for key in keys:
        t = fit(measured[0][1], key)
        cells = []
        for c, rows in measured:
            tp, np_, fp, nn = counts(rows, key, t)
            cells.append(f"{os.path.basename(c)} {tp}/{np_} {fp}/{nn}")
        print(f"{key:11s} ≥ {t:5.2f}: " + "; ".join(cells))
    # Synthetic mild motion blur (0.5, 0.7, 0.9 % of the width, angles 0–157.5°) of the sharp
    # photos, judged alone against the sharp photos themselves.
    if os.environ.get("SYNTH"):
        for c, rows in measured:
            sharp = [r for r in rows if r["label"] == "sharp"][:: int(os.environ["SYNTH"])]
            synth = []
            for j, r in enumerate(sharp):
                for share in (0.005, 0.007, 0.009):
                    angle = (j * 3 + int(share * 1000)) % 8 * 22.5
                    synth.append({"label": "motion", **statistics(os.path.join(c, "library", r["path"]), (share, angle))})
            for key in keys:
                t = fit(measured[0][1], key)
                tp, np_, fp, nn = counts(synth + rows, key, t)
                print(f"synthetic {os.path.basename(c)} {key:11s} ≥ {t:5.2f}: blurred {sum(s[key] >= t for s in synth)}/{len(synth)}, sharp {fp}/{nn}")
    if os.environ.get("VERBOSE"):
        for c, rows in measured:
            print(f"== {c}")
            for r in sorted(rows, key=lambda r: (r["label"], r["spread8"])):
                if r["label"] != "blur":
                    print("   " + " ".join(f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}" for k, v in r.items()))


if __name__ == "__main__":
    main()
