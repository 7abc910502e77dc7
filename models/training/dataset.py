"""Training samples from generated shelves: random scale, crop and flip, with CenterNet targets.

Targets at stride 4, one per product: an elliptical Gaussian on the heatmap whose spread follows the
box (TTFNet-style, so neighbours in dense rows stay separate), log box size and the sub-cell offset at
the centre cell.
"""
import glob
import json
import math
import os

import cv2
import numpy as np
import torch
from torch.utils.data import Dataset

from model import STRIDE

MAX_OBJ = 600
MIN_TAG_SIDE = 6  # tags (--target tags) with a shorter side in the crop, in px, are ignored regions


def list_samples(folder):
    return sorted(f[:-5] for f in glob.glob(os.path.join(folder, '*.json')))


def list_photos(folder):
    """Every .jpg under `folder`, recursively, sorted; unlabelled real photos (--fda, --distill)."""
    photos = sorted(glob.glob(os.path.join(folder, '**', '*.jpg'), recursive=True))
    if not photos:
        raise ValueError(f'no .jpg photos under {folder}')
    return photos


# Heatmap target inside an ignored region (pseudo_label.py: doubtful teacher boxes, the hand-held product):
# just under 1, so the focal loss's negative weight (1 - target)^4 vanishes there without making a positive.
IGNORE = 1 - 1e-3


def load_sample(stem, target='boxes'):
    """(BGR image, boxes (N,4), ignored regions (M,4): none but in pseudo-labelled scenes).

    target 'tags': the scene's price tags are the boxes, and its hanging price signs the ignored regions
    (generator.py: a labeller might box them as tags or not)."""
    img = cv2.imread(stem + '.jpg')
    with open(stem + '.json') as fh:
        d = json.load(fh)
    if target == 'tags':
        if 'tags' not in d:
            raise ValueError(f'{stem}.json has no "tags": generated before generator.py recorded them')
        return (img, np.array(d['tags'], np.float32).reshape(-1, 4),
                np.array(d.get('signs', []) + d.get('ignore', []), np.float32).reshape(-1, 4))
    return (img, np.array(d['boxes'], np.float32).reshape(-1, 4),
            np.array(d.get('ignore', []), np.float32).reshape(-1, 4))


def draw_targets(boxes, out_h, out_w, alpha=0.54, ignore=()):
    hm = np.zeros((out_h, out_w), np.float32)
    for x1, y1, x2, y2 in ignore:
        c0, r0 = max(0, int(x1 // STRIDE)), max(0, int(y1 // STRIDE))
        c1, r1 = min(out_w, int(math.ceil(x2 / STRIDE))), min(out_h, int(math.ceil(y2 / STRIDE)))
        hm[r0:r1, c0:c1] = IGNORE
    ind = np.zeros(MAX_OBJ, np.int64); wh = np.zeros((MAX_OBJ, 2), np.float32)
    off = np.zeros((MAX_OBJ, 2), np.float32); msk = np.zeros(MAX_OBJ, np.float32)
    k = 0
    for x1, y1, x2, y2 in boxes[:MAX_OBJ]:
        w, h = (x2 - x1) / STRIDE, (y2 - y1) / STRIDE
        cx, cy = (x1 + x2) / 2 / STRIDE, (y1 + y2) / 2 / STRIDE
        ix, iy = int(cx), int(cy)
        if not (0 <= ix < out_w and 0 <= iy < out_h):
            continue
        sx, sy = max(alpha * w / 6, 0.4), max(alpha * h / 6, 0.4)
        rx, ry = int(3 * sx) + 1, int(3 * sy) + 1
        xs = np.arange(max(0, ix - rx), min(out_w, ix + rx + 1)); ys = np.arange(max(0, iy - ry), min(out_h, iy + ry + 1))
        g = np.exp(-((xs[None, :] - ix) ** 2) / (2 * sx * sx) - ((ys[:, None] - iy) ** 2) / (2 * sy * sy))
        sub = hm[ys[0]:ys[-1] + 1, xs[0]:xs[-1] + 1]
        np.maximum(sub, g, out=sub)
        ind[k] = iy * out_w + ix; wh[k] = (math.log(max(w, 0.25)), math.log(max(h, 0.25)))
        off[k] = (cx - ix, cy - iy); msk[k] = 1; k += 1
    return hm, ind, wh, off, msk


class ShelfCrops(Dataset):
    """Random crops of size `size` from the generated shelves (rescans the folder: generation may still run)."""

    def __init__(self, folder, size=384, length=10 ** 7, seed=0, recent_from=None, recent_frac=0.5, photo_aug=False,
                 fda_dir=None, fda_beta=0.01, fda_prob=0.5, target='boxes', shelf_aug=False):
        # recent_from: draw recent_frac of the samples from scenes numbered >= recent_from (scenes a later
        # generator style added late in a run, which would otherwise be a small share of it).
        self.folder, self.size, self.length, self.seed = folder, size, length, seed
        self.recent_from, self.recent_frac = recent_from, recent_frac
        self.photo_aug = photo_aug
        self.target, self.shelf_aug = target, shelf_aug
        self.fda = list_photos(fda_dir) if fda_dir else []
        self.fda_beta, self.fda_prob = fda_beta, fda_prob
        self._split(list_samples(folder))

    def _split(self, stems):
        self.stems = stems
        self.recent = [s for s in stems if self.recent_from is not None and int(os.path.basename(s)) >= self.recent_from]

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        """(uint8 RGB image [3,S,S], heatmap, indices, log sizes, offsets, mask, jitter [4]).

        The image stays uint8 and the colour jitter is returned as (gain r, g, b, bias) for the trainer to
        apply on its device: float work per pixel is what made the loader the bottleneck on a GPU."""
        rng = np.random.default_rng([self.seed, i])
        if i % 500 == 0:
            self._split(list_samples(self.folder))
        pool = self.recent if self.recent and rng.random() < self.recent_frac else self.stems
        img, boxes, ignore = load_sample(pool[rng.integers(len(pool))], self.target)
        s = math.exp(rng.uniform(math.log(0.6), math.log(1.5)))
        S = self.size; H, W = img.shape[:2]
        # Crop the source window that becomes the S x S sample, then resize only that window.
        c = max(1, round(S / s))
        k0 = S / c
        x0 = int(rng.integers(0, max(W - c, 0) + 1)); y0 = int(rng.integers(0, max(H - c, 0) + 1))
        big = boxes[np.minimum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]) * k0 >= MIN_TAG_SIDE] if len(boxes) else boxes
        if self.target == 'tags' and len(big) and rng.random() < 0.7:
            # Tags are a small share of a scene: most crops are placed over one, anywhere in the crop, so a
            # CPU-sized run sees many (the other crops teach what is not a tag).
            t = big[rng.integers(len(big))]
            x0 = int(np.clip((t[0] + t[2]) / 2 - c * rng.uniform(0.1, 0.9), 0, max(W - c, 0)))
            y0 = int(np.clip((t[1] + t[3]) / 2 - c * rng.uniform(0.1, 0.9), 0, max(H - c, 0)))
        win = img[y0:y0 + c, x0:x0 + c]
        if win.shape[0] < c or win.shape[1] < c:  # pad small images with a plain colour
            pad = np.empty((c, c, 3), np.uint8); pad[:] = rng.integers(0, 256, 3)
            pad[:win.shape[0], :win.shape[1]] = win; win = pad
        img = cv2.resize(win, (S, S), interpolation=cv2.INTER_AREA if c > S else cv2.INTER_LINEAR)
        k = S / c
        if len(boxes):
            full = (boxes - np.float32([x0, y0, x0, y0])) * k
            b = full.copy(); b[:, [0, 2]] = b[:, [0, 2]].clip(0, S); b[:, [1, 3]] = b[:, [1, 3]].clip(0, S)
            area = (full[:, 2] - full[:, 0]) * (full[:, 3] - full[:, 1])
            vis = (b[:, 2] - b[:, 0]).clip(0) * (b[:, 3] - b[:, 1]).clip(0)
            keep = (vis >= 0.3 * area) & (b[:, 2] - b[:, 0] >= 2) & (b[:, 3] - b[:, 1] >= 2)
            if self.target == 'tags':
                # A tag a few pixels high has no print to tell it from any small bright patch, and no price
                # to read: neither a positive nor a negative.
                tiny = keep & (np.minimum(b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]) < MIN_TAG_SIDE)
                if tiny.any():
                    t = b[tiny]
                    t = t[(t[:, 2] > t[:, 0]) & (t[:, 3] > t[:, 1])]
                    ignore = np.concatenate([ignore, t / k + np.float32([x0, y0, x0, y0])]).astype(np.float32)
                keep &= ~tiny
            # Mostly-hidden products are neither positives nor negatives: they would teach noise.
            boxes = b[keep]
        if len(ignore):
            ignore = (ignore - np.float32([x0, y0, x0, y0])) * k
            ignore[:, [0, 2]] = ignore[:, [0, 2]].clip(0, S); ignore[:, [1, 3]] = ignore[:, [1, 3]].clip(0, S)
            ignore = ignore[(ignore[:, 2] > ignore[:, 0]) & (ignore[:, 3] > ignore[:, 1])]
        if rng.random() < 0.5:
            img = img[:, ::-1]
            if len(boxes):
                boxes = boxes[:, [2, 1, 0, 3]] * np.float32([-1, 1, -1, 1]) + np.float32([S, 0, S, 0])
            if len(ignore):
                ignore = ignore[:, [2, 1, 0, 3]] * np.float32([-1, 1, -1, 1]) + np.float32([S, 0, S, 0])
        if self.shelf_aug:
            img, boxes, ignore = shelf_conditions(np.ascontiguousarray(img), boxes, ignore, rng)
        if self.photo_aug:
            img = degrade(img, rng)
        if self.fda and rng.random() < self.fda_prob:
            photo = cv2.imread(self.fda[rng.integers(len(self.fda))])
            b = band_half_width(self.size, self.fda_beta * rng.uniform(0.3, 1.0))
            img = fourier_style(img, low_amplitudes(photo, self.size, b), rng.uniform(0.5, 1.0))
        jitter = np.float32([1, 1, 1, 0])
        if rng.random() < 0.5:  # light / colour jitter on top of the generator's
            jitter[:3] = rng.uniform(0.7, 1.3) * rng.uniform(0.9, 1.1, 3); jitter[3] = rng.uniform(-20, 20)
        img = np.ascontiguousarray(img[:, :, ::-1].transpose(2, 0, 1))  # BGR HWC -> RGB CHW
        hm, ind, wh, off, msk = draw_targets(boxes, S // STRIDE, S // STRIDE, ignore=ignore)
        return (torch.from_numpy(img), torch.from_numpy(hm)[None], torch.from_numpy(ind), torch.from_numpy(wh),
                torch.from_numpy(off), torch.from_numpy(msk), torch.from_numpy(jitter))


def degrade(img, rng):
    """Phone-photo faults on top of the generator's own (for --photo-aug): softness, lost resolution,
    heavy JPEG, sensor noise, washed-out colour. Boxes are unchanged."""
    S = img.shape[0]
    img = np.ascontiguousarray(img)
    if rng.random() < 0.4:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.5))
    if rng.random() < 0.3:
        k = rng.uniform(0.4, 0.8); n = max(8, int(S * k))
        img = cv2.resize(cv2.resize(img, (n, n), interpolation=cv2.INTER_AREA), (S, S), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.3:
        _, enc = cv2.imencode('.jpg', img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 71))])
        img = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    if rng.random() < 0.3:
        noise = rng.normal(0, rng.uniform(2, 8), img.shape).astype(np.int16)
        img = np.clip(img.astype(np.int16) + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.2:
        gray = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        a = rng.uniform(0.3, 0.8)
        img = cv2.addWeighted(img, a, gray, 1 - a, 0)
    return img


def _warp_boxes(boxes, M, S):
    """Boxes through the 3x3 transform M (the box enclosing each warped box), clipped to the S x S crop;
    those left with under half their warped area or under 2 px a side are dropped."""
    if not len(boxes):
        return boxes
    c = np.stack([boxes[:, [0, 1]], boxes[:, [2, 1]], boxes[:, [2, 3]], boxes[:, [0, 3]]], 1).reshape(-1, 1, 2)
    c = cv2.perspectiveTransform(c.astype(np.float32), M).reshape(-1, 4, 2)
    full = np.concatenate([c.min(1), c.max(1)], 1)
    b = full.clip(0, S)
    area = (full[:, 2] - full[:, 0]) * (full[:, 3] - full[:, 1])
    vis = (b[:, 2] - b[:, 0]).clip(0) * (b[:, 3] - b[:, 1]).clip(0)
    return b[(vis >= 0.5 * area) & (b[:, 2] - b[:, 0] >= 2) & (b[:, 3] - b[:, 1] >= 2)].astype(np.float32)


def shelf_conditions(img, boxes, ignore, rng):
    """What a shop's shelf photo does to a small label, on top of the generator's camera (for --shelf-aug):
    a tilted or sideways view (perspective), a shaken hand (motion blur), uneven light (a dark end of the
    aisle, a shadow band under the shelf above) and glare on the plastic rail. Boxes follow the geometry."""
    S = img.shape[0]
    if rng.random() < 0.5:
        d = rng.uniform(0.03, 0.15) * S
        src = np.float32([[0, 0], [S, 0], [S, S], [0, S]])
        dst = (src + rng.uniform(-d, d, (4, 2))).astype(np.float32)
        M = cv2.getPerspectiveTransform(src, dst)
        img = cv2.warpPerspective(img, M, (S, S), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        boxes = _warp_boxes(boxes, M, S)
        ignore = _warp_boxes(ignore, M, S)
    if rng.random() < 0.25:
        n = int(rng.integers(3, 10)); k = np.zeros((n, n), np.float32)
        a = rng.uniform(0, np.pi); c = (n - 1) / 2
        cv2.line(k, (int(round(c - c * np.cos(a))), int(round(c - c * np.sin(a)))),
                 (int(round(c + c * np.cos(a))), int(round(c + c * np.sin(a)))), 1.0, 1)
        img = cv2.filter2D(img, -1, k / max(k.sum(), 1))
    f = None
    if rng.random() < 0.5:  # light falling off across the crop, and a darker band
        f = img.astype(np.float32)
        gy, gx = np.mgrid[0:S, 0:S].astype(np.float32) / S
        a = rng.uniform(0, 2 * np.pi)
        gain = 1 + rng.uniform(-0.5, 0.3) * (np.cos(a) * gx + np.sin(a) * gy - 0.5)
        if rng.random() < 0.5:
            y0 = rng.uniform(0, 1); h = rng.uniform(0.05, 0.3)
            gain = gain * (1 - rng.uniform(0.2, 0.6) * ((gy > y0) & (gy < y0 + h)))
        f *= gain[..., None]
        f = 255 * (np.clip(f, 0, 255) / 255) ** rng.uniform(0.7, 1.4)  # exposure
    if rng.random() < 0.2:  # glare: a soft bright streak
        f = img.astype(np.float32) if f is None else f
        m = np.zeros((S, S), np.float32)
        x = rng.uniform(0, S); w = rng.uniform(0.02, 0.12) * S; sl = rng.uniform(-0.5, 0.5) * S
        cv2.fillPoly(m, [np.array([[x, 0], [x + w, 0], [x + w + sl, S], [x + sl, S]], np.int32)], 1.0)
        m = cv2.GaussianBlur(m, (0, 0), max(1.0, w / 3)) * rng.uniform(0.3, 0.7)
        f = f * (1 - m[..., None]) + 255 * m[..., None]
    if f is not None:
        img = np.clip(f, 0, 255).astype(np.uint8)
    return img, boxes, ignore


def band_half_width(size, beta):
    """Half-width in frequencies of the low band fourier_style swaps: `beta` of the side, at least 1."""
    return max(1, int(size * beta))


def _band_basis(size, b):
    """Rows e^(-2 pi i k n / size) for the frequencies k = -b..b: the DFT restricted to the low band."""
    return np.exp(-2j * np.pi * np.arange(-b, b + 1)[:, None] * np.arange(size)[None, :] / size)


def low_spectrum(img, b):
    """The (2b+1) x (2b+1) lowest frequencies of a square H x W x C image's 2-D DFT, centred (k = -b..b):
    fft2 then fftshift, cropped, without transforming the whole image (only the band is ever changed)."""
    E = _band_basis(img.shape[0], b)
    rows = np.tensordot(E, img.astype(np.float64), axes=(1, 0))  # (K, W, C)
    return np.tensordot(rows, E, axes=(1, 1)).transpose(0, 2, 1)  # (K, K, C)


def low_amplitudes(photo, size, b):
    """The amplitudes of `photo`, resized to size x size, in its (2b+1)^2 lowest frequencies: what
    fourier_style takes from a real photo (its overall colour cast, lighting falloff and tone)."""
    return np.abs(low_spectrum(cv2.resize(photo, (size, size), interpolation=cv2.INTER_AREA), b))


def fourier_style(img, ref_amp, mix=1.0):
    """Fourier domain adaptation (Yang & Soatto, CVPR 2020): give the square `img` the low-frequency
    amplitudes of a real photo (`ref_amp`, from low_amplitudes) while keeping its phase, so edges and boxes
    stay where they are. `mix` blends the amplitudes (1: swap them, as FDA does). Wide bands or full swaps
    paint colour blotches, so training draws narrow ones. No labels of the photo are used.

    Only the band changes, so the image gets the inverse DFT of that change alone: a few small matrix
    products instead of a forward and inverse FFT of the whole crop, which took about nine times as long as
    the rest of a sample."""
    S = img.shape[0]; b = ref_amp.shape[0] // 2
    f = low_spectrum(img, b)
    delta = ((1 - mix) * np.abs(f) + mix * ref_amp) * np.exp(1j * np.angle(f)) - f
    E = _band_basis(S, b).conj()  # inverse DFT rows
    cols = np.tensordot(E.T, delta, axes=(1, 0))  # (S, K, C)
    change = np.tensordot(cols, E, axes=(1, 0)).transpose(0, 2, 1).real / (S * S)  # (S, S, C)
    return np.clip(img + change, 0, 255).astype(np.uint8)


def apply_jitter(img, jitter):
    """uint8 [N,3,S,S] images and [N,4] (gain r, g, b, bias) -> float 0..255, on the images' device."""
    return (img.float() * jitter[:, :3, None, None] + jitter[:, 3, None, None, None]).clamp_(0, 255)
