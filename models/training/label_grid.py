"""Crop of a shelf photo with a coordinate grid, for labelling product boxes by eye (real-labels/).

Usage: python3 label_grid.py PHOTO X1 Y1 X2 Y2 OUT.png [GRID_STEP] [LABELS.json]
Crops X1..X2, Y1..Y2 of PHOTO (as cv2 loads it: EXIF orientation applied), scales it to 1100 px on its
long side, draws magenta grid lines every GRID_STEP original pixels (default 100) with their coordinates
and, if LABELS.json is given, its "boxes" in green, to check them against the photo.
"""
import json
import sys

import cv2


def main():
    if len(sys.argv) < 7:
        raise SystemExit(__doc__)
    photo, out = sys.argv[1], sys.argv[6]
    x1, y1, x2, y2 = map(int, sys.argv[2:6])
    step = int(sys.argv[7]) if len(sys.argv) > 7 else 100
    im = cv2.imread(photo)
    if im is None:
        raise SystemExit(f'cannot read {photo}')
    crop = im[y1:y2, x1:x2].copy()
    s = 1100 / max(crop.shape[:2])
    crop = cv2.resize(crop, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    if len(sys.argv) > 8:
        for b in json.load(open(sys.argv[8]))['boxes']:
            cv2.rectangle(crop, (int((b[0] - x1) * s), int((b[1] - y1) * s)), (int((b[2] - x1) * s), int((b[3] - y1) * s)), (0, 255, 0), 2)
    for x in range((x1 // step + 1) * step, x2, step):
        X = int((x - x1) * s)
        cv2.line(crop, (X, 0), (X, crop.shape[0]), (255, 0, 255), 1)
        cv2.putText(crop, str(x), (X + 2, 12), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 0, 255), 1)
    for y in range((y1 // step + 1) * step, y2, step):
        Y = int((y - y1) * s)
        cv2.line(crop, (0, Y), (crop.shape[1], Y), (255, 0, 255), 1)
        cv2.putText(crop, str(y), (2, Y - 2), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (255, 0, 255), 1)
    cv2.imwrite(out, crop)


if __name__ == '__main__':
    main()
