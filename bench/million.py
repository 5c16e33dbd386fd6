#!/usr/bin/env python3
"""million.py --seed-db DB --seed-root DIR --out OUT [--rows 1000000] then bench/regroup.py

A library of a million rows made directly (issue 40 item 3), from a scanned seed library
(e.g. bench/memory.py's `mix` tree scanned, `--keep-db`): the seed's rows are repeated in
generations until --rows. Generation 0 is the seed's files copied (real photos: the "one photo
added" step copies one); every later generation is the seed's rows again with
  - their hashes (quick, content, pixel) replaced by a hash of (generation, hash): byte copies
    stay byte copies within a generation, never across;
  - their pHash and dHash XOR a mask of the generation (distances within a generation kept,
    across generations about 32 bits: no candidates);
  - their capture time and mtime moved by 1 000 days a generation (never in one window);
and its files are sparse (the row's size, no blocks) with the row's mtime: a rescan finds every
row unchanged by its stat alone. Signatures, metrics and thumbnails are the seed's (small:
160 px photos). The files sit 1 000 to a folder under OUT/tree.

Then, on the made library, with the same binary:
  bench/regroup.py --bin BIN --db OUT/library.sqlite3 --root OUT/tree
gives the full regroup, one added photo regrouped and the unchanged rescan (wall, CPU, peak RSS).

--rows-only makes the rows and no files (their paths under OUT/tree, inode numbers made up):
the library of bench/first_screen.py, whose page never reads the files. Made in SQL, one
INSERT ... SELECT a generation, in one transaction: a million rows in 33 min on a 2-core host
at load 15-20, where the files (a copy, a sparse file and a stat each, from Python) went at
~100 rows/s (3 h).
"""
import argparse, datetime as dt, hashlib, os, shutil, sqlite3, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("--seed-db", required=True)
ap.add_argument("--seed-root", required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--rows", type=int, default=1_000_000)
ap.add_argument("--rows-only", action="store_true", help="no files: the page's bench only")
a = ap.parse_args()

t_start = time.monotonic()
tree = os.path.join(a.out, "tree")
os.makedirs(tree, exist_ok=True)
db = os.path.join(a.out, "library.sqlite3")
for suffix in ("", "-wal", "-shm"):
    if os.path.exists(db + suffix):
        os.remove(db + suffix)
src = sqlite3.connect(f"file:{a.seed_db}?mode=ro", uri=True)
src.execute(f"VACUUM INTO '{db}'")
src.close()
c = sqlite3.connect(db)
c.execute("PRAGMA journal_mode=WAL")
c.execute("PRAGMA synchronous=OFF")
cols = [r[1] for r in c.execute("PRAGMA table_info(files)")]
hash_cols = [x for x in cols if x.endswith("_hash")]
seed = c.execute(f"SELECT {', '.join(cols)} FROM files WHERE status != 'gone' ORDER BY id").fetchall()
if not seed:
    sys.exit("the seed library has no rows")
# Only the files table is made: the grouper's tables (grouped_files, similar_*) are cleared by
# bench/regroup.py, and the per-file findings are the defaults for the rows that have none.
for t in [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")]:
    tcols = [r[1] for r in c.execute(f"PRAGMA table_info({t})")]
    if t != "files" and ("file_id" in tcols or t in ("folders", "roots", "sidecars")):
        c.execute(f"DELETE FROM {t}")
c.execute("DELETE FROM files")
# The rows are inserted without the files table's indexes, in one transaction, and the indexes
# made again at the end: with them, each insert updated eight B-trees (~1 000 rows/s, most of
# it waiting on pages; 1 000 000 rows took ~17 min).
indexes = c.execute("SELECT name, sql FROM sqlite_master WHERE type='index' AND tbl_name='files' AND sql IS NOT NULL").fetchall()
for name, _ in indexes:
    c.execute(f"DROP INDEX {name}")
c.commit()
c.execute("BEGIN")
idx = {x: i for i, x in enumerate(cols)}
root = os.path.abspath(a.seed_root).rstrip("/")
shift = 1000 * 86400
mask = lambda g: int.from_bytes(hashlib.sha256(b"mask%d" % g).digest()[:8], "big", signed=True)

def moved_taken_at(t, g):
    if not t or g == 0:
        return t
    moved = dt.datetime.fromisoformat(t[:19]) + dt.timedelta(seconds=g * shift)
    return moved.strftime("%Y-%m-%dT%H:%M:%S") + t[19:]

if a.rows_only:
    # The same rows as below, made by SQLite: the seed in a temporary table in its order, each
    # generation one INSERT ... SELECT (Python only for the hashes and the RFC 3339 text).
    c.create_function("gen_hash", 2, lambda g, h: None if h is None else hashlib.sha256(b"%d" % g + bytes(h)).digest()[: len(h)], deterministic=True)
    c.create_function("gen_taken_at", 2, moved_taken_at, deterministic=True)
    c.create_function("base_name", 1, lambda p: os.path.basename(p), deterministic=True)
    c.execute("CREATE TEMP TABLE seed AS SELECT * FROM main.files WHERE 0")
    c.executemany(f"INSERT INTO temp.seed({', '.join(cols)}) VALUES({', '.join('?' for _ in cols)})", seed)
    n = len(seed)
    def value(col, g):
        if col == "path":
            return f"printf('%s/%04d/%07d_%s', ?1, ({g * n} + rowid - 1) / 1000, {g * n} + rowid - 1, base_name(path))"
        if col == "inode":
            return f"{g * n} + rowid"
        if g == 0:
            return col
        if col in hash_cols:
            return f"gen_hash({g}, {col})"
        if col in ("phash", "dhash"):
            m = mask(g)
            return f"({col} | {m}) & ~({col} & {m})"
        if col == "taken_ts":
            return f"taken_ts + {g * shift}"
        if col == "taken_at":
            return f"CASE WHEN taken_ts IS NULL THEN taken_at ELSE gen_taken_at(taken_at, {g}) END"
        if col == "mtime_ns":
            return f"mtime_ns + {g * shift * 1_000_000_000}"
        return col
    # One transaction (Python's sqlite3 opened it with the first write above).
    g = 0
    while g * n < a.rows:
        c.execute(f"INSERT INTO files({', '.join(cols[1:])}) SELECT {', '.join(value(x, g) for x in cols[1:])} FROM temp.seed "
                  f"WHERE rowid <= ? ORDER BY rowid", (tree, a.rows - g * n))
        g += 1
        print(f"{min(g * n, a.rows)} rows ({time.monotonic() - t_start:.0f} s)", file=sys.stderr, flush=True)
    c.commit()
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    print(f"{a.rows} rows (no files) from {n} seed rows in {a.out} ({time.monotonic() - t_start:.0f} s)")
    sys.exit(0)
placeholders = ", ".join("?" for _ in cols[1:])
insert = f"INSERT INTO files({', '.join(cols[1:])}) VALUES({placeholders})"
made = 0
batch = []
while made < a.rows:
    g, k = divmod(made, len(seed))
    row = list(seed[k])
    rel = os.path.relpath(row[idx["path"]], root)
    name = f"{made:07d}_{os.path.basename(rel)}"
    folder = os.path.join(tree, f"{made // 1000:04d}")
    if made % 1000 == 0:
        os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    if g == 0:
        shutil.copyfile(row[idx["path"]], path)
        os.utime(path, ns=(row[idx["mtime_ns"]], row[idx["mtime_ns"]]))
    else:
        for h in hash_cols:
            if row[idx[h]] is not None:
                row[idx[h]] = hashlib.sha256(b"%d" % g + bytes(row[idx[h]])).digest()[: len(row[idx[h]])]
        for h in ("phash", "dhash"):
            if row[idx[h]] is not None:
                row[idx[h]] ^= mask(g)
        if row[idx["taken_ts"]] is not None:
            row[idx["taken_ts"]] += g * shift
            row[idx["taken_at"]] = moved_taken_at(row[idx["taken_at"]], g)
        row[idx["mtime_ns"]] += g * shift * 1_000_000_000
        with open(path, "wb") as f:
            f.truncate(row[idx["size"]])
        os.utime(path, ns=(row[idx["mtime_ns"]], row[idx["mtime_ns"]]))
    st = os.lstat(path)
    row[idx["path"]], row[idx["device"]], row[idx["inode"]] = path, st.st_dev, st.st_ino
    batch.append(row[1:])
    made += 1
    if len(batch) >= 20_000:
        c.executemany(insert, batch)
        batch = []
        print(f"{made} rows ({time.monotonic() - t_start:.0f} s)", file=sys.stderr, flush=True)
c.executemany(insert, batch)
for _, sql in indexes:
    c.execute(sql)
c.commit()
c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
c.close()
print(f"{made} rows from {len(seed)} seed rows in {a.out} ({time.monotonic() - t_start:.0f} s)")
