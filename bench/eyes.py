#!/usr/bin/env python3
"""The eyes-open keeper term's landmarks (issue 29, item 6): which box to give dlib's 68-point
shape predictor for the faces YuNet finds.

    bench/eyes.py [--work DIR] [--corpora DIR…] [--sheets]

dlib's predictor was trained on the boxes of dlib's HOG face detector (square, brows to chin).
bench/eyes.cpp (built here with g++) runs YuNet as the helper does and dlib's HOG on each
picture, and the predictor on these boxes of each YuNet face from MIN_SCORE (environment,
default 0.8, the People threshold `VisionRules.minFaceScore`):
  raw       YuNet's box as it is;
  square    the face's square (centred, side the mean of the sides);
  kps       the helper's square: centred on the line from YuNet's eyes' midpoint to its mouth
            corners' midpoint, 0.47 of the way down, side 0.98 × the mean side (the fit prints
            both numbers, from the faces both detectors find in the `--fit` set);
  map       the linear map of YuNet's box to HOG's framing, fitted on the faces both detectors
            find in one set (`--fit`, default `photos`; centre offset in box widths/heights, side
            from width and height by least squares) and checked on the others; or the map given
            with `--map`. The helper uses the symmetric one-scale form of the fit it prints
            (`--map 0 0.04 0.49 0.49`: centre 4 % of the height lower, side 0.98 × the mean side);
  hogcrop   HOG run on the face's neighbourhood only (twice its side, scaled so the face is
            ~100 px), its box where it finds the face there, the map's square where not;
  hog       HOG's own box (where HOG finds the face: the predictor's home ground);
  *_up      the same box on a crop scaled so that the box is 200 px wide (dlib gives whole
            pixels of the picture it is given: at 1024 px a small face's eye is 2-4 px high, and
            the ratio moves in steps of 0.1-0.2).
Sets: the DEV corpora's photos of people (labels.json: the sources of the People files),
`photos` (real photos with faces shipped by Debian packages: dlib's example faces, OpenCV's
documentation), and `megamind` (every frame of opencv-doc's Megamind.avi, a rendered film
clip whose characters blink and close their eyes; each face's state labelled by hand by
looking at its crop: bench/eyes_labels.json). All faces of the other sets have open eyes
unless eyes_labels.json says otherwise (checked the same way).
Measures, per set and box:
  - eye landmarks' distance to those from HOG's box upscaled (`hog_up`), in inter-ocular
    distances (faces HOG finds);
  - the eye ratio's spread over one face's pictures that differ in crop, scale, blur, light
    or frame but not in eye state (DEV's derivatives of one source photo; the clip's frames of
    one shot with the eyes open);
  - open eyes read as closed: the share of open-eyed faces the keeper's eyes term penalises
    (mean ratio < VisionScore.open 0.25) and its mean penalty;
  - the clip's closed eyes: the share under VisionScore.closed 0.15 / open 0.25, and the AUC
    of the ratio between open and closed faces.
Results: bench/RESULTS.md ("The eyes' landmarks").
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OPEN, CLOSED = 0.25, 0.15
VARIANTS = ["raw", "square", "square_up", "kps", "map", "map_up", "hogcrop", "hog", "hog_up"]

# Real photos with faces in Debian packages (found by running the res10 SSD over every picture
# installed: composites, reconstructions, drawn-over and rendered pictures left out).
PHOTOS = [
    "/usr/share/doc/libdlib19.1/examples/faces/" + n
    for n in [
        "2007_007763.jpg", "2008_001009.jpg", "2008_001322.jpg", "2008_002079.jpg", "2008_002470.jpg", "2008_002506.jpg",
        "2008_004176.jpg", "2008_007676.jpg", "2009_004587.jpg", "Tom_Cruise_avp_2014_4.jpg", "bald_guys.jpg",
    ]
] + [
    "/usr/share/doc/opencv-doc/opencv4/html/" + n
    for n in [
        "227943776_1.jpg", "230501201_1.jpg", "example.jpg", "lbp_yale.jpg", "resimg.jpg", "05.jpg", "12.jpg",
    ]
] + [os.path.join(ROOT, "Tests/Fixtures/vision", n) for n in ["astronaut.jpg", "cameraman.jpg"]]
MEGAMIND = "/usr/share/doc/opencv-doc/examples/data/Megamind.avi"


def build(work):
    exe = os.path.join(work, "eyes")
    subprocess.run(
        ["g++", "-std=c++17", "-O2", "-I/usr/include/opencv4", os.path.join(HERE, "eyes.cpp"), "-o", exe, "-ldlib", "-llapack",
         "-lblas", "-lopencv_dnn", "-lopencv_imgcodecs", "-lopencv_imgproc", "-lopencv_core"],
        check=True)
    return exe


def corpus_files(corpus):
    labels = json.load(open(os.path.join(corpus, "labels.json")))
    sources = {f["source"] for f in labels["files"] if "people" in f["groups"]}
    return sorted(
        (os.path.join(corpus, "library", f["path"]), f["source"]) for f in labels["files"]
        if f.get("source") in sources and f["kind"] == "photo")


def run(exe, paths, mapping, out, crops=None):
    env = dict(os.environ, MODELS=os.path.join(ROOT, "share", "models"))
    if crops:
        os.makedirs(crops, exist_ok=True)
        env["CROPS"] = crops
    args = [exe] + (["--map"] + [repr(v) for v in mapping] if mapping else [])
    with open(out, "w") as f:
        # One process: the models load once.
        subprocess.run(args + list(paths), env=env, stdout=f, check=True)
    return [json.loads(line) for line in open(out)]


def fit(records):
    """Least squares: HOG's centre = YuNet's centre + (dx·w, dy·h), HOG's side = sw·w + sh·h."""
    xs, ys, ss = [], [], []
    for r in records:
        for f in r["faces"]:
            if "hog" not in f:
                continue
            x0, y0, x1, y1 = f["raw"]["box"]
            h0, h1, h2, h3 = f["hog"]["box"]
            w, h = x1 - x0, y1 - y0
            xs.append(((h0 + h2) / 2 - (x0 + x1) / 2) / w)
            ys.append(((h1 + h3) / 2 - (y0 + y1) / 2) / h)
            ss.append((w, h, h2 - h0))
    along = []
    for r in records:
        for f in r["faces"]:
            if "hog" in f and "kp" in f:
                ex, ey, mx, my = f["kp"]
                h0, h1, h2, h3 = f["hog"]["box"]
                vx, vy = mx - ex, my - ey
                along.append((((h0 + h2) / 2 - ex) * vx + ((h1 + h3) / 2 - ey) * vy) / (vx * vx + vy * vy))
    if along:
        print(f"keypoints: HOG's centre {statistics.fmean(along):.3f} ± {statistics.pstdev(along):.3f} of the way from the eyes' "
              f"midpoint to the mouth's ({len(along)} faces)", flush=True)
    dx, dy = statistics.fmean(xs), statistics.fmean(ys)
    k = statistics.fmean(s / ((w + h) / 2) for w, h, s in ss)
    print(f"fit over {len(xs)} faces: centre offset ({dx:+.3f} ± {statistics.pstdev(xs):.3f}) w, ({dy:+.3f} ± {statistics.pstdev(ys):.3f}) h; "
          f"side / mean of YuNet's sides {k:.3f} ± {statistics.pstdev(s / ((w + h) / 2) for w, h, s in ss):.3f} "
          f"(the symmetric one-scale map: --map 0 {dy:.2f} {k / 2:.2f} {k / 2:.2f})", flush=True)
    # Two-variable least squares without numpy: normal equations.
    a = sum(w * w for w, _, _ in ss)
    b = sum(w * h for w, h, _ in ss)
    c = sum(h * h for _, h, _ in ss)
    p = sum(w * s for w, _, s in ss)
    q = sum(h * s for _, h, s in ss)
    det = a * c - b * b
    sw, sh = (p * c - q * b) / det, (a * q - b * p) / det
    return (dx, dy, sw, sh), len(xs)


def iou(a, b):
    x0, y0, x1, y1 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    if x1 <= x0 or y1 <= y0:
        return 0.0
    i = (x1 - x0) * (y1 - y0)
    return i / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - i)


def openness(shape):
    r, l = shape["ear"]
    return (r + l) / 2


def eye_error(shape, ref):
    """Mean distance of the 12 eye landmarks to the reference's, in inter-ocular distances."""
    p, q = shape["pts"], ref["pts"]

    def centre(pts, first):
        return (sum(pts[2 * i] for i in range(first, first + 6)) / 6, sum(pts[2 * i + 1] for i in range(first, first + 6)) / 6)

    (ax, ay), (bx, by) = centre(q, 36), centre(q, 42)
    iod = ((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5
    d = [((p[2 * i] - q[2 * i]) ** 2 + (p[2 * i + 1] - q[2 * i + 1]) ** 2) ** 0.5 for i in range(36, 48)]
    return statistics.fmean(d) / iod


def auc(pos, neg):
    """P(an open face's ratio > a closed face's), ties half."""
    if not pos or not neg:
        return None
    s = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return s / (len(pos) * len(neg))


def faces_of(records, key, labels):
    """(face key, state, group, face) for each face of the records; `key(record, face)` names
    the group of pictures of one face."""
    out = []
    for r in records:
        name = os.path.basename(r["path"])
        for f in r["faces"]:
            cx = (f["raw"]["box"][0] + f["raw"]["box"][2]) / 2 / r["w"]
            state = "open"
            for lab in labels:
                if lab["file"] == name and (lab["x"] is None or abs(lab["x"] - cx) < 0.05):
                    state = lab["state"]
            out.append((name, state, key(r, f), f))
    return out


def summarize(name, faces, variants, lines):
    usable = [x for x in faces if x[1] in ("open", "closed")]
    lines.append(f"\n### {name}: {len(usable)} faces ({sum(1 for x in usable if x[1] == 'closed')} closed), "
                 f"{sum(1 for x in usable if 'hog' in x[3])} found by HOG too")
    lines.append("| box | eye landmarks to hog_up (IOD) | ratio spread within a face (sd) | open read as not open (< 0.25) | mean penalty on open | closed < 0.15 / < 0.25 | AUC open vs closed |")
    lines.append("|---|---|---|---|---|---|---|")
    out = {}
    for v in variants:
        have = [x for x in usable if v in x[3]]
        if not have:
            continue
        errs = [eye_error(x[3][v], x[3]["hog_up"]) for x in have if "hog_up" in x[3] and v != "hog_up"]
        groups = {}
        for x in have:
            if x[1] == "open" and x[2] is not None:
                groups.setdefault(x[2], []).append(openness(x[3][v]))
        spreads = [statistics.pstdev(g) for g in groups.values() if len(g) >= 2]
        weights = [len(g) for g in groups.values() if len(g) >= 2]
        spread = (sum(s * s * w for s, w in zip(spreads, weights)) / sum(weights)) ** 0.5 if weights else None
        opens = [openness(x[3][v]) for x in have if x[1] == "open"]
        closed = [openness(x[3][v]) for x in have if x[1] == "closed"]
        penal = [min(1, max(0, (OPEN - o) / (OPEN - CLOSED))) for o in opens]
        row = {
            "err": statistics.fmean(errs) if errs else None,
            "spread": spread,
            "open_low": sum(o < OPEN for o in opens) / len(opens) if opens else None,
            "penalty": statistics.fmean(penal) if penal else None,
            "closed_hit": (sum(c <= CLOSED for c in closed) / len(closed), sum(c < OPEN for c in closed) / len(closed)) if closed else None,
            "auc": auc(opens, closed),
        }
        out[v] = row

        def f(x, fmt="{:.3f}"):
            return "—" if x is None else fmt.format(x)

        ch = row["closed_hit"]
        lines.append(
            f"| {v} | {f(row['err'])} | {f(row['spread'])} (n={sum(weights)} in {len(weights)}) | "
            f"{f(row['open_low'], '{:.2f}')} of {len(opens)} | {f(row['penalty'])} | "
            f"{'—' if ch is None else f'{ch[0]:.2f} / {ch[1]:.2f} of {len(closed)}'} | {f(row['auc'])} |")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", default=None, help="keep the JSON lines (and crops) here")
    ap.add_argument("--corpora", nargs="*", default=["/tmp/snapsort-eval/dev", "/tmp/snapsort-eval/dev2", "/tmp/snapsort-eval/dev3"])
    ap.add_argument("--sheets", action="store_true", help="write each set's face crops (for labelling) under WORK/crops-SET")
    ap.add_argument("--fit", default="photos", help="the set the map is fitted on (photos, dev, dev2, dev3, megamind)")
    ap.add_argument("--map", nargs=4, type=float, metavar=("DX", "DY", "SW", "SH"), help="use this map instead of the fitted one")
    ap.add_argument("--reuse", action="store_true", help="read WORK's JSON lines of an earlier run")
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="snapsort-eyes.")
    os.makedirs(work, exist_ok=True)
    exe = None if args.reuse else build(work)
    labels = json.load(open(os.path.join(HERE, "eyes_labels.json")))

    sets = {}
    for c in args.corpora:
        sets[os.path.basename(c.rstrip("/"))] = corpus_files(c)
    frames = os.path.join(work, "megamind")
    if not args.reuse:
        os.makedirs(frames, exist_ok=True)
        subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i", MEGAMIND, os.path.join(frames, "f%03d.png")], check=True)
    runs = {name: [p for p, _ in files] for name, files in sets.items()}
    runs["photos"] = PHOTOS
    runs["megamind"] = sorted(glob.glob(os.path.join(frames, "f*.png")))

    # The map, fitted on one set (the first pass gives the boxes), used on all.
    fit_path = os.path.join(work, "fit.jsonl")
    fit_records = ([json.loads(line) for line in open(fit_path)] if args.reuse
                   else run(exe, runs[args.fit], None, fit_path))
    mapping, n = fit(fit_records)
    first = args.fit
    if args.map:
        print(f"(fitted: centre + ({mapping[0]:+.3f} w, {mapping[1]:+.3f} h), side {mapping[2]:.3f} w + {mapping[3]:.3f} h; "
              f"given instead: {args.map})")
        mapping, first = tuple(args.map), "the command line"
    print(f"map from {first} ({n} faces both detectors find there): HOG centre = YuNet centre + "
          f"({mapping[0]:+.3f} w, {mapping[1]:+.3f} h), side = {mapping[2]:.3f} w + {mapping[3]:.3f} h", flush=True)
    records = {}
    for name, paths in runs.items():
        out = os.path.join(work, name + ".jsonl")
        if args.reuse:
            records[name] = [json.loads(line) for line in open(out)]
        else:
            records[name] = run(exe, paths, mapping, out, os.path.join(work, "crops-" + name) if args.sheets else None)
            print(f"{name}: {sum(len(r['faces']) for r in records[name])} faces", flush=True)

    lines = [f"map from {first}: centre + ({mapping[0]:+.3f} w, {mapping[1]:+.3f} h), side {mapping[2]:.3f} w + {mapping[3]:.3f} h ({n} faces)"]
    # How well the map frames HOG's box on the other sets.
    for name, recs in records.items():
        ious = {"raw": [], "square": [], "map": []}
        for r in recs:
            for f in r["faces"]:
                if "hog" in f:
                    for v in ious:
                        ious[v].append(iou(f[v]["box"], f["hog"]["box"]))
        if ious["raw"]:
            lines.append(f"- {name}: IoU with HOG's box over {len(ious['raw'])} faces: " +
                         ", ".join(f"{v} {statistics.fmean(x):.3f}" for v, x in ious.items()))
    results = {}
    for name, recs in records.items():
        if name in sets:
            source = {p: s for p, s in sets[name]}
            # One face per DEV photo of people is the source photo's main face: the largest.
            key = lambda r, f: (source.get(r["path"]), f is max(r["faces"], key=lambda g: g["raw"]["box"][2] - g["raw"]["box"][0]))
            faces = [x for x in faces_of(recs, key, labels.get("corpora", [])) if x[2][1]]
            faces = [(a, b, c[0], d) for a, b, c, d in faces]
        elif name == "megamind":
            shots = labels["megamind_shots"]

            def key(r, f):
                n = int(os.path.basename(r["path"])[1:4])
                cx = (f["raw"]["box"][0] + f["raw"]["box"][2]) / 2 / r["w"]
                shot = next((i for i, (a, b) in enumerate(shots) if a <= n <= b), None)
                return None if shot is None else (shot, round(cx * 3))

            faces = faces_of(recs, key, labels["megamind"])
        else:
            # Pictures of one face: the three frames of example.jpg, the Yale face under three lights.
            faces = faces_of(recs, lambda r, f: os.path.basename(r["path"]) if r["path"].endswith(("example.jpg", "lbp_yale.jpg")) else None,
                             labels.get("photos", []))
        results[name] = summarize(name, faces, VARIANTS, lines)
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(work, "summary.md"), "w") as f:
        f.write(text + "\n")
    json.dump(results, open(os.path.join(work, "summary.json"), "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
