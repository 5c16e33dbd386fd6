#!/bin/sh
# Would the classifier's 1280-d embedding change any Similar Shots decision? Scans each labelled
# corpus (../shared/eval/) with the grouper's pair trace on (SNAPSORT_GROUPS_TRACE=1: every pair
# of pictures compared within the time window, with its alignment score and overlap), asks
# snapsort-vision for the embedding of every photo (`embed` request; the picture prepared as tier
# 2 prepares it: upright, long side 1024), and prints, per kind of truth (same similar-shot set,
# different photos, must-not-group pairs), how the embedding cosine and the current score fall.
#   bench/embedding.sh [CORPUS_DIR…]     (default /tmp/snapsort-eval/dev)
# Environment: SCRATCH (build folder, default .build), JOBS (swift build -j), PYTHON (an
# interpreter with Pillow, default /usr/bin/python3: Debian's python3-pil).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
scratch=${SCRATCH:-.build}
python=${PYTHON:-/usr/bin/python3}
cd "$here"
"$python" -c 'import PIL' 2>/dev/null || { echo "needs Pillow (apt-get install python3-pil) for $python" >&2; exit 1; }
swift build --scratch-path "$scratch" ${JOBS:+-j "$JOBS"} --product snapsort >/dev/null
swift build --scratch-path "$scratch" ${JOBS:+-j "$JOBS"} --product snapsort-vision >/dev/null
bin="$scratch/debug/snapsort"
work=$(mktemp -d /tmp/snapsort-embedding.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ $# -gt 0 ] || set -- /tmp/snapsort-eval/dev
n=0
for corpus in "$@"; do
    n=$((n + 1))
    SNAPSORT_GROUPS_TRACE=1 "$bin" --db "$work/db$n.sqlite" scan --quiet --no-models "$corpus/library" 2> "$work/trace$n.txt"
    echo "== $corpus"
    "$python" bench/embedding_pairs.py --helper "$scratch/debug/snapsort-vision" --labels "$corpus/labels.json" \
        --root "$corpus/library" --trace "$work/trace$n.txt"
done
