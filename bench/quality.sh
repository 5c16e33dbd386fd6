#!/bin/sh
# Reproduces the smart-groups quality scores: scans each labelled corpus made by ../shared/eval/
# into a fresh database, regroups, and scores `snapsort report --jsonl` with score.py.
#   bench/quality.sh [CORPUS_DIR…]      (default /tmp/snapsort-eval/dev; make one with
#                                        ../shared/eval/make-dev-corpus.sh CORPUS_DIR, another
#                                        with SEED=2 make-dev-corpus.sh CORPUS_DIR2 — same
#                                        photographs, other crops, degradations and roles)
# Environment: SCRATCH (build folder, default .build), EVAL (default ../shared/eval),
# CONFIG (debug or release, default debug; the unseen sets are scored on a release build, so
# report with CONFIG=release), JOBS (swift build -j, default: swift's), WORKERS (scan --workers,
# default: all cores),
# KEEP=1 keeps the databases and reports (printed) for a look with score.py or sqlite3.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
scratch=${SCRATCH:-.build}
config=${CONFIG:-debug}
eval_dir=${EVAL:-$here/../shared/eval}
cd "$here"
# snapsort-vision runs the local models (people, and the document classifier's second opinion);
# without it beside snapsort those scores fall.
for product in snapsort snapsort-vision; do
    swift build -c "$config" --scratch-path "$scratch" ${JOBS:+-j "$JOBS"} --product "$product" >/dev/null
done
bin="$scratch/$config/snapsort"
work=$(mktemp -d /tmp/snapsort-quality.XXXXXX)
[ "${KEEP:-}" = 1 ] && echo "databases and reports in $work" || trap 'rm -rf "$work"' EXIT
[ $# -gt 0 ] || set -- /tmp/snapsort-eval/dev
n=0
for corpus in "$@"; do
    n=$((n + 1))
    start=$(date +%s.%N)
    "$bin" --db "$work/db$n.sqlite" scan --quiet ${WORKERS:+--workers "$WORKERS"} "$corpus/library" 2> "$work/stderr$n.txt"
    end=$(date +%s.%N)
    "$bin" --db "$work/db$n.sqlite" report --jsonl > "$work/report$n.jsonl"
    echo "== $corpus"
    echo "scan + grouping: $(echo "$end - $start" | bc) s for $(wc -l < "$work/report$n.jsonl") files; $(wc -l < "$work/stderr$n.txt") stderr lines"
    python3 "$eval_dir/score.py" --labels "$corpus/labels.json" --report "$work/report$n.jsonl" --root "$corpus/library"
    # Pets / Food / Scenery / People against the hand labels of the source photos (a video
    # corpus has none of them).
    if grep -q '"source": "' "$corpus/labels.json"; then
        python3 bench/categories.py --corpus "$corpus" --report "$work/report$n.jsonl"
    fi
done
