#!/usr/bin/env python3
"""Grouping speed on a large library (never a timed test): one run, one report.

  bench/regroup.py --bin PATH --db SCANNED.sqlite --root LIBRARY [--repeat 2]

SCANNED.sqlite is a database of `snapsort scan --no-models LIBRARY` (e.g. of make_scale.py's
100 000 photos; analysis takes a while, so it is made once and copied here). Each measurement
runs on a fresh copy:
1. full regroup: the grouper's memory (grouped_files, similar_pairs and their rules key) is
   cleared and `snapsort scan` regroups everything (after a stat walk of the unchanged files);
2. one photo added: a copy of a library photo under a new name (a new capture a few seconds
   after the original), scanned and regrouped incrementally;
3. nothing changed: the same scan again (no regroup).
Wall time, CPU time and peak RSS from /usr/bin/time -v; the grouper's counters from the
database (stored similar pairs, copy links, sets).
"""
import argparse, os, re, shutil, sqlite3, subprocess, sys, tempfile


def timed(cmd):
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 4):
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr[-2000:]}")
    def field(name):
        return re.search(name + r": ([\d.:]+)", p.stderr).group(1)
    wall = field(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\)")
    parts = [float(x) for x in wall.split(":")]
    seconds = sum(v * 60 ** i for i, v in enumerate(reversed(parts)))
    cpu = float(field(r"User time \(seconds\)")) + float(field(r"System time \(seconds\)"))
    return seconds, cpu, int(field(r"Maximum resident set size \(kbytes\)")) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="snapsort-regroup.")
    added_dir = os.path.join(a.root, "zz-bench-regroup")
    try:
        for run in range(a.repeat):
            db = os.path.join(work, "db.sqlite")
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(db + suffix):
                    os.remove(db + suffix)
            shutil.copy(a.db, db)
            c = sqlite3.connect(db)
            tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            c.execute("DELETE FROM grouped_files")
            if "similar_pairs" in tables:
                c.execute("DELETE FROM similar_pairs")
            c.execute("DELETE FROM agent_state WHERE key='similar_pairs_rules'")
            c.execute("INSERT OR REPLACE INTO agent_state(key, value, updated_at) VALUES('regroup_pending', '1', '2026-01-01T00:00:00Z')")
            n, pairs_in_window = c.execute("SELECT count(*) FROM files WHERE status='ok' AND kind='photo'").fetchone()[0], None
            path = c.execute("SELECT path FROM files WHERE status='ok' AND kind='photo' ORDER BY id LIMIT 1 OFFSET 500").fetchone()[0]
            c.commit()
            c.close()
            scan = [a.bin, "--db", db, "scan", "--quiet", "--no-models", a.root]
            full = timed(scan)
            os.makedirs(added_dir, exist_ok=True)
            shutil.copy(path, os.path.join(added_dir, "IMG_added_" + os.path.basename(path)))
            one = timed(scan)
            shutil.rmtree(added_dir)
            c = sqlite3.connect(db)
            c.execute("PRAGMA foreign_keys=ON")
            c.execute("DELETE FROM files WHERE path LIKE ?", (added_dir + "/%",))  # keep the next run's start identical
            c.commit()
            c.close()
            idle = timed(scan)
            c = sqlite3.connect(db)
            similar = c.execute("SELECT count(*) FROM similar_pairs WHERE similar IS NOT NULL").fetchone()[0]
            copies = c.execute("SELECT count(*) FROM similar_pairs WHERE copy IS NOT NULL").fetchone()[0]
            sets = c.execute("SELECT count(DISTINCT set_key), count(*) FROM similar_sets").fetchone()
            c.close()
            print(f"run {run + 1}: {n} photos; {similar} similar pairs, {copies} copy links, {sets[0]} sets of {sets[1]} files stored")
            for name, (wall, cpu, rss) in (("full regroup (stat walk + grouping)", full), ("one photo added", one), ("nothing changed", idle)):
                print(f"  {name:38s} {wall:7.2f} s wall  {cpu:7.2f} s CPU  {rss:6.0f} MB peak RSS")
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(added_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
