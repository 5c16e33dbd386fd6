#!/usr/bin/env python3
"""million_groups.py --seed-db SEED --db LIBRARY [--decisions N] [--seed 1]

Gives a library made by `bench/million.py` the seed's smart groups (issue 40 item 3: the page's
first screen at 1 000 000 rows *with* groups), never a test. million.py makes generation g's rows
as the seed's live rows again in their order (ids 1..n, then n+1..2n, …: a seed row k of
generation g is row k + g·n) and leaves the grouper's tables empty; this writes them as the
grouper would have on those rows, each generation the seed's with its ids moved by g·n:
`group_members` (every group), `similar_sets` (the set key is the set's smallest member id, moved
the same way), `similar_pairs`, `file_findings` (their `analyzed_at` is the row's, copied by
million.py) and `grouped_files` (the fingerprint made again from the new row: path, size, status,
analysis, time). The seed's rows' times never meet across generations (million.py moves them by
1 000 days each), so no set or pair spans two generations, as a regroup would find.

Without `--seed-db` it only decides (a library grouped already, e.g. the 100 000-file mix).
`--decisions N` then decides N live photos and videos spread over the library (every
(rows/N)-th, from a fixed random start), a quarter each keep, trash, skip and later (a later one
in four already due again), as `Review.decide` writes them: the `decisions` row with what was
reviewed (size, mtime, content hash, device, inode, birth time), a `review_events` row for each
verdict (skip is none), and the last `Review.undoLimit` steps in `undo_steps`.

It writes to LIBRARY: give it a copy. Run it after the library was opened once by the binary
under test (its migrations run on the first open, and a later one may read these tables).
"""
import argparse, random, sqlite3, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("--seed-db", help="the grouped library million.py was made from (none: decisions only)")
ap.add_argument("--db", required=True, help="the million.py library (a copy: it is written)")
ap.add_argument("--decisions", type=int, default=0)
ap.add_argument("--seed", type=int, default=1, help="the decisions' random start")
ap.add_argument("--now", type=float, default=time.time(), help="the decisions are made in the 30 days before this")
a = ap.parse_args()

t0 = time.monotonic()
c = sqlite3.connect(f"file:{a.db}", uri=True, timeout=60)
c.execute("PRAGMA synchronous=OFF")
# One transaction: Python's sqlite3 begins it at the first write and it ends at the commit below.
if a.seed_db:
    c.execute(f"ATTACH 'file:{a.seed_db}?mode=ro' AS seed")
    n = c.execute("SELECT count(*) FROM seed.files WHERE status != 'gone'").fetchone()[0]
    ids = c.execute("SELECT min(id), max(id), count(*) FROM seed.files WHERE status != 'gone'").fetchone()
    if ids != (1, n, n):
        sys.exit(f"the seed's live rows are not ids 1..{n} ({ids}): million.py's ids would not be these")
    rows = c.execute("SELECT max(id) FROM main.files").fetchone()[0]
    gens = (rows + n - 1) // n
    print(f"{rows} rows, {gens} generations of {n}", file=sys.stderr)

    # The seed's paths and the library's, to check the mapping before writing anything.
    for k in (1, n // 2, n):
        for g in (0, gens - 1):
            if k + g * n > rows:
                continue
            sp = c.execute("SELECT path FROM seed.files WHERE id = ?", (k,)).fetchone()[0]
            mp = c.execute("SELECT path FROM main.files WHERE id = ?", (k + g * n,)).fetchone()[0]
            if not mp.endswith("_" + sp.rsplit("/", 1)[1]):
                sys.exit(f"row {k + g * n} ({mp}) is not seed row {k} ({sp})")

    for t in ("group_members", "similar_sets", "similar_pairs", "file_findings", "grouped_files"):
        c.execute(f"DELETE FROM main.{t}")
    for g in range(gens):
        off = g * n
        keep = f"<= {rows}"
        c.execute(f"INSERT INTO main.group_members(group_id, file_id, score) SELECT group_id, file_id + {off}, score "
                  f"FROM seed.group_members WHERE file_id + {off} {keep}")
        c.execute(f"INSERT INTO main.similar_sets(file_id, set_key, keeper, duplicate_of, score) "
                  f"SELECT file_id + {off}, set_key + {off}, keeper, duplicate_of + {off}, score FROM seed.similar_sets "
                  f"WHERE file_id + {off} {keep}")
        c.execute(f"INSERT INTO main.similar_pairs(a, b, similar, copy) SELECT a + {off}, b + {off}, similar, copy "
                  f"FROM seed.similar_pairs WHERE b + {off} {keep}")
        c.execute(f"INSERT INTO main.file_findings(file_id, analyzed_at, ocr_words, ocr_text, qr_payload) "
                  f"SELECT file_id + {off}, analyzed_at, ocr_words, ocr_text, qr_payload FROM seed.file_findings "
                  f"WHERE file_id + {off} {keep}")
        print(f"generation {g + 1}/{gens} ({time.monotonic() - t0:.0f} s)", file=sys.stderr, flush=True)

    # grouped_files: `GroupItem.fingerprint` (path|bytes|status|analyzed_at|time[|raw]) of the new
    # row: the seed's with its path and time replaced.
    def fingerprint(seed_fp, seed_path, path, shift):
        rest = seed_fp[len(seed_path) + 1:].split("|")
        if shift:
            rest[3] = repr(float(rest[3]) + shift)
        return "|".join([path] + rest)

    seed_fps = {k: (fp, p, tts, mt) for k, fp, p, tts, mt in c.execute(
        "SELECT g.file_id, g.fingerprint, f.path, f.taken_ts, f.mtime_ns FROM seed.grouped_files g JOIN seed.files f ON f.id = g.file_id")}
    batch = []
    for mid, path, tts, mt in c.execute("SELECT id, path, taken_ts, mtime_ns FROM main.files ORDER BY id").fetchall():
        k = (mid - 1) % n + 1
        if k not in seed_fps:
            continue
        fp, sp, stts, smt = seed_fps[k]
        shift = (tts - stts) if (tts is not None and stts is not None) else (mt - smt) / 1e9
        batch.append((mid, fingerprint(fp, sp, path, shift)))
    c.executemany("INSERT INTO main.grouped_files(file_id, fingerprint) VALUES(?, ?)", batch)
    print(f"grouped_files {len(batch)} ({time.monotonic() - t0:.0f} s)", file=sys.stderr, flush=True)

if a.decisions:
    cands = [r[0] for r in c.execute(
        "SELECT id FROM main.files WHERE status != 'gone' AND kind IN ('photo', 'video') "
        "AND id NOT IN (SELECT sidecar_id FROM main.sidecars) ORDER BY id")]
    step = max(1, len(cands) // a.decisions)
    start = random.Random(a.seed).randrange(step)
    chosen = cands[start::step][: a.decisions]
    kinds = ["keep", "trash", "skip", "later"]
    day, cooldown = 86400.0, 7 * 86400.0
    steps = []
    c.execute("DELETE FROM main.decisions")
    for i, fid in enumerate(chosen):
        d = kinds[i % 4]
        ts = a.now - 30 * day + i * (30 * day / len(chosen))
        size, mtime, chash, dev, ino, btime = c.execute(
            "SELECT size, mtime_ns, content_hash, device, inode, btime_ns FROM main.files WHERE id = ?", (fid,)).fetchone()
        later_until = None
        if d == "later":
            # One in four deferred ones is due again (its cool-down over): it waits.
            later_until = (a.now - day) if (i // 4) % 4 == 0 else ts + cooldown
            ts = min(ts, later_until - cooldown)
        c.execute("INSERT INTO main.decisions(file_id, decision, decided_ts, session_id, later_count, later_until, reviewed_size, "
                  "reviewed_mtime_ns, reviewed_hash, reviewed_device, reviewed_inode, reviewed_btime_ns) "
                  "VALUES(?,?,?,NULL,?,?,?,?,?,?,?,?)",
                  (fid, d, ts, 1 if d == "later" else 0, later_until, size, mtime, chash, dev, ino, btime))
        event = None
        if d != "skip":
            c.execute("INSERT INTO main.review_events(ts, kind, file_id, decision, first_review, bytes, session_id, utc_offset) "
                      "VALUES(?, 'decision', ?, ?, 1, ?, NULL, 0)", (ts, fid, d, size if d == "trash" else 0))
            event = c.execute("SELECT last_insert_rowid()").fetchone()[0]
        steps.append((ts, fid, event))
    for ts, fid, event in steps[-200:]:
        c.execute("INSERT INTO main.undo_steps(created_ts, file_id, before, session_id, session_before, event_id, chapter_id) "
                  "VALUES(?, ?, NULL, NULL, NULL, ?, NULL)", (ts, fid, event))
    print(f"{len(chosen)} decisions ({time.monotonic() - t0:.0f} s)", file=sys.stderr, flush=True)

c.commit()
c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
counts = {t: c.execute(f"SELECT count(*) FROM main.{t}").fetchone()[0]
          for t in ("group_members", "similar_sets", "similar_pairs", "file_findings", "grouped_files", "decisions")}
print(f"{a.db}: {counts} ({time.monotonic() - t0:.0f} s)")
