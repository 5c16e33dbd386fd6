#!/usr/bin/env bash
# Formats every Swift file with the toolchain's `swift format` and the checked-in .swift-format;
# `--lint` changes nothing and fails (exit 1) on any difference, as `make test` does.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
paths=(Package.swift Sources Tests fuzz)
if [ "${1:-}" = "--lint" ]; then
    if ! "$SWIFT" format lint --strict --recursive --parallel --configuration .swift-format "${paths[@]}"; then
        echo "format: the files above differ from the house format; run scripts/format.sh (or make format)" >&2
        exit 1
    fi
else
    "$SWIFT" format format --in-place --recursive --parallel --configuration .swift-format "${paths[@]}"
fi
