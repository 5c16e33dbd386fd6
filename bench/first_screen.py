#!/usr/bin/env python3
"""first_screen.py --bin BIN --db LIBRARY [--repeat 3]

The review page's first screen on a large library (issue 40 item 3: <= 1 s at 1 000 000 rows),
never a timed test: starts `BIN --db LIBRARY serve --port 0` in a scratch runtime folder, reads
its `web-KEY.json` (port and token), then times the requests the page makes when it opens
(app.js: `summary`, then `decks`, `groups` and `bulk/old-screenshots?days=30` together), each
sequentially (an upper bound of the page's parallel requests), cold and warm; wall and the
server's CPU time per request. `--save DIR` writes each answer of the last run to DIR (`summary.json`,
`decks.json`, …): the same library before and after a change should give the same JSON (`diff -r`).
"""
import argparse, os

from page_server import PageServer

ap = argparse.ArgumentParser()
ap.add_argument("--bin", required=True)
ap.add_argument("--db", required=True)
ap.add_argument("--repeat", type=int, default=3)
ap.add_argument("--save", help="a folder for the last run's answers")
a = ap.parse_args()

page = PageServer(a.bin, a.db, prefix="snapsort-screen.")
print(f"page ready after {page.ready_after:.2f} s")
try:
    bodies = {}

    def get(path):
        wall, cpu, body = page.call(path)
        bodies[path.split("?")[0].replace("/", "-")] = body
        return wall, cpu, len(body)

    for i in range(a.repeat):
        parts = [(path, *get(path)) for path in ("summary", "decks", "groups", "bulk/old-screenshots?days=30")]
        total, total_cpu = sum(t for _, t, _, _ in parts), sum(c for _, _, c, _ in parts)
        print(f"run {i + 1}: first screen {total:.3f} s wall, {total_cpu:.2f} s CPU ("
              + ", ".join(f"{n} {t:.3f} s / {c:.2f} s CPU {b} B" for n, t, c, b in parts) + ")", flush=True)
    if a.save:
        os.makedirs(a.save, exist_ok=True)
        for name, body in bodies.items():
            with open(os.path.join(a.save, name + ".json"), "wb") as f:
                f.write(body)
finally:
    page.stop()
