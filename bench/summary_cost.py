#!/usr/bin/env python3
"""summary_cost.py --bin BIN --db LIBRARY [--rounds 40] [--models]

What the page's `/api/summary` costs after each decision and undo (app.js asks for it after
every one), never a timed test: starts `BIN --db LIBRARY serve --port 0` in a scratch runtime
folder, then `--rounds` times decides a photo (keep), asks for the summary, undoes, asks again;
prints the server's CPU time (user + system from /proc, clock ticks) per summary and per
decision, and the wall time. On a loaded host the CPU time is what a request cost.

`--models` first marks LIBRARY as having had a models' pass over every photo (`models_version`
in `agent_state`, a current `vision` row per live photo) when it has none, so the summary's
`models{done,total}` is counted: the join issue 41's progress reads. It writes to LIBRARY:
give it a copy.
"""
import argparse, json, sqlite3

from page_server import PageServer

ap = argparse.ArgumentParser()
ap.add_argument("--bin", required=True)
ap.add_argument("--db", required=True)
ap.add_argument("--rounds", type=int, default=40)
ap.add_argument("--models", action="store_true")
a = ap.parse_args()

db = sqlite3.connect(a.db, timeout=60)
if a.models and not db.execute("SELECT 1 FROM agent_state WHERE key = 'models_version'").fetchone():
    db.execute("INSERT INTO agent_state(key, value, updated_at) VALUES('models_version', 'bench', '2026-01-01T00:00:00Z')")
    db.execute("""INSERT OR IGNORE INTO vision(file_id, version, analyzed_at, status)
                  SELECT id, 'bench', analyzed_at, 'ok' FROM files WHERE status = 'ok' AND kind = 'photo'""")
    db.commit()
ids = [r[0] for r in db.execute(
    "SELECT id FROM files WHERE status = 'ok' AND kind = 'photo' AND id NOT IN (SELECT file_id FROM decisions) ORDER BY id LIMIT ?",
    (a.rounds,))]
db.close()
if len(ids) < a.rounds:
    raise SystemExit(f"only {len(ids)} undecided photos")

page = PageServer(a.bin, a.db, prefix="snapsort-summary.")
try:
    def call(path, body=None):
        wall, cpu, out = page.call(path, body)
        return wall, cpu, json.loads(out)

    models = call("summary")[2].get("models")
    summary_cpu = summary_wall = decide_cpu = 0.0
    for i in ids:
        _, c, _ = call("decide", {"id": i, "decision": "keep"})
        decide_cpu += c
        w, c, _ = call("summary")
        summary_wall, summary_cpu = summary_wall + w, summary_cpu + c
        _, c, _ = call("undo", {})
        decide_cpu += c
        w, c, _ = call("summary")
        summary_wall, summary_cpu = summary_wall + w, summary_cpu + c
    n = 2 * len(ids)
    print(json.dumps({"rounds": len(ids), "models": models, "summary_cpu_ms": round(1000 * summary_cpu / n, 2),
                      "summary_wall_ms": round(1000 * summary_wall / n, 2), "decide_or_undo_cpu_ms": round(1000 * decide_cpu / n, 2)}))
finally:
    page.stop()
