#!/usr/bin/env python3
"""make_rescan_tree.py --count N --out DIR (--from LIBRARY [--distinct] | --tiny)

A stand-in for make_scale.py when generating 100 000 real JPEGs is too slow for the machine
(5 min on 2 idle cores, much longer on a shared one): N files in make_scale's layout (YYYY/MM/DD
day folders of <= 250 files), each a hard link to one of the real JPEGs under --from (a
make_scale library, or any folder of JPEGs). A rescan of unchanged files only stats them, so
what the files contain does not change the rescan's cost; the first scan, however, analyzes every
link as its own file. With --tiny every name links to one 16-byte non-image file, so the first
scan is quick (each ends `unreadable`) and only the rescan is measured.

With --distinct each name is a copy instead, whose EXIF date fields (every
"YYYY:MM:DD HH:MM:SS" in the file's first 64 KB) say the time in its name, the files 97 s apart
as in make_scale: every file is its own content and its own capture, so a few thousand
make_scale photos stand for a natural library of N photos when making N of them is too slow (the
first scan's memory, issue 30 item 6). A source's pixels come back only len(sources) files
later, hours away on the timeline, where the grouper never compares them; links would make
every name a copy of its source's other names (one file under 2 000 names is ~130 000 pairs).
"""
import argparse, datetime as dt, os, re

ap = argparse.ArgumentParser()
ap.add_argument("--count", type=int, required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--from", dest="src")
ap.add_argument("--tiny", action="store_true")
ap.add_argument("--distinct", action="store_true", help="copies with their own capture time (needs --from)")
a = ap.parse_args()
sources = []
if a.tiny:
    os.makedirs(a.out, exist_ok=True)
    # ext4 allows 65 000 links to one inode: one seed per 50 000 names.
    for k in range((a.count + 49_999) // 50_000):
        seed = os.path.join(os.path.dirname(os.path.abspath(a.out)), f"tiny-seed-{k}.jpg")
        with open(seed, "wb") as f:
            f.write(b"not a real jpeg\n")
        sources.append(seed)
else:
    for d, _, fs in os.walk(a.src):
        sources += [os.path.join(d, f) for f in fs if f.lower().endswith(".jpg")]
    sources.sort()
if not sources:
    raise SystemExit("no JPEGs under --from")
if a.distinct and a.tiny:
    raise SystemExit("--distinct copies real JPEGs (--from)")
DATE = re.compile(rb"\d{4}:\d\d:\d\d \d\d:\d\d:\d\d")
t0 = dt.datetime(2019, 1, 1, 8, 0, 0)
for i in range(a.count):
    day = t0 + dt.timedelta(days=i // 250)
    folder = os.path.join(a.out, f"{day:%Y}", f"{day:%m}", f"{day:%d}")
    os.makedirs(folder, exist_ok=True)
    ts = day + dt.timedelta(seconds=(97 if a.distinct else 37) * (i % 250))
    dst = os.path.join(folder, f"IMG_{ts:%Y%m%d_%H%M%S}_{i:06d}.jpg")
    if os.path.exists(dst):
        continue
    if a.distinct:
        with open(sources[i % len(sources)], "rb") as f:
            data = f.read()
        stamp = ts.strftime("%Y:%m:%d %H:%M:%S").encode()
        with open(dst, "wb") as f:
            f.write(DATE.sub(stamp, data[:65536]) + data[65536:])
        t = ts.replace(tzinfo=dt.timezone.utc).timestamp()
        os.utime(dst, (t, t))
    else:
        os.link(sources[i // 50_000] if a.tiny else sources[i % len(sources)], dst)
