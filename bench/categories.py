#!/usr/bin/env python3
"""Precision and recall of the model groups Pets, Food, Scenery and People against hand labels.

    bench/categories.py --corpus /tmp/snapsort-eval/dev --report report.jsonl [--labels bench/categories_labels.json]

The corpus's labels.json (../shared/eval/make_corpus.py) names the source photograph of each
file; bench/categories_labels.json says by hand which sources are pets, food, scenery or people
(and where either answer is fine). A file inherits its source's labels, except files that
never were a source photo (documents, screenshots, videos) and hostile files. An oops shot
(dark, blown out, fog, pocket) may have lost what made its source a pet or food, so it only
counts against a group its source is not in (a blown-out leaf in Pets is false; a dark dog
outside Pets is no miss).
`snapsort report --jsonl` gives the groups of each file (`bench/quality.sh` keeps its reports
with KEEP=1 and runs this after score.py). Prints one line per category with the wrong files'
sources, and a SUMMARY line.
"""
import argparse
import json
import os
import sys

SKIPPED_ROLES = {"hostile"}


def prf(tp, fp, fn):
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def load_report(path, root):
    groups = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            o = json.loads(line)
            p = o.get("path") or ""
            if os.path.isabs(p):
                p = os.path.relpath(p, root)
            groups[p] = set(o.get("groups") or [])
    return groups


def score(corpus, report, hand):
    labels = json.load(open(os.path.join(corpus, "labels.json")))
    got = load_report(report, os.path.join(corpus, labels.get("root", "library")))
    cats = hand["categories"]
    res = {c: dict(tp=0, fp=[], fn=[], n=0) for c in cats}
    for f in labels["files"]:
        src = f.get("source")
        if f.get("kind") != "photo" or src not in hand["sources"] or f.get("params", {}).get("role") in SKIPPED_ROLES:
            continue
        truth = hand["sources"][src]
        have = got.get(f["path"], set())
        oops = f.get("params", {}).get("role") == "oops"
        for c in cats:
            if c in truth.get("dont_care", []) or (oops and c in truth["in"]):
                continue
            r = res[c]
            r["n"] += 1
            want, said = c in truth["in"], c in have
            if want and said:
                r["tp"] += 1
            elif said:
                r["fp"].append(src)
            elif want:
                r["fn"].append(src)
    return res


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", required=True, help="a corpus folder made by ../shared/eval (library/ and labels.json)")
    ap.add_argument("--report", required=True, help="`snapsort report --jsonl` of that corpus")
    ap.add_argument("--labels", default=os.path.join(here, "categories_labels.json"))
    a = ap.parse_args()
    hand = json.load(open(a.labels))
    res = score(a.corpus, a.report, hand)
    summary = []
    for c, r in res.items():
        p, rec, f = prf(r["tp"], len(r["fp"]), len(r["fn"]))
        wrong = ""
        if r["fp"]:
            wrong += "  false: " + ", ".join(sorted(r["fp"]))
        if r["fn"]:
            wrong += "  missed: " + ", ".join(sorted(r["fn"]))
        print(f"{c:8s} P {p:.2f} R {rec:.2f} F1 {f:.2f}  ({r['tp']} right, {len(r['fp'])} false, {len(r['fn'])} missed of {r['n']} files){wrong}")
        summary.append(f"{c} P/R {p:.2f}/{rec:.2f}")
    print("SUMMARY " + "; ".join(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
