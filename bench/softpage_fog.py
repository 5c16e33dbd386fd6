#!/usr/bin/env python3
"""How often fog passes for a soft page (GroupRules.isSoftPage) — a check of the rule on scenes
the corpora do not show, never a test.

  bench/softpage_fog.py [--crops 12] [--seed 5] [--venv DIR]

Applies the eval corpus's fog formula (make_corpus.py: haze + (pixel - mean) * c, haze 150..215,
c 0.12..0.22) to random crops (60-100 %) of every source photo of ../shared/eval's manifest at
~1000 px, measures the luma percentiles and mean HSV saturation the way Metrics does, and counts
the fogged frames the soft-page rule would call a page (then a document, not an Oops Shot).
Needs numpy and opencv (the eval venv: /tmp/snapsort-eval/.eval-venv/bin/python).
"""
import argparse, json, os, sys
import numpy as np
import cv2

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "..", "..", "shared", "eval", "sources_manifest.json")


def soft_page(p01, p50, p95, p99, sat, ratio=2.5, depth=35.0):
    washed = p99 - p01 < 100 and p01 > 60
    return washed and sat < 0.1 and p50 >= 140 and p50 - p01 >= depth and p50 - p01 >= ratio * max(1, p95 - p50)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--crops", type=int, default=12)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--venv", default="/tmp/snapsort-eval/.eval-venv", help="where the manifest's /tmp/eval/venv sources live")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    n = hits = 0
    by_source = {}
    for s in json.load(open(MANIFEST)):
        if "doc" in s["tags"]:
            continue  # the corpus never fogs a document
        img = cv2.imread(s["path"].replace("/tmp/eval/venv", a.venv))
        if img is None:
            print(f"missing: {s['path']}", file=sys.stderr)
            continue
        img = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
        h, w = img.shape[:2]
        f = min(1.0, 1000 / max(h, w))
        img = cv2.resize(img, (int(w * f), int(h * f)), interpolation=cv2.INTER_AREA).astype(np.float32)
        for _ in range(a.crops):
            c, haze, sc = rng.uniform(0.12, 0.22), rng.uniform(150, 215), rng.uniform(0.6, 1.0)
            ch, cw = img.shape[:2]
            hh, ww = int(ch * sc), int(cw * sc)
            y, x = rng.integers(0, ch - hh + 1), rng.integers(0, cw - ww + 1)
            crop = img[y:y + hh, x:x + ww]
            fog = np.round(np.clip(haze + (crop - crop.mean()) * c, 0, 255))
            luma = 0.299 * fog[..., 0] + 0.587 * fog[..., 1] + 0.114 * fog[..., 2]
            p01, p50, p95, p99 = np.percentile(luma, [1, 50, 95, 99])
            mx, mn = fog.max(-1), fog.min(-1)
            sat = float(np.where(mx > 0, (mx - mn) / np.maximum(mx, 1e-6), 0).mean())
            n += 1
            if soft_page(p01, p50, p95, p99, sat):
                hits += 1
                by_source[s["id"]] = by_source.get(s["id"], 0) + 1
    print(f"fogged frames {n}, taken for a soft page {hits} ({100 * hits / max(1, n):.1f} %)")
    for k, v in sorted(by_source.items(), key=lambda kv: -kv[1]):
        print(f"  {k}: {v}")


if __name__ == "__main__":
    main()
