#!/usr/bin/env python3
"""A labelled stress corpus for Docs & Receipts: paper photographed at an angle with a phone.

    <eval venv>/bin/python bench/docs_angle.py --out /tmp/docs-angle [--seed 1] [--count 24]

The DEV generator (../shared/eval/make_corpus.py) photographs its receipts and letters nearly
square-on (each corner moved by at most 6 % of the page, the page 70–92 % of the frame's short
side). A phone held over a table sees more: the page turned, its far edge shorter than its near
one (a keystone of 10–35° of tilt), filling 40–85 %. This builds `count` such photos with the
generator's own paper, fonts, light falloff, camera pipeline and EXIF, on DEV's backgrounds
(no people, no documents), alternating receipts and letters, plus one plain photo of each
background used (a negative: the scene without a page). It writes library/ and labels.json in
the corpus format, so `bench/quality.sh` and score.py score it like the DEV corpora. Needs the
eval venv (make-dev-corpus.sh makes it: pillow, numpy, opencv, piexif).
"""
import argparse
import math
import os
import sys

import numpy as np
import cv2

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "eval"))
import make_corpus  # noqa: E402


def angled_document(gen, doc, bg_src, out_wh, doc_frac):
    """`make_corpus.Gen.photograph_document` with a phone's angle: turned, keystoned, smaller."""
    r = gen.rng
    ow, oh = out_wh
    bgwin = gen.window(bg_src, ow / oh, frac=float(r.uniform(0.5, 0.9)))
    bg, _ = gen.render(bg_src, bgwin, (ow, oh))
    bg = gen.gauss(bg, max(ow, oh) * 0.004)
    dh, dw = doc.shape[:2]
    s = doc_frac * min(ow / dw, oh / dh)
    cw, ch = dw * s, dh * s
    cx, cy = ow / 2 + float(r.uniform(-0.08, 0.08)) * ow, oh / 2 + float(r.uniform(-0.08, 0.08)) * oh
    # Tilt: the far edge (top or a side) shrinks by the cosine-like factor of a 10–35° view angle.
    tilt = math.radians(float(r.uniform(10, 35)))
    shrink = 1 - 0.9 * math.sin(tilt) * 0.6
    quad = np.float32([[-cw / 2 * shrink, -ch / 2], [cw / 2 * shrink, -ch / 2], [cw / 2, ch / 2], [-cw / 2, ch / 2]])
    if r.random() < 0.4:  # the near edge on a side instead
        quad = np.float32([[-cw / 2, -ch / 2], [cw / 2, -ch / 2 * shrink], [cw / 2, ch / 2 * shrink], [-cw / 2, ch / 2]])
    turn = math.radians(float(r.uniform(-20, 20)))
    rot = np.float32([[math.cos(turn), -math.sin(turn)], [math.sin(turn), math.cos(turn)]])
    quad = quad @ rot.T + np.float32([cx, cy])
    quad += r.uniform(-0.03, 0.03, (4, 2)).astype(np.float32) * np.float32([cw, ch])
    M = cv2.getPerspectiveTransform(np.float32([[0, 0], [dw, 0], [dw, dh], [0, dh]]), quad)
    warped = cv2.warpPerspective(doc, M, (ow, oh), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.ones((dh, dw), np.float32), M, (ow, oh))
    shadow = cv2.GaussianBlur(mask, (0, 0), max(ow, oh) * 0.01)
    out = bg.astype(np.float32) * (1 - 0.45 * shadow[..., None])
    out = out * (1 - mask[..., None]) + warped.astype(np.float32) * mask[..., None]
    yy, xx = np.mgrid[0:oh, 0:ow].astype(np.float32)
    gx, gy = float(r.uniform(-1, 1)), float(r.uniform(-1, 1))
    light = 1.0 - 0.18 * ((xx / ow - 0.5) * gx + (yy / oh - 0.5) * gy) - 0.12 * (((xx / ow - 0.5) ** 2 + (yy / oh - 0.5) ** 2))
    out *= light[..., None]
    out = gen.gauss(np.clip(out, 0, 255).astype(np.uint8), 0.6)
    return gen.camera_pipeline(out, 1.0), float(mask.mean())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=24)
    a = ap.parse_args()
    gen = make_corpus.Gen(argparse.Namespace(set="dev", out=a.out, seed=1000 + a.seed, manifest=os.path.join(make_corpus.HERE, "sources_manifest.json")))
    if os.path.exists(gen.lib):
        sys.exit(f"{gen.lib} exists; remove it first")
    os.makedirs(gen.lib)
    gen.content_sets()
    gen.photograph_document = lambda doc, bg, wh, frac: angled_document(gen, doc, bg, wh, float(gen.rng.uniform(0.4, 0.85)))
    bgs = [s for s in gen.sources if not any(t in s["tags"] for t in ("people", "doc"))]
    gen.prng.shuffle(bgs)
    letters = [[ln.rstrip()[:80] for ln in open(p, encoding="utf-8", errors="replace")] for p in gen.letter_src]
    used = []
    for i in range(a.count):
        bg = bgs[i % len(bgs)]
        if i % 2 == 0:
            doc = gen.receipt_image(gen.shops[(i // 2) % len(gen.shops)])
            kind = "receipt"
        else:
            lines = letters[(i // 2) % len(letters)]
            start = int(gen.rng.integers(0, max(1, len(lines) - 60)))
            doc = gen.letter_image(lines[start:start + 45], "letter")
            kind = "letter"
        gen.make_doc_photo(doc, bg, kind)
        if bg not in used:
            used.append(bg)
    for bg in used:
        gen.make_single(bg, False, "standalone")
    gen.finish()


if __name__ == "__main__":
    main()
