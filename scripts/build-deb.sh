#!/usr/bin/env bash
# Builds the Debian package in a scratch tree: a copy of the sources with packaging/debian as
# ./debian, then dpkg-buildpackage -us -uc -b. The .deb lands in .build/deb/.
# DEB_BUILD_OPTIONS=parallel=N limits the swift build's jobs.
set -euo pipefail
version=${1:?version}
top=$(cd "$(dirname "$0")/.." && pwd)
out="$top/.build/deb"
tree="$out/snapsort-$version"
rm -rf "$out"
mkdir -p "$tree"
cd "$top"
# Tracked and new (not ignored) files, as they are in the work tree; without git, all but the
# build trees.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard
else
    find . -path ./.git -prune -o -path './.build*' -prune -o -path ./debian -prune -o -type f -printf '%P\0'
fi | while IFS= read -r -d '' f; do
    [ -e "$f" ] && [ "${f#packaging/debian/}" = "$f" ] && printf '%s\0' "$f"
done | xargs -0 cp --parents -t "$tree"
cp -R packaging/debian "$tree/debian"
cd "$tree"
dpkg-buildpackage -us -uc -b
ls -1 "$out"/*.deb
