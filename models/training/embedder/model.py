"""ProductNet: a small CNN that maps a product crop to a 128-d unit vector; products that look alike
(same SKU under another viewpoint, light or background) land close together.

Input `image` [N,3,96,96] float32 RGB 0..255 (normalisation in the graph), the crop resized to 96x96
without keeping its aspect (as the app's identification does). Output `embedding` [N,128], L2-normalised.
About 95 M multiply-adds per crop, so a shelf of 100 products embeds in a few hundred ms on one core.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

SIZE = 96
DIM = 128


def conv(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Residual(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.a = conv(c, c)
        self.b = nn.Sequential(nn.Conv2d(c, c, 3, 1, 1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        return F.relu(x + self.b(self.a(x)))


class ProductNet(nn.Module):
    def __init__(self, dim=DIM):
        super().__init__()
        self.register_buffer('mean', torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1) * 255)
        self.register_buffer('std', torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1) * 255)
        self.features = nn.Sequential(
            conv(3, 24, 2), conv(24, 24),          # 48
            conv(24, 48, 2), Residual(48),         # 24
            conv(48, 96, 2), Residual(96),         # 12
            conv(96, 160, 2), Residual(160),       # 6
        )
        # Average pooling keeps the overall look, max pooling the most distinctive print (a logo).
        self.head = nn.Linear(320, dim)

    def forward(self, image):
        f = self.features((image - self.mean) / self.std)
        f = torch.cat([f.mean((2, 3)), f.amax((2, 3))], 1)
        return F.normalize(self.head(f), dim=1)
