"""ShelfNet: a small CenterNet-style single-class detector for dense shelves, built for CPU inference.

Plain 3x3 conv/BN/ReLU backbone trained from random weights down to stride 32 (MobileShelfNet swaps it for
a pretrained MobileNetV2), a light top-down FPN back to stride 4, and three 1x1 heads at stride 4:
  heatmap [N,1,H/4,W/4]  product-centre probability (sigmoid in the graph),
  size    [N,2,H/4,W/4]  box width, height in input pixels (exp in the graph),
  offset  [N,2,H/4,W/4]  sub-cell centre offset, in cells.
Input: [N,3,H,W] RGB float 0..255 (normalised in the graph), H and W multiples of 32.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from mobilenet_v2 import CHANNELS as MNV2_CHANNELS, MobileNetV2

STRIDE = 4
LOG_SIZE_MAX = 6.0  # the size head is clamped here before exp: e^6 x STRIDE is far past any product
# Channel widths per stage and head width of the from-scratch ShelfNets; 'wide' has about 4x the compute of
# 'small' (27 ms per 640x640 on 2 CPU threads against 8). The shipped detector is neither: it is 'mnv2'
# (MobileShelfNet, models/MODEL_CARD.md).
ARCHS = {'small': ((16, 32, 48, 64, 96), 32), 'wide': ((32, 64, 96, 128, 192), 64)}
MOBILE_ARCHS = {'mnv2': 64, 'mnv2-tags': 32}  # MobileShelfNet (and the price-tag detector's MobileTagNet): FPN and head width
TAG_BLOCKS = 13  # MobileTagNet keeps MobileNetV2's blocks up to its stride 16 tap (block 12)


def cbr(cin, cout, stride=1, k=3):
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, k // 2, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Res(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.a = cbr(c, c)
        self.b = nn.Sequential(nn.Conv2d(c, c, 3, 1, 1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        return F.relu(x + self.b(self.a(x)))


class CenterHeads(nn.Module):
    """What every detector here shares on top of its backbone's stride 4-32 maps (`maps`): the top-down FPN
    back to stride 4 (l32, l16, l8, smooth8, l4, trunk) and the CenterNet heads (hm, wh, off)."""

    def features(self, x):
        c4, c8, c16, c32 = self.maps(x)
        p = self.l32(c32)
        p = self.l16(c16) + F.interpolate(p, scale_factor=2.0, mode='nearest')
        p = self.smooth8(self.l8(c8) + F.interpolate(p, scale_factor=2.0, mode='nearest'))
        p = self.l4(c4) + F.interpolate(p, scale_factor=2.0, mode='nearest')
        return self.trunk(p)

    def forward_raw(self, x):
        f = self.features(x)
        return self.hm(f), self.wh(f), self.off(f)

    def forward(self, x):
        hm, wh, off = self.forward_raw(x)
        return outputs(torch.sigmoid(hm), wh, off)


class ShelfNet(CenterHeads):
    def __init__(self, arch='small'):
        super().__init__()
        w, head = ARCHS[arch]
        self.s4 = nn.Sequential(cbr(3, w[0], 2), cbr(w[0], w[1], 2))
        self.s8 = nn.Sequential(cbr(w[1], w[2], 2), Res(w[2]))
        self.s16 = nn.Sequential(cbr(w[2], w[3], 2), Res(w[3]), Res(w[3]))
        self.s32 = nn.Sequential(cbr(w[3], w[4], 2), Res(w[4]))
        self.l32 = nn.Conv2d(w[4], head, 1)
        self.l16 = nn.Conv2d(w[3], head, 1)
        self.l8 = nn.Conv2d(w[2], head, 1)
        self.l4 = nn.Conv2d(w[1], head, 1)
        self.smooth8 = cbr(head, head)
        self.trunk = cbr(head, head)
        self.hm = nn.Conv2d(head, 1, 1)
        self.wh = nn.Conv2d(head, 2, 1)
        self.off = nn.Conv2d(head, 2, 1)
        nn.init.constant_(self.hm.bias, -4.6)  # prior 0.01: focal loss starts stable
        self.register_buffer('mean', torch.tensor([123.7, 116.3, 103.5]).view(1, 3, 1, 1))
        self.register_buffer('std', torch.tensor([58.4, 57.1, 57.4]).view(1, 3, 1, 1))

    def maps(self, x):
        x = (x - self.mean) / self.std
        c4 = self.s4(x); c8 = self.s8(c4); c16 = self.s16(c8); c32 = self.s32(c16)
        return c4, c8, c16, c32


class MobileShelfNet(CenterHeads):
    """ShelfNet's FPN and heads on MobileNetV2-1.0 with weights learnt on real photos (Open Images, through
    MediaPipe Objectron's SSD; pretrained_backbone.py): its stride 4, 8, 16 and 32 maps (24, 32, 96, 320
    channels) take the place of ShelfNet's stages. Same input, outputs and forward_raw as ShelfNet.

    The backbone's BatchNorm is folded into its convolutions (as shipped), so it trains as plain
    convolutions with biases; the FPN and heads keep BatchNorm."""

    def __init__(self, arch='mnv2'):
        super().__init__()
        head = MOBILE_ARCHS[arch]
        self.backbone = MobileNetV2()
        self.l32 = nn.Conv2d(MNV2_CHANNELS[3], head, 1)
        self.neck_and_heads(head)

    def neck_and_heads(self, head):
        """The lateral convolutions from strides 16, 8 and 4, the FPN's smoothing and the CenterNet heads,
        `head` channels wide (made in this order, so a seed draws the same initial weights)."""
        c4, c8, c16, _ = MNV2_CHANNELS
        self.l16 = nn.Conv2d(c16, head, 1)
        self.l8 = nn.Conv2d(c8, head, 1)
        self.l4 = nn.Conv2d(c4, head, 1)
        self.smooth8 = cbr(head, head)
        self.trunk = cbr(head, head)
        self.hm = nn.Conv2d(head, 1, 1)
        self.wh = nn.Conv2d(head, 2, 1)
        self.off = nn.Conv2d(head, 2, 1)
        nn.init.constant_(self.hm.bias, -4.6)

    def freeze(self, blocks):
        """Freeze the stem and the first `blocks` inverted-residual blocks (-1: the whole backbone), so
        the FPN and heads first learn on features the pretraining made; 0 unfreezes all."""
        n = len(self.backbone.blocks) if blocks < 0 else blocks
        self.backbone.stem.requires_grad_(n == 0)
        for i, b in enumerate(self.backbone.blocks):
            b.requires_grad_(i >= n)

    def maps(self, x):
        return self.backbone.features(x / 127.5 - 1)  # the range the SSD was trained on


class MobileTagNet(MobileShelfNet):
    """The price-tag detector (models/MODEL_CARD-price-tags.md): MobileShelfNet cut at stride 16. Tags are
    small, flat and need little context, so MobileNetV2's stride-32 blocks (two thirds of its weights, a
    tenth of its compute) are left out, and the FPN and heads are 32 channels wide: a file of about 2 MB.
    Same input, outputs and forward_raw as the product detector, so the app decodes it with the same code."""

    def __init__(self, arch='mnv2-tags'):
        CenterHeads.__init__(self)
        head = MOBILE_ARCHS[arch]
        self.backbone = MobileNetV2()
        self.backbone.blocks = self.backbone.blocks[:TAG_BLOCKS]
        self.neck_and_heads(head)

    def load_backbone(self, state):
        """The pretrained MobileNetV2's weights, less those of the blocks this network leaves out."""
        keep = {k: v for k, v in state.items() if not (k.startswith('blocks.') and int(k.split('.')[1]) >= TAG_BLOCKS)}
        self.backbone.load_state_dict(keep)

    def features(self, x):
        c4, c8, c16 = self.maps(x)
        p = self.l16(c16)
        p = self.smooth8(self.l8(c8) + F.interpolate(p, scale_factor=2.0, mode='nearest'))
        p = self.l4(c4) + F.interpolate(p, scale_factor=2.0, mode='nearest')
        return self.trunk(p)


def build(arch='small'):
    """The network of a checkpoint's `arch`: a ShelfNet width, a MobileShelfNet or the tag detector's MobileTagNet."""
    if arch == 'mnv2-tags':
        return MobileTagNet(arch)
    return MobileShelfNet(arch) if arch in MOBILE_ARCHS else ShelfNet(arch)


def outputs(score, log_size, offset):
    """The exported graph's outputs (heatmap, size, offset) from a centre score, a raw log-size head and
    the offset head: sizes in input pixels, their log clamped first."""
    return score, torch.exp(log_size.clamp(max=LOG_SIZE_MAX)) * STRIDE, offset


class ShelfEnsemble(nn.Module):
    """Several ShelfNets run on the same input, their heads averaged with fixed weights: one ONNX graph with
    ShelfNet's inputs and outputs, so the app needs no change. Heatmaps and offsets are averaged as they are,
    sizes geometrically (a product's box may be several times another's).

    Why: the small model (best on real photos) and the wide one (best on generated scenes) err on different
    products, and averaging their heatmaps keeps most of what either finds sure while the doubtful boxes only
    one of them fires on fall under the threshold (models/RESEARCH_LOG.md, "The ensemble").
    """

    def __init__(self, members, weights):
        super().__init__()
        assert len(members) == len(weights) > 0 and all(w > 0 for w in weights)
        self.members = nn.ModuleList(members)
        self.weights = [w / sum(weights) for w in weights]

    def forward(self, x):
        # Mixed before the output activations: the raw size head is a log size, so averaging it is the
        # geometric mean without an exp/log round trip in the graph.
        # Each member's log size is clamped before averaging, so one member's runaway size head cannot blow
        # up the mean (outputs' own clamp then changes nothing).
        raws = [m.forward_raw(x) for m in self.members]
        hm = sum(w * torch.sigmoid(r[0]) for w, r in zip(self.weights, raws))
        wh = sum(w * r[1].clamp(max=LOG_SIZE_MAX) for w, r in zip(self.weights, raws))
        off = sum(w * r[2] for w, r in zip(self.weights, raws))
        return outputs(hm, wh, off)
