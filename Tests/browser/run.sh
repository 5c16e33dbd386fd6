#!/usr/bin/env bash
# Runs the review page's browser tests in headless Chromium (Debian's /usr/bin/chromium).
# Usage: Tests/browser/run.sh URL_WITH_TOKEN HOME_DIR LIBRARY_ROOT ARTIFACTS_DIR
# Python packages go to a private venv under .build/ (Playwright from PyPI, pinned in
# requirements.txt); Playwright's browser download is never used.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
venv="${SNAPSORT_BROWSER_VENV:-$repo/.build/browser-venv}"
want=$(grep -v '^#' "$here/requirements.txt" | tr -d ' \n')
if ! "$venv/bin/python" -c "import playwright" 2>/dev/null || [ "$(cat "$venv/.requirements" 2>/dev/null)" != "$want" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
    echo "$want" > "$venv/.requirements"
fi
exec "$venv/bin/python" "$here/test_page.py" "$@"
