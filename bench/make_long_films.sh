#!/bin/sh
# Two-hour films with long GOPs, made cheaply, to measure what one video may cost (issue 44
# item 4): bench/make_long_films.sh [OUT]   (default /tmp/snapsort-long-films)
#   film-h264-g600.mp4       1280×720 H.264, a keyframe every 600 frames (24 s), no scene cuts
#   film-mpeg2-opengop.mpg   720×576 MPEG-2 in MPEG-PS, open GOPs of 300 frames with B-frames
# One minute of opencv-doc's vtest.avi is encoded once and repeated to 2 h with -stream_loop and
# -c copy (about 1.6 GB in all; seconds to make). Measure with
#   bench/video_copies.py --films OUT --no-quality --no-cost
set -eu
OUT=${1:-/tmp/snapsort-long-films}
CV=/usr/share/doc/opencv-doc/examples/data
mkdir -p "$OUT"
ff() { nice -n 5 ffmpeg -nostdin -v error -y "$@"; }
ff -i "$CV/vtest.avi" -t 60 -vf 'scale=1280:720,fps=25,format=yuv420p' -c:v libx264 -preset ultrafast -crf 30 \
    -g 600 -keyint_min 600 -sc_threshold 0 -an "$OUT/seg-h264.mp4"
ff -stream_loop 119 -i "$OUT/seg-h264.mp4" -c copy "$OUT/film-h264-g600.mp4"
ff -i "$CV/vtest.avi" -t 60 -vf 'scale=720:576,fps=25,format=yuv420p' -c:v mpeg2video -q:v 6 -g 300 -bf 2 \
    -sc_threshold 1000000000 -an -f vob "$OUT/seg-mpeg2.mpg"
ff -stream_loop 119 -i "$OUT/seg-mpeg2.mpg" -c copy -f vob "$OUT/film-mpeg2-opengop.mpg" 2>/dev/null
rm -f "$OUT/seg-h264.mp4" "$OUT/seg-mpeg2.mpg"
ls -la "$OUT"
