#!/bin/sh
# Reproduces the smart-groups quality scores: scans a labelled corpus made by ../shared/eval/
# into a fresh database, regroups, and scores `snapsort report --jsonl` with score.py.
#   bench/quality.sh [CORPUS_DIR]        (default /tmp/snapsort-eval/dev; make it with
#                                         ../shared/eval/make-dev-corpus.sh CORPUS_DIR)
# Environment: SCRATCH (build folder, default .build), EVAL (default ../shared/eval).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:-/tmp/snapsort-eval/dev}
scratch=${SCRATCH:-.build}
eval_dir=${EVAL:-$here/../shared/eval}
cd "$here"
swift build --scratch-path "$scratch" >/dev/null
bin="$scratch/debug/snapsort"
work=$(mktemp -d /tmp/snapsort-quality.XXXXXX)
trap 'rm -rf "$work"' EXIT
start=$(date +%s.%N)
"$bin" --db "$work/db.sqlite" scan --quiet "$corpus/library"
end=$(date +%s.%N)
"$bin" --db "$work/db.sqlite" report --jsonl > "$work/report.jsonl"
echo "scan + grouping: $(echo "$end - $start" | bc) s for $(wc -l < "$work/report.jsonl") files"
python3 "$eval_dir/score.py" --labels "$corpus/labels.json" --report "$work/report.jsonl" --root "$corpus/library"
