"""Labelled product photos for the embedder, with the augmentations that separate a reference photo from a
shelf crop of the same product: another viewpoint and framing, light and colour cast, blur, JPEG.

Sources: the Grocery Store Dataset's packaged goods (MIT; 31 classes, the train split's in-store photos
and the iconic packshots pasted on a random background), and packages drawn by the detector's generator
(`generator.procedural_product`), each drawing a class of its own, so the embedding learns to tell
products apart by print, colour and shape in general rather than only these 31. Its test split is never read here: it is the
identification benchmark's query set. sku-crops are not used either: the app's recognition tests build
their catalog from them, so they stay unseen.
"""
import csv
import os
import random

import cv2
import numpy as np
import torch
from torch.utils.data import Dataset

from model import SIZE

STORE = 128  # images are kept in memory at this size; augmentation samples 96x96 views from them


def grocery_classes(root):
    with open(os.path.join(root, 'classes.csv')) as fh:
        rows = list(csv.reader(fh))[1:]
    return [{'name': r[0], 'id': int(r[1]), 'iconic': r[4].strip(), 'package': '/Packages/' in r[4]} for r in rows]


def grocery_split(root, split):
    out = []
    with open(os.path.join(root, f'{split}.txt')) as fh:
        for line in fh:
            p = [s.strip() for s in line.split(',')]
            if len(p) >= 2 and p[0]:
                out.append((p[0], int(p[1])))
    return out


def load(path, white_bg=False):
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        raise FileNotFoundError(path)
    return cv2.resize(img, (STORE, STORE), interpolation=cv2.INTER_AREA)


def paste_on_background(img, rng):
    """A packshot on white: replace the near-white surround with a random colour or noise, as on a shelf."""
    mask = (img.min(axis=2) > 235).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    bg = np.zeros_like(img)
    bg[:] = [rng.randint(0, 255) for _ in range(3)]
    if rng.random() < 0.5:
        bg = np.clip(bg.astype(np.int16) + np.random.randint(-40, 40, bg.shape), 0, 255).astype(np.uint8)
    return np.where(mask[..., None] == 1, bg, img)


def augment(img, rng):
    h, w = img.shape[:2]
    # A random view: scale (crop 55..100 % of the side), aspect change, shift, small rotation and a
    # perspective tilt, all in one warp.
    s = rng.uniform(0.55, 1.0)
    ar = rng.uniform(0.8, 1.25)
    cw, ch = w * s * ar ** 0.5, h * s / ar ** 0.5
    cx = rng.uniform(cw / 2, w - cw / 2) if cw < w else w / 2
    cy = rng.uniform(ch / 2, h - ch / 2) if ch < h else h / 2
    ang = np.deg2rad(rng.uniform(-12, 12))
    src = np.array([[-cw / 2, -ch / 2], [cw / 2, -ch / 2], [cw / 2, ch / 2], [-cw / 2, ch / 2]], np.float32)
    rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]], np.float32)
    src = src @ rot.T + [cx, cy]
    src += np.random.uniform(-0.06, 0.06, src.shape).astype(np.float32) * [cw, ch]
    dst = np.array([[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]], np.float32)
    out = cv2.warpPerspective(img, cv2.getPerspectiveTransform(src.astype(np.float32), dst), (SIZE, SIZE),
                              borderMode=cv2.BORDER_REFLECT)
    out = out.astype(np.float32)
    # Light: brightness, contrast, a mild colour cast, a gradient across the pack.
    out = (out - 128) * rng.uniform(0.7, 1.3) + 128 + rng.uniform(-30, 30)
    out *= np.array([rng.uniform(0.9, 1.1) for _ in range(3)], np.float32)
    if rng.random() < 0.3:
        g = np.linspace(rng.uniform(0.7, 1.0), rng.uniform(1.0, 1.2), SIZE, dtype=np.float32)
        out *= (g[None, :, None] if rng.random() < 0.5 else g[:, None, None])
    if rng.random() < 0.2:  # desaturate a little (washed-out photos)
        grey = out.mean(axis=2, keepdims=True)
        out = grey + (out - grey) * rng.uniform(0.6, 1.0)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        k = rng.choice([3, 5])
        out = cv2.GaussianBlur(out, (k, k), 0)
    if rng.random() < 0.3:
        ok, enc = cv2.imencode('.jpg', out, [cv2.IMWRITE_JPEG_QUALITY, rng.randint(35, 90)])
        out = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    if rng.random() < 0.2:
        out = np.clip(out.astype(np.int16) + np.random.randint(-12, 12, out.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.3:  # something in front: a price tag, a neighbour's edge, a hand
        eh, ew = int(SIZE * rng.uniform(0.1, 0.35)), int(SIZE * rng.uniform(0.1, 0.5))
        y, x = rng.randint(0, SIZE - eh), rng.randint(0, SIZE - ew)
        out[y:y + eh, x:x + ew] = [rng.randint(0, 255) for _ in range(3)]
    return out


def to_tensor(bgr):
    return torch.from_numpy(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB).transpose(2, 0, 1).astype(np.float32))


class ProductViews(Dataset):
    """(image, label) pairs: every item is a fresh random view of one stored photo."""

    def __init__(self, items, seed=0):
        self.items = items  # list of (BGR uint8 STORE x STORE, label, is_packshot)
        self.rng = random.Random(seed)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        img, label, packshot = self.items[i]
        if packshot:
            img = paste_on_background(img, self.rng)
        return to_tensor(augment(img, self.rng)), label


def plain(img):
    """The evaluation view: the whole photo resized to 96x96, as the app feeds a crop."""
    return to_tensor(cv2.resize(img, (SIZE, SIZE), interpolation=cv2.INTER_AREA))


def synthetic(count, seed=0):
    """Drawn packages on white, one class each (views differ only by augmentation)."""
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..'))
    from generator import procedural_product
    out = []
    for k in range(count):
        rng = np.random.default_rng(seed * 1_000_003 + k)
        w = int(rng.integers(60, 160)); h = int(w * rng.uniform(1.0, 2.6))
        img, mask = procedural_product(rng, w, h)
        white = np.full_like(img, 255)
        img = np.where(mask[..., None] > 0, img, white)
        out.append(cv2.resize(img, (STORE, STORE), interpolation=cv2.INTER_AREA))
    return out


def build(root, holdout_packages=False, n_synthetic=0):
    """Training items and label names. With `holdout_packages`, every other package class (odd id) is
    left out entirely, so that evaluation on those classes measures SKUs the model never saw."""
    classes = [c for c in grocery_classes(root) if c['package']]
    held = {c['id'] for c in classes if holdout_packages and c['package'] and c['id'] % 2 == 1}
    labels = {}
    items = []
    for path, cid in grocery_split(root, 'train'):
        if cid in held or not os.path.exists(os.path.join(root, path)):  # shared/data holds only Packages
            continue
        lab = labels.setdefault(cid, len(labels))
        items.append((load(os.path.join(root, path)), lab, False))
    for c in classes:
        if c['id'] in held or c['id'] not in labels:
            continue
        # Repeated so the packshot look (the usual catalog reference) is seen as often as a few photos.
        shot = load(os.path.join(root, c['iconic'].lstrip('/')))
        items.extend([(shot, labels[c['id']], True)] * 4)
    for img in synthetic(n_synthetic):
        items.extend([(img, len(labels), True)] * 2)
        labels[('synthetic', len(labels))] = len(labels)
    return items, len(labels), held
