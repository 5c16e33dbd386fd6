#!/usr/bin/env python3
"""Scenery precision / recall on a labelled corpus (../shared/eval/), from a scanned database.

The corpora do not label Scenery, so each file takes the label of its source photograph, judged
by eye (below). Oops variants (dark, blown out, fog, pocket shots) and sources that are neither
are not scored. Usage, after `KEEP=1 bench/quality.sh CORPUS…` printed where its databases are:
    python3 bench/scenery.py --db /tmp/snapsort-quality.XXXX/db1.sqlite --corpus /tmp/snapsort-eval/dev
"""
import argparse
import collections
import json
import sqlite3

# Landscapes, waterside, towns, streets, skies, aerial views.
SCENERY = {
    "ocv_leuvenA", "ocv_aero1", "ocv_home", "ocv_building", "plasma_EveningGlow", "plasma_Path", "plasma_Kite",
    "plasma_BytheWater", "plasma_summer_1am", "plasma_ColdRipple", "plasma_DarkestHour", "plasma_OneStandsOut",
}
# Neither (an abstract architectural close-up) or generated files without a source photograph.
UNSCORED = {"plasma_Grey", None}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True)
    ap.add_argument("--corpus", required=True)
    args = ap.parse_args()
    labels = {f["path"]: f for f in json.load(open(args.corpus + "/labels.json"))["files"]}
    root = args.corpus.rstrip("/") + "/library/"
    db = sqlite3.connect(args.db)
    members = {r[0] for r in db.execute(
        "SELECT f.path FROM group_members g JOIN files f ON f.id = g.file_id WHERE g.group_id = 'scenery'")}
    counts = collections.Counter()
    misses, false = collections.Counter(), collections.Counter()
    for (path,) in db.execute("SELECT f.path FROM vision v JOIN files f ON f.id = v.file_id WHERE v.status = 'ok'"):
        f = labels.get(path[len(root):])
        if not f or f.get("source") in UNSCORED or any(t.startswith("oops") for t in f.get("tags") or []):
            continue
        truth, said = f["source"] in SCENERY, path in members
        counts[(truth, said)] += 1
        if truth and not said:
            misses[f["source"]] += 1
        if said and not truth:
            false[f["source"]] += 1
    tp, fp, fn = counts[(True, True)], counts[(False, True)], counts[(True, False)]
    print(f"scenery: P {tp / max(1, tp + fp):.2f} R {tp / max(1, tp + fn):.2f} (TP {tp} FP {fp} FN {fn} TN {counts[(False, False)]})")
    print(f"  missed by source: {dict(misses)}")
    print(f"  false by source: {dict(false)}")


if __name__ == "__main__":
    main()
