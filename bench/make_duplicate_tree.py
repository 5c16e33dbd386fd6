#!/usr/bin/env python3
"""make_duplicate_tree.py --photos N --copies K --out DIR

A duplicate-heavy library, as a careless backup makes (issue 30, item 6): N distinct small real
JPEGs (160×120, each its own smooth pattern, made with cjpeg from a PPM: no Python imaging
package needed) in `DIR/photos/`, and K - 1 byte-identical copies of each (real copies, not
links: SnapSort does not call two names of one file copies) in `DIR/backup-NN/`, with the same
names and mtimes (`cp -a`). Each name says when the photo was taken (IMG_YYYYMMDD_HHMMSS), the
photos 400 s apart, so the copies of a photo are one moment on the timeline and two photos are
never within the grouper's window: grouping is the duplicate sets alone, no alignment.

  bench/make_duplicate_tree.py --photos 600 --copies 83 --out /tmp/snapsort-dups/600x83   # 49 800 files
  bench/make_duplicate_tree.py --photos 200 --copies 50 --out /tmp/snapsort-dups/200x50   # 10 000 files
  bench/make_duplicate_tree.py --photos 200 --copies 50 --touched --out /tmp/snapsort-dups/200x50t
      # the same, each copy's metadata rewritten: pixel-identical files of other bytes
"""
import argparse, datetime as dt, math, os, shutil, subprocess

ap = argparse.ArgumentParser()
ap.add_argument("--photos", type=int, required=True)
ap.add_argument("--copies", type=int, required=True, help="files per photo, the original included")
ap.add_argument("--out", required=True)
ap.add_argument("--touched", action="store_true",
                help="each copy's metadata rewritten (a JPEG comment of its own after SOI), its pixels untouched:"
                     " every file its own bytes, the copies of a photo one picture")
a = ap.parse_args()

W, H = 160, 120
t0 = dt.datetime(2019, 1, 1, 8, 0, 0)
originals = os.path.join(a.out, "photos")
os.makedirs(originals, exist_ok=True)
names = []
for i in range(a.photos):
    ts = t0 + dt.timedelta(seconds=400 * i)
    name = f"IMG_{ts:%Y%m%d_%H%M%S}_{i:05d}.jpg"
    path = os.path.join(originals, name)
    if not os.path.exists(path):
        # A pattern of its own: two waves whose frequencies and phases come from i.
        fx, fy, ph = 1 + i % 7, 1 + (i // 7) % 5, i * 0.37
        px = bytearray()
        for y in range(H):
            for x in range(W):
                v = math.sin(fx * x / W * 6.283 + ph) + math.cos(fy * y / H * 6.283 - ph)
                px += bytes(((int(64 + 48 * v) + 17 * i) % 256, int(128 + 60 * v) % 256, (int(96 - 40 * v) + 29 * i) % 256))
        ppm = b"P6\n%d %d\n255\n" % (W, H) + bytes(px)
        with open(path, "wb") as f:
            f.write(subprocess.run(["cjpeg", "-quality", "90"], input=ppm, stdout=subprocess.PIPE, check=True).stdout)
        stamp = ts.replace(tzinfo=dt.timezone.utc).timestamp()
        os.utime(path, (stamp, stamp))
    names.append(name)
for k in range(1, a.copies):
    folder = os.path.join(a.out, f"backup-{k:02d}")
    os.makedirs(folder, exist_ok=True)
    for name in names:
        dst = os.path.join(folder, name)
        if not os.path.exists(dst):
            shutil.copy2(os.path.join(originals, name), dst)
            if a.touched:
                # As a tagger rewrites a photo's metadata: a COM segment of the copy's own; the
                # entropy-coded data, and so the pixels, stay the original's.
                with open(dst, "rb") as f:
                    data = f.read()
                note = b"backup %02d" % k
                segment = b"\xff\xfe" + (len(note) + 2).to_bytes(2, "big") + note
                with open(dst, "wb") as f:
                    f.write(data[:2] + segment + data[2:])
                shutil.copystat(os.path.join(originals, name), dst)
print(f"{a.photos * a.copies} files ({a.photos} photos × {a.copies}) under {a.out}")
