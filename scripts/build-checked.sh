#!/usr/bin/env bash
# Runs `swift build ARGS…`, shows its output, and fails when the compiler printed a warning
# (the tree is kept warning-free; SNAPSORT_ALLOW_WARNINGS=1 lets a local build through).
# Only what is compiled in this build is checked: CI builds from a fresh clone, so all of it.
set -euo pipefail
swift=${SWIFT:-swift}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# A target that imports a module it does not declare fails the build: the layering
# (docs/HACKING.md, Layers) is enforced, not only kept.
"$swift" build --explicit-target-dependency-import-check error "$@" 2>&1 | tee "$log"
warnings=$(grep -E '^[^ ].*: warning: ' "$log" | sort -u || true)
if [ -n "$warnings" ]; then
    echo "" >&2
    echo "the build printed $(printf '%s\n' "$warnings" | wc -l) warning(s); the tree must build without warnings:" >&2
    printf '%s\n' "$warnings" >&2
    [ "${SNAPSORT_ALLOW_WARNINGS:-}" = 1 ] || exit 1
fi
