#!/usr/bin/env python3
"""SnapSort's speed bench (never a timed test): one run, one report.

  bench/throughput.py [--bin PATH] [--labels labels.json] [--scale-root DIR] [--out FILE]

1. The DEV corpus's files tagged `12mp` (labels.json `tags`): `djpeg -scale 1/4` and `-scale 1/8`
   over all of them on one core (taskset -c 0), then `snapsort scan --workers 1` pinned to one
   core and `snapsort scan --workers 2` on two (tier 1 only: `--no-models`; bench/vision.sh
   measures the local models), each on a fresh database; per-core throughput as
   a ratio to djpeg, the 2-core speedup, peak RSS (/usr/bin/time -v).
2. With a `make_scale.py` library (--scale-root, default /tmp/snapsort-scale/library): a first
   scan (not timed for the target), then a rescan of the unchanged files with a warm page cache:
   wall time and peak RSS.
3. The ordinary camera photos among them (labels without document, qr or screenshot): one core,
   `snapsort scan --no-groups` (the engine alone: analysis, no OCR, QR or grouping) against the
   full scan, in CPU time.
Targets (issue 3): >= 0.8x djpeg 1/4 per core, >= 1.8x that on 2 cores, <= 2 s rescan of
100 000 unchanged files, <= 150 MB RSS. Issue 4: OCR and QR stay off ordinary photos' hot path,
the full scan within 10 % of the engine's throughput (>= 0.9x). Files are hard-linked into a temp folder (same file
system as the corpus) so the scan sees only them.
"""
import argparse, json, os, re, resource, shutil, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def timed(cmd, env=None, cpu=False):
    """Runs cmd under /usr/bin/time -v: (wall seconds, peak RSS in MB, stdout), and the CPU
    seconds (user + system) when `cpu`."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    wall = time.perf_counter() - t0
    if p.returncode not in (0, 4):
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr[-2000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr).group(1)) / 1024
    if cpu:
        used = sum(float(re.search(rf"{k} time \(seconds\): ([\d.]+)", p.stderr).group(1)) for k in ("User", "System"))
        return wall, rss, p.stdout, used
    return wall, rss, p.stdout


def warm(paths):
    for p in paths:
        with open(p, "rb") as f:
            while f.read(1 << 20):
                pass


def djpeg_rate(files, scale):
    """(files per second, CPU seconds per file) of djpeg over `files` on core 0."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    for f in files:
        subprocess.run(["taskset", "-c", "0", "djpeg", "-scale", scale, "-outfile", "/dev/null", f], check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return len(files) / wall, cpu / len(files)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(REPO, ".build-bench/release/snapsort"), help="make release-static RELEASE_SCRATCH=.build-bench")
    ap.add_argument("--labels", default="/tmp/snapsort-eval/dev/labels.json")
    ap.add_argument("--scale-root", default="/tmp/snapsort-scale/library")
    ap.add_argument("--skip-scale", action="store_true")
    ap.add_argument("--repeat", type=int, default=2, help="runs per measurement; the best is kept")
    ap.add_argument("--out", default=None, help="also write the results as JSON here")
    a = ap.parse_args()
    labels = json.load(open(a.labels))
    root = labels.get("root") or os.path.join(os.path.dirname(a.labels), "library")
    if not os.path.isabs(root):
        root = os.path.join(os.path.dirname(a.labels), root)
    tagged = [f for f in labels["files"] if "12mp" in f.get("tags", []) and os.path.exists(os.path.join(root, f["path"]))]
    files = [os.path.join(root, f["path"]) for f in tagged]
    ordinary = [os.path.join(root, f["path"]) for f in tagged if not {"document", "qr", "screenshot"} & set(f.get("groups", []))]
    if not files:
        sys.exit("no 12mp files found")
    work = tempfile.mkdtemp(prefix="snapsort-bench-")
    lib = os.path.join(work, "lib")
    plain = os.path.join(work, "ordinary")
    for folder, members in ((lib, files), (plain, ordinary)):
        os.makedirs(folder)
        for i, f in enumerate(members):
            dst = os.path.join(folder, f"{i:03d}_{os.path.basename(f)}")
            try:
                os.link(f, dst)
            except OSError:
                shutil.copy(f, dst)
    warm(files)
    res = {"files": len(files), "megabytes": round(sum(os.path.getsize(f) for f in files) / 1e6, 1)}
    env = dict(os.environ, XDG_STATE_HOME=os.path.join(work, "state"))
    runs = {"d4": [], "d8": [], "s1": [], "s2": [], "engine": [], "full": []}

    def scan(workers, pin, r, folder=lib, extra=()):
        db = os.path.join(work, f"w{workers}-{r}-{os.path.basename(folder)}{''.join(extra)}.sqlite3")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(db + suffix):
                os.remove(db + suffix)
        cmd = ["taskset", "-c", pin, a.bin, "scan", "--quiet", "--no-models", *extra, "--workers", str(workers), "--db", db, folder]
        wall, rss, _, cpu = timed(cmd, env, cpu=True)
        return wall, rss, cpu

    # Interleaved, so the machine's drift (a shared host's neighbours, clocks) reaches both sides.
    for r in range(a.repeat):
        runs["d4"].append(djpeg_rate(files, "1/4"))
        runs["d8"].append(djpeg_rate(files, "1/8"))
        runs["s1"].append(scan(1, "0", r))
        runs["s2"].append(scan(2, "0,1", r))
        for _ in range(3):  # short runs (~1 s): more of them for a steady least
            runs["engine"].append(scan(1, "0", r, plain, ("--no-groups",)))
            runs["full"].append(scan(1, "0", r, plain))
    res["djpeg_1_4_per_s"] = max(x[0] for x in runs["d4"])
    res["djpeg_1_8_per_s"] = max(x[0] for x in runs["d8"])
    w1, rss1, _ = min(runs["s1"])
    w2, rss2, _ = min(runs["s2"])
    res["scan_1core_per_s"] = len(files) / w1
    res["scan_2core_per_s"] = len(files) / w2
    res["ratio_vs_djpeg_1_4_per_core"] = res["scan_1core_per_s"] / res["djpeg_1_4_per_s"]
    res["ratio_vs_djpeg_1_8_per_core"] = res["scan_1core_per_s"] / res["djpeg_1_8_per_s"]
    # The same ratio in CPU time (user + system, least of the runs): steadier than wall time on
    # a shared machine, and what "per core" means.
    res["cpu_ms_per_file_djpeg_1_4"] = 1000 * min(x[1] for x in runs["d4"])
    res["cpu_ms_per_file_scan_1core"] = 1000 * min(x[2] for x in runs["s1"]) / len(files)
    res["cpu_ratio_vs_djpeg_1_4"] = res["cpu_ms_per_file_djpeg_1_4"] / res["cpu_ms_per_file_scan_1core"]
    res["speedup_2_cores"] = res["scan_2core_per_s"] / res["scan_1core_per_s"]
    res["ratio_2core_vs_djpeg_1_4_single"] = res["scan_2core_per_s"] / res["djpeg_1_4_per_s"]
    res["peak_rss_mb_1core"] = rss1
    res["peak_rss_mb_2core"] = rss2
    res["ordinary_files"] = len(ordinary)
    res["ordinary_cpu_ms_engine"] = 1000 * min(x[2] for x in runs["engine"]) / len(ordinary)
    res["ordinary_cpu_ms_full_scan"] = 1000 * min(x[2] for x in runs["full"]) / len(ordinary)
    res["full_scan_vs_engine_ordinary"] = res["ordinary_cpu_ms_engine"] / res["ordinary_cpu_ms_full_scan"]

    if not a.skip_scale and os.path.isdir(a.scale_root):
        db = os.path.join(work, "scale.sqlite3")
        n = sum(len(fs) for _, _, fs in os.walk(a.scale_root))
        first, rss_first, _ = timed([a.bin, "scan", "--quiet", "--no-models", "--db", db, a.scale_root], env)
        rescans = [timed([a.bin, "scan", "--quiet", "--no-models", "--db", db, a.scale_root], env) for _ in range(max(2, a.repeat))]
        best = min(rescans, key=lambda r: r[0])
        res.update({"scale_files": n, "scale_first_scan_s": first, "scale_first_scan_rss_mb": rss_first,
                    "scale_rescan_s": best[0], "scale_rescan_rss_mb": best[1]})
    shutil.rmtree(work, ignore_errors=True)
    targets = {
        "ratio_vs_djpeg_1_4_per_core": (">=", 0.8), "speedup_2_cores": (">=", 1.8),
        "peak_rss_mb_2core": ("<=", 150), "full_scan_vs_engine_ordinary": (">=", 0.9), "scale_rescan_s": ("<=", 2.0), "scale_rescan_rss_mb": ("<=", 150),
    }
    for k, v in res.items():
        mark = ""
        if k in targets:
            op, t = targets[k]
            ok = v >= t if op == ">=" else v <= t
            mark = f"   target {op} {t}: {'MET' if ok else 'MISSED'}"
        print(f"{k:34s} {v:10.3f}{mark}" if isinstance(v, float) else f"{k:34s} {v:10}{mark}")
    if a.out:
        json.dump(res, open(a.out, "w"), indent=1)


if __name__ == "__main__":
    main()
