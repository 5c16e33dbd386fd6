#!/usr/bin/env bash
# The main job behind `make run`: start the SnapSort agent in the foreground on the user's
# photo folder, or on the demo library when the user has no photos yet. It watches the folder,
# analyzes what is new, and keeps the status file current until Ctrl-C.
set -eu
bin=${1:-.build/release/snapsort}
export SNAPSORT_DATA_DIR=${SNAPSORT_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)/share}
pictures=$("$bin" config --pictures-dir 2>/dev/null || true)
[ -n "$pictures" ] || pictures="${XDG_PICTURES_DIR:-$HOME/Pictures}"
status_file=$("$bin" config --status-file 2>/dev/null || echo "\$XDG_RUNTIME_DIR/snapsort/status.json")
if [ -d "$pictures" ] && [ -n "$(find "$pictures" -type f \( -iname '*.jpg' -o -iname '*.jpeg' -o -iname '*.png' -o -iname '*.heic' -o -iname '*.webp' \) -print -quit 2>/dev/null)" ]; then
    root=$pictures
    echo "Watching your photos in $root" >&2
else
    echo "No photos in $pictures yet: using the demo library." >&2
    root=$("$bin" demo)
fi
# One agent per library: when the systemd service (or another terminal) already runs it, show its status.
if "$bin" status --json 2>/dev/null | grep -q '"state": "\(starting\|scanning\|analyzing\|watching\|paused\)"'; then
    echo "A SnapSort agent is already running on this library:" >&2
    exec "$bin" status
fi
cat >&2 <<MSG
Starting the SnapSort agent in the foreground.
  Status file: $status_file
  Follow it:   $bin status --follow        (or --format waybar|polybar|i3blocks|i3status-rust)
  Stop:        Ctrl-C (the agent finishes its current batch and exits)
MSG
echo "  Review page: $bin open   (the agent serves it on 127.0.0.1 while it runs)" >&2
exec "$bin" agent "$root"
