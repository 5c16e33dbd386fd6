#!/usr/bin/env bash
# Builds the .deb, installs it with dpkg -i, checks the binary, the user unit and the man pages,
# runs lintian, and purges it again — under a trap, so a failed run leaves nothing installed.
set -euo pipefail
version=${1:?version}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
if [ "$(id -u)" -ne 0 ]; then echo "check-package: needs root (dpkg -i); skipped" >&2; exit 0; fi
scripts/build-deb.sh "$version"
deb=$(ls -1 .build/deb/snapsort_"$version"-*_*.deb | head -n1)
echo "== lintian (errors fail) =="
lintian --fail-on error --suppress-tags-from-file /dev/null "$deb"
cleanup() { dpkg --purge snapsort >/dev/null 2>&1 || true; }
trap cleanup EXIT
dpkg -i "$deb"
snapsort --version
runtime=$(mktemp -d)
chmod 0700 "$runtime"
XDG_RUNTIME_DIR=$runtime systemd-analyze verify --user /usr/lib/systemd/user/snapsort.service
man -l /usr/share/man/man1/snapsort.1.gz >/dev/null
man -l /usr/share/man/man5/snapsort.conf.5.gz >/dev/null
test -f /usr/share/applications/snapsort.desktop
test -f /usr/share/snapsort/demo/fruits.jpg
dpkg --purge snapsort
trap - EXIT
if dpkg -s snapsort >/dev/null 2>&1 || [ -e /usr/bin/snapsort ]; then echo "purge left files behind" >&2; exit 1; fi
rm -rf "$runtime"
echo "package check: ok (built, linted, installed, verified, purged)"
