#!/bin/sh
# fuzz/run.sh NAME [SECONDS]  — runs one harness on its corpus (new inputs go to corpus/NAME,
# crashes to crashes/NAME). NAME: jpeg jpegq png exif heif webp tiff box ebml.
set -e
cd "$(dirname "$0")"
name=$1; secs=${2:-180}
mkdir -p "crashes/$name" "work/$name"
exec "bin/${name}_fuzz" -max_total_time="$secs" -max_len=262144 -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="crashes/$name/" -print_final_stats=1 "work/$name" "corpus/$name"
