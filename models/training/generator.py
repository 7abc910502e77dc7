"""Synthetic shelf photos with exact product boxes, deterministic from a seed.

A scene is a wall/background, one or more shelf units with rows of products standing on shelf boards,
price tags and signs (which are NOT products), then the camera: perspective, light, shadows, blur,
noise and JPEG. Style 3 adds what the real photos show and flat rows lack: shelves below the camera's eye
line seen from above (the rows of the same product behind each front facing, darker, and the board's top
surface), round shading on bottles and cans, long runs of one product, views along the aisle, clear
drinks bottles and wire shelf fronts. Style 4 adds walls of stacked cases, close-ups of big products and a
crooked camera, and shows less of the rows behind. Style 5 adds shelves seen at an angle: products show a
side and hide part of their neighbours, and a box covers only a product's visible part. Style 6 lines the
shelf edges with rails of price labels and promotion strips and hangs posters in front of the products.
Scenes are 700..1100 px on the long side with products 28..220 px tall, about what the app's detector
meets in a 12 MP phone photo at its 1280 px input.

Product appearances: packshots cut from their white backgrounds and in-store photos (Grocery Store
Dataset, MIT), SKU crops (MIT), and procedurally drawn boxes, bottles, cans and pouches, so the model
learns "a product" rather than a few brands.

Style 7 adds peg tags: a price label at the end of each hook of a pegboard bay. Style 8 lines plain shelf edges
with labels of the real ones' size, shape and colours. Style 9 prints every label in TrueType faces (glyph_atlas.py's
atlas, cache/glyphs/atlas.npz) with real price layouts, white labels on white edges, faded print, plastic holders'
glare and shadows, and draws shelf edges with labels in most scenes (rails in fewer).

Price tags are annotated too, apart from the products (the price-tag detector's targets, MODEL_CARD-price-tags.md):
"tags" are the price labels on the shelf edges, in the label rails and on the pegs; "signs" are the larger
hanging signs drawn with a price on them (wobblers, shelf talkers), which a labeller might box as a tag or
not, so the tag detector's training neither rewards nor punishes a box there. Promotion strips and posters
are not tags: they carry no one product's price and the tag reader has nothing to read there. Recording the
tags draws nothing and takes nothing from the random streams, so every scene's pixels and product boxes are
what they were before.

Usage: python3 generator.py OUT_DIR --count N --seed S [--workers W]
writes OUT_DIR/NNNNNN.jpg and OUT_DIR/NNNNNN.json
({"width","height","boxes":[[x1,y1,x2,y2],...],"tags":[[x1,y1,x2,y2],...],"signs":[...]}).
"""
import argparse
import glob
import json
import os
import sys
from dataclasses import dataclass

import cv2
import numpy as np

DATA = os.environ.get('SHELF_DATA', os.path.join(os.path.dirname(__file__), '../../../shared/data'))
cv2.setNumThreads(1)


# ---------------------------------------------------------------- textures from the shared data
class TextureBank:
    """Product appearances from shared/data: (BGR image, alpha mask) pairs, loaded once per process."""

    def __init__(self, data_dir=DATA):
        self.packshots = []
        for f in sorted(glob.glob(os.path.join(data_dir, 'grocery-store-dataset/dataset/iconic-images-and-descriptions/Packages/*/*/*.jpg'))):
            cut = cut_from_white(cv2.imread(f))
            if cut is not None:
                self.packshots.append(cut)
        self.crops = []
        for f in sorted(glob.glob(os.path.join(data_dir, 'sku-crops/*/*.jpg'))):
            im = cv2.imread(f)
            if im is not None:
                self.crops.append((im, np.full(im.shape[:2], 255, np.uint8)))
        # In-store photos: the product fills the middle of the frame; its centre is a realistic label.
        files = sorted(glob.glob(os.path.join(data_dir, 'grocery-store-dataset/dataset/train/Packages/*/*/*.jpg')))
        self.instore_files = files
        self._instore_cache = {}

    def instore(self, rng):
        f = self.instore_files[rng.integers(len(self.instore_files))]
        im = self._instore_cache.get(f)
        if im is None:
            im = cv2.imread(f)
            if len(self._instore_cache) < 400:
                self._instore_cache[f] = im
        h, w = im.shape[:2]
        cw, ch = int(w * rng.uniform(0.35, 0.6)), int(h * rng.uniform(0.45, 0.8))
        x0 = int(rng.uniform(0.2, 0.8) * (w - cw)); y0 = int(rng.uniform(0.1, 0.9) * (h - ch))
        crop = im[y0:y0 + ch, x0:x0 + cw]
        return crop, np.full(crop.shape[:2], 255, np.uint8)


def cut_from_white(im):
    """Packshot on white -> tight crop and alpha mask of the non-white object."""
    if im is None:
        return None
    fg = (im.astype(np.int16).min(axis=2) < 235).astype(np.uint8)
    fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    n, lab, stats, _ = cv2.connectedComponentsWithStats(fg)
    if n < 2:
        return None
    big = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    mask = (lab == big).astype(np.uint8)
    # Fill holes (white labels inside the package belong to it).
    inv = (1 - mask).astype(np.uint8)
    n2, lab2, stats2, _ = cv2.connectedComponentsWithStats(inv)
    h, w = mask.shape
    for i in range(1, n2):
        x, y, ww, hh, _a = stats2[i]
        if x > 0 and y > 0 and x + ww < w and y + hh < h:
            mask[lab2 == i] = 1
    x, y, ww, hh, _a = stats[big]
    if ww < 20 or hh < 20:
        return None
    return im[y:y + hh, x:x + ww].copy(), (mask[y:y + hh, x:x + ww] * 255).astype(np.uint8)


# ---------------------------------------------------------------- procedural packages
def rand_color(rng, sat=None):
    hsv = np.uint8([[[rng.integers(0, 180), rng.integers(0, 256) if sat is None else sat, rng.integers(40, 256)]]])
    return tuple(int(c) for c in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])


def gradient(h, w, c1, c2, rng):
    t = np.linspace(0, 1, h if rng.random() < 0.6 else w, dtype=np.float32)
    if len(t) == h:
        t = np.repeat(t[:, None], w, axis=1)
    else:
        t = np.repeat(t[None, :], h, axis=0)
    a = np.array(c1, np.float32); b = np.array(c2, np.float32)
    return (a * (1 - t[..., None]) + b * t[..., None]).astype(np.uint8)


WORDS = ['MILK', 'COLA', 'JUICE', 'BIO', 'FRESH', 'CREAM', 'SODA', 'ORGANIC', 'LIGHT', 'ZERO', 'TEA', 'PLUS',
         'SOFT', 'CARE', 'NATURAL', 'MAX', 'KIDS', 'PRO', 'CLASSIC', 'NEW', 'FRUIT', 'OAT', 'CHOCO', 'RICE']


def draw_label(img, rng):
    """Brand-like decorations: bands, a logo blob, words."""
    h, w = img.shape[:2]
    for _ in range(rng.integers(0, 3)):
        y = rng.integers(0, h); bh = max(1, int(h * rng.uniform(0.03, 0.25)))
        cv2.rectangle(img, (0, y), (w, y + bh), rand_color(rng), -1)
    if rng.random() < 0.7:
        c = (int(rng.uniform(0.2, 0.8) * w), int(rng.uniform(0.2, 0.8) * h))
        r = max(2, int(min(w, h) * rng.uniform(0.1, 0.35)))
        if rng.random() < 0.5:
            cv2.circle(img, c, r, rand_color(rng), -1)
        else:
            cv2.ellipse(img, c, (r, max(1, r // 2)), float(rng.uniform(0, 180)), 0, 360, rand_color(rng), -1)
    for _ in range(rng.integers(1, 4)):
        word = WORDS[rng.integers(len(WORDS))]
        scale = max(0.2, w / 110 * rng.uniform(0.4, 1.0))
        org = (int(rng.uniform(0, 0.3) * w), int(rng.uniform(0.2, 0.95) * h))
        col = (255, 255, 255) if rng.random() < 0.4 else rand_color(rng)
        cv2.putText(img, word, org, rng.integers(0, 8), scale, col, max(1, int(scale * 2)), cv2.LINE_AA)


def procedural_product(rng, w, h):
    """A drawn package of about w x h: box, bottle, can or pouch. Returns (BGR, alpha)."""
    kind = rng.choice(['box', 'box', 'bottle', 'can', 'pouch', 'jar'])
    img = gradient(h, w, rand_color(rng), rand_color(rng), rng)
    draw_label(img, rng)
    mask = np.zeros((h, w), np.uint8)
    if kind == 'box':
        mask[:] = 255
        if rng.random() < 0.5:  # visible side face
            sw = max(1, int(w * rng.uniform(0.05, 0.2)))
            img[:, w - sw:] = (img[:, w - sw:] * 0.6).astype(np.uint8)
    elif kind == 'bottle':
        neck_w = max(2, int(w * rng.uniform(0.25, 0.45))); neck_h = int(h * rng.uniform(0.15, 0.35))
        sh = int(h * rng.uniform(0.05, 0.15))
        cx = w // 2
        cv2.rectangle(mask, (cx - neck_w // 2, 0), (cx + neck_w // 2, neck_h), 255, -1)
        pts = np.array([[cx - neck_w // 2, neck_h], [cx + neck_w // 2, neck_h], [w - 1, neck_h + sh], [w - 1, h - 1], [0, h - 1], [0, neck_h + sh]], np.int32)
        cv2.fillPoly(mask, [pts], 255)
        cap_h = max(2, int(h * 0.06))
        img[:cap_h] = rand_color(rng)
        if rng.random() < 0.5:  # transparent-ish bottle: liquid colour shows
            img[:] = (0.5 * img + 0.5 * np.array(rand_color(rng), np.float32)).astype(np.uint8)
    elif kind == 'can':
        mask[:] = 255
        r = max(1, int(w * 0.12))
        mask[:r, :r] = 0; mask[:r, w - r:] = 0
        cv2.circle(mask, (r, r), r, 255, -1); cv2.circle(mask, (w - 1 - r, r), r, 255, -1)
        img[:max(2, h // 14)] = (190, 190, 190)
    elif kind == 'pouch':
        pts = np.array([[int(w * 0.1), 0], [int(w * 0.9), 0], [w - 1, h - 1], [0, h - 1]], np.int32)
        cv2.fillPoly(mask, [pts], 255)
    else:  # jar
        mask[int(h * 0.12):] = 255
        cv2.rectangle(mask, (int(w * 0.1), 0), (int(w * 0.9), int(h * 0.12)), 255, -1)
        img[:int(h * 0.12)] = rand_color(rng)
    # Cylindrical shading for round packages.
    if kind in ('bottle', 'can', 'jar') or rng.random() < 0.2:
        img = cylinder_shade(img, rng.uniform(-0.6, 0.2), 0.01, 80, 0.65)
    return img, mask


def cylinder_shade(img, centre, spread, strength, edge):
    """Darker edges (down to `edge` of the brightness) and a highlight at `centre` (-1..1) across the width,
    as on a bottle or can."""
    x = np.linspace(-1, 1, img.shape[1], dtype=np.float32)
    shade = edge + 0.45 * np.sqrt(np.clip(1 - x ** 2, 0, 1))
    hl = np.exp(-((x - centre) ** 2) / spread) * strength
    return np.clip(img * shade[None, :, None] + hl[None, :, None], 0, 255).astype(np.uint8)


def random_shade(img, rng):
    """cylinder_shade with a random highlight (style 3)."""
    return cylinder_shade(img, rng.uniform(-0.6, 0.3), rng.uniform(0.005, 0.03), rng.uniform(30, 100), 0.6)


def soda_bottle(rng, w, h):
    """A clear plastic drinks bottle (style 3): the liquid's colour shows through, a label band round the
    middle, a coloured cap, glossy streaks. Opaque drawn bottles look nothing like these."""
    liquid = [(20, 30, 60), (25, 45, 25), (30, 110, 200), (40, 150, 60), (200, 200, 190), (60, 30, 120)][rng.integers(6)]
    liquid = tuple(int(np.clip(c + rng.integers(-20, 21), 0, 255)) for c in liquid)
    img = np.empty((h, w, 3), np.uint8); img[:] = liquid
    mask = np.zeros((h, w), np.uint8)
    cx = w // 2; neck_w = max(2, int(w * rng.uniform(0.3, 0.4))); neck_h = int(h * rng.uniform(0.12, 0.22))
    shoulder = int(h * rng.uniform(0.12, 0.25))
    cv2.rectangle(mask, (cx - neck_w // 2, 0), (cx + neck_w // 2, neck_h), 255, -1)
    cv2.fillPoly(mask, [np.array([[cx - neck_w // 2, neck_h], [cx + neck_w // 2, neck_h], [w - 1, neck_h + shoulder],
                                  [w - 1, h - 1], [0, h - 1], [0, neck_h + shoulder]], np.int32)], 255)
    if rng.random() < 0.6:  # air above the liquid: paler
        air = int(neck_h + shoulder * rng.uniform(0, 1))
        img[:air] = np.clip(np.float32(img[:air]) * 0.4 + 140, 0, 255).astype(np.uint8)
    cap_h = max(2, int(h * rng.uniform(0.04, 0.07)))
    img[:cap_h] = rand_color(rng)
    y0 = int(h * rng.uniform(0.3, 0.5)); y1 = min(h - 2, y0 + int(h * rng.uniform(0.15, 0.35)))
    band = gradient(y1 - y0, w, rand_color(rng), rand_color(rng), rng)
    draw_label(band, rng)
    img[y0:y1] = band
    img = random_shade(img, rng)
    for _ in range(rng.integers(1, 3)):  # vertical gloss streaks on the plastic
        x = int(rng.uniform(0.1, 0.9) * w)
        cv2.line(img, (x, neck_h), (x, h - 1), (235, 235, 235), max(1, w // 18))
    return img, mask


# ---------------------------------------------------------------- scene
def background(h, w, rng):
    kind = rng.integers(0, 4)
    if kind == 0:
        bg = gradient(h, w, rand_color(rng, sat=rng.integers(0, 80)), rand_color(rng, sat=rng.integers(0, 80)), rng)
    elif kind == 1:  # tiles / panels
        bg = np.full((h, w, 3), rand_color(rng, sat=rng.integers(0, 60)), np.uint8)
        step = int(rng.integers(20, 120)); col = rand_color(rng, sat=30)
        for x in range(0, w, step):
            cv2.line(bg, (x, 0), (x, h), col, 1)
        for y in range(0, h, step):
            cv2.line(bg, (0, y), (w, y), col, 1)
    elif kind == 2:  # cluttered store: big blurred blocks
        bg = np.full((h, w, 3), rand_color(rng), np.uint8)
        for _ in range(rng.integers(5, 25)):
            x, y = rng.integers(0, w), rng.integers(0, h)
            cv2.rectangle(bg, (x, y), (x + int(rng.integers(20, 300)), y + int(rng.integers(20, 300))), rand_color(rng), -1)
        bg = cv2.GaussianBlur(bg, (0, 0), rng.uniform(3, 12))
    else:
        bg = np.full((h, w, 3), rand_color(rng, sat=rng.integers(0, 40)), np.uint8)
    noise = rng.normal(0, rng.uniform(1, 8), (h, w, 1)).astype(np.float32)
    return np.clip(bg + noise, 0, 255).astype(np.uint8)


def paste(canvas, img, mask, x, y):
    """Alpha-paste img at (x, y); clipped to the canvas. mask None: opaque (tags, signs, strips)."""
    H, W = canvas.shape[:2]; h, w = img.shape[:2]
    if mask is None:
        mask = np.full((h, w), 255, np.uint8)
    x0, y0 = max(0, x), max(0, y); x1, y1 = min(W, x + w), min(H, y + h)
    if x1 <= x0 or y1 <= y0:
        return
    a = mask[y0 - y:y1 - y, x0 - x:x1 - x, None].astype(np.float32) / 255
    sub = canvas[y0:y1, x0:x1]
    canvas[y0:y1, x0:x1] = (img[y0 - y:y1 - y, x0 - x:x1 - x] * a + sub * (1 - a)).astype(np.uint8)


def price_tag(rng, w, h):
    tag = np.full((h, w, 3), rand_color(rng, sat=rng.integers(0, 60)) if rng.random() < 0.4 else (245, 245, 245), np.uint8)
    if rng.random() < 0.5:
        tag[:] = (40, 220, 250) if rng.random() < 0.5 else (245, 245, 245)
    txt = '%d.%02d' % (rng.integers(0, 20), rng.integers(0, 100))
    cv2.putText(tag, txt, (1, h - 2), cv2.FONT_HERSHEY_SIMPLEX, max(0.2, h / 30), (0, 0, 0) if rng.random() < 0.8 else (0, 0, 200), 1, cv2.LINE_AA)
    if rng.random() < 0.6:
        cv2.line(tag, (1, max(1, h // 4)), (w - 2, max(1, h // 4)), (60, 60, 60), 1)
    return tag


def glyphs(img, rng, x, y, size, n, colour, thick):
    """n square characters of `size` px from (x, y) (top left), each a few strokes on a 4x4 grid: the look of
    CJK print, which real labels and strips carry (test_799) and which a row of tiny packages can resemble."""
    def pt(p):  # grid point -> pixel
        return int(x + p[0] * size / 3), int(y + p[1] * size / 3)
    for _ in range(n):
        for _ in range(rng.integers(3, 9)):
            kind = rng.random(); a = rng.integers(0, 4, 2); b = rng.integers(0, 4, 2)
            if kind < 0.45:  # horizontal stroke
                b[1] = a[1]; b[0] = max(b[0], a[0] + 1)
            elif kind < 0.8:  # vertical stroke
                b[0] = a[0]; b[1] = max(b[1], a[1] + 1)
            elif kind < 0.9:  # a small box
                b = np.minimum(a + rng.integers(1, 3, 2), 3)
                cv2.rectangle(img, pt(a), pt(b), colour, thick)
                continue
            cv2.line(img, pt(a), pt(b), colour, thick, cv2.LINE_AA)
        x += size * rng.uniform(1.15, 1.4)


def price_label(rng, w, h, bg=None, ink=None):
    """A shelf-edge price label as real stores print them (style 6): a large bold price with its cents raised,
    a line or two of small print, often a barcode and a coloured band. Rows of these are what the model boxed
    on the real photos' board edges (test_799). `bg` and `ink` (style 8) replace the drawn colours; the draws
    are made all the same, so styles 6 and 7 stay as they were."""
    drawn = [(245, 245, 245), (250, 235, 200), (60, 230, 250), (235, 235, 255), (225, 245, 230)][rng.integers(5)]
    tag = np.full((h, w, 3), drawn if bg is None else bg, np.uint8)
    drawn = (20, 20, 20) if rng.random() < 0.75 else (30, 30, 200)
    ink = drawn if ink is None else ink
    if rng.random() < 0.6:  # coloured band (left or top) with the product name
        band = rand_color(rng, sat=int(rng.integers(80, 256)))
        if rng.random() < 0.5:
            cv2.rectangle(tag, (0, 0), (int(w * rng.uniform(0.15, 0.4)), h), band, -1)
        else:
            cv2.rectangle(tag, (0, 0), (w, int(h * rng.uniform(0.15, 0.35))), band, -1)
    for _ in range(rng.integers(1, 4)):  # small print: a product name, in characters or in strokes standing in for them
        yy = int(rng.uniform(0.1, 0.95) * h); xx = int(rng.uniform(0, 0.5) * w)
        if rng.random() < 0.5 and h >= 16:
            gs = max(3, int(h * rng.uniform(0.12, 0.22)))
            glyphs(tag, rng, xx, yy - gs, gs, int(rng.integers(2, 8)), ink, 1)
        else:
            cv2.line(tag, (xx, yy), (xx + int(rng.uniform(0.2, 0.6) * w), yy), ink, max(1, h // 14))
    big = '%d' % rng.integers(1, 100)
    fh = h * rng.uniform(0.4, 0.7)  # digit height
    scale = fh / 22; th = max(1, int(round(scale * rng.uniform(1.5, 3))))
    font = [cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX][rng.integers(3)]
    (tw, _), _ = cv2.getTextSize(big, font, scale, th)
    x = int(rng.uniform(0.2, 0.5) * w); y = int(h * rng.uniform(0.7, 0.9))
    cv2.putText(tag, big, (x, y), font, scale, ink, th, cv2.LINE_AA)
    cv2.putText(tag, '%02d' % rng.integers(0, 100), (x + tw + 1, int(y - fh * 0.45)), font, scale * 0.45, ink, max(1, th // 2), cv2.LINE_AA)
    if rng.random() < 0.5:  # barcode
        bx = int(rng.uniform(0.6, 0.8) * w); by0 = int(h * 0.55); by1 = int(h * 0.9)
        while bx < w - 1:
            sw = int(rng.integers(1, 3)); cv2.rectangle(tag, (bx, by0), (bx + sw - 1, by1), (10, 10, 10), -1); bx += sw + int(rng.integers(1, 3))
    return tag


# Style 8: the labels of the labelled real photos (bench/prices.labels.json, looked at, never trained on): mostly
# white or off-white on a white or grey edge (low contrast), yellow promotion labels (on a green strip too),
# pale blue, pink and red ones; BGR.
EDGE_LABELS = [((245, 245, 245), 0.3), ((222, 226, 226), 0.12), ((30, 215, 255), 0.18), ((245, 215, 160), 0.1),
               ((200, 175, 255), 0.1), ((40, 40, 215), 0.08), ((0, 150, 255), 0.04), ((210, 240, 210), 0.08)]
EDGE_STRIPS = [((238, 238, 238), 0.3), ((200, 200, 200), 0.12), ((45, 45, 45), 0.2), ((90, 190, 80), 0.1),
               ((150, 90, 30), 0.08), ((40, 40, 190), 0.08), (None, 0.12)]  # None: the board's own colour


def pick(rng, table):
    """One entry of a [(value, weight)] table."""
    w = np.array([p for _, p in table]); return table[int(rng.choice(len(table), p=w / w.sum()))][0]


def edge_label(rng, w, h):
    """Style 8: a shelf-edge label in a real store's colours: dark print, white on a red label."""
    bg = pick(rng, EDGE_LABELS)
    return price_label(rng, w, h, bg=bg, ink=(250, 250, 250) if bg == (40, 40, 215) else (20, 20, 20))


_ATLAS = None


def atlas():
    """(masks [faces, chars, 80, 96], widths [faces, chars], char -> index, baseline row) of glyph_atlas.py's file."""
    global _ATLAS
    if _ATLAS is None:
        path = os.environ.get('GLYPH_ATLAS', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'cache/glyphs/atlas.npz'))
        if not os.path.exists(path):
            raise FileNotFoundError(f'style 9 prints its labels from {path}: run glyph_atlas.py first')
        a = np.load(path)
        _ATLAS = (a['masks'], a['widths'], {c: i for i, c in enumerate(a['chars'].tolist())}, int(a['base']))
    return _ATLAS


def type_mask(text, face, px, stretch=1.0):
    """Alpha mask of `text` in the atlas's face `face` with capitals about `px` high, and its baseline row."""
    masks, widths, index, base = atlas()
    cells = [np.zeros((masks.shape[2], max(1, int(widths[face, 0]) // 2)), np.uint8) if ch == ' '
             else masks[face, index[ch], :, :int(widths[face, index[ch]]) + 2] for ch in text]
    m = np.concatenate(cells, 1)
    k = px / base
    w, h = max(1, round(m.shape[1] * k * stretch)), max(1, round(m.shape[0] * k))
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR), base * k


def ink(img, mask, x, y, colour, alpha=1.0):
    """Prints `mask` onto img with its top left at (x, y), clipped to img."""
    H, W = img.shape[:2]; h, w = mask.shape
    x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + w), min(H, y + h)
    if x1 <= x0 or y1 <= y0:
        return
    a = mask[y0 - y:y1 - y, x0 - x:x1 - x, None].astype(np.float32) * (alpha / 255)
    sub = img[y0:y1, x0:x1].astype(np.float32)
    img[y0:y1, x0:x1] = (np.float32(colour) * a + sub * (1 - a)).astype(np.uint8)


INKS = [((20, 20, 20), 0.5), ((70, 70, 70), 0.15), ((30, 30, 190), 0.2), ((130, 50, 20), 0.1), ((20, 90, 20), 0.05)]
LETTERS = 'ABCDEFGHIJKLMNOPRSTUVWYZ'


def price_text(rng):
    """(main text, raised cents or None) of a price as shelves print it."""
    e = int(rng.choice([rng.integers(0, 10), rng.integers(0, 100), rng.integers(100, 1000)], p=[0.6, 0.35, 0.05]))
    c = '%02d' % rng.integers(0, 100) if rng.random() < 0.8 else rng.choice(['99', '49', '95', '00'])
    sep = ',' if rng.random() < 0.6 else '.'
    form = rng.random()
    if form < 0.3:
        return str(e), c  # cents raised, small
    cur = rng.choice(['', '', '€', '$', '£'])
    text = f'{e}{sep}{c}'
    if form < 0.4:
        text = f'{rng.integers(2, 5)} x {e + 1}{sep}{c}' if rng.random() < 0.5 else f'{e}{sep}{c}-'
    return (f'{cur}{text}' if rng.random() < 0.5 else f'{text}{cur}'), None


def printed_label(rng, w, h, under=None):
    """Style 9: a price label printed in a TrueType face, as real shelves' are: a large price (cents raised or
    not, a currency sign, a multi-buy), a product name and a unit price in small print, often a coloured band, a
    barcode or a border; white on a white edge (`under`: the edge's colour) in a third of them; faded print,
    a plastic holder's glare or a shadow over some."""
    masks = atlas()[0]
    if under is not None and rng.random() < 0.35:
        bg = np.clip(np.array(under, np.int32) + rng.integers(-14, 15, 3), 0, 255)
    else:
        bg = np.clip(np.array(pick(rng, EDGE_LABELS), np.int32) + rng.integers(-12, 13, 3), 0, 255)
    tag = np.empty((h, w, 3), np.uint8); tag[:] = bg
    dark = bg.sum() < 330 or (bg[2] > 150 and bg[0] < 90 and bg[1] < 90)  # dark or red: white print
    col = (245, 245, 245) if dark else pick(rng, INKS)
    alpha = rng.uniform(0.6, 1.0) if rng.random() < 0.4 else 1.0  # faded thermal print
    face = int(rng.integers(masks.shape[0]))
    top, left = 0, 0
    r = rng.random()
    if r < 0.3:  # a coloured band along the top, sometimes with the store's or the product's name
        top = int(h * rng.uniform(0.15, 0.3)); band = rand_color(rng, sat=int(rng.integers(80, 256)))
        cv2.rectangle(tag, (0, 0), (w, top), band, -1)
        if top >= 5 and rng.random() < 0.6:
            m, _ = type_mask(''.join(rng.choice(list(LETTERS), int(rng.integers(3, 9)))), face, top * 0.6)
            ink(tag, m, int(w * rng.uniform(0.02, 0.3)), int(top * 0.1), (250, 250, 250))
    elif r < 0.45:  # a band down the left
        left = int(w * rng.uniform(0.1, 0.3)); cv2.rectangle(tag, (0, 0), (left, h), rand_color(rng, sat=int(rng.integers(80, 256))), -1)
    elif r < 0.55:  # a stripe along the bottom
        cv2.rectangle(tag, (0, int(h * rng.uniform(0.8, 0.92))), (w, h), rand_color(rng, sat=int(rng.integers(80, 256))), -1)
    # the price
    main, cents = price_text(rng)
    ph = h * rng.uniform(0.3, 0.6); stretch = rng.uniform(0.8, 1.25)
    m, base = type_mask(main, face, ph, stretch)
    cm = type_mask(cents, face, ph * rng.uniform(0.4, 0.6), stretch)[0] if cents else None
    tw = m.shape[1] + (cm.shape[1] if cm is not None else 0)
    room = w - left
    if tw > 0.92 * room:  # the price fits the label
        k = 0.92 * room / tw
        m = cv2.resize(m, (max(1, int(m.shape[1] * k)), max(1, int(m.shape[0] * k))), interpolation=cv2.INTER_AREA); base *= k
        if cm is not None:
            cm = cv2.resize(cm, (max(1, int(cm.shape[1] * k)), max(1, int(cm.shape[0] * k))), interpolation=cv2.INTER_AREA)
        tw = m.shape[1] + (cm.shape[1] if cm is not None else 0)
    where = rng.random()
    x = left + (int(room - tw - rng.uniform(0.02, 0.1) * w) if where < 0.45 else int((room - tw) / 2) if where < 0.75
                else int(rng.uniform(0.02, 0.1) * w))
    y_base = top + (h - top) * rng.uniform(0.6, 0.85)
    ink(tag, m, x, int(y_base - base), col, alpha)
    if cm is not None:
        ink(tag, cm, x + m.shape[1], int(y_base - base), col, alpha)
    # small print: a product name, a unit price; a barcode
    small = max(2.0, h * rng.uniform(0.08, 0.16))
    for _ in range(int(rng.integers(0, 3))):
        words = ' '.join(''.join(rng.choice(list(LETTERS), int(rng.integers(2, 8)))) for _ in range(int(rng.integers(1, 4))))
        sm, _ = type_mask(words if rng.random() < 0.5 else words.lower(), int(rng.integers(masks.shape[0])), small)
        ink(tag, sm, left + int(w * rng.uniform(0.02, 0.3)), top + int((h - top) * rng.uniform(0.0, 0.35)), col, alpha)
    if rng.random() < 0.6:
        unit = '%d%s%02d %s/%s' % (rng.integers(0, 30), rng.choice([',', '.']), rng.integers(0, 100), rng.choice(['€', '$', '£']),
                                   rng.choice(['kg', 'l', 'L', '100g', 'st']))
        um, _ = type_mask(unit, face, small * 0.9)
        ink(tag, um, left + int(w * rng.uniform(0.02, 0.5)), int(h * rng.uniform(0.78, 0.95) - small), col, alpha)
    if rng.random() < 0.35:
        bx = int(left + rng.uniform(0.02, 0.3) * w); by0 = int(h * rng.uniform(0.55, 0.75)); by1 = int(h * 0.93); bend = bx + int(w * rng.uniform(0.15, 0.3))
        while bx < min(bend, w - 1):
            sw = int(rng.integers(1, 3)); cv2.rectangle(tag, (bx, by0), (bx + sw - 1, by1), (15, 15, 15), -1); bx += sw + int(rng.integers(1, 3))
    if rng.random() < 0.35:  # a printed or cut border
        cv2.rectangle(tag, (0, 0), (w - 1, h - 1), tuple(int(c * rng.uniform(0.5, 0.85)) for c in bg), max(1, h // 18))
    f = tag.astype(np.float32)
    if rng.random() < 0.35:  # a plastic holder's glare: a soft bright band across the label
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(-1.2, 1.2); d = (xx - w * rng.uniform(0, 1)) * np.sin(ang) + (yy - h * rng.uniform(0, 1)) * np.cos(ang)
        g = np.exp(-(d / max(1.0, h * rng.uniform(0.08, 0.35))) ** 2) * rng.uniform(0.3, 0.8)
        f = f * (1 - g[..., None]) + 255 * g[..., None]
    if rng.random() < 0.25:  # the shelf above's shadow, or light falling off toward one end
        ramp = np.linspace(1.0, rng.uniform(0.55, 0.9), h if rng.random() < 0.6 else w, dtype=np.float32)
        f *= ramp[:, None, None] if len(ramp) == h else ramp[None, :, None]
    if rng.random() < 0.3:
        f = cv2.GaussianBlur(f, (0, 0), rng.uniform(0.3, 0.9))
    return np.clip(f, 0, 255).astype(np.uint8)


def promo_strip(rng, w, h):
    """A printed promotion strip along a shelf edge or across a bay: saturated colour, lines of text, a few
    icons. NOT a product (test_799's blue strip drew a row of boxes)."""
    col = rand_color(rng, sat=int(rng.integers(150, 256)))
    strip = gradient(h, w, col, tuple(int(c * rng.uniform(0.6, 1.0)) for c in col), rng)
    fg = (255, 255, 255) if rng.random() < 0.6 else rand_color(rng)
    lines = int(rng.integers(1, 3))
    for k in range(lines):
        scale = max(0.25, h / lines / 30 * rng.uniform(0.6, 1.0)); x = int(rng.uniform(0, 0.1) * w)
        y = int(h * (k + 0.8) / lines)
        if rng.random() < 0.6:  # a slogan in characters
            gs = max(4, int(h / lines * rng.uniform(0.45, 0.75)))
            glyphs(strip, rng, x, int(h * (k + 0.5) / lines - gs / 2), gs, int(w / gs / 1.2) + 1, fg, max(1, gs // 8))
            continue
        while x < w:  # words of random letters
            word = ''.join(chr(int(c)) for c in rng.integers(65, 91, int(rng.integers(2, 9))))
            cv2.putText(strip, word, (x, y), int(rng.integers(0, 8)), scale, fg, max(1, int(scale * 2)), cv2.LINE_AA)
            x += cv2.getTextSize(word, 0, scale, 1)[0][0] + int(rng.uniform(0.3, 1.5) * h)
    for _ in range(rng.integers(0, 4)):
        c = (int(rng.uniform(0, w)), h // 2)
        cv2.circle(strip, c, max(2, int(h * rng.uniform(0.2, 0.45))), rand_color(rng), -1)
    return strip


def poster(rng, w, h):
    """A promotion poster or shelf sign (style 6): large words and prices on a bold background."""
    sign = gradient(h, w, rand_color(rng, sat=int(rng.integers(120, 256))), rand_color(rng, sat=int(rng.integers(120, 256))), rng)
    for _ in range(rng.integers(0, 3)):
        gs = max(5, int(h * rng.uniform(0.06, 0.2)))
        glyphs(sign, rng, int(rng.uniform(0, 0.3) * w), int(rng.uniform(0, 0.9) * h), gs, int(rng.integers(2, 8)), (255, 255, 255) if rng.random() < 0.6 else rand_color(rng), max(1, gs // 7))
    for _ in range(rng.integers(2, 6)):
        txt = WORDS[rng.integers(len(WORDS))] if rng.random() < 0.5 else '%d' % rng.integers(1, 100)
        scale = max(0.3, h / 30 * rng.uniform(0.2, 0.6))
        cv2.putText(sign, txt, (int(rng.uniform(0, 0.5) * w), int(rng.uniform(0.2, 0.95) * h)), int(rng.integers(0, 8)),
                    scale, (255, 255, 255) if rng.random() < 0.5 else rand_color(rng), max(1, int(scale * 2)), cv2.LINE_AA)
    return sign


def drop_hidden(boxes, x, y, w, h):
    """The boxes less than half hidden by an opaque w x h rectangle pasted at (x, y) in front of them."""
    kept = []
    for bx in boxes:
        ix = max(0, min(bx[2], x + w) - max(bx[0], x)); iy = max(0, min(bx[3], y + h) - max(bx[1], y))
        if ix * iy < 0.5 * (bx[2] - bx[0]) * (bx[3] - bx[1]):
            kept.append(bx)
    return kept


@dataclass(frozen=True)
class SceneChoices:
    """What one scene's helpers share beyond their arguments: the random streams of styles 3 to 5 (each
    style draws from its own, so adding one leaves the earlier styles' scenes as they were) and the choices
    drawn from them once per scene."""
    x3: np.random.Generator
    x4: np.random.Generator
    x5: np.random.Generator
    soda: float  # style 3: the share of drinks bottles among the products (a drinks aisle)
    cases: bool  # style 4: rows may be walls of stacked cases
    yaw: float  # style 5: cosine of the angle the shelves are seen at; 0 for front-on
    lean: float  # style 5: sideways shift of the rows behind, per px they rise


class Generator:
    def __init__(self, data_dir=DATA, procedural_only=False, style=2):
        # procedural_only: no pixels from shared/data (for fixtures that get committed).
        # style 1: the base scenes; style 2 adds tightly packed rows, glass cooler doors,
        # hooks with hanging bags, more floor and stronger side views (what the real photos showed).
        self.bank = TextureBank(data_dir) if not procedural_only else None
        self.style = style

    def product_appearance(self, rng, w, h, ch):
        """A product look for a slot of about w x h; its own aspect may differ (the slot adapts)."""
        x3 = ch.x3
        if self.style >= 3 and x3.random() < ch.soda:
            return soda_bottle(x3, max(6, int(h * x3.uniform(0.28, 0.4))), max(12, h))
        r = rng.random() if self.bank else 1.0
        if r < 0.3 and self.bank.packshots:
            img, mask = self.bank.packshots[rng.integers(len(self.bank.packshots))]
        elif r < 0.42 and self.bank.crops:
            img, mask = self.bank.crops[rng.integers(len(self.bank.crops))]
        elif r < 0.55 and self.bank.instore_files:
            img, mask = self.bank.instore(rng)
        else:
            return procedural_product(rng, max(4, w), max(4, h))
        if rng.random() < 0.2:  # recolour so real textures are not the only colours the model sees
            hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
            hsv[..., 0] = (hsv[..., 0].astype(np.int32) + int(rng.integers(0, 180))) % 180
            img = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
        return img, mask

    def scene(self, seed, size=None):
        rng = np.random.default_rng(seed)
        aspect = [(3, 4), (4, 3), (9, 16), (16, 9), (1, 1), (2, 3), (3, 2), (9, 19.5)][rng.integers(8)]
        L = int(rng.integers(700, 1100))
        if aspect[0] < aspect[1]:
            H, W = L, int(L * aspect[0] / aspect[1])
        else:
            W, H = L, int(L * aspect[1] / aspect[0])
        if size:
            W, H = size
        canvas = background(H, W, rng)
        boxes = []
        tags, signs = [], []  # price labels; larger hanging signs with a price (see the module's docstring)
        # Scale: typical product height in px at this image size (close-ups to far shots).
        prod_h = float(np.exp(rng.uniform(np.log(28), np.log(220))))
        row_h = prod_h * rng.uniform(1.1, 1.45)
        board = max(3, int(prod_h * rng.uniform(0.08, 0.22)))
        # Shelf unit extent (may run past the photo: products get cut by the border).
        ux0 = int(rng.uniform(-0.2, 0.25) * W); ux1 = int(W - rng.uniform(-0.2, 0.25) * W)
        uy0 = int(rng.uniform(-0.3, 0.2) * H); uy1 = int(H - rng.uniform(-0.3, 0.1) * H)
        x2 = np.random.default_rng(list(np.atleast_1d(seed)) + [2])  # style-2 choices, apart from style 1's stream
        x3 = np.random.default_rng(list(np.atleast_1d(seed)) + [3])  # style-3 choices, likewise
        # Style 3: the camera's eye line. Rows below it are seen from above: the products behind the front
        # facings show above them and the board's top surface shows in front of them.
        deep = self.style >= 3 and x3.random() < 0.7
        soda = x3.choice([0.0, 0.1, 0.6]) if self.style >= 3 else 0.0  # some scenes are a drinks aisle
        fence = self.style >= 3 and x3.random() < 0.25  # wire fronts across the bottom of each row
        eye_y = H * x3.uniform(-0.3, 0.7); look = x3.uniform(0.2, 0.8); n_back = int(x3.integers(1, 4))
        tight = self.style >= 2 and x2.random() < 0.5
        if tight:
            row_h = prod_h * x2.uniform(1.02, 1.2)
        # Style 4, from the labelled real photos' misses: walls of identical cases stacked up to the board above
        # (test_256), close-ups of big products (test_1896), and a camera held crooked.
        x4 = np.random.default_rng(list(np.atleast_1d(seed)) + [4])
        cases = self.style >= 4 and x4.random() < 0.4
        close = self.style >= 4 and x4.random() < 0.2
        roll = float(x4.uniform(-9, 9)) if self.style >= 4 and x4.random() < 0.6 else 0.0
        if close:
            prod_h = float(min(x4.uniform(150, 320), 0.45 * H)); row_h = prod_h * x4.uniform(1.05, 1.3)
            board = max(3, int(prod_h * x4.uniform(0.06, 0.15)))
        if cases:
            row_h = min(prod_h * x4.uniform(2.2, 4.5), 0.6 * H)  # at least one such row fits the photo
        # Style 5: shelves seen at an angle (test_1896, test_636, test_1079). Each box-shaped product shows a
        # side next to its front, round ones stand closer than their width, and the nearer product hides part
        # of the farther one, so boxes overlap and a product's box is its visible part only. The camera is to
        # the right: nearer products, and the rows behind, show to the right (training flips the crops).
        x5 = np.random.default_rng(list(np.atleast_1d(seed)) + [5])
        yaw = float(x5.uniform(0.4, 0.85)) if self.style >= 5 and x5.random() < 0.5 else 0.0
        lean = float(x5.uniform(0.3, 1.0) * np.sqrt(1 - yaw ** 2)) if yaw else 0.0
        ch = SceneChoices(x3, x4, x5, soda, cases, yaw, lean)
        # Style 6, from the real photos' false boxes (test_799): shelf edges lined with price-label rails or
        # promotion strips taller than the board, and posters in front of the products. None are products.
        x6 = np.random.default_rng(list(np.atleast_1d(seed)) + [6])
        rail = self.style >= 6 and x6.random() < 0.7
        rail_h = max(board, int(prod_h * x6.uniform(0.15, 0.45))) if rail else board
        # Style 8: where no rail is drawn, the labelled real photos' kind of shelf edge: one label of their size
        # and shape (0.14 to 0.32 of a product high, 2 to 4.2 times as wide) under each product run, in their
        # colours, on an edge strip as tall as the labels; drawn instead of style 1's small tags.
        x8 = np.random.default_rng(list(np.atleast_1d(seed)) + [8])
        edge = self.style >= 8 and not rail and x8.random() < 0.85
        # Style 9: labels printed in real type (printed_label), edges with labels in most scenes: the real photos'
        # labels are mostly on plain edges, and a rail's drawn labels are the old look.
        x9 = np.random.default_rng(list(np.atleast_1d(seed)) + [9]) if self.style >= 9 else None
        if x9 is not None:
            rail = rail and x9.random() < 0.4
            edge = not rail
        floor = self.style >= 2 and x2.random() < 0.45
        if floor:
            uy1 = int(H - x2.uniform(0.1, 0.4) * H)
        back = rand_color(rng, sat=rng.integers(0, 90))
        cv2.rectangle(canvas, (ux0, uy0), (ux1, uy1), back, -1)
        # Uprights (vertical posts) split the unit into bays.
        n_bays = int(rng.integers(1, 4))
        post_w = max(2, int(board * rng.uniform(0.5, 1.5)))
        post_col = rand_color(rng, sat=rng.integers(0, 60))
        bay_edges = np.linspace(ux0, ux1, n_bays + 1).astype(int)
        shade = np.ones((H, W), np.float32)
        hooks = set()
        if self.style >= 2 and n_bays > 1 and x2.random() < 0.25:
            hooks.add(int(x2.integers(n_bays)))
        y = uy0 + int(rng.uniform(0.0, 0.6) * row_h)
        board_col = rand_color(rng, sat=rng.integers(0, 60))
        while y + row_h < uy1 + row_h * 0.5:
            base = int(y + row_h)  # top of the board the products stand on
            shade[max(0, int(y)):max(0, min(H, int(y + row_h * 0.35)))] *= rng.uniform(0.55, 0.9)  # shadow under the board above
            below = max(0.0, (base - eye_y) / H) if deep else 0.0
            dy = prod_h * look * below
            if self.style >= 4:
                # A back row shows only its top above the front facing (caps, necks, a lid): style 3 showed up
                # to 0.8 of a product there, unboxed, which taught the model that a stack's upper products are
                # not products (test_256).
                dy = min(dy, 0.3 * prod_h)
            depth = (x3, dy, n_back, y) if below > 0 else None
            for b in range(n_bays):
                if b in hooks:
                    continue
                self.fill_row(canvas, boxes, rng, ch, bay_edges[b] + post_w, bay_edges[b + 1] - post_w, base, prod_h, row_h, H, W, tight, depth)
            if fence:
                self.wire_fence(canvas, x3, ux0, ux1, base, prod_h)
            if depth is not None:  # the board's top surface, in front of the products, then its front lip
                top_h = int(min(board * 2, depth[1] * 0.5))
                cv2.rectangle(canvas, (ux0, base), (ux1, base + top_h), tuple(min(255, int(c * 1.15) + 10) for c in board_col), -1)
                base += top_h
            cv2.rectangle(canvas, (ux0, base), (ux1, base + board), board_col, -1)
            cv2.line(canvas, (ux0, base), (ux1, base), tuple(int(c * 0.6) for c in board_col), 1)
            if rail:
                self.label_rail(canvas, x6, ux0, ux1, base, rail_h, bay_edges, tags, x9)
                y = base + rail_h
                continue
            if edge:
                y = self.edge_labels(canvas, x8, ux0, ux1, base, board, board_col, prod_h, tags, x9)
                continue
            # Price tags and shelf strips on the board edge: NOT products.
            x = ux0 + int(rng.uniform(0, prod_h))
            th = max(3, int(board * rng.uniform(0.6, 1.6)))
            while x < ux1:
                tw = max(5, int(th * rng.uniform(1.2, 2.5)))
                tag = price_tag(rng, tw, th)
                ty = base + int(rng.uniform(-0.2, 0.3) * board)
                paste(canvas, tag, None, x, ty)
                tags.append([x, ty, x + tw, ty + th])
                x += tw + int(prod_h * rng.uniform(0.4, 3))
            y = base + board
        x7 = np.random.default_rng(list(np.atleast_1d(seed)) + [7])  # style-7 choices, apart from the others
        for b in hooks:
            cv2.rectangle(canvas, (bay_edges[b], uy0), (bay_edges[b + 1], uy1), back, -1)
            pegs = []
            self.hang(canvas, boxes, x2, ch, bay_edges[b] + post_w, bay_edges[b + 1] - post_w, uy0, uy1, prod_h, pegs)
            if self.style >= 7:
                self.peg_tags(canvas, tags, x7, pegs, prod_h, x9)
        for b in range(n_bays + 1):
            x0p, x1p = bay_edges[b] - post_w // 2, bay_edges[b] + post_w // 2
            cv2.rectangle(canvas, (x0p, uy0), (x1p, uy1), post_col, -1)
            tags = drop_hidden(tags, x0p, uy0, x1p - x0p, uy1 - uy0)
        if self.style >= 2 and x2.random() < 0.3:
            glass_doors(canvas, x2, bay_edges, uy0, uy1, post_w)
        if floor and x2.random() < 0.6:
            speckled_floor(canvas, x2, uy1 + board, prod_h)
            if self.style >= 8:  # labels of a last row the floor was drawn over (earlier styles kept their boxes)
                tags = drop_hidden(tags, 0, uy1 + board, W, H)
        # Hanging signs / wobblers (not products), sometimes over the products.
        for _ in range(rng.integers(0, 4)):
            sw = int(prod_h * rng.uniform(0.5, 2)); sh = int(sw * rng.uniform(0.3, 1))
            sign = price_tag(rng, max(6, sw), max(4, sh))
            sx, sy = int(rng.uniform(0, W)), int(rng.uniform(0, H))
            paste(canvas, sign, None, sx, sy)
            tags = drop_hidden(tags, sx, sy, sign.shape[1], sign.shape[0])
            signs = drop_hidden(signs, sx, sy, sign.shape[1], sign.shape[0])
            signs.append([sx, sy, sx + sign.shape[1], sy + sign.shape[0]])
            if self.style >= 6:  # earlier styles kept the boxes of products a sign hid
                boxes = drop_hidden(boxes, sx, sy, sign.shape[1], sign.shape[0])
        if self.style >= 6:
            covers = []
            boxes = self.posters(canvas, boxes, x6, prod_h, H, W, covers)
            for cx_, cy_, cw_, chh in covers:
                tags = drop_hidden(tags, cx_, cy_, cw_, chh)
                signs = drop_hidden(signs, cx_, cy_, cw_, chh)
        canvas = (canvas * shade[..., None]).astype(np.uint8)
        boxes = np.array(boxes, np.float32).reshape(-1, 4)
        strong = self.style >= 2 and x2.random() < 0.5
        aisle = self.style >= 3 and x3.random() < 0.3  # photographed along the aisle: one end far smaller
        if yaw and x5.random() < 0.6:
            aisle = True  # its left end is the far one, as the angled rows assume
        tags = np.array(tags, np.float32).reshape(-1, 4); signs = np.array(signs, np.float32).reshape(-1, 4)
        canvas, boxes, (tags, signs) = camera(canvas, boxes, rng, strong=strong, aisle=aisle, roll=roll, others=(tags, signs))
        self.last_tags, self.last_signs = tags, signs  # scene()'s return stays (image, product boxes) for its callers
        return canvas, boxes

    def scene_with_tags(self, seed, size=None):
        """(image, product boxes, price-tag boxes, sign boxes) of the scene `scene(seed, size)` draws."""
        img, boxes = self.scene(seed, size)
        return img, boxes, self.last_tags, self.last_signs

    @staticmethod
    def label_rail(canvas, rng, x0, x1, top, h, bay_edges, tags, x9=None):
        """The board's front lined with price labels side by side, or per bay a promotion strip. Appends
        the labels' boxes to `tags` (a strip is no tag). x9 (style 9): the labels are printed_label's, drawn
        from that stream."""
        rail_col = (235, 235, 235) if rng.random() < 0.6 else rand_color(rng, sat=int(rng.integers(0, 200)))
        cv2.rectangle(canvas, (x0, top), (x1, top + h), rail_col, -1)
        for b0, b1 in zip(bay_edges[:-1], bay_edges[1:]):
            if rng.random() < 0.25:
                strip = promo_strip(rng, max(8, int(b1 - b0)), h)
                paste(canvas, strip, None, int(b0), top)
                continue
            x = int(b0 + rng.uniform(0, 0.5) * h); lh = max(4, int(h * rng.uniform(0.75, 1.0)))
            while x < b1:
                lw = max(6, int(lh * rng.uniform(1.3, 3.0)))
                look = price_label(rng, lw, lh) if x9 is None else printed_label(x9, lw, lh, rail_col)
                paste(canvas, look, None, x, top + (h - lh) // 2)
                tags.append([x, top + (h - lh) // 2, x + lw, top + (h - lh) // 2 + lh])
                x += lw + int(h * (0 if rng.random() < 0.3 else rng.uniform(0.05, 2.5)))

    @staticmethod
    def edge_labels(canvas, rng, x0, x1, base, board, board_col, prod_h, tags, x9=None):
        """Style 8: an edge strip from `base` with price labels along it; appends their boxes to `tags` and
        returns the strip's bottom (the next row's top). x9 (style 9): printed_label's labels, and sometimes a
        clear holder's glare along the strip, drawn from that stream."""
        lh = max(5, int(prod_h * rng.uniform(0.14, 0.32)))
        sh = max(board, int(lh * rng.uniform(1.05, 1.6)))
        col = pick(rng, EDGE_STRIPS) or board_col
        cv2.rectangle(canvas, (x0, base), (x1, base + sh), col, -1)
        if rng.random() < 0.5:  # the clear label holder's edges
            edge_col = tuple(int(c * 0.7) for c in col)
            cv2.line(canvas, (x0, base + 1), (x1, base + 1), edge_col, max(1, sh // 20))
            cv2.line(canvas, (x0, base + sh - 2), (x1, base + sh - 2), edge_col, max(1, sh // 20))
        x = x0 + int(rng.uniform(0, 1.0) * prod_h)
        while x < x1:
            lw = max(10, int(lh * rng.uniform(2.0, 4.2)))
            ly = base + (sh - lh) // 2 + int(rng.uniform(-0.15, 0.15) * (sh - lh))
            paste(canvas, edge_label(rng, lw, lh) if x9 is None else printed_label(x9, lw, lh, col), None, x, ly)
            tags.append([x, ly, x + lw, ly + lh])
            x += lw + int(prod_h * (rng.uniform(0.05, 0.3) if rng.random() < 0.25 else rng.uniform(0.4, 3.0)))
        if x9 is not None and x9.random() < 0.3:  # the holder's plastic catching the light along the strip
            gy = base + int(sh * x9.uniform(0.05, 0.5)); gh = max(1, int(sh * x9.uniform(0.05, 0.25)))
            y0, y1, xa, xb = max(0, gy), min(canvas.shape[0], gy + gh), max(0, x0), min(canvas.shape[1], x1)
            if y1 > y0 and xb > xa:
                a = x9.uniform(0.25, 0.6)
                canvas[y0:y1, xa:xb] = (canvas[y0:y1, xa:xb] * (1 - a) + 255 * a).astype(np.uint8)
        return base + sh

    @staticmethod
    def posters(canvas, boxes, rng, prod_h, H, W, covers):
        """Posters and shelf signs in front of the products; products they mostly hide lose their box.
        Appends each poster's (x, y, w, h) to `covers`."""
        for _ in range(int(rng.integers(0, 3))):
            pw = int(prod_h * rng.uniform(0.8, 3.5)); ph = int(pw * rng.uniform(0.5, 1.3))
            px, py = int(rng.uniform(-0.2, 1) * W), int(rng.uniform(-0.2, 1) * H)
            sign = poster(rng, max(8, pw), max(8, ph))
            paste(canvas, sign, None, px, py)
            boxes = drop_hidden(boxes, px, py, sign.shape[1], sign.shape[0])
            covers.append((px, py, sign.shape[1], sign.shape[0]))
        return boxes

    @staticmethod
    def peg_tags(canvas, tags, rng, pegs, prod_h, x9=None):
        """Style 7: a price label on the front end of most hooks, over the top of the hanging product (the
        product keeps its box: a labeller boxes it whole). x9 (style 9): printed_label's labels."""
        for cx, top, pw in pegs:
            if rng.random() < 0.15:
                continue
            lh = max(5, int(prod_h * rng.uniform(0.12, 0.3))); lw = max(8, int(min(pw, lh * rng.uniform(1.3, 2.8))))
            x = int(cx - lw / 2 + rng.uniform(-0.1, 0.1) * lw); y = int(top - lh * rng.uniform(0.2, 1.0))
            look = price_label(rng, lw, lh) if rng.random() < 0.7 else price_tag(rng, lw, lh)
            if x9 is not None:
                look = printed_label(x9, lw, lh)
            if rng.random() < 0.4:  # a plastic holder's rim around the label
                cv2.rectangle(look, (0, 0), (lw - 1, lh - 1), tuple(int(c) for c in rng.integers(150, 230, 3)), max(1, lh // 10))
            paste(canvas, look, None, x, y)
            tags.append([x, y, x + lw, y + lh])

    @staticmethod
    def case_wall(look_img, row_h, x4):
        """Style 4: one product's shipping cases stacked 3..7 high to the board above, every case the same
        rectangle, touching its neighbours, with at most a faint seam: the model must split a repeated
        texture at its period, not at a visible edge."""
        stack = int(x4.integers(3, 8))
        ph = max(4, int(row_h * 0.98 / stack))
        pw = max(4, int(ph * x4.uniform(0.8, 1.8)))
        img = cv2.resize(look_img, (pw, ph), interpolation=cv2.INTER_AREA)
        if x4.random() < 0.6:
            shade = x4.uniform(0.5, 0.9)
            img[:1] = (img[:1] * shade).astype(np.uint8); img[:, :1] = (img[:, :1] * shade).astype(np.uint8)
        return img, np.full((ph, pw), 255, np.uint8), ph, pw, stack, int(x4.integers(2, 8))

    @staticmethod
    def wire_fence(canvas, rng, x0, x1, base, prod_h):
        """Thin metal bars in front of the products' lower part (they stay products, bars and all)."""
        col = tuple(int(c) for c in rng.integers(150, 240, 3))
        t = max(1, int(prod_h * rng.uniform(0.015, 0.04)))
        top = base - int(prod_h * rng.uniform(0.2, 0.45))
        for y in (top, (top + base) // 2):
            cv2.line(canvas, (int(x0), int(y)), (int(x1), int(y)), col, t)
        step = int(prod_h * rng.uniform(0.3, 1.5))
        for x in range(int(x0), int(x1), max(4, step)):
            cv2.line(canvas, (x, int(top)), (x, int(base)), col, max(1, t // 2))

    def hang(self, canvas, boxes, rng, ch, x0, x1, y0, y1, prod_h, pegs):
        """A pegboard bay: bags and blister packs hanging from hooks in a grid. Appends each hook's
        (x, top of the product, product width) to `pegs`."""
        ph = int(prod_h * rng.uniform(0.8, 1.3)); pw = int(ph * rng.uniform(0.5, 0.9))
        y = y0 + int(prod_h * 0.2)
        while y + ph < y1:
            x = x0 + int(rng.uniform(0, 0.2) * pw)
            while x + pw < x1:
                img, mask = self.product_appearance(rng, pw, ph, ch)
                img = cv2.resize(img, (pw, ph), interpolation=cv2.INTER_AREA)
                mask = cv2.resize(mask, (pw, ph), interpolation=cv2.INTER_NEAREST)
                cv2.line(canvas, (x + pw // 2, y - int(prod_h * 0.15)), (x + pw // 2, y + 2), (90, 90, 90), max(1, pw // 25))
                paste(canvas, img, mask, x, y)
                pegs.append((x + pw // 2, y, pw))
                ys, xs = np.nonzero(mask)
                if len(xs):
                    boxes.append([x + xs.min(), y + ys.min(), x + xs.max() + 1, y + ys.max() + 1])
                x += pw + int(pw * rng.uniform(0.02, 0.2))
            y += ph + int(prod_h * rng.uniform(0.25, 0.5))

    def fill_row(self, canvas, boxes, rng, ch, x0, x1, base, prod_h, row_h, H, W, tight=False, depth=None):
        """Groups of repeated facings standing on the board at y=base, with gaps and stacks.

        depth (style 3): (x3, dy, n_back, ytop) draws the rows of the same products behind the front facings,
        n_back copies each dy px higher and darker, clipped at ytop (under the board above). Seen from above,
        real shelves show these; only the front facing is a product box."""
        x = x0 + int(rng.uniform(0, 0.1) * prod_h)
        gap_p = rng.uniform(0, 0.12)
        first = len(boxes)
        placed = []  # (img, mask, x, top): drawn after the rows behind, so no back copy covers a front facing
        while x < x1:
            if rng.random() < gap_p:  # empty slot
                x += int(prod_h * rng.uniform(0.3, 1.2)); continue
            ph = int(prod_h * rng.uniform(0.55, 1.0))
            if tight:
                ph = int(prod_h * (0.8 + 0.2 * ph / prod_h))
            look_img, look_mask = self.product_appearance(rng, int(ph * rng.uniform(0.3, 0.9)), ph, ch)
            ar = look_img.shape[1] / look_img.shape[0]
            ar = float(np.clip(ar * rng.uniform(0.85, 1.15), 0.2, 2.5))
            pw = max(3, int(ph * ar))
            if pw > prod_h * 2.2:
                pw = int(prod_h * 2.2); ph = max(3, int(pw / ar))
            img = cv2.resize(look_img, (pw, ph), interpolation=cv2.INTER_AREA)
            mask = cv2.resize(look_mask, (pw, ph), interpolation=cv2.INTER_NEAREST)
            stack = 1
            if ph * 2.05 < row_h * 0.98 and rng.random() < 0.5:
                stack = int(min(3, (row_h * 0.98) // ph))
            n_face = int(rng.integers(1, 7))
            wall = ch.cases and ch.x4.random() < 0.75
            if wall:
                img, mask, ph, pw, stack, n_extra = self.case_wall(look_img, row_h, ch.x4)
                n_face += n_extra
            if depth is not None:
                x3 = depth[0]
                if x3.random() < 0.35:  # round package: photos of bottles and cans show shading across them
                    img = random_shade(img, x3)
                if x3.random() < 0.4:  # real shelves hold long runs of one product
                    n_face += int(x3.integers(2, 9))
            spacing = int(pw * rng.uniform(0.0, 0.12 if not tight else 0.03))
            if wall:  # a case wall: the cases touch
                spacing = 0
            pitch = pw + spacing
            if ch.yaw:
                img, mask, pw, pitch = self.angled(img, mask, spacing, ch)
            for _ in range(n_face):
                if x + pw * 0.5 > x1:
                    break
                for s in range(stack):
                    top = base - ph * (s + 1)
                    placed.append((img, mask, x, top))
                    ys, xs = np.nonzero(mask)
                    bx1, by1, bx2, by2 = x + xs.min(), top + ys.min(), x + xs.max() + 1, top + ys.max() + 1
                    boxes.append([bx1, by1, bx2, by2])
                x += pitch
            x += int(pw * rng.uniform(0.0, 0.2))
        if depth is not None:
            x3, dy, n_back, ytop = depth
            for k in range(n_back, 0, -1):  # farthest row first
                dark = x3.uniform(0.5, 0.85) ** k
                for img, mask, px, top in placed:
                    ty = int(top - dy * k)
                    cut = max(0, int(ytop) - ty)
                    if cut >= img.shape[0]:
                        continue
                    back = (img[cut:] * dark).astype(np.uint8)
                    paste(canvas, back, mask[cut:], px + int(x3.integers(-2, 3)) + int(dy * k * ch.lean), ty + cut)
        for img, mask, px, top in placed:  # left to right: at an angle, the nearer (right) one is on top
            paste(canvas, img, mask, px, top)
        if ch.yaw and placed:
            boxes[first:] = visible_boxes(placed)

    @staticmethod
    def angled(img, mask, spacing, ch):
        """Style 5: one product's look seen at an angle, and the step to the next facing. A box-shaped product
        shows its front narrowed and its right side, darker; facings that touch hide each other's side. A
        round one (bottle, can) looks the same from any angle, but its neighbours stand closer than its width."""
        x5, yaw = ch.x5, ch.yaw
        ph, pw = img.shape[:2]
        if x5.random() < 0.4:
            return img, mask, pw, max(2, int(pw * x5.uniform(0.55, 0.9) * (0.5 + 0.5 * yaw)) + spacing)
        fw = max(2, int(pw * yaw))
        sw = max(1, int(pw * x5.uniform(0.3, 1.0) * np.sqrt(1 - yaw ** 2)))
        strip = max(1, pw // 6)
        side = (cv2.resize(img[:, -strip:], (sw, ph), interpolation=cv2.INTER_LINEAR) * x5.uniform(0.45, 0.8)).astype(np.uint8)
        img = np.concatenate([cv2.resize(img, (fw, ph), interpolation=cv2.INTER_AREA), side], 1)
        mask = np.concatenate([cv2.resize(mask, (fw, ph), interpolation=cv2.INTER_NEAREST),
                               cv2.resize(mask[:, -strip:], (sw, ph), interpolation=cv2.INTER_NEAREST)], 1)
        return img, mask, fw + sw, fw + int(sw * x5.uniform(0, 1) ** 2) + spacing


def visible_boxes(placed):
    """The box of each product's visible part (placed: (img, mask, x, top) in drawing order, later ones on top).
    Products with under 30% of their pixels left visible get no box, as a labeller would skip them."""
    lx0 = min(p[2] for p in placed); ly0 = min(p[3] for p in placed)
    lx1 = max(p[2] + p[0].shape[1] for p in placed); ly1 = max(p[3] + p[0].shape[0] for p in placed)
    lab = np.zeros((ly1 - ly0, lx1 - lx0), np.int32)
    for i, (img, mask, px, top) in enumerate(placed):
        h, w = mask.shape
        lab[top - ly0:top - ly0 + h, px - lx0:px - lx0 + w][mask > 127] = i + 1
    out = []
    for i, (img, mask, px, top) in enumerate(placed):
        h, w = mask.shape
        ys, xs = np.nonzero(lab[top - ly0:top - ly0 + h, px - lx0:px - lx0 + w] == i + 1)
        if len(xs) >= 0.3 * max(1, np.count_nonzero(mask > 127)):
            out.append([px + xs.min(), top + ys.min(), px + xs.max() + 1, top + ys.max() + 1])
    return out


def speckled_floor(canvas, rng, y0, prod_h):
    """Terrazzo / speckled floor below the unit: fine high-contrast texture the size of small products,
    which a model trained without it took for products."""
    H, W = canvas.shape[:2]
    y0 = max(0, int(y0))
    if y0 >= H - 4:
        return
    h = H - y0
    base = np.full((h, W, 3), rand_color(rng, sat=int(rng.integers(0, 60))), np.float32)
    n = int(h * W / rng.uniform(40, 400))
    xs = rng.integers(0, W, n); ys = rng.integers(0, h, n)
    r = max(1, int(prod_h * rng.uniform(0.02, 0.12)))
    cols = rng.integers(0, 256, (n, 3))
    for x, y, c in zip(xs, ys, cols):
        cv2.circle(base, (int(x), int(y)), int(rng.integers(1, r + 1)), tuple(float(v) for v in c), -1)
    if rng.random() < 0.5:  # tiles
        step = int(prod_h * rng.uniform(0.5, 2))
        for x in range(0, W, step):
            cv2.line(base, (x, 0), (x + int(rng.uniform(-0.5, 0.5) * h), h), (80, 80, 80), 1)
    base = cv2.GaussianBlur(base, (0, 0), 0.7)
    canvas[y0:] = np.clip(base * rng.uniform(0.8, 1.1), 0, 255).astype(np.uint8)


def glass_doors(canvas, rng, bay_edges, y0, y1, post_w):
    """Cooler doors: a dark frame per bay and light reflections on the glass (not products)."""
    H, W = canvas.shape[:2]
    fw = max(3, int(post_w * rng.uniform(1.5, 4)))
    col = tuple(int(c) for c in rng.integers(0, 70, 3))
    for b in range(len(bay_edges) - 1):
        cv2.rectangle(canvas, (int(bay_edges[b]), y0), (int(bay_edges[b + 1]), y1), col, fw)
    f = canvas.astype(np.float32)
    for _ in range(rng.integers(1, 5)):
        mask = np.zeros((H, W), np.uint8)
        x = int(rng.uniform(0, W)); w = int(rng.uniform(0.02, 0.15) * W); sl = int(rng.uniform(-0.3, 0.3) * H)
        cv2.fillPoly(mask, [np.array([[x, 0], [x + w, 0], [x + w + sl, H], [x + sl, H]], np.int32)], 255)
        mask = cv2.GaussianBlur(mask, (0, 0), max(1, w / 4)).astype(np.float32)[..., None] / 255 * rng.uniform(0.15, 0.5)
        f = f * (1 - mask) + 255 * mask
    canvas[:] = np.clip(f, 0, 255).astype(np.uint8)


def warp_boxes(boxes, M):
    """Boxes through the 3x3 transform M: each becomes the box enclosing its four warped corners."""
    if not len(boxes):
        return boxes
    c = np.stack([boxes[:, [0, 1]], boxes[:, [2, 1]], boxes[:, [2, 3]], boxes[:, [0, 3]]], 1).reshape(-1, 1, 2)
    c = cv2.perspectiveTransform(c.astype(np.float32), M).reshape(-1, 4, 2)
    return np.concatenate([c.min(1), c.max(1)], 1)


def visible(boxes, W, H):
    """Boxes clipped to the W x H photo; those with under 30% of their area or 3 px of a side in it are dropped."""
    if not len(boxes):
        return boxes
    full = boxes.copy()
    boxes = boxes.copy()
    boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, W); boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, H)
    area = (full[:, 2] - full[:, 0]) * (full[:, 3] - full[:, 1])
    vis = (boxes[:, 2] - boxes[:, 0]).clip(0) * (boxes[:, 3] - boxes[:, 1]).clip(0)
    keep = (vis >= 0.3 * area) & ((boxes[:, 2] - boxes[:, 0]) >= 3) & ((boxes[:, 3] - boxes[:, 1]) >= 3)
    return boxes[keep]


def camera(img, boxes, rng, strong=False, aisle=False, roll=0.0, others=()):
    """Perspective, lighting, colour cast, blur, noise. Boxes follow the perspective (enclosing box).
    roll (degrees, style 4): the camera held crooked; the photo is zoomed so no corner shows past the scene.
    others: more (N,4) box arrays (tags, signs) that follow the same geometry; with them, returns
    (img, boxes, [others...]). Neither draws anything from rng."""
    H, W = img.shape[:2]
    others = list(others)
    if roll:
        a = np.deg2rad(abs(roll)); zoom = np.cos(a) + np.sin(a) * max(W, H) / min(W, H)
        R = cv2.getRotationMatrix2D((W / 2, H / 2), roll, zoom)
        img = cv2.warpAffine(img, R, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        boxes = warp_boxes(boxes, np.vstack([R, [0, 0, 1]]))
        others = [warp_boxes(o, np.vstack([R, [0, 0, 1]])) for o in others]
    if rng.random() < 0.8:
        d = rng.uniform(0, 0.08)
        src = np.float32([[0, 0], [W, 0], [W, H], [0, H]])
        jit = rng.uniform(-d, d, (4, 2)) * np.float32([W, H])
        if rng.random() < 0.5 or aisle:  # seen from one side: one edge shorter
            k = rng.uniform(0, 0.25 if strong else 0.12) * H
            if aisle:
                k = rng.uniform(0.25, 0.4) * H
            jit[0, 1] += k; jit[3, 1] -= k
        dst = (src + jit).astype(np.float32)
        M = cv2.getPerspectiveTransform(src, dst)
        img = cv2.warpPerspective(img, M, (W, H), borderMode=cv2.BORDER_REFLECT)
        boxes = warp_boxes(boxes, M)
        others = [warp_boxes(o, M) for o in others]
    # Light: smooth gain field + colour cast.
    gy, gx = np.mgrid[0:H, 0:W].astype(np.float32)
    cx, cy = rng.uniform(0, W), rng.uniform(0, H)
    r = np.sqrt((gx - cx) ** 2 + (gy - cy) ** 2) / max(H, W)
    gain = rng.uniform(0.7, 1.2) * (1 - rng.uniform(0, 0.5) * r)
    cast = rng.uniform(0.85, 1.15, 3).astype(np.float32)
    f = img.astype(np.float32) * gain[..., None] * cast
    f = (f - 128) * rng.uniform(0.75, 1.2) + 128
    if rng.random() < 0.6:
        f = cv2.GaussianBlur(f, (0, 0), rng.uniform(0.3, 1.6))
    f += rng.normal(0, rng.uniform(0, 8), f.shape).astype(np.float32)
    img = np.clip(f, 0, 255).astype(np.uint8)
    # Clip to the photo; keep products (and tags) with enough of them visible.
    boxes = visible(boxes, W, H)
    if others:
        return img, boxes, [visible(o, W, H) for o in others]
    return img, boxes


def _work(args):
    out, start, end, seed, procedural_only, size, style = args
    gen = Generator(procedural_only=procedural_only, style=style)
    for i in range(start, end):
        path = os.path.join(out, '%06d' % i)
        if os.path.exists(path + '.json'):
            continue
        rng = np.random.default_rng([seed, i, 1])
        img, boxes, tags, signs = gen.scene_with_tags([seed, i], size)
        q = int(rng.integers(45, 96))
        cv2.imwrite(path + '.jpg', img, [cv2.IMWRITE_JPEG_QUALITY, q])
        with open(path + '.json', 'w') as fh:
            json.dump({'width': img.shape[1], 'height': img.shape[0], 'boxes': np.round(boxes, 1).tolist(),
                       'tags': np.round(tags, 1).tolist(), 'signs': np.round(signs, 1).tolist()}, fh)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('out'); ap.add_argument('--count', type=int, default=100); ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--start', type=int, default=0); ap.add_argument('--workers', type=int, default=1)
    ap.add_argument('--procedural-only', action='store_true', help='draw every product (no shared/data pixels)')
    ap.add_argument('--size', help='fixed WxH instead of random phone-photo shapes')
    ap.add_argument('--style', type=int, default=2, help='1: the first training set\'s scenes; 2: adds coolers, hooks, tight rows; 3: adds rows behind the front facings, round shading, long runs, aisle views, drinks bottles, wire fronts; 4: adds walls of stacked cases, close-ups of big products, a crooked camera; 5: adds shelves seen at an angle, where products show their sides and hide part of their neighbours; 6: adds price-label rails and promotion strips on the shelf edges and posters in front of the products; 7: adds price labels on the pegboard hooks; 8: shelf edges whose labels have the real ones\' sizes and colours; 9: labels printed in TrueType faces (glyph_atlas.py) with real layouts, white on white, faded print, glare; edges with labels in most scenes')
    a = ap.parse_args()
    size = tuple(int(v) for v in a.size.split('x')) if a.size else None
    os.makedirs(a.out, exist_ok=True)
    n = a.count; k = max(1, a.workers)
    chunks = [(a.out, a.start + n * j // k, a.start + n * (j + 1) // k, a.seed, a.procedural_only, size, a.style) for j in range(k)]
    if k == 1:
        _work(chunks[0])
    else:
        from multiprocessing import Pool
        with Pool(k) as p:
            p.map(_work, chunks)


if __name__ == '__main__':
    main()
