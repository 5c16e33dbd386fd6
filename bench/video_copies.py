#!/usr/bin/env python3
"""Video copies (issue 44): precision and recall of "is a copy of", and what a video costs.

  bench/video_copies.py [--bin PATH] [--before PATH] [--set DIR] [--labels FILE] [--dev DIR] [--films DIR]

1. The labelled set of bench/make_video_set.sh (--set, default /tmp/snapsort-video-set): a fresh
   `snapsort scan --no-models` of its library; two videos are predicted copies when the regroup
   put them in one duplicate set. Every pair of videos is scored against the labels (same
   family = a copy; a hard negative is a copy of nothing), for the `fit` part, the `held` part
   (never looked at while fitting `VideoCopies.Rules`) and both. Pairs across the parts are
   counted in `all` only.
2. Cost: the set's and DEV's videos (--dev, default /tmp/snapsort-eval/dev), hard-linked into a
   temp folder, scanned with `--no-groups --workers 1` on one core by --bin and by --before (a
   build without frame signatures, e.g. /work/main's), against `ffprobe` (container only) and
   `ffmpeg -skip_frame nokey` (every keyframe decoded, scaled to 32x32) over the same files in
   the same run: CPU seconds per video and ratios.
Targets: precision >= 0.98 and recall >= 0.95.
"""
import argparse, itertools, json, os, resource, shutil, sqlite3, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
VIDEO_EXT = {".mp4", ".mov", ".m4v", ".3gp", ".mkv", ".webm", ".avi", ".mpg", ".mpeg", ".mts", ".m2ts"}


def cpu_of(cmd, env=None):
    """Runs cmd; returns the CPU seconds (user + system) of it and its children, and wall."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def scan(binary, folder, db, extra):
    env = dict(os.environ, XDG_STATE_HOME=os.path.dirname(db))
    return cpu_of(["taskset", "-c", "0", binary, "scan", "--quiet", "--no-models", *extra, "--workers", "1", "--db", db, folder], env)


def quality(a):
    labels = json.load(open(a.labels or os.path.join(a.set, "labels.json")))
    work = tempfile.mkdtemp(prefix="snapsort-vcopies-")
    db = os.path.join(work, "library.sqlite3")
    cpu, wall = scan(a.bin, os.path.join(a.set, "library"), db, [])
    con = sqlite3.connect(db)
    set_of = {}
    for path, key in con.execute(
        "SELECT f.path, s.set_key FROM similar_sets s JOIN files f ON f.id = s.file_id "
        "JOIN group_members m ON m.file_id = f.id AND m.group_id = 'duplicate' WHERE f.kind = 'video'"
    ):
        set_of[os.path.basename(path)] = key
    unsigned = [os.path.basename(p) for (p,) in con.execute("SELECT path FROM files WHERE kind = 'video' AND video_signature IS NULL")]
    con.close()
    shutil.rmtree(work)
    out = {}
    splits = sorted({l["split"] for l in labels.values()})
    for part in splits + ["all"]:
        names = sorted(n for n, l in labels.items() if part == "all" or l["split"] == part)
        tp = fp = fn = 0
        misses, false = [], []
        for x, y in itertools.combinations(names, 2):
            truth = labels[x]["family"] is not None and labels[x]["family"] == labels[y]["family"]
            said = x in set_of and set_of.get(x) == set_of.get(y)
            if truth and said:
                tp += 1
            elif said:
                fp += 1
                false.append((x, y))
            elif truth:
                fn += 1
                misses.append((x, y))
        p = tp / (tp + fp) if tp + fp else 1.0
        r = tp / (tp + fn) if tp + fn else 1.0
        out[part] = dict(videos=len(names), pairs=tp + fn, tp=tp, fp=fp, fn=fn, precision=round(p, 4), recall=round(r, 4))
        print(f"{part:5s} videos={len(names):3d} copy pairs={tp + fn:4d} tp={tp} fp={fp} fn={fn} precision={p:.4f} recall={r:.4f}")
        if part == "all":
            for x, y in false:
                print(f"  false copy: {x} ~ {y}")
            for x, y in misses[:40]:
                print(f"  missed: {x} ~ {y}")
    if unsigned:
        print(f"  without a signature: {', '.join(sorted(unsigned))}")
    print(f"scan of the set: {len(labels)} videos, {cpu:.2f} s CPU, {wall:.2f} s wall (1 worker)")
    return out


def cost(a):
    files = []
    for root in (os.path.join(a.set, "library"), a.dev):
        for d, _, names in os.walk(root):
            files += [os.path.join(d, n) for n in names if os.path.splitext(n)[1].lower() in VIDEO_EXT]
    work = tempfile.mkdtemp(prefix="snapsort-vcost-")
    folder = os.path.join(work, "videos")
    os.makedirs(folder)
    for i, f in enumerate(sorted(files)):
        dst = os.path.join(folder, f"{i:04d}-{os.path.basename(f)}")
        try:
            os.link(f, dst)
        except OSError:
            shutil.copy(f, dst)
    n = len(files)
    for f in files:  # warm the page cache for everyone alike
        with open(f, "rb") as h:
            while h.read(1 << 20):
                pass
    probe_cpu, _ = cpu_of(["sh", "-c", 'for f in "$0"/*; do taskset -c 0 ffprobe -v quiet -show_format -show_streams "$f"; done', folder])
    key_cpu, _ = cpu_of(
        ["sh", "-c", 'for f in "$0"/*; do taskset -c 0 ffmpeg -v quiet -threads 1 -skip_frame nokey -i "$f" -vf scale=32:32 -an -f null -; done', folder]
    )
    rows = [("ffprobe (container only)", probe_cpu), ("ffmpeg -skip_frame nokey (every keyframe)", key_cpu)]
    for label, binary in (("snapsort --no-groups, before", a.before), ("snapsort --no-groups, after", a.bin)):
        if binary and os.path.exists(binary):
            db = os.path.join(work, label.replace(" ", "_").replace(",", "") + ".sqlite3")
            c, _ = scan(binary, folder, db, ["--no-groups"])
            rows.append((label, c))
    print(f"cost over {n} videos (the set's and DEV's), one core, CPU seconds:")
    for label, c in rows:
        print(f"  {label:45s} {c:7.2f} s  {c / n * 1000:7.1f} ms/video  {c / probe_cpu:6.2f}x ffprobe  {c / key_cpu:6.2f}x keyframes")
    shutil.rmtree(work)


def films(a):
    """Each long film (bench/make_long_films.sh) scanned alone: its CPU seconds, by --bin and --before."""
    names = sorted(n for n in os.listdir(a.films) if os.path.splitext(n)[1].lower() in VIDEO_EXT)
    print(f"long films in {a.films}, each scanned alone (--no-groups, one worker, one core), CPU seconds:")
    for n in names:
        row = []
        for label, binary in (("before", a.before), ("after", a.bin)):
            if not binary or not os.path.exists(binary):
                continue
            work = tempfile.mkdtemp(prefix="snapsort-film-")
            folder = os.path.join(work, "film")
            os.makedirs(folder)
            os.link(os.path.join(a.films, n), os.path.join(folder, n))
            c, w = scan(binary, folder, os.path.join(work, "library.sqlite3"), ["--no-groups"])
            con = sqlite3.connect(os.path.join(work, "library.sqlite3"))
            (blob,) = con.execute("SELECT video_signature FROM files").fetchone()
            con.close()
            frames = blob[9] if blob else 0
            row.append(f"{label} {c:6.2f} s ({frames} frames)")
            shutil.rmtree(work)
        print(f"  {n:28s} " + "   ".join(row))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(REPO, ".build/debug/snapsort"))
    ap.add_argument("--before", default="/work/main/.build/debug/snapsort")
    ap.add_argument("--set", default="/tmp/snapsort-video-set")
    ap.add_argument("--dev", default="/tmp/snapsort-eval/dev")
    ap.add_argument("--labels", help="another labels.json for the set (default: the set's own)")
    ap.add_argument("--no-cost", action="store_true")
    ap.add_argument("--cost-only", action="store_true")
    ap.add_argument("--films", help="a folder of long films (bench/make_long_films.sh): each one's cost")
    ap.add_argument("--no-quality", action="store_true")
    a = ap.parse_args()
    if a.films:
        films(a)
    if a.no_quality and a.no_cost:
        return
    if not os.path.exists(os.path.join(a.set, "labels.json")):
        sys.exit(f"no labelled set in {a.set}: run bench/make_video_set.sh first")
    if not a.cost_only and not a.no_quality:
        quality(a)
    if not a.no_cost:
        cost(a)


if __name__ == "__main__":
    main()
