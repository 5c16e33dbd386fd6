#!/bin/bash
# bench/first_regroup.sh BIN LIBRARY TREE WORK: a first scan's grouping without its analysis.
# A copy of LIBRARY (a library already scanned from TREE; the original is never written) loses its
# groups, pairs, grouped fingerprints and rules keys; `BIN scan --no-models TREE` then finds every
# file unchanged and regroups as a first scan does (every file judged, every pair listed and
# aligned) under /usr/bin/time -v: peak RSS, CPU, and the grouper's phases (SNAPSORT_GROUPS_TRACE:
# RSS and heap after each), then what it stored. Issue 40 item 3; figures in bench/RESULTS.md.
#   bench/first_regroup.sh .build-rel/release/snapsort /tmp/memwork/mix-100000.sqlite3 /tmp/memwork/mix /tmp/first-regroup
set -euo pipefail
bin=$1; library=$2; tree=$3; work=$4
rm -rf "$work"; mkdir -p "$work"
sqlite3 "$library" ".backup '$work/db.sqlite3'"
sqlite3 "$work/db.sqlite3" "DELETE FROM grouped_files; DELETE FROM similar_pairs; DELETE FROM similar_sets; DELETE FROM group_members;
  DELETE FROM agent_state WHERE key IN ('similar_pairs_rules','file_groups_rules');"
SNAPSORT_GROUPS_TRACE=phases /usr/bin/time -v -o "$work/time" "$bin" --db "$work/db.sqlite3" scan --quiet --no-models "$tree" 2>&1 >/dev/null |
    { grep -E "^phase" || true; } > "$work/phases"
grep -E "Maximum resident|User time|System time|Elapsed" "$work/time"
cat "$work/phases"
sqlite3 "$work/db.sqlite3" "SELECT 'similar_pairs', count(*), sum(similar IS NOT NULL), sum(copy IS NOT NULL) FROM similar_pairs;
  SELECT 'sets', count(DISTINCT set_key), count(*) FROM similar_sets;"
