"""Research only: how many reviewed photos a fine-tune needs. Stands the hand-labelled
regions of the SKU-110K photos (real-labels/, dev and test) in for supervisors' reviews: each region,
cut from its photo shrunk to the app's input scale (so products keep the size the detector sees), is one
"reviewed photo". Photos are split (by --seed) into a held-out set and a training pool, both regions of
a photo on the same side; then finetune.py's own steps fine-tune the base model on the first N regions
of the pool, mixed with generated shelves, for each N of --sizes, and score each on the held-out regions.

SKU-110K is for research and evaluation only: the weights made here are written to a temporary folder
and deleted when the run ends; nothing here may ship (models/RESEARCH_LOG.md, "Learning curve").

Usage: python3 learning_curve.py --photos ../../../shared/data/shelf-photos --generated cache/lc-gen \
           --sizes 0,6,12,24 --minutes 6 [--out runs/learning-curve.json]
"""
import argparse
import glob
import json
import os
import random
import shutil
import signal
import sys
import tempfile

import cv2
import numpy as np
import torch

import evaluate
import finetune
from onnx_import import load_detector


def region_samples(photos_dir, folder):
    """Each labelled region of real-labels/ -> a cut-out image at the app's scale and its boxes."""
    out = []
    for split, labels in evaluate.SPLITS.items():
        for f in sorted(glob.glob(os.path.join(labels, '*.json'))):
            lab = json.load(open(f))
            img = cv2.imread(os.path.join(photos_dir, lab['image']), cv2.IMREAD_COLOR)
            k = min(1.0, finetune.APP_LONG_SIDE / max(img.shape[:2]))
            x1, y1, x2, y2 = [int(round(v * k)) for v in lab['region']]
            boxes = evaluate.in_region(np.array(lab['boxes'], np.float64).reshape(-1, 4), lab['region']) * k
            boxes -= [x1, y1, x1, y1]
            boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, x2 - x1); boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, y2 - y1)
            small = cv2.resize(img, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
            name = f"{os.path.splitext(lab['image'])[0]}-{split}"
            file = os.path.join(folder, name + '.jpg')
            cv2.imwrite(file, small[y1:y2, x1:x2], [cv2.IMWRITE_JPEG_QUALITY, 95])
            out.append({'file': file, 'scene': lab['image'], 'boxes': boxes, 'name': name})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--photos', required=True); ap.add_argument('--generated', required=True)
    ap.add_argument('--base', default=finetune.DEFAULT_BASE)
    ap.add_argument('--sizes', default='0,6,12,24', help='training-pool regions per fine-tune')
    ap.add_argument('--held-photos', type=int, default=7); ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--minutes', type=float, default=6); ap.add_argument('--steps', type=int, default=10 ** 9)
    ap.add_argument('--batch', type=int, default=8); ap.add_argument('--size', type=int, default=384)
    ap.add_argument('--lr', type=float, default=1e-4); ap.add_argument('--mix', type=float, default=0.5)
    ap.add_argument('--threads', type=int, default=2); ap.add_argument('--log-every', type=int, default=20)
    ap.add_argument('--out', default='runs/learning-curve.json')
    a = ap.parse_args()
    a.photo_aug = False
    torch.set_num_threads(a.threads)
    # A stopped run must delete its weights too: SIGTERM leaves through the finally below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    work = tempfile.mkdtemp(prefix='learning-curve-')  # every weight file lives here and goes with it
    try:
        regions = region_samples(a.photos, work)
        photos = sorted({r['scene'] for r in regions})
        random.Random(a.seed).shuffle(photos)
        held_photos = set(photos[:a.held_photos])
        held = [r for r in regions if r['scene'] in held_photos]
        pool = [r for r in regions if r['scene'] not in held_photos]
        random.Random(a.seed + 1).shuffle(pool)
        results = {'held_out': {'regions': len(held), 'photos': sorted(held_photos), 'objects': int(sum(len(r['boxes']) for r in held))},
                   'settings': {k: getattr(a, k) for k in ('minutes', 'steps', 'batch', 'size', 'lr', 'mix', 'seed')}, 'runs': []}
        base = finetune.score(a.base, held)
        print(f"held out: {len(held)} regions of {len(held_photos)} photos, {results['held_out']['objects']} products; base AP50 {base['AP50']:.3f}", flush=True)
        for n in [int(s) for s in a.sizes.split(',')]:
            if n == 0:
                results['runs'].append({'regions': 0, 'objects': 0, 'steps': 0, **base})
                continue
            train = pool[:n]
            samples = os.path.join(work, f'samples-{n}')
            finetune.prepare_samples(samples, a.generated, train)
            model, _ = load_detector(a.base)
            model, steps, seconds = finetune.fine_tune(model, samples, a)
            candidate = os.path.join(work, f'candidate-{n}.onnx')
            names = ['heatmap', 'size', 'offset']
            finetune.export_onnx(model, torch.rand(1, 3, 640, 640) * 255, candidate, ['image'], names,
                                 {'image': {2: 'height', 3: 'width'}, **{k: {2: 'h', 3: 'w'} for k in names}}, {'score_threshold': 0.25})
            s = finetune.score(candidate, held)
            os.remove(candidate)
            row = {'regions': n, 'photos': len({r['scene'] for r in train}), 'objects': int(sum(len(r['boxes']) for r in train)),
                   'steps': steps, 'minutes': round(seconds / 60, 1), **s}
            results['runs'].append(row)
            print(json.dumps(row), flush=True)
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        with open(a.out, 'w') as fh:
            json.dump(results, fh, indent=1)
        print(json.dumps(results, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
