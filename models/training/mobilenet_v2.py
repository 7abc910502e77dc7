"""MobileNetV2-1.0 (Sandler et al., 2018) as TensorFlow builds it, for weights ported from a TFLite file
(pretrained_backbone.py): BatchNorm folded into each convolution's bias, ReLU6, and TensorFlow's SAME
padding, which pads a stride-2 convolution on an even side by 0 before and 1 after (PyTorch's symmetric
padding would shift every later feature by half a pixel).

Inputs are NCHW RGB scaled to -1..1 (as the SSD it comes from was trained); `features` returns the maps at
strides 4, 8, 16 and 32 (24, 32, 96 and 320 channels). The final 1x1 to 1280 channels (Conv_1) is not
ported: a detector's FPN does not need it.
"""
import math

import torch.nn as nn
import torch.nn.functional as F

# (expansion t, output channels c, repeats n, first stride s): the paper's table 2
SETTINGS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]
TAPS = {2: 4, 5: 8, 12: 16, 16: 32}  # block index -> the stride of its output, the features handed on
CHANNELS = (24, 32, 96, 320)


def same_pads(size, k, stride):
    """TensorFlow SAME padding of one side: (before, after), the odd pixel after."""
    total = max((math.ceil(size / stride) - 1) * stride + k - size, 0)
    return total // 2, total - total // 2


class SameConv(nn.Conv2d):
    """Conv2d (with bias: the folded BatchNorm) padded as TensorFlow's SAME. The pads come from the input's
    size; in an exported graph they are those of the example input, which hold for every input whose sides
    are multiples of 32 (the detector's contract)."""

    def __init__(self, cin, cout, k, stride=1, groups=1):
        super().__init__(cin, cout, k, stride, 0, groups=groups, bias=True)

    def forward(self, x):
        k, s = self.kernel_size[0], self.stride[0]
        if k == 1 and s == 1:
            return F.conv2d(x, self.weight, self.bias)
        # int(): constants in a traced graph, not arithmetic on the traced shape
        t, b = same_pads(int(x.shape[2]), k, s)
        l, r = same_pads(int(x.shape[3]), k, s)
        if t == b and l == r:
            return F.conv2d(x, self.weight, self.bias, s, (t, l), groups=self.groups)
        return F.conv2d(F.pad(x, (l, r, t, b)), self.weight, self.bias, s, groups=self.groups)


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, t):
        super().__init__()
        mid = cin * t
        self.expand = SameConv(cin, mid, 1) if t != 1 else None
        self.depthwise = SameConv(mid, mid, 3, stride, groups=mid)
        self.project = SameConv(mid, cout, 1)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = F.relu6(self.expand(x)) if self.expand is not None else x
        y = self.project(F.relu6(self.depthwise(y)))
        return x + y if self.residual else y


class MobileNetV2(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = SameConv(3, 32, 3, 2)
        blocks, cin = [], 32
        for t, c, n, s in SETTINGS:
            for i in range(n):
                blocks.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        self.blocks = nn.ModuleList(blocks)

    def convs(self):
        """The convolutions in the order TensorFlow's graph runs them (the weight port's order)."""
        yield self.stem
        for b in self.blocks:
            yield from (m for m in (b.expand, b.depthwise, b.project) if m is not None)

    def features(self, x):
        """x: NCHW in -1..1 -> [stride 4, 8, 16, 32 maps]."""
        x = F.relu6(self.stem(x))
        out = []
        for i, b in enumerate(self.blocks):
            x = b(x)
            if i in TAPS:
                out.append(x)
        return out
