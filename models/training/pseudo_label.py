"""Pseudo-labels for self-training: a teacher detector's confident boxes on unlabelled real in-store photos
that may be trained on (the Grocery Store Dataset's, MIT), written as training scenes (NNNNNN.jpg + .json,
generator.py's format) that dataset.ShelfCrops draws like generated ones.

- boxes: the teacher's boxes scored >= --keep (through the app's own detect pipeline);
- ignore: boxes scored between --doubt and --keep, and the hand-held product: these photos show one product
  held up to the camera in front of the shelf, partly covered by the hand. Any box holding the photo's centre
  and the centre square itself (--held of the side) are ignored: the trainer neither rewards nor penalises
  a peak there, so neither the hand nor a half-hidden product becomes a lesson. Doubtful boxes are ignored
  for the same reason: a miss of the teacher must not become a negative.
SKU-110K photos (shared/data/shelf-photos) must never be given to this script: they are evaluation only.

Usage: python3 pseudo_label.py --teacher ../shelf-detector.onnx --out cache/train --start 10000 \
           ../../../shared/data/grocery-store-dataset/dataset/train/Packages
"""
import argparse
import glob
import json
import os
import shutil

import numpy as np

from evaluate import as_array, detect


def label(boxes, width, height, keep, doubt, held):
    """Teacher boxes (N,5: x1 y1 x2 y2 score) -> (boxes to learn, regions to ignore), as lists of 4 floats."""
    cx, cy = width / 2, height / 2
    centre = (boxes[:, 0] <= cx) & (boxes[:, 2] >= cx) & (boxes[:, 1] <= cy) & (boxes[:, 3] >= cy)
    sure = (boxes[:, 4] >= keep) & ~centre
    unsure = (boxes[:, 4] >= doubt) & ~sure
    h = held * min(width, height) / 2
    ignore = [[cx - h, cy - h, cx + h, cy + h]] + boxes[unsure, :4].tolist()
    return boxes[sure, :4].tolist(), ignore


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('folders', nargs='+', help='folders of unlabelled photos (searched recursively for .jpg)')
    ap.add_argument('--teacher', required=True, help='the detector ONNX file that labels them')
    ap.add_argument('--out', required=True); ap.add_argument('--start', type=int, default=10000, help='first scene number')
    ap.add_argument('--keep', type=float, default=0.5); ap.add_argument('--doubt', type=float, default=0.15)
    ap.add_argument('--held', type=float, default=0.4, help='side of the ignored centre square, a fraction of the short side')
    a = ap.parse_args()
    if any('shelf-photos' in os.path.abspath(f) for f in a.folders):
        ap.error('shelf-photos (SKU-110K) are for evaluation only')
    photos = sorted(p for f in a.folders for p in glob.glob(os.path.join(f, '**', '*.jpg'), recursive=True))
    res = detect(photos, ['--model', os.path.abspath(a.teacher), '--score-threshold', str(a.doubt)])
    os.makedirs(a.out, exist_ok=True)
    n_boxes = 0
    for k, p in enumerate(photos):
        r = res[p]
        boxes, ignore = label(as_array(r), r['width'], r['height'], a.keep, a.doubt, a.held)
        stem = os.path.join(a.out, f'{a.start + k:06d}')
        shutil.copyfile(p, stem + '.jpg')
        with open(stem + '.json', 'w') as fh:
            json.dump({'boxes': boxes, 'ignore': ignore, 'source': os.path.relpath(p, a.folders[0]),
                       'teacher': os.path.basename(a.teacher), 'keep': a.keep}, fh)
        n_boxes += len(boxes)
    print(json.dumps({'photos': len(photos), 'boxes': n_boxes, 'boxes_per_photo': n_boxes / max(1, len(photos))}))


if __name__ == '__main__':
    main()
