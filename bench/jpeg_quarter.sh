#!/usr/bin/env bash
# bench/jpeg_quarter.sh [FILES…] — builds bench/jpeg_quarter.c against the shim and runs it on
# one core (default: the DEV corpus's files tagged 12mp, as throughput.py takes them).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../Sources/CJPEG
bin=$(mktemp -d)/jpeg_quarter
trap 'rm -rf "$(dirname "$bin")"' EXIT
${CC:-clang} -O2 -I"$src/include" "$here/jpeg_quarter.c" "$src/snapsort_jpeg.c" "$src/snapsort_jpeg_reduced.c" -ljpeg -o "$bin"
if [ $# -eq 0 ]; then
    eval_dir=${EVAL:-$here/../../shared/eval}
    corpus=${DEV:-/tmp/snapsort-eval/dev}
    mapfile -t files < <(python3 - "$corpus" <<'PY'
import json, os, sys
root = sys.argv[1]
labels = json.load(open(os.path.join(root, "labels.json")))
for f in labels["files"]:
    if "12mp" in f.get("tags", []):
        print(os.path.join(root, "library", f["path"]))
PY
)
    set -- "${files[@]}"
fi
exec taskset -c 0 "$bin" "$@"
