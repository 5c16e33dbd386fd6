#!/usr/bin/env bash
# Installs the Debian packages listed in scripts/packages.txt that are missing.
# Uses sudo only when not root.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
pkgs=$(grep -v '^\s*#' "$here/packages.txt" | tr -s ' \n' ' ')
missing=""
for p in $pkgs; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "Installing:$missing" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
