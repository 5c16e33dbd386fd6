#!/usr/bin/env python3
"""make_mix_tree.py --files N --out DIR   (a Python with numpy and Pillow: the eval venv's)

A library of every kind at once, for bench/memory.py's `mix` tree (issue 40 item 3, issue 39
item 6: the content search runs library-wide for photos without a capture time). Four quarters:
  camera/   distinct photos (160x120, smooth random scenes), EXIF DateTimeOriginal and a
            camera name, 400 s apart;
  backup/   byte copies of camera/ (same names, same mtimes, as `cp -a`);
  export/   re-encodes of camera/ at another quality and a little brighter, no EXIF, written by
            a copy in one go (mtimes within a second): pixels that match, bytes that do not;
  chat/     no EXIF and names that carry no time (download_NNNNN.jpg), mtimes 40 s apart: half
            distinct pictures, half re-encodes of the other half (a chat that sent a photo
            twice), so the hash index finds pairs among photos without a time of their own.

  /tmp/snapsort-eval/.eval-venv/bin/python bench/make_mix_tree.py --files 20000 --out /tmp/mix
"""
import argparse, datetime as dt, os, shutil

import numpy as np
from PIL import Image

ap = argparse.ArgumentParser()
ap.add_argument("--files", type=int, required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--seed", type=int, default=40)
a = ap.parse_args()

W, H = 160, 120
q = max(1, a.files // 4)
rng = np.random.default_rng(a.seed)
t0 = dt.datetime(2019, 1, 1, 8, 0, 0, tzinfo=dt.timezone.utc)


def scene():
    """A smooth scene of its own: a coarse random grid upsampled, plus a gradient."""
    coarse = rng.integers(0, 256, size=(6, 8, 3), dtype=np.uint8)
    im = Image.fromarray(coarse, "RGB").resize((W, H), Image.BICUBIC)
    arr = np.asarray(im, dtype=np.int16) + rng.integers(-40, 40) * np.linspace(0, 1, W)[None, :, None].astype(np.int16)
    return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGB")


def brighter(im, k):
    return Image.fromarray(np.clip(np.asarray(im, dtype=np.int16) + k, 0, 255).astype(np.uint8), "RGB")


def stamp(path, t):
    s = t.timestamp()
    os.utime(path, (s, s))


for d in ("camera", "backup", "export", "chat"):
    os.makedirs(os.path.join(a.out, d), exist_ok=True)
copy_time = dt.datetime(2024, 5, 1, 12, 0, 0, tzinfo=dt.timezone.utc)
for i in range(q):
    ts = t0 + dt.timedelta(seconds=400 * i)
    name = f"IMG_{ts:%Y%m%d_%H%M%S}.jpg"
    cam = os.path.join(a.out, "camera", name)
    im = scene()
    if not os.path.exists(cam):
        exif = Image.Exif()
        exif[0x0110] = "Bench Camera"
        exif.get_ifd(0x8769)[0x9003] = f"{ts:%Y:%m:%d %H:%M:%S}"  # DateTimeOriginal
        im.save(cam, "JPEG", quality=90, exif=exif.tobytes())
        stamp(cam, ts)
        shutil.copy2(cam, os.path.join(a.out, "backup", name))
        exp = os.path.join(a.out, "export", f"export_{i:05d}.jpg")
        brighter(im, 6).save(exp, "JPEG", quality=75)
        stamp(exp, copy_time + dt.timedelta(milliseconds=i % 900))
    chat = os.path.join(a.out, "chat", f"download_{i:05d}.jpg")
    if not os.path.exists(chat):
        if i % 2 == 1:
            # The photo before it sent again: re-encoded, a little darker.
            prev = Image.open(os.path.join(a.out, "chat", f"download_{i - 1:05d}.jpg")).convert("RGB")
            brighter(prev, -5).save(chat, "JPEG", quality=70)
        else:
            scene().save(chat, "JPEG", quality=85)
        stamp(chat, dt.datetime(2023, 3, 1, tzinfo=dt.timezone.utc) + dt.timedelta(seconds=40 * i))
print(f"{4 * q} files under {a.out}: {q} camera, {q} byte copies, {q} re-encodes, {q} without EXIF")
