#!/usr/bin/env bash
# bench/holdout.sh OUT — held-out corpora: the DEV recipes (../shared/eval) run on photographs and
# clips that no DEV corpus was made from, to see whether the rules generalise (a measurement,
# never a test). Sources: bench/holdout/photos_manifest.json (42 photographs from scikit-image's
# and scikit-learn's sample data and Debian's lomiri-wallpapers, mate-backgrounds and dlib's
# examples, tagged by eye) and bench/holdout/video_manifest.json (6 clips of real footage from
# pd-extendedview, python-kivy-examples, forensics-samples-files and python3-mecavideo).
# The Debian packages are fetched with `apt-get download` and unpacked under OUT/pkgs (nothing
# is installed); the generators' own Debian packages are make-dev-corpus.sh's (run it once).
# Writes OUT/h1 (photos, seed 1), OUT/v1 and OUT/v2 (video bursts, seeds 1 and 2) and their
# copies without metadata (strip_metadata.py: -keep, -dump, -none). Score them as DEV:
#   snapsort --db D scan OUT/h1/library; snapsort --db D report --jsonl > R
#   python3 ../shared/eval/score.py --labels OUT/h1/labels.json --report R --root OUT/h1/library
set -eu
out=$(realpath -m "${1:?usage: bench/holdout.sh OUT}")
here=$(cd "$(dirname "$0")" && pwd)
eval=${EVAL:-$here/../../shared/eval}
mkdir -p "$out/pkgs/x"
venv=$out/.eval-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q pillow==13.0.0 numpy==2.4.6 piexif==1.1.3 opencv-python-headless==5.0.0.93 \
    ImageHash==4.3.2 scikit-image==0.26.0 matplotlib==3.11.2
# The photos' Debian packages, unpacked, and the manifest pointed at them.
python3 - "$here/holdout/photos_manifest.json" "$out" <<'PY'
import json, os, subprocess, sys
man, out = json.load(open(sys.argv[1])), sys.argv[2]
for pkg, ver in sorted({(s["package"], s["package_version"]) for s in man if not s["package"].startswith("pypi:")}):
    dest = os.path.join(out, "pkgs", "x", pkg)
    if not os.path.isdir(dest):
        subprocess.run(["apt-get", "download", f"{pkg}={ver}"], cwd=os.path.join(out, "pkgs"), check=True)
        deb = [f for f in os.listdir(os.path.join(out, "pkgs")) if f.startswith(pkg + "_") and f.endswith(".deb")][0]
        subprocess.run(["dpkg-deb", "-x", os.path.join(out, "pkgs", deb), dest], check=True)
for s in man:
    if not s["package"].startswith("pypi:"):
        s["path"] = os.path.join(out, "pkgs", "x", s["package"], s["rel"].lstrip("/"))
    else:
        s["path"] = "/nonexistent/" + s["rel"]  # found through the venv's package (make_corpus.resolve)
json.dump(man, open(os.path.join(out, "photos_manifest.json"), "w"), indent=1)
PY
[ -e "$out/h1" ] || "$venv/bin/python" -W ignore "$eval/make_corpus.py" --set dev --out "$out/h1" --seed 1 --manifest "$out/photos_manifest.json"
for seed in 1 2; do
  [ -e "$out/v$seed" ] || "$venv/bin/python" -W ignore "$eval/make_video_bursts.py" --set holdout --out "$out/v$seed" --seed $seed \
      --manifest "$here/holdout/video_manifest.json" --cache "$out/video-src" --fetch
done
for c in h1 v1 v2; do
  for m in keep dump none; do
    [ -e "$out/$c-$m" ] || "$venv/bin/python" "$eval/strip_metadata.py" "$out/$c" "$out/$c-$m" --mode $m
  done
done
echo "held-out corpora in $out: h1 v1 v2 and their -keep -dump -none copies"
