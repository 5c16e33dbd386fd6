#!/usr/bin/env bash
# Checks systemd/snapsort.service.in with `systemd-analyze verify --user` on a copy whose
# @bindir@ points at a built binary. Usage: systemd/verify.sh [BINDIR]  (default .build/debug)
# systemd-analyze needs XDG_RUNTIME_DIR set to a 0700 folder; a temporary one is made.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bindir=$(cd "${1:-$here/../.build/debug}" && pwd)
[ -x "$bindir/snapsort" ] || { echo "verify.sh: no snapsort binary in $bindir" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -m 0700 "$tmp/run" "$tmp/units"
sed "s|@bindir@|$bindir|g" "$here/snapsort.service.in" > "$tmp/units/snapsort.service"
XDG_RUNTIME_DIR="$tmp/run" systemd-analyze verify --user "$tmp/units/snapsort.service"
echo "systemd-analyze verify --user: ok"
