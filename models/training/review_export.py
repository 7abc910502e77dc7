"""The supervisors' training export (`npm run cli -- export-training --out DIR`, docs/recognition.md
"Review") as the fine-tunes read it: its reviewed photos with their boxes, and the split of its scenes
into training and held-out ones that the detector's and the embedder's fine-tunes share, and how they
name what they write."""
import datetime
import hashlib
import json
import os
import random
import re

import numpy as np


class BadInput(Exception):
    """An export (or another input) a fine-tune cannot use: exit status 2 with this message."""


def read_export(folder):
    """COCO export -> [{'file', 'scene', 'boxes' (N,4) x1,y1,x2,y2 displayed pixels, 'skus' [sku id | None]}],
    one per photo."""
    path = os.path.join(folder, 'annotations.json')
    if not os.path.exists(path):
        raise BadInput(f'{path} not found: --export takes a folder written by `npm run cli -- export-training`')
    with open(path) as fh:
        coco = json.load(fh)
    boxes = {im['id']: [] for im in coco['images']}
    skus = {im['id']: [] for im in coco['images']}
    for a in coco['annotations']:
        x, y, w, h = a['bbox']
        boxes[a['image_id']].append([x, y, x + w, y + h])
        skus[a['image_id']].append((a.get('attributes') or {}).get('sku_id'))
    return [{'file': os.path.join(folder, im['file_name']), 'scene': im['scene'],
             'boxes': np.array(boxes[im['id']], np.float64).reshape(-1, 4), 'skus': skus[im['id']]} for im in coco['images']]


def split_scenes(photos, holdout, seed):
    """(training photos, held-out photos): a `holdout` share of the scenes (at least one each side), chosen
    by a shuffle seeded with `seed` over the sorted scene ids, so a run can be repeated. By scene, not by
    photo: the photos of one scene overlap, and a split by photo would test on what it trained on."""
    scenes = sorted({p['scene'] for p in photos})
    if len(scenes) < 2:
        raise BadInput(f'the export holds {len(scenes)} reviewed scene(s): at least 2 are needed, one to train on and one to test on')
    random.Random(seed).shuffle(scenes)
    n = min(len(scenes) - 1, max(1, round(holdout * len(scenes))))
    held = set(scenes[:n])
    return [p for p in photos if p['scene'] not in held], [p for p in photos if p['scene'] in held]


def sha256(path):
    h = hashlib.sha256()
    with open(path, 'rb') as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()


def model_version(requested=None):
    """The version in a fine-tuned model's file name: `requested`, or finetune-DATE-TIME (UTC); None when
    `requested` cannot be part of a file name."""
    version = requested or 'finetune-' + datetime.datetime.now(datetime.timezone.utc).strftime('%Y%m%d-%H%M')
    return version if re.fullmatch(r'[A-Za-z0-9][A-Za-z0-9._-]{0,63}', version) else None
