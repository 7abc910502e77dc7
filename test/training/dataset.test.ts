// dataset.py: the training samples (crop, scale, flip) and their CenterNet targets. A slip here trains a
// model on boxes that sit beside their products, which nothing downstream would notice but its accuracy.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPython } from './python.js';

const TARGETS = `
import json
import numpy as np
from dataset import draw_targets
boxes = np.float32([[8, 8, 24, 40], [10, 50, 19, 59], [-40, -40, -20, -20]])
hm, ind, wh, off, msk = draw_targets(boxes, 32, 32)
n = int(msk.sum())
peaks = np.argwhere(hm == 1).tolist()
# two facings side by side, 16 px wide each: centre cells (2,5) and (6,5), the seam at column 4
pair = draw_targets(np.float32([[0, 0, 16, 40], [16, 0, 32, 40]]), 32, 32)[0]
print(json.dumps({'n': n, 'ind': ind[:n].tolist(), 'wh': np.exp(wh[:n]).tolist(), 'off': off[:n].tolist(),
                  'peaks': peaks, 'max': float(hm.max()),
                  'pair_peaks': np.argwhere(pair == 1).tolist(), 'seam': float(pair[5, 4]),
                  'beside': float(pair[5, 3]), 'below': float(pair[6, 2])}))
`;

// Scenes of solid red boxes on grey with their boxes; every target of every sample must sit on red.
const SCENES = `
import json, sys, cv2, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(0)
for k in range(3):
    H, W = [(600, 800), (900, 500), (300, 300)][k]
    img = np.full((H, W, 3), 128, np.uint8); boxes = []
    for _ in range(60):
        w, h = int(rng.integers(20, 120)), int(rng.integers(20, 160))
        x, y = int(rng.integers(0, W - w)), int(rng.integers(0, H - h))
        if any(x < b[2] + 4 and b[0] < x + w + 4 and y < b[3] + 4 and b[1] < y + h + 4 for b in boxes):
            continue
        img[y:y + h, x:x + w] = (0, 0, 230); boxes.append([x, y, x + w, y + h])
    cv2.imwrite(f'{d}/{k:06d}.jpg', img, [cv2.IMWRITE_JPEG_QUALITY, 98])
    json.dump({'boxes': boxes}, open(f'{d}/{k:06d}.json', 'w'))
`;

const SAMPLES = `
import json, sys
import cv2, numpy as np
from dataset import ShelfCrops
from model import STRIDE
ds = ShelfCrops(sys.argv[1], size=128, seed=7)
S = 128; out = {'boxes': 0, 'worst_iou': 1.0, 'jitter_ok': True}
for i in range(80):
    img, hm, ind, wh, off, msk, jitter = ds[i]
    assert str(img.dtype) == 'torch.uint8' and tuple(img.shape) == (3, S, S)
    img = img.numpy().astype(np.int16)
    j = jitter.numpy(); out['jitter_ok'] &= bool(0.5 < j[:3].min() and j[:3].max() < 1.5 and abs(j[3]) <= 20)
    red = ((img[0] > 150) & (img[1] < 100) & (img[2] < 100)).astype(np.uint8)
    _, comp, stats, _ = cv2.connectedComponentsWithStats(red, connectivity=4)
    for k in range(int(msk.sum())):
        cy, cx = divmod(int(ind[k]), S // STRIDE)
        w, h = (np.exp(wh[k].numpy()) * STRIDE).tolist()
        x = (cx + float(off[k][0])) * STRIDE; y = (cy + float(off[k][1])) * STRIDE
        if min(w, h) < 12:
            continue  # a pixel of resampling is too large a share of a tiny box
        c = comp[min(int(y), S - 1), min(int(x), S - 1)]
        iou = 0.0
        if c:  # the red product under the box centre, against the box decoded from the targets
            l, t, cw, ch = stats[c, :4]
            ix = max(0, min(x + w / 2, l + cw) - max(x - w / 2, l)); iy = max(0, min(y + h / 2, t + ch) - max(y - h / 2, t))
            iou = ix * iy / (w * h + cw * ch - ix * iy)
        out['worst_iou'] = min(out['worst_iou'], iou); out['boxes'] += 1
print(json.dumps(out))
`;

const FOURIER = `
import json
import numpy as np
from dataset import fourier_style, low_amplitudes
rng = np.random.default_rng(1)
img = rng.integers(60, 190, (96, 96, 3)).astype(np.uint8)
img[30:60, 20:70] = (40, 200, 90)
ref = np.empty((96, 96, 3), np.uint8); ref[:] = (150, 110, 70)
ref[:, 48:] = (170, 120, 60)
band = low_amplitudes(ref, 96, 1)
same = fourier_style(img, band, mix=0.0)
moved = fourier_style(img, band, mix=1.0)
# the same swap done the textbook way, through the whole image's FFT (what FDA's paper does)
F = np.fft.fftshift(np.fft.fft2(img.astype(np.float64), axes=(0, 1)), axes=(0, 1))
R = np.fft.fftshift(np.fft.fft2(ref.astype(np.float64), axes=(0, 1)), axes=(0, 1))
amp = np.abs(F); amp[47:50, 47:50] = np.abs(R[47:50, 47:50])
textbook = np.clip(np.fft.ifft2(np.fft.ifftshift(amp * np.exp(1j * np.angle(F)), axes=(0, 1)), axes=(0, 1)).real, 0, 255)
edges = lambda a: np.abs(np.diff(a.astype(np.float32).mean(2), axis=1))
print(json.dumps({'shape': list(moved.shape), 'dtype': str(moved.dtype),
                  'identity': int(np.abs(same.astype(int) - img).max()),
                  'vs_fft': float(np.abs(moved - textbook).max()),
                  'mean_img': img.reshape(-1, 3).mean(0).tolist(), 'mean_ref': ref.reshape(-1, 3).mean(0).tolist(),
                  'mean_moved': moved.reshape(-1, 3).mean(0).tolist(),
                  'edge_corr': float(np.corrcoef(edges(img).ravel(), edges(moved).ravel())[0, 1])}))
`;

/** A folder of SCENES' generated scenes for the describe block it is called in, removed after it. */
function sceneFolder(prefix: string): { dir: string } {
  const folder = { dir: '' };
  beforeAll(() => {
    folder.dir = mkdtempSync(path.join(os.tmpdir(), prefix));
    runPython(['-c', SCENES, folder.dir]);
  });
  afterAll(() => rmSync(folder.dir, { recursive: true, force: true }));
  return folder;
}

describe('dataset.draw_targets', () => {
  const r = JSON.parse(runPython(['-c', TARGETS]));

  it('puts one peak of 1 at each centre cell, stride 4, and skips boxes outside the map', () => {
    // [8,8,24,40]: centre (16,24) px -> cell (4,6); [10,50,19,59]: centre (14.5,54.5) -> cell (3,13)
    expect(r.n).toBe(2);
    expect(r.ind).toEqual([6 * 32 + 4, 13 * 32 + 3]);
    expect(r.peaks).toEqual([[6, 4], [13, 3]]);
    expect(r.max).toBe(1);
  });

  it('records the size in cells and the centre offset within the cell', () => {
    expect(r.wh[0][0]).toBeCloseTo(4, 5);
    expect(r.wh[0][1]).toBeCloseTo(8, 5);
    expect(r.wh[1][0]).toBeCloseTo(9 / 4, 5);
    expect(r.off[0]).toEqual([0, 0]);
    expect(r.off[1][0]).toBeCloseTo(0.625, 6);
    expect(r.off[1][1]).toBeCloseTo(0.625, 6);
  });

  it('keeps facings side by side apart: the spread follows the box, narrow across and long down', () => {
    expect(r.pair_peaks).toEqual([[5, 2], [5, 6]]);
    expect(r.seam).toBeLessThan(0.01);
    expect(r.beside).toBeLessThan(0.1); // one cell across a box 4 cells wide
    expect(r.below).toBeGreaterThan(0.4); // one cell down a box 10 cells tall
  });
});

describe('dataset.ShelfCrops', () => {
  const scenes = sceneFolder('crops-');

  it('every target, decoded back into a box, fits its product after crop, scale and flip', () => {
    const r = JSON.parse(runPython(['-c', SAMPLES, scenes.dir]));
    expect(r.boxes).toBeGreaterThan(100);
    expect(r.worst_iou).toBeGreaterThan(0.8);
    expect(r.jitter_ok).toBe(true);
  });
});

describe('dataset.fourier_style', () => {
  const r = JSON.parse(runPython(['-c', FOURIER]));

  it('with no mix returns the image unchanged', () => {
    expect(r.shape).toEqual([96, 96, 3]);
    expect(r.dtype).toBe('uint8');
    expect(r.identity).toBeLessThanOrEqual(1);
  });

  it("takes the real photo's overall colour and keeps the image's edges where they were", () => {
    for (let c = 0; c < 3; c++) {
      expect(Math.abs(r.mean_moved[c] - r.mean_ref[c])).toBeLessThan(2);
      expect(Math.abs(r.mean_img[c] - r.mean_ref[c])).toBeGreaterThan(5);
    }
    expect(r.edge_corr).toBeGreaterThan(0.9);
  });

  it("equals the swap made through the whole image's FFT (to the uint8 rounding)", () => {
    expect(r.vs_fft).toBeLessThan(1);
  });
});

// Pseudo-labelled scenes (pseudo_label.py) carry regions to ignore: doubtful teacher boxes and the hand-held
// product. Inside them a peak is neither rewarded nor penalised; they follow the crop, scale and flip.
const IGNORED = `
import json, sys
import cv2, numpy as np, torch
from dataset import IGNORE, ShelfCrops, draw_targets
from train import focal_loss
d = sys.argv[1]
for k in range(3):  # the same scenes, every red product listed as ignored instead of as a box
    lab = json.load(open(f'{d}/{k:06d}.json'))
    json.dump({'boxes': [], 'ignore': lab['boxes']}, open(f'{d}/ign-{k:06d}.json', 'w'))
    cv2.imwrite(f'{d}/ign-{k:06d}.jpg', cv2.imread(f'{d}/{k:06d}.jpg'))
    import os; os.remove(f'{d}/{k:06d}.json')
ds = ShelfCrops(d, size=128, seed=3)
inside = outside = wrong = 0
for i in range(40):
    img, hm, *_ , msk, _ = ds[i]
    assert int(msk.sum()) == 0
    red = ((img[0] > 150) & (img[1] < 100) & (img[2] < 100)).numpy().astype(np.float32)
    share = cv2.resize(red, (32, 32), interpolation=cv2.INTER_AREA)
    h = hm[0].numpy()
    # cells all red must be ignored; cells with no red in or beside them (partial edge cells aside) untouched
    full, none = share > 0.99, cv2.dilate((share > 0).astype(np.uint8), np.ones((3, 3), np.uint8)) == 0
    inside += int(full.sum()); outside += int(none.sum())
    wrong += int((h[full] < IGNORE - 1e-6).sum()) + int((h[none] != 0).sum())
hm = draw_targets(np.float32([[40, 40, 60, 80]]), 32, 32, ignore=np.float32([[32, 32, 96, 96]]))[0]
sure = torch.full((1, 1, 32, 32), 4.0)  # a confident peak everywhere
inside_loss = float(focal_loss(sure[..., 8:24, 8:24], torch.from_numpy(hm)[None, None, 8:24, 8:24]))
bare_loss = float(focal_loss(sure[..., 8:24, 8:24], torch.zeros(1, 1, 16, 16)))
print(json.dumps({'inside': inside, 'outside': outside, 'wrong': wrong, 'peak': float(hm[15, 12]),
                  'inside_loss': inside_loss, 'bare_loss': bare_loss}))
`;

describe('dataset: ignored regions', () => {
  const scenes = sceneFolder('ignore-');

  it('marks every ignored product, after crop, scale and flip, and nothing else; no negative loss inside', () => {
    const r = JSON.parse(runPython(['-c', IGNORED, scenes.dir]));
    expect(r.inside).toBeGreaterThan(200);
    expect(r.outside).toBeGreaterThan(200);
    expect(r.wrong).toBe(0);
    expect(r.peak).toBe(1); // a sure box inside an ignored region is still a positive
    // bare: 16x16 confident false peaks; inside: the same peaks in the ignored region, only the true one counts
    expect(r.bare_loss).toBeGreaterThan(100);
    expect(r.inside_loss).toBeLessThan(1);
  });
});

// The price-tag detector's samples (--target tags --shelf-aug): the scenes' "tags" are the boxes, their
// "signs" ignored regions, and the shelf conditions' perspective moves the targets with the pixels.
const TAG_SAMPLES = `
import json, os, sys
import cv2, numpy as np
from dataset import IGNORE, ShelfCrops, load_sample
from model import STRIDE
d = sys.argv[1]
for k in range(3):  # the red boxes as tags, the first one as a sign; no products
    lab = json.load(open(f'{d}/{k:06d}.json'))
    json.dump({'boxes': [], 'tags': lab['boxes'][1:], 'signs': lab['boxes'][:1]}, open(f'{d}/{k:06d}.json', 'w'))
img, boxes, ignore = load_sample(f'{d}/000000', 'tags')
out = {'tags': len(boxes), 'signs': len(ignore), 'products': len(load_sample(f'{d}/000000')[1])}
ds = ShelfCrops(d, size=128, seed=11, target='tags', shelf_aug=True)
S = 128; n = 0; worst = []; ignored = 0
for i in range(80):
    img, hm, ind, wh, off, msk, _ = ds[i]
    img = img.numpy().astype(np.int16)
    ignored += int((hm.numpy() >= IGNORE - 1e-6).sum() > 0)
    red = ((img[0] > 150) & (img[1] < 100) & (img[2] < 100)).astype(np.uint8)
    _, comp, stats, _ = cv2.connectedComponentsWithStats(red, connectivity=4)
    for k in range(int(msk.sum())):
        cy, cx = divmod(int(ind[k]), S // STRIDE)
        w, h = (np.exp(wh[k].numpy()) * STRIDE).tolist()
        x = (cx + float(off[k][0])) * STRIDE; y = (cy + float(off[k][1])) * STRIDE
        if min(w, h) < 12:
            continue
        c = comp[min(int(y), S - 1), min(int(x), S - 1)]
        iou = 0.0
        if c:
            l, t, cw, ch = stats[c, :4]
            ix = max(0, min(x + w / 2, l + cw) - max(x - w / 2, l)); iy = max(0, min(y + h / 2, t + ch) - max(y - h / 2, t))
            iou = ix * iy / (w * h + cw * ch - ix * iy)
        worst.append(iou); n += 1
out.update({'boxes': n, 'p10_iou': float(np.percentile(worst, 10)), 'median_iou': float(np.median(worst)), 'ignored_samples': ignored})
os.remove(f'{d}/000001.json'); json.dump({'boxes': []}, open(f'{d}/000001.json', 'w'))
try:
    load_sample(f'{d}/000001', 'tags'); out['old_scene'] = 'loaded'
except ValueError as e:
    out['old_scene'] = str(e)
print(json.dumps(out))
`;

describe('dataset.ShelfCrops, price tags', () => {
  const scenes = sceneFolder('tag-crops-');

  it('takes the tags as boxes and the signs as ignored regions, through the shelf conditions', () => {
    const r = JSON.parse(runPython(['-c', TAG_SAMPLES, scenes.dir]));
    expect(r.tags).toBeGreaterThan(5);
    expect(r.signs).toBe(1);
    expect(r.products).toBe(0);
    expect(r.boxes).toBeGreaterThan(100);
    // Against the red pixels' own box, which the conditions' darker light and motion blur shrink (so not
    // all reach 0.8): a target beside its tag would score near 0.
    expect(r.median_iou).toBeGreaterThan(0.8);
    expect(r.p10_iou).toBeGreaterThan(0.5);
    expect(r.ignored_samples).toBeGreaterThan(0);
    expect(r.old_scene).toMatch(/has no "tags"/);
  });
});
