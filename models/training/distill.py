"""Feature distillation toward the pretrained backbone on unlabelled real photos (train.py --distill DIR).

While the detector trains on generated shelves, a second small batch of real photos (photos the licence
allows training on: the Grocery Store Dataset's in-store photos, MIT) goes through the network's backbone
and through a frozen copy of the pretrained Open Images MobileNetV2; the squared difference of their stride
4/8/16/32 maps, relative to the pretrained maps' energy, is added to the loss.

Why: on the labelled real regions every step toward the generator's scenes has cost and every step of the
backbone back toward the pretrained weights has gained, up to 0.15 of the way (models/RESEARCH_LOG.md,
"Fourth session"). Moving the weights back is blunt: it also undoes what the generated scenes taught. Holding
the backbone's *answers on real photos* to the pretrained ones lets its weights move only in directions
that leave real-photo features alone (learning without forgetting, in feature space). Measured: it holds
the maps as asked and changes nothing on the labelled real photos (the same dev AP50 as the same run
without it; models/RESEARCH_LOG.md, "Fifth session"). Kept for runs that train longer than this CPU allows.

The real photos are shown as mosaics of 1x1 to 3x3 photos, so their products come at the sizes of products
on a shelf photo at the model's input (tens of pixels to a few hundred).

Usage (the term of trained checkpoints, as models/RESEARCH_LOG.md "Fifth session" reports it: 24 mosaics of
the Grocery Store val/ photos, seed 5):
    python3 distill.py ../../../shared/data/grocery-store-dataset/dataset/val/Packages CKPT.pt [CKPT.pt ...]
"""
import argparse

import cv2
import numpy as np
import torch
from torch.utils.data import Dataset

from dataset import list_photos
from mobilenet_v2 import MobileNetV2


class RealMosaics(Dataset):
    """uint8 RGB [3,S,S] mosaics of real photos under `folder` (recursively, *.jpg), flipped at random."""

    def __init__(self, folder, size=256, length=10 ** 7, seed=0):
        self.photos = list_photos(folder)
        self.size, self.length, self.seed = size, length, seed

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        rng = np.random.default_rng([self.seed, i, 7])
        S = self.size
        k = int(rng.integers(1, 4))
        out = np.empty((S, S, 3), np.uint8)
        edges = [round(j * S / k) for j in range(k + 1)]
        for r in range(k):
            for c in range(k):
                h, w = edges[r + 1] - edges[r], edges[c + 1] - edges[c]
                img = cv2.imread(self.photos[rng.integers(len(self.photos))])
                # A random square window (half to all of the photo), so a cell is not always the whole scene.
                side = int(min(img.shape[:2]) * rng.uniform(0.5, 1.0))
                y0 = int(rng.integers(0, img.shape[0] - side + 1)); x0 = int(rng.integers(0, img.shape[1] - side + 1))
                cell = cv2.resize(img[y0:y0 + side, x0:x0 + side], (w, h), interpolation=cv2.INTER_AREA)
                if rng.random() < 0.5:
                    cell = cell[:, ::-1]
                out[edges[r]:edges[r + 1], edges[c]:edges[c + 1]] = cell
        return torch.from_numpy(np.ascontiguousarray(out[:, :, ::-1].transpose(2, 0, 1)))


class FeatureDistiller:
    """The distillation term for one network: a frozen pretrained backbone as the teacher."""

    def __init__(self, state_dict, device='cpu'):
        self.teacher = MobileNetV2().to(device)
        self.teacher.load_state_dict(state_dict)
        self.teacher.eval().requires_grad_(False)
        if device == 'cpu':
            self.teacher = self.teacher.to(memory_format=torch.channels_last)

    def loss(self, model, real):
        """Mean over the four maps of ||student - teacher||^2 / ||teacher||^2 on uint8 real images [N,3,S,S]."""
        x = real.float().contiguous(memory_format=torch.channels_last)
        with torch.no_grad():
            want = self.teacher.features(x / 127.5 - 1)
        got = model.maps(x)
        terms = [((g.float() - w) ** 2).mean() / (w ** 2).mean().clamp(min=1e-6) for g, w in zip(got, want)]
        return sum(terms) / len(terms)


def main():
    ap = argparse.ArgumentParser(description='the distillation term of checkpoints on fixed real mosaics')
    ap.add_argument('photos'); ap.add_argument('checkpoints', nargs='+')
    ap.add_argument('--count', type=int, default=24); ap.add_argument('--size', type=int, default=256)
    ap.add_argument('--seed', type=int, default=5)
    a = ap.parse_args()
    from model import build
    from pretrained_backbone import load_state_dict
    torch.set_num_threads(2)
    mosaics = RealMosaics(a.photos, a.size, seed=a.seed)
    real = torch.stack([mosaics[i] for i in range(a.count)])
    distiller = FeatureDistiller(load_state_dict())
    for p in a.checkpoints:
        state = torch.load(p, map_location='cpu')
        model = build(state.get('arch', 'small'))
        if not hasattr(model, 'backbone'):
            raise SystemExit(f"{p} holds arch {state.get('arch', 'small')}: no pretrained backbone to compare with")
        model.load_state_dict(state['model']); model.eval()
        with torch.no_grad():
            print(f'{p}: {distiller.loss(model.to(memory_format=torch.channels_last), real).item():.4f}', flush=True)


if __name__ == '__main__':
    main()
