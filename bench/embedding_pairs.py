#!/usr/bin/env python3
"""The embedding cosine of every pair the Similar Shots grouper compared (bench/embedding.sh).

Reads the grouper's pair trace (`pair<TAB>A<TAB>B<TAB>dt=…<TAB>score=…<TAB>overlap=…<TAB>phash=…`),
labels.json (similar_group, similar_fuzzy, must_not_group) and asks snapsort-vision for each
photo's 1280-d embedding. A pair's current verdict is `similar` when overlap >= 0.62 and
score >= 0.80 (GroupRules.minimumOverlap, similarThreshold; complete linkage then builds the
sets). Prints the cosine by kind of truth and which pairs a cosine threshold could flip.
"""
import argparse
import json
import math
import subprocess
import sys

from PIL import Image, ImageOps

LONG_SIDE = 1024  # VisionImage.longSide
MIN_OVERLAP, THRESHOLD = 0.62, 0.80  # GroupRules


def picture(path):
    """The picture tier 2 sends: upright (EXIF), RGB, long side 1024 (box down, bilinear up)."""
    im = ImageOps.exif_transpose(Image.open(path)).convert("RGB")
    w, h = im.size
    s = LONG_SIDE / max(w, h)
    return im.resize((max(1, round(w * s)), max(1, round(h * s))), Image.BOX if s < 1 else Image.BILINEAR)


class Helper:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.p.stdin.write(b"hello\n")
        self.p.stdin.flush()
        hello = json.loads(self.p.stdout.readline())
        if not hello.get("classes"):
            sys.exit(f"the classifier is unavailable: {hello}")

    def embed(self, im):
        w, h = im.size
        self.p.stdin.write(f"embed {w} {h}\n".encode() + im.tobytes())
        self.p.stdin.flush()
        r = json.loads(self.p.stdout.readline())
        return r.get("embedding")


def cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)) or 1)


def quantiles(xs):
    xs = sorted(xs)
    if not xs:
        return "none"
    q = lambda f: xs[min(len(xs) - 1, int(f * (len(xs) - 1) + 0.5))]
    return f"n={len(xs)} min {xs[0]:.3f} p10 {q(0.1):.3f} median {q(0.5):.3f} p90 {q(0.9):.3f} max {xs[-1]:.3f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--helper", required=True)
    ap.add_argument("--labels", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--trace", required=True)
    args = ap.parse_args()
    labels = json.load(open(args.labels))
    root = args.root.rstrip("/") + "/"
    files = {f["path"]: f for f in labels["files"]}
    must_not = {frozenset((a, b)): why for a, b, why in labels.get("must_not_group", [])}
    pairs = []
    for line in open(args.trace):
        parts = line.rstrip("\n").split("\t")
        if parts[0] != "pair":
            continue
        kv = dict(p.split("=", 1) for p in parts[3:])
        a, b = (p[len(root):] if p.startswith(root) else p for p in parts[1:3])
        pairs.append((a, b, float(kv["score"]), float(kv["overlap"]), int(kv["dt"])))
    helper = Helper(args.helper)
    emb = {}
    for path in sorted({p for a, b, *_ in pairs for p in (a, b)}):
        try:
            emb[path] = helper.embed(picture(root + path))
        except Exception as e:  # hostile files: no embedding
            print(f"  (no embedding for {path}: {e})", file=sys.stderr)
    rows = []
    for a, b, score, overlap, dt in pairs:
        fa, fb = files.get(a), files.get(b)
        if not fa or not fb or a not in emb or b not in emb or not emb[a] or not emb[b]:
            continue
        if fa.get("similar_fuzzy") or fb.get("similar_fuzzy"):
            truth = "fuzzy"
        elif frozenset((a, b)) in must_not:
            truth = "must_not"
        elif fa.get("similar_group") and fa["similar_group"] == fb.get("similar_group"):
            truth = "same"
        else:
            truth = "different"
        verdict = overlap >= MIN_OVERLAP and score >= THRESHOLD
        rows.append(dict(a=a, b=b, score=score, overlap=overlap, dt=dt, truth=truth, verdict=verdict, cos=cosine(emb[a], emb[b])))
    print(f"compared pairs: {len(rows)} (of {len(pairs)} traced)")
    for truth in ("same", "different", "must_not", "fuzzy"):
        sel = [r for r in rows if r["truth"] == truth]
        wrong = [r for r in sel if r["verdict"] != (truth == "same")] if truth != "fuzzy" else []
        print(f"  {truth:9s} cosine {quantiles([r['cos'] for r in sel])}; current verdict wrong on {len(wrong)}")
    same = [r["cos"] for r in rows if r["truth"] == "same"]
    other = [r for r in rows if r["truth"] in ("different", "must_not")]
    if same and other:
        lo = min(same)
        above = sorted((r for r in other if r["cos"] >= lo), key=lambda r: -r["cos"])
        print(f"  pairs of different photos with a cosine >= the lowest same-set cosine ({lo:.3f}): {len(above)}")
        for r in above[:12]:
            print(f"    {r['truth']:9s} cos {r['cos']:.3f} score {r['score']:.3f} overlap {r['overlap']:.2f} dt {r['dt']}s  {r['a']}  {r['b']}")
        # Where the current verdict is closest to the threshold, would the cosine agree?
        near = sorted((r for r in rows if r["truth"] in ("same", "different", "must_not")), key=lambda r: abs(r["score"] - THRESHOLD))
        print("  the 10 pairs closest to the score threshold (truth, verdict, cosine):")
        for r in near[:10]:
            print(f"    {r['truth']:9s} {'similar' if r['verdict'] else 'apart  '} score {r['score']:.3f} overlap {r['overlap']:.2f} cos {r['cos']:.3f}")


if __name__ == "__main__":
    main()
