#!/usr/bin/env bash
# The package check (part of `make test`; PACKAGE_CHECK=0 skips it):
#  1. builds the .deb and runs lintian (errors fail), checks its Depends and the binary's links;
#  2. installs it with dpkg -i, checks the binary, the user unit (systemd-analyze verify --user),
#     the man pages (man -l), the first-run demo, and purges it — under a trap, so a failed run
#     leaves nothing installed. Needs root (or sudo -n); skipped, with a message, without it or
#     when a snapsort package is already installed (that one is the user's, not ours to purge);
#  3. checks that `make install-files` + `make uninstall` leave nothing behind, for
#     DESTDIR=… PREFIX=/usr and for PREFIX=~/.local (with a temporary HOME).
set -euo pipefail
version=${1:?version}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
start=$SECONDS
scratch=$(mktemp -d)
installed=""
as_root=""
# dpkg fails at once while apt or another dpkg holds its lock (make deps may be installing
# packages next door): wait for the lock, up to 10 minutes.
dpkg_when_unlocked() {
    local tries=0 out
    while ! out=$($as_root dpkg "$@" 2>&1); do
        case $out in
            *"frontend lock"* | *"database is locked"*) ;;
            *) printf '%s\n' "$out" >&2; return 1 ;;
        esac
        tries=$((tries + 1))
        if [ "$tries" -ge 120 ]; then printf '%s\n' "$out" >&2; return 1; fi
        sleep 5
    done
    printf '%s\n' "$out"
}
cleanup() {
    if [ -n "$installed" ]; then dpkg_when_unlocked --purge snapsort >/dev/null || true; fi
    rm -rf "$scratch"
}
trap cleanup EXIT

echo "== build the .deb =="
scripts/build-deb.sh "$version"
deb=$(ls -1 .build/deb/snapsort_"$version"-*_*.deb | head -n1)
built=.build/deb/snapsort-$version/debian/snapsort/usr/bin/snapsort
built_vision=.build/deb/snapsort-$version/debian/snapsort/usr/libexec/snapsort/snapsort-vision
echo "package check: .deb built in $((SECONDS - start))s"

echo "== lintian (errors fail) =="
lintian --fail-on error "$deb"

echo "== Depends from dpkg-shlibdeps, nothing from the toolchain =="
depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
for lib in libc6 libsqlite3-0 libjpeg62-turbo libsystemd0; do
    case ", $depends" in *", $lib "*) ;; *) echo "Depends lacks $lib" >&2; exit 1 ;; esac
done
# Opened with dlopen on first use, so dpkg-shlibdeps cannot see them: named in debian/control.
for lib in libheif1 libzbar0; do
    case ", $depends," in *", $lib,"*|*", $lib "*) ;; *) echo "Depends lacks $lib (dlopen'd)" >&2; exit 1 ;; esac
done
case ", $(dpkg-deb -f "$deb" Recommends)," in *", libtesseract5,"*) ;; *) echo "Recommends lacks libtesseract5 (dlopen'd)" >&2; exit 1 ;; esac
if readelf -d "$built" | grep -E 'R(UN)?PATH|NEEDED.*(libswift|Foundation|libdispatch|libBlocksRuntime)'; then
    echo "the binary depends on the Swift toolchain's folder" >&2; exit 1
fi

check_installed_package() {
    # One package check at a time on this machine (dpkg has one database).
    exec 9>/run/lock/snapsort-package-check.lock
    flock 9
    if dpkg -s snapsort >/dev/null 2>&1; then
        echo "package check: a snapsort package is already installed; not touching it; dpkg -i skipped" >&2
        return 0
    fi
    installed=1
    dpkg_when_unlocked -i "$deb"
    /usr/bin/snapsort --version
    test -x /usr/libexec/snapsort/snapsort-vision
    # dh_installsystemduser --no-enable: no user gets the service enabled behind their back.
    if [ -e /etc/systemd/user/default.target.wants/snapsort.service ]; then
        echo "the package enabled the user unit for every user" >&2; exit 1
    fi
    mkdir -m 0700 "$scratch/runtime" "$scratch/home"
    XDG_RUNTIME_DIR=$scratch/runtime systemd-analyze verify --user /usr/lib/systemd/user/snapsort.service
    for m in /usr/share/man/man1/snapsort.1.gz /usr/share/man/man5/snapsort.conf.5.gz; do
        # man -l renders the page; groff's warnings (-ww) fail it.
        warnings=$(MANROFFOPT=-ww man -l "$m" 2>&1 >/dev/null)
        if [ -n "$warnings" ]; then echo "$m: $warnings" >&2; exit 1; fi
    done
    test -f /usr/share/applications/snapsort.desktop
    test -f /usr/share/icons/hicolor/scalable/apps/snapsort.svg
    for size in 16 22 24 32 48; do test -f /usr/share/icons/hicolor/${size}x${size}/apps/snapsort-review.png; done
    test -f /usr/share/snapsort/web/index.html
    # The first run on a fresh machine: the demo, from the installed files, in a fresh HOME.
    env -i HOME="$scratch/home" PATH=/usr/bin:/bin LANG=C.UTF-8 \
        /usr/bin/snapsort demo --scan "$scratch/home/demo" >/dev/null
    test -n "$(ls -A "$scratch/home/demo")"
    dpkg_when_unlocked --purge snapsort
    installed=""
    if dpkg -s snapsort >/dev/null 2>&1 || [ -e /usr/bin/snapsort ] || [ -e /usr/share/snapsort ] ||
        [ -e /usr/lib/systemd/user/snapsort.service ]; then
        echo "purge left files behind" >&2; exit 1
    fi
}

echo "== dpkg -i, verify, dpkg --purge =="
if [ "$(id -u)" -ne 0 ] && sudo -n true 2>/dev/null; then as_root=sudo; fi
if [ "$(id -u)" -eq 0 ] || [ -n "$as_root" ]; then
    check_installed_package
else
    echo "package check: dpkg -i needs root (or sudo -n); skipped" >&2
fi

echo "== make install-files / make uninstall leave nothing behind =="
destdir=$scratch/destdir
make -s install-files DESTDIR="$destdir" PREFIX=/usr INSTALLED_BIN="$built" INSTALLED_VISION="$built_vision"
grep -qx 'ExecStart=/usr/bin/snapsort agent' "$destdir/usr/lib/systemd/user/snapsort.service"
make -s uninstall DESTDIR="$destdir" PREFIX=/usr
left=$(find "$destdir" ! -type d)
if [ -n "$left" ]; then echo "make uninstall left: $left" >&2; exit 1; fi
home=$scratch/user-home
HOME=$home make -s install-files PREFIX="$home/.local" INSTALLED_BIN="$built" INSTALLED_VISION="$built_vision"
grep -qx "ExecStart=$home/.local/bin/snapsort agent" "$home/.local/share/systemd/user/snapsort.service"
# There, $XDG_DATA_HOME/snapsort holds both the shipped files and the user's demo library: the
# demo must not mix the two, and uninstall must keep the user's.
env -i HOME="$home" PATH=/usr/bin:/bin LANG=C.UTF-8 "$home/.local/bin/snapsort" demo >/dev/null
for f in share/demo/*; do
    if [ -e "$home/.local/share/snapsort/demo-library/${f##*/}" ]; then
        echo "the demo library mixes in the shipped ${f##*/}" >&2; exit 1
    fi
done
HOME=$home make -s uninstall PREFIX="$home/.local"
left=$(find "$home/.local" ! -type d)
if [ -n "$(printf '%s\n' "$left" | grep -v "^$home/.local/share/snapsort/demo-library/")" ] ||
    [ -z "$(printf '%s\n' "$left" | grep "^$home/.local/share/snapsort/demo-library/")" ]; then
    echo "make uninstall left, or removed the user's demo library: ${left:-(nothing)}" >&2; exit 1
fi

echo "package check: ok in $((SECONDS - start))s"
