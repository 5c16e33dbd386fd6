#!/usr/bin/env python3
"""bench/memory.py --bin BIN [--work DIR] [--only dups|touched|natural|mix] [--files N] [--size PX] [--settle S] [--keep-trees] [--keep-db]

Issue 30 item 6: memory stays bounded — peak RSS <= 300 MB for the first scan of 100 000 files,
duplicate-heavy or not, and <= 150 MB for the agent watching them. Numbers, never test
assertions. For each tree it prints one JSON line:
  scan    `BIN --db NEW scan --quiet --no-models TREE` under /usr/bin/time -v: peak RSS
          ("Maximum resident set size"), wall and CPU seconds, exit code;
  agent   `BIN --db THAT agent TREE` started on the library just scanned (its start reconciles,
          finds nothing changed, regroups nothing), until the status file says "watching", then
          `--settle` seconds idle: VmRSS then, and VmHWM (its peak, the start included).
The trees (made once under --work, kept with --keep-trees, else removed at the end):
  dups     bench/make_duplicate_tree.py: 1 205 small JPEGs x 83 byte-identical copies (100 015
           files), as a careless backup makes;
  touched  the same with each copy's metadata rewritten (make_duplicate_tree.py --touched: a
           comment segment of its own): 100 015 files of their own bytes, 1 205 pictures;
  natural  100 000 distinct photos: 2 000 make_scale photos (640x480 crops of real photographs
           with camera EXIF, ../shared/eval/make_scale.py, run with --python, the eval venv),
           shrunk to --size px (default 160; --size 640 keeps them as make_scale made them, as
           the issue measured) with their EXIF, and bench/make_rescan_tree.py --distinct copies
           of them, each with its own bytes and capture time, 97 s apart (making 100 000 with
           make_scale takes hours on a shared host).
  mix      bench/make_mix_tree.py (run with --python): a quarter each of distinct photos with EXIF,
           their byte copies, their re-encodes without EXIF written by one copy, and photos
           without EXIF or a time in their names (half of them re-sent re-encodes), whose
           near copies the content search finds library-wide (issue 40 item 3, issue 39 item 6).

  bench/memory.py --bin .build-memory2-rel/release/snapsort --work /tmp/snapsort-memory
"""
import argparse, json, os, re, shutil, sqlite3, subprocess, sys, tempfile, time

from procstat import agent_state as state, env_for, stop, vm_mb

HERE = os.path.dirname(os.path.abspath(__file__))
EVAL = os.path.join(HERE, "..", "..", "shared", "eval")


def make_dups(out, files, touched=False):
    photos = max(1, round(files / 83))
    subprocess.run([sys.executable, os.path.join(HERE, "make_duplicate_tree.py"), "--photos", str(photos), "--copies", "83",
                    "--out", out] + (["--touched"] if touched else []), check=True, stdout=subprocess.DEVNULL)


SHRINK = """
import os, sys
from PIL import Image
src, dst, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
for d, _, fs in os.walk(src):
    for f in fs:
        p = os.path.join(d, f)
        q = os.path.join(dst, os.path.relpath(p, src))
        os.makedirs(os.path.dirname(q), exist_ok=True)
        try:
            im = Image.open(p)
            exif = im.info.get("exif", b"")
            im = im.convert("RGB")
            im.thumbnail((size, size))
            im.save(q, "JPEG", quality=90, exif=exif)
        except OSError as e:  # one cut short when make_scale was stopped
            print("skipped", p, e, file=sys.stderr)
"""


def make_natural(out, files, python, sources, size):
    src, small = out + "-sources", f"{out}-{size}px"
    if not os.path.isdir(os.path.join(small, "library")):
        if not os.path.isdir(os.path.join(src, "library")):
            # make_scale needs every source photo of its manifest; one missing (an optional
            # package's sample) is left out rather than stopping the run.
            manifest = os.path.join(os.path.dirname(out), "sources_manifest.json")
            with open(os.path.join(EVAL, "sources_manifest.json")) as f:
                entries = [s for s in json.load(f) if os.path.exists(s["path"])]
            with open(manifest, "w") as f:
                json.dump(entries, f)
            subprocess.run([python, "-W", "ignore", os.path.join(EVAL, "make_scale.py"), "--count", str(sources), "--out", src,
                            "--manifest", manifest, "--dup-rate", "0"], check=True, stdout=subprocess.DEVNULL)
        # At most --size px, EXIF kept. 160 px (make_duplicate_tree's size) by default: the
        # first scan of 100 000 640x480 photos takes most of an hour on a shared host, and what
        # grows with the library (rows, pairs, the grouper's tables) does not depend on the
        # pixels; what the analysis buffers keep does, and --size 640 measures it.
        subprocess.run([python, "-c", SHRINK, os.path.join(src, "library"), os.path.join(small, "library"), str(size)], check=True)
    made = f"{out}.made-{files}-{size}px"
    if os.path.exists(made):  # kept (--keep-trees) from an earlier run: two binaries measured on one tree
        return
    subprocess.run([sys.executable, os.path.join(HERE, "make_rescan_tree.py"), "--count", str(files), "--out", out,
                    "--from", os.path.join(small, "library"), "--distinct"], check=True)
    open(made, "w").close()


def make_mix(out, files, python):
    made = f"{out}.made-{files}"
    if os.path.exists(made):
        return
    subprocess.run([python, os.path.join(HERE, "make_mix_tree.py"), "--files", str(files), "--out", out], check=True)
    open(made, "w").close()


def timed(cmd, env, stderr):
    """Runs cmd under /usr/bin/time -v: (exit code, peak RSS MB, wall s, CPU s)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        rc = subprocess.run(["/usr/bin/time", "-v", "-o", t.name] + cmd, env=env, stdout=subprocess.DEVNULL, stderr=stderr).returncode
        text = t.read()
    num = lambda pat: float(re.search(pat, text).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", text)
    wall_s = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    cpu = num(r"User time \(seconds\): ([\d.]+)") + num(r"System time \(seconds\): ([\d.]+)")
    return rc, num(r"Maximum resident set size \(kbytes\): (\d+)") / 1024, wall_s, cpu


def measure(binary, name, tree, home, settle):
    os.makedirs(home, exist_ok=True)
    env, db = env_for(home), os.path.join(home, "library.sqlite3")
    log = os.path.join(home, "scan.log")
    with open(log, "wb") as f:
        rc, peak, wall, cpu = timed([binary, "--db", db, "scan", "--quiet", "--no-models", tree], dict(env, SNAPSORT_GROUPS_TRACE="phases"), f)
    # The grouper's phases (SNAPSORT_GROUPS_TRACE): the RSS and heap in use after each.
    with open(log, errors="replace") as f:
        phases = [" ".join(line.split("\t")[1:2] + line.split("\t")[3:]).strip() for line in f if line.startswith("phase\t")]
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        stored = {"similar_pairs": c.execute("SELECT count(*) FROM similar_pairs").fetchone()[0],
                  "sets": c.execute("SELECT count(DISTINCT set_key) FROM similar_sets").fetchone()[0],
                  "set_members": c.execute("SELECT count(*) FROM similar_sets").fetchone()[0]}
    out = {"tree": name, "files": sum(len(fs) for _, _, fs in os.walk(tree)),
           "scan": {"exit": rc, "peak_rss_mb": round(peak, 1), "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "grouper": phases,
                    "stored": stored}}
    with open(os.path.join(home, "agent.log"), "ab") as log:
        p = subprocess.Popen([binary, "--db", db, "agent", tree], env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        t0 = time.monotonic()
        while state(home) != "watching" and p.poll() is None and time.monotonic() - t0 < 1800:
            time.sleep(0.2)
        watching = time.monotonic() - t0
        at_watching = vm_mb(p.pid)
        time.sleep(settle)
        settled = vm_mb(p.pid)
        out["agent"] = {"watching_after_s": round(watching, 1), "rss_at_watching_mb": at_watching.get("VmRSS"),
                        f"rss_after_{settle}s_mb": settled.get("VmRSS"), "peak_rss_mb": settled.get("VmHWM")}
    finally:
        stop(p)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", default="/tmp/snapsort-memory")
    ap.add_argument("--only", choices=["dups", "touched", "natural", "mix"])
    ap.add_argument("--files", type=int, default=100_000)
    ap.add_argument("--size", type=int, default=160, help="the natural tree's photos at most this many pixels a side")
    ap.add_argument("--sources", type=int, default=2000, help="make_scale photos behind the natural tree")
    ap.add_argument("--python", default="/tmp/snapsort-eval/.eval-venv/bin/python", help="a Python with make_scale's packages")
    ap.add_argument("--settle", type=int, default=30)
    ap.add_argument("--keep-trees", action="store_true")
    ap.add_argument("--keep-db", action="store_true", help="keep each scanned library as WORK/TREE-FILES.sqlite3")
    a = ap.parse_args()
    binary = os.path.abspath(a.bin)
    os.makedirs(a.work, exist_ok=True)
    made = []
    try:
        for name in ["dups", "touched", "natural", "mix"]:
            if a.only not in (None, name):
                continue
            tree = os.path.join(a.work, name)
            made.append(tree)
            if name in ("dups", "touched"):
                make_dups(tree, a.files, touched=name == "touched")
            elif name == "mix":
                made.append(f"{tree}.made-{a.files}")
                make_mix(tree, a.files, a.python)
            else:
                made += [tree + "-sources", f"{tree}-{a.size}px", f"{tree}.made-{a.files}-{a.size}px"]
                make_natural(tree, a.files, a.python, a.sources, a.size)
            home = tempfile.mkdtemp(prefix=f"run-{name}-", dir=a.work)
            try:
                print(json.dumps(measure(binary, name, tree, home, a.settle)), flush=True)
                if a.keep_db:  # the seed of bench/million.py
                    with sqlite3.connect(os.path.join(home, "library.sqlite3")) as src, \
                            sqlite3.connect(os.path.join(a.work, f"{name}-{a.files}.sqlite3")) as dst:
                        src.backup(dst)
            finally:
                shutil.rmtree(home, ignore_errors=True)
    finally:
        if not a.keep_trees:
            for tree in made:
                shutil.rmtree(tree, ignore_errors=True)
                if os.path.isfile(tree):
                    os.remove(tree)


if __name__ == "__main__":
    main()
