#!/bin/sh
# Tier-2 throughput (the local models): photos per second per core, and per-photo times.
#   bench/vision.sh [CORPUS_DIR]     (default /tmp/snapsort-eval/dev, from ../shared/eval/make-dev-corpus.sh)
# Scans the corpus with --no-models (tier 1 only, timed), then runs `snapsort scan` again so
# only tier 2 runs (one helper process = one core; niced, like in the agent), and reads the
# per-photo times (decode + scale + faces + classes, ms) from the database. Environment:
# SCRATCH (build folder, default .build), CONFIG (debug or release, default release).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
corpus=${1:-/tmp/snapsort-eval/dev}
scratch=${SCRATCH:-.build}
config=${CONFIG:-release}
cd "$here"
swift build -c "$config" --scratch-path "$scratch" --product snapsort >/dev/null
swift build -c "$config" --scratch-path "$scratch" --product snapsort-vision >/dev/null
bin="$scratch/$config/snapsort"
work=$(mktemp -d /tmp/snapsort-vision-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
t0=$(date +%s.%N)
"$bin" --db "$work/db.sqlite" scan --quiet --no-models "$corpus/library" 2>/dev/null
t1=$(date +%s.%N)
"$bin" --db "$work/db.sqlite" scan --jsonl "$corpus/library" 2>/dev/null | grep '"event":"models"' > "$work/models.json"
t2=$(date +%s.%N)
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo "tier 1 (--no-models): $(echo "$t1 - $t0" | bc) s"
echo "tier 2 pass: $(echo "$t2 - $t1" | bc) s; $(cat "$work/models.json")"
sqlite3 "$work/db.sqlite" "
  SELECT 'tier 2: ' || count(*) || ' photos, ' || printf('%.2f', count(*) * 1000.0 / sum(ms)) || ' photos/s per core (1 helper), '
         || 'mean ' || printf('%.0f', avg(ms)) || ' ms, max ' || printf('%.0f', max(ms)) || ' ms per photo'
  FROM vision WHERE status = 'ok';
  SELECT 'photos with a face: ' || count(*) || ', mean ' || printf('%.0f', avg(ms)) || ' ms' FROM vision WHERE status = 'ok' AND faces > 0;
  SELECT 'groups: ' || group_concat(group_id || ' ' || n, ', ') FROM (SELECT group_id, count(*) n FROM group_members
         WHERE group_id IN ('people', 'pets', 'food', 'scenery') GROUP BY group_id);
"
