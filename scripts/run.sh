#!/usr/bin/env bash
# The main job behind `make run`: scan the user's photo folder, or the demo library when the
# user has no photos yet.
set -eu
bin=${1:-.build/release/snapsort}
export SNAPSORT_DATA_DIR=${SNAPSORT_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)/share}
pictures=$("$bin" config --pictures-dir 2>/dev/null || true)
[ -n "$pictures" ] || pictures="${XDG_PICTURES_DIR:-$HOME/Pictures}"
if [ -d "$pictures" ] && [ -n "$(find "$pictures" -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' -o -iname '*.heic' \) -print -quit 2>/dev/null)" ]; then
    echo "Scanning your photos in $pictures" >&2
    exec "$bin" scan "$pictures"
fi
echo "No photos in $pictures yet: using the demo library." >&2
demo=$("$bin" demo)
exec "$bin" scan "$demo"
