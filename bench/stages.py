#!/usr/bin/env python3
"""Where a full scan's CPU goes, per photo and stage (issue 41): never a timed test.

  bench/stages.py [--bin DIR] [--old DIR] [--repeat N] [CORPUS ...]

CORPUS: folders made by ../shared/eval/make-dev-corpus.sh (default /tmp/snapsort-eval/dev and
dev2); their photos (JPEG, PNG, WebP, HEIC) are hard-linked into a temp folder. DIR holds
`snapsort` and `snapsort-vision` (default .build/release; the helper finds share/models from
a build tree). Per corpus, on fresh databases:
1. tier 1 alone (`scan --no-models --workers 1`): CPU per photo (user + system, /usr/bin/time);
2. tier 2 over it (`scan --jsonl --workers 1`): the `models` event's `stages_s` — the CPU of the
   parent's decode and scale, of each request to the helper (the helper's own `cpu_ms` plus the
   parent's sending and reading), the sky cue, the writes — per photo, and photos/s per core;
3. the whole scan on 2 cores (`scan`, one helper a worker), best wall of --repeat runs, photos/s;
   with --old, the same for the older binaries in the same run, interleaved, and the ratio.
CPU figures hold on a busy machine; wall figures need a quiet one (the load average is printed).
"""
import argparse, json, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
PHOTOS = (".jpg", ".jpeg", ".png", ".webp", ".heic")


def timed(cmd):
    """(wall s, CPU s, stdout) of cmd under /usr/bin/time (children included: the helpers)."""
    p = subprocess.run(["/usr/bin/time", "-f", "TIME %e %U %S", *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 4):
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr[-2000:]}")
    wall, user, system = map(float, re.findall(r"TIME ([\d.]+) ([\d.]+) ([\d.]+)", p.stderr)[-1])
    return wall, user + system, p.stdout


def link_photos(corpus, into):
    n = 0
    for root, _, files in os.walk(os.path.join(corpus, "library")):
        for f in sorted(files):
            if f.lower().endswith(PHOTOS):
                os.link(os.path.join(root, f), os.path.join(into, f"{n:05d}-{f}"))
                n += 1
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(REPO, ".build", "release"))
    ap.add_argument("--old")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("corpora", nargs="*", default=["/tmp/snapsort-eval/dev", "/tmp/snapsort-eval/dev2"])
    a = ap.parse_args()
    print(f"load average: {' '.join(open('/proc/loadavg').read().split()[:3])} on {os.cpu_count()} cores")
    for corpus in a.corpora:
        with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(corpus))) as work:
            lib = os.path.join(work, "photos")
            os.mkdir(lib)
            n = link_photos(corpus, lib)
            db = os.path.join(work, "db.sqlite")
            snapsort = os.path.join(a.bin, "snapsort")
            _, t1_cpu, _ = timed([snapsort, "--db", db, "scan", "--quiet", "--no-models", "--workers", "1", lib])
            _, t2_cpu, out = timed([snapsort, "--db", db, "scan", "--jsonl", "--workers", "1", lib])
            models = [json.loads(l) for l in out.splitlines() if '"event":"models"' in l]
            print(f"\n{corpus}: {n} photos")
            print(f"  tier 1 (scan --no-models, 1 worker): {1000 * t1_cpu / n:.1f} ms CPU per photo")
            if not models or "stages_s" not in models[0]:
                print("  tier 2: no stage profile (models off, or a binary without stages_s)")
            else:
                stages = models[0]["stages_s"]
                total = sum(stages.values())
                print(f"  tier 2 (1 helper): {1000 * t2_cpu / n:.1f} ms CPU per photo in all "
                      f"(process and helper, model loads included); by stage:")
                for k, v in stages.items():
                    print(f"    {k:8s} {1000 * v / n:7.1f} ms  {100 * v / max(total, 1e-9):5.1f} %")
                print(f"    {'sum':8s} {1000 * total / n:7.1f} ms  → {n / max(total, 1e-9):.1f} photos/s per core")
            bins = [("new", a.bin)] + ([("old", a.old)] if a.old else [])
            best = {k: float("inf") for k, _ in bins}
            cpu = {}
            for _ in range(a.repeat):
                for k, d in bins:
                    full = os.path.join(work, f"full-{k}.sqlite")
                    for suffix in ("", "-wal", "-shm"):
                        if os.path.exists(full + suffix):
                            os.remove(full + suffix)
                    wall, c, _ = timed([os.path.join(d, "snapsort"), "--db", full, "scan", "--quiet", lib])
                    if wall < best[k]:
                        best[k], cpu[k] = wall, c
            for k, _ in bins:
                print(f"  full scan, 2 cores ({k}): best {best[k]:.2f} s wall → {n / best[k]:.1f} photos/s; "
                      f"{1000 * cpu[k] / n:.0f} ms CPU per photo")
            if a.old:
                print(f"  new / old photos/s: {best['old'] / best['new']:.2f}")


if __name__ == "__main__":
    main()
