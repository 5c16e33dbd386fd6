#!/usr/bin/env python3
"""False positives of the per-file groups on real photographs nobody tuned for (a measurement,
never a test).

    bench/wallpapers.py [--bin .build/release/snapsort] [--work /tmp/snapsort-wallpapers]
                        [--labels bench/wallpapers_labels.json] [--no-models] [--keep]

Debian ships deliberate, well-taken photographs as desktop wallpapers: night and dark
backgrounds, bright high-key frames, textures, macro with a shallow depth of field. None of
them is an Oops Shot, Blurry, a document, a screenshot or a QR code. The photographs among the
packages' files were chosen by eye and are listed in `bench/wallpapers_labels.json` (renders,
paintings and vector art are skipped there with why); a photo that is soft or dark on purpose
says which group it may join (`accept`), so the figure stays honest. A photo that any corpus of
../shared/eval was made from (`sources_manifest.json`, by SHA-256) is left out.

The packages are fetched with `apt-get download` into --work and unpacked with `dpkg-deb -x`
(nothing is installed); the photos are copied into one library, scanned with `--bin` (`scan
--quiet`, the models on unless --no-models: `snapsort-vision` must sit beside the binary), and
`snapsort report --jsonl` is read. Prints, per group, the false-positive rate (photos wrongly in
it over photos that should not be) with each false file's evidence: the metrics its rule reads
(the exposure's percentiles, clipping and the subject's detail over noise for Oops; the re-blur
of the sharpest tile and the subject's detail for Blurry), and a SUMMARY line.
"""
import argparse
import glob
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys

GROUPS = [("blurry", "Blurry"), ("oops", "Oops"), ("document", "Docs & Receipts"), ("screenshot", "Screenshots"), ("qr", "QR")]


def fetch(packages, work):
    """Each package unpacked under work/x/PKG (downloaded once)."""
    debs = os.path.join(work, "debs")
    os.makedirs(debs, exist_ok=True)
    roots = {}
    for pkg in packages:
        have = glob.glob(os.path.join(debs, pkg + "_*.deb"))
        if not have:
            subprocess.run(["apt-get", "download", pkg], cwd=debs, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            have = glob.glob(os.path.join(debs, pkg + "_*.deb"))
        root = os.path.join(work, "x", pkg)
        if not os.path.isdir(root):
            os.makedirs(os.path.dirname(root), exist_ok=True)
            subprocess.run(["dpkg-deb", "-x", have[0], root], check=True)
        version = subprocess.run(["dpkg-deb", "-f", have[0], "Version"], capture_output=True, text=True, check=True).stdout.strip()
        roots[pkg] = (root, version)
    return roots


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def image_size(path):
    """(width, height) of a PNG or JPEG from its header."""
    with open(path, "rb") as f:
        head = f.read(1 << 16)
    if head[:8] == b"\x89PNG\r\n\x1a\n":
        return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    i = 2
    while i + 9 < len(head):
        marker, length = head[i + 1], int.from_bytes(head[i + 2:i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return int.from_bytes(head[i + 7:i + 9], "big"), int.from_bytes(head[i + 5:i + 7], "big")
        i += 2 + length
    return 0, 0


def subject_detail(m):
    """GroupRules.subjectDetail: the sharpest 16×16 tile's Laplacian over the noise's."""
    if not m.get("lap_fine_max"):
        return 0.0
    noise = max(m.get("noise", 0), 0.5)
    return math.sqrt(m["lap_fine_max"] / (20 * noise * noise))


def evidence(group, o):
    m = o.get("metrics") or {}
    if not m:
        return "no metrics"
    sd = subject_detail(m)
    if group == "oops":
        return (
            f"p01/p50/p95/p99 {m['p01']}/{m['p50']}/{m['p95']}/{m['p99']} clipped {m['clipped_fraction']:.3f} "
            f"bright {m['bright_fraction']:.3f} spread p99-p01 {m['p99'] - m['p01']} noise {m['noise']:.2f} "
            f"subject/noise {sd:.1f} std {m['std_luma']:.1f} sat {m['saturation']:.3f}"
        )
    if group == "blurry":
        return (
            f"reblur_tile {m['reblur_tile']:.3f} reblur {m['reblur']:.3f} subject/noise {sd:.1f} lap_fine_max {m['lap_fine_max']:.0f} "
            f"noise {m['noise']:.2f} lap_tile_max {m['lap_tile_max']:.0f} std {m['std_luma']:.1f}"
        )
    if group == "document":
        return (
            f"sat {m['saturation']:.3f} p01/p50/p95 {m['p01']}/{m['p50']}/{m['p95']} edge {m['edge_density']:.4f} "
            f"flat {m['flat_fraction']:.2f}"
        )
    if group == "screenshot":
        return f"format {o.get('format')} {o.get('width')}x{o.get('height')} flat {m['flat_fraction']:.2f} camera {bool(o.get('camera'))}"
    return f"finder_patterns {m.get('finder_patterns')}"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=os.path.join(here, "..", ".build", "release", "snapsort"))
    ap.add_argument("--work", default="/tmp/snapsort-wallpapers", help="packages, library, database and report")
    ap.add_argument("--labels", default=os.path.join(here, "wallpapers_labels.json"))
    ap.add_argument("--manifest", default=os.path.join(here, "..", "..", "shared", "eval", "sources_manifest.json"))
    ap.add_argument("--no-models", action="store_true", help="scan with --no-models (tier 1 only)")
    ap.add_argument("--keep", action="store_true", help="keep the library, database and report in --work")
    ap.add_argument("--all-nebulae", action="store_true",
                    help="also every other telescope photograph of stellarium-data's nebulae/default 512 px and up "
                         "(not looked at one by one: counted apart, as 'more night skies')")
    a = ap.parse_args()
    labels = json.load(open(a.labels))
    used = set()
    if os.path.exists(a.manifest):
        used = {s["sha256"] for s in json.load(open(a.manifest)) if s.get("sha256")}
    roots = fetch(labels["packages"], a.work)

    lib = os.path.join(a.work, "library")
    shutil.rmtree(lib, ignore_errors=True)
    photos = {}
    for p in labels["photos"]:
        found = [(pkg, r[0] + p["path"]) for pkg, r in roots.items() if os.path.exists(r[0] + p["path"])]
        if not found:
            sys.exit(f"{p['path']}: in none of the packages")
        pkg, src = found[0]
        if sha256(src) in used:
            print(f"skipped (a corpus source): {p['path']}")
            continue
        dst = os.path.join(lib, pkg, os.path.basename(src))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst)
        photos[dst] = dict(p, package=pkg)

    extra = set()
    if a.all_nebulae and "stellarium-data" in roots:
        folder = roots["stellarium-data"][0] + "/usr/share/stellarium/nebulae/default"
        listed = {os.path.basename(p["path"]) for p in labels["photos"]}
        for name in sorted(os.listdir(folder)):
            src = os.path.join(folder, name)
            if name in listed or not name.lower().endswith((".png", ".jpg")) or min(image_size(src)) < 512:
                continue
            dst = os.path.join(lib, "stellarium-data-all", name)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(src, dst)
            extra.add(dst)

    db = os.path.join(a.work, "db.sqlite")
    for f in glob.glob(db + "*"):
        os.remove(f)
    scan = [a.bin, "--db", db, "scan", "--quiet"] + (["--no-models"] if a.no_models else []) + [lib]
    subprocess.run(scan, check=True)
    report = subprocess.run([a.bin, "--db", db, "report", "--jsonl"], capture_output=True, text=True, check=True).stdout
    with open(os.path.join(a.work, "report.jsonl"), "w") as f:
        f.write(report)
    got = {}
    for line in report.splitlines():
        if line.strip():
            o = json.loads(line)
            got[o["path"]] = o

    print(f"{len(photos)} photos from {', '.join(f'{k} {v[1]}' for k, v in roots.items())}; bin {a.bin}"
          f"{' (--no-models)' if a.no_models else ''}")
    summary = []
    for key, name in GROUPS:
        n, false, accepted = 0, [], 0
        for path, p in sorted(photos.items()):
            o = got.get(path, {})
            if key in p.get("accept", []):
                accepted += key in (o.get("groups") or [])
                continue
            n += 1
            if key in (o.get("groups") or []):
                false.append((path, o))
        rate = len(false) / n if n else 0.0
        note = f"; {accepted} accepted (soft or dark on purpose)" if accepted else ""
        print(f"{name:16s} false positives {len(false)}/{n} = {rate:.3f}{note}")
        for path, o in false:
            print(f"    {os.path.relpath(path, lib)}: {evidence(key, o)}")
        summary.append(f"{name} {len(false)}/{n}")
    if extra:
        print(f"more night skies: {len(extra)} other telescope photographs of stellarium-data (not looked at one by one)")
        for key, name in GROUPS:
            false = sorted(p for p in extra if key in (got.get(p, {}).get("groups") or []))
            print(f"{name:16s} {len(false)}/{len(extra)} = {len(false) / len(extra):.3f}")
            for path in false:
                print(f"    {os.path.relpath(path, lib)}: {evidence(key, got[path])}")
    # The models' groups are no per-file rule of this bench (which wallpaper is a pet is for a
    # person to say); they are listed for a look, night skies apart.
    for key in ("people", "pets", "food"):
        members = sorted(os.path.relpath(p, lib) for p in list(photos) + sorted(extra) if key in (got.get(p, {}).get("groups") or []))
        skies = sum(1 for m in members if m.startswith("stellarium-data"))
        print(f"(models) {key}: {len(members)} ({skies} of them telescope photographs): {', '.join(os.path.basename(m) for m in members)}")
    others = sum(1 for path in photos if set(got.get(path, {}).get("groups") or []) & {"unreadable"})
    if others:
        print(f"unreadable: {others}")
    print("SUMMARY false positives: " + "; ".join(summary))
    if not a.keep:
        shutil.rmtree(lib, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
