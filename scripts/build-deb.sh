#!/usr/bin/env bash
# Builds the Debian package in a scratch tree: a copy of the sources with packaging/debian as
# ./debian, then dpkg-buildpackage -us -uc -b. The .deb lands in .build/deb/.
set -euo pipefail
version=${1:?version}
top=$(cd "$(dirname "$0")/.." && pwd)
out="$top/.build/deb"
tree="$out/snapsort-$version"
rm -rf "$out"
mkdir -p "$tree"
cd "$top"
# Tracked and new (not ignored) files, as they are in the work tree.
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
    [ -e "$f" ] && [ "${f#packaging/debian/}" = "$f" ] && printf '%s\0' "$f"
done | xargs -0 cp --parents -t "$tree"
cp -R packaging/debian "$tree/debian"
cd "$tree"
dpkg-buildpackage -us -uc -b
ls -1 "$out"/*.deb
