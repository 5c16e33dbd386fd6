#!/bin/sh
# Seeds made with ffmpeg and python3 (run from fuzz/ by `make seeds`); each a few KB at most.
set -e
cd "$(dirname "$0")"
F="-v error -y -f lavfi -i testsrc=size=32x24:rate=5"
[ -s corpus/jpeg/baseline.jpg ] || ffmpeg $F -frames:v 1 corpus/jpeg/baseline.jpg
[ -s corpus/png/rgb.png ] || ffmpeg $F -frames:v 1 corpus/png/rgb.png
[ -s corpus/webp/lossy.webp ] || ffmpeg $F -frames:v 1 -c:v libwebp corpus/webp/lossy.webp
[ -s corpus/webp/lossless.webp ] || ffmpeg $F -frames:v 1 -c:v libwebp -lossless 1 corpus/webp/lossless.webp
cp ../Tests/Fixtures/video/tiny.mp4 ../Tests/Fixtures/video/tiny.mov ../Tests/Fixtures/video/tiny.3gp corpus/box/
cp ../Tests/Fixtures/video/tiny.mkv ../Tests/Fixtures/video/tiny.webm corpus/ebml/
# A progressive JPEG and a JPEG with an APP1 EXIF block (for the APP1 walker and libexif).
[ -s corpus/jpeg/progressive.jpg ] || cjpeg -progressive -outfile corpus/jpeg/progressive.jpg /dev/stdin <<PPM
P3 2 2 255
255 0 0 0 255 0 0 0 255 255 255 255
PPM
python3 - <<'PY'
import struct
def ifd(entries, start, extra_at):
    out = struct.pack('<H', len(entries)); extra = b''
    for tag, typ, count, val in entries:
        if isinstance(val, bytes):
            if len(val) <= 4: out += struct.pack('<HHI', tag, typ, count) + val.ljust(4, b'\0')
            else:
                out += struct.pack('<HHII', tag, typ, count, extra_at + len(extra)); extra += val + (b'\0' if len(val) % 2 else b'')
        else: out += struct.pack('<HHII', tag, typ, count, val)
    return out + struct.pack('<I', 0), extra
jpeg = open('corpus/jpeg/baseline.jpg', 'rb').read()
# A CR2/DNG-like RAW: IFD0 with a JPEG strip and a SubIFD with a JPEGInterchangeFormat preview.
ifd0_at = 8; n0 = 6; ifd0_len = 2 + n0 * 12 + 4
sub_at = ifd0_at + ifd0_len; n1 = 3; sub_len = 2 + n1 * 12 + 4
blob_at = sub_at + sub_len
e0 = [(0x100, 4, 1, 32), (0x101, 4, 1, 24), (0x103, 3, 1, 6), (0x111, 4, 1, blob_at), (0x117, 4, 1, len(jpeg)), (0x14A, 4, 1, sub_at)]
e1 = [(0xFE, 4, 1, 1), (0x201, 4, 1, blob_at), (0x202, 4, 1, len(jpeg))]
a, _ = ifd(e0, ifd0_at, 0); b, _ = ifd(e1, sub_at, 0)
open('corpus/tiff/raw_like.cr2', 'wb').write(b'II*\0' + struct.pack('<I', 8) + a + b + jpeg)
# RW2 flavour: magic 0x55 and the JPEG as the JpgFromRaw (0x2E) value.
e = [(0x2E, 7, len(jpeg), 8 + 2 + 12 + 4)]
c, _ = ifd(e, 8, 0)
open('corpus/tiff/rw2_like.rw2', 'wb').write(b'IIU\0' + struct.pack('<I', 8) + c + jpeg)
# ORF flavour: magic "RO", IFD0 -> EXIF IFD -> Olympus maker note -> CameraSettings -> preview.
note_sub = 12 + 2 + 12 + 4; note_data = note_sub + 2 + 24 + 4
note = b'OLYMPUS\0II\x03\0' + struct.pack('<HHHII', 1, 0x2020, 13, 1, note_sub) + struct.pack('<I', 0)
note += struct.pack('<H', 2) + struct.pack('<HHII', 0x101, 4, 1, note_data) + struct.pack('<HHII', 0x102, 4, 1, len(jpeg)) + struct.pack('<I', 0)
note += jpeg
exif_at = 8 + 2 + 12 + 4
d, _ = ifd([(0x8769, 4, 1, exif_at)], 8, 0)
e2, x2 = ifd([(0x927C, 7, len(note), note)], exif_at, exif_at + 2 + 12 + 4)
open('corpus/tiff/orf_makernote.orf', 'wb').write(b'IIRO' + struct.pack('<I', 8) + d + e2 + x2)
# An APP1 EXIF payload.
tiff = open('corpus/exif/camera.tiff', 'rb').read()
open('corpus/exif/app1.bin', 'wb').write(b'Exif\0\0' + tiff)
PY
