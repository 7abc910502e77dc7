"""Evaluate the shipped detector through the app's own pipeline (the detect CLI: sharp pre-processing,
onnxruntime-node, TypeScript decoding), so the figures are those of what ships.

1. Held-out generated set (a seed never trained on): COCO-style AP (IoU .50:.05:.95, 101-point
   interpolation, as pycocotools computes it; pycocotools itself is not installable here), AP50, AP75,
   and mean absolute count error per image. As in COCO practice (Detectron's 0.05), AP ranks every
   detection down to a score of 0.05 (SCORE_FOR_AP); the count error and the overlays use the boxes the
   app reports, those at its default threshold (the model's own, see app_threshold).
2. Real shelf photos (shared/data/shelf-photos, evaluation only): overlay PNGs of the detections with
   the count per photo, for a person to look at; and where `real-labels/` holds hand-labelled regions of
   a photo, AP50 and recall / precision inside them, pooled per split: `dev` (real-labels/*.json, which
   models have been chosen on) and `test` (real-labels/test/*.json, another region of each photo, kept for
   confirming a choice). Overlays draw the regions (yellow dev, cyan test), the truth in green and the
   detections in red.

Usage (after `npm run build`):
  python3 evaluate.py --val cache/val --photos ../../../shared/data/shelf-photos --out runs/eval
"""
import argparse
import glob
import json
import os
import subprocess

import cv2
import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '../..'))
SCORE_FOR_AP = 0.05
LABELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'real-labels')
SPLITS = {'dev': LABELS_DIR, 'test': os.path.join(LABELS_DIR, 'test')}  # real-labels/README.md


def app_threshold(extra):
    """The app's default score cut for the model detect.js runs with `extra` (--model, else the app's default
    model): asked of the app's own modelScoreThreshold, which reads it from the model's metadata."""
    model = extra[extra.index('--model') + 1] if '--model' in extra else ''  # resolved from ROOT, as detect() runs
    script = ("import { defaultModelPath, modelScoreThreshold } from './dist/main/server/recognition/detector/index.js';"
              "console.log(await modelScoreThreshold(process.argv[1] || defaultModelPath()));")
    r = subprocess.run(['node', '--input-type=module', '-e', script, model], capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        raise SystemExit(f'reading the model\'s score cut failed: {r.stderr}')
    return float(r.stdout)


def detect(images, extra=()):
    """Runs `node dist/main/cli/detect.js --json` and returns {image: result}."""
    out = {}
    for i in range(0, len(images), 50):
        chunk = images[i:i + 50]
        r = subprocess.run(['node', os.path.join(ROOT, 'dist/main/cli/detect.js'), '--json', *extra, *chunk],
                           capture_output=True, text=True, cwd=ROOT)
        if r.returncode != 0:
            raise SystemExit(f'detect failed: {r.stderr}')
        for line in r.stdout.splitlines():
            d = json.loads(line)
            out[d['image']] = d
    return out


def iou_matrix(a, b):
    ix1 = np.maximum(a[:, None, 0], b[None, :, 0]); iy1 = np.maximum(a[:, None, 1], b[None, :, 1])
    ix2 = np.minimum(a[:, None, 2], b[None, :, 2]); iy2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(ix2 - ix1, 0, None) * np.clip(iy2 - iy1, 0, None)
    area = lambda x: (x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])
    return inter / (area(a)[:, None] + area(b)[None, :] - inter + 1e-9)


def match(d, g, thr):
    """Greedy matching as COCO does it: detections d (N,5) best score first, each to the unmatched truth box
    of g (M,4) it overlaps most, at IoU >= thr. Returns d sorted by score and a true-positive flag per row."""
    d, truth, _ = assign(d, g, thr)
    return d, truth >= 0


def assign(d, g, thr):
    """match()'s greedy matching, returning d sorted by score, per row the index of the truth box it matched
    (-1 for none), and the IoU of every row with every truth box."""
    d = d[np.argsort(-d[:, 4], kind='stable')]
    matched = np.zeros(len(g), bool); truth = np.full(len(d), -1)
    ious = iou_matrix(d[:, :4], g) if len(g) and len(d) else np.zeros((len(d), len(g)))
    for k in range(len(d)):
        best, bj = thr, -1
        for j in np.nonzero(ious[k] >= thr)[0]:
            if not matched[j] and ious[k, j] >= best:
                best, bj = ious[k, j], j
        if bj >= 0:
            matched[bj] = True; truth[k] = bj
    return d, truth, ious


def average_precision(dets, gts, thr):
    """dets: per image (N,5) x1,y1,x2,y2,score; gts: per image (M,4). Greedy matching by score per image
    (as COCO), then the 101-point interpolated precision over recall."""
    scores, tps = [], []
    n_gt = sum(len(g) for g in gts)
    for d, g in zip(dets, gts):
        if len(d) == 0:
            continue
        d, tp = match(d, g, thr)
        scores.extend(d[:, 4]); tps.extend(tp)
    if n_gt == 0 or not scores:
        return 0.0
    order = np.argsort(-np.array(scores), kind='stable')
    tp = np.array(tps)[order].astype(np.float64)
    ctp, cfp = np.cumsum(tp), np.cumsum(1 - tp)
    recall = ctp / n_gt; precision = ctp / (ctp + cfp)
    precision = np.maximum.accumulate(precision[::-1])[::-1]
    ap = 0.0
    for r in np.linspace(0, 1, 101):
        k = np.searchsorted(recall, r, side='left')
        ap += precision[k] if k < len(precision) else 0.0
    return ap / 101


def ap_by_iou(dets, gts):
    """COCO's ten IoU thresholds (.50:.05:.95) -> AP at each; their mean is COCO's AP."""
    return {t: average_precision(dets, gts, t) for t in np.round(np.arange(0.5, 0.96, 0.05), 2)}


def as_array(result):
    """One detect result's boxes as an (N, 5) array: x1, y1, x2, y2, score."""
    return np.array([[b['x1'], b['y1'], b['x2'], b['y2'], b['score']] for b in result['boxes']], np.float64).reshape(-1, 5)


def evaluate_generated(folder, out_dir, extra, cut):
    stems = sorted(f[:-5] for f in glob.glob(os.path.join(folder, '*.json')))
    res = detect([s + '.jpg' for s in stems], ['--score-threshold', str(SCORE_FOR_AP), *extra])
    dets, gts, count_err, ms = [], [], [], []
    for s in stems:
        g = np.array(json.load(open(s + '.json'))['boxes'], np.float64).reshape(-1, 4)
        r = res[s + '.jpg']
        d = as_array(r)
        dets.append(d); gts.append(g); count_err.append(abs(int((d[:, 4] >= cut).sum()) - len(g))); ms.append(r['ms'])
    aps = ap_by_iou(dets, gts)
    m = {'images': len(stems), 'objects': int(sum(len(g) for g in gts)),
         'AP': float(np.mean(list(aps.values()))), 'AP50': aps[0.5], 'AP75': aps[0.75],
         'AP50_app_threshold': average_precision([d[d[:, 4] >= cut] for d in dets], gts, 0.5),
         'count_mae': float(np.mean(count_err)), 'mean_objects_per_image': float(np.mean([len(g) for g in gts])),
         'mean_ms': float(np.mean(ms))}
    # A few overlays of the generated set too: green = truth, red = detections.
    for s, d, g in list(zip(stems, dets, gts))[:4]:
        im = cv2.imread(s + '.jpg')
        for b in g:
            cv2.rectangle(im, (int(b[0]), int(b[1])), (int(b[2]), int(b[3])), (0, 255, 0), 1)
        for b in d[d[:, 4] >= cut]:
            cv2.rectangle(im, (int(b[0]), int(b[1])), (int(b[2]), int(b[3])), (0, 0, 255), 1)
        cv2.imwrite(os.path.join(out_dir, 'generated-' + os.path.basename(s) + '.png'), im)
    return m


def in_region(b, region):
    """Rows of b (x1, y1, x2, y2, ...) whose centre lies inside region (x1, y1, x2, y2)."""
    cx = (b[:, 0] + b[:, 2]) / 2; cy = (b[:, 1] + b[:, 3]) / 2
    return b[(cx >= region[0]) & (cx < region[2]) & (cy >= region[1]) & (cy < region[3])]


def evaluate_photos(folder, out_dir, extra, cut, splits=SPLITS):
    """Overlays and counts for every photo; for each split (name -> folder of hand-labelled regions,
    real-labels/README.md), AP50, AP and recall / precision inside its regions, pooled over the photos."""
    files = sorted(glob.glob(os.path.join(folder, '*.jpg')))
    res = detect(files, ['--score-threshold', str(SCORE_FOR_AP), *extra])
    counts = {}
    scored = {split: ([], [], {}) for split in splits}  # split -> (detections, truths, per photo)
    colours = [(0, 255, 255), (255, 255, 0)]
    for f in files:
        r = res[f]
        name = os.path.splitext(os.path.basename(f))[0]
        d = as_array(r)
        shown = d[d[:, 4] >= cut]
        im = cv2.imread(f, cv2.IMREAD_COLOR)  # applies EXIF orientation, as the app does
        t = max(2, im.shape[1] // 600)
        for (split, labels_dir), colour in zip(splits.items(), colours):
            label_file = os.path.join(labels_dir, name + '.json')
            if not os.path.exists(label_file):
                continue
            with open(label_file) as fh:
                lab = json.load(fh)
            region = lab['region']
            g = in_region(np.array(lab['boxes'], np.float64).reshape(-1, 4), region)
            dr = in_region(d, region)
            dets, gts, per = scored[split]
            dets.append(dr); gts.append(g)
            per[name] = {'objects': len(g), 'AP50': average_precision([dr], [g], 0.5), **region_scores([dr], [g], cut)}
            cv2.rectangle(im, tuple(region[:2]), tuple(region[2:]), colour, t)
            for b in g:
                cv2.rectangle(im, (int(b[0]), int(b[1])), (int(b[2]), int(b[3])), (0, 255, 0), max(1, t // 2))
        for b in shown:
            cv2.rectangle(im, (int(b[0]), int(b[1])), (int(b[2]), int(b[3])), (0, 0, 255), t)
        caption = f"{len(shown)} products, {r['ms']:.0f} ms"
        cv2.rectangle(im, (0, 0), (im.shape[1], 30 * t), (0, 0, 0), -1)
        cv2.putText(im, caption, (10, 24 * t), cv2.FONT_HERSHEY_SIMPLEX, t, (255, 255, 255), t, cv2.LINE_AA)
        scale = 1200 / max(im.shape[:2])
        im = cv2.resize(im, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        cv2.imwrite(os.path.join(out_dir, f'photo-{name}.png'), im)
        counts[name] = {'count': len(shown), 'ms': r['ms']}
    labelled = {}
    for split, (dets, gts, per) in scored.items():
        if gts:
            aps = ap_by_iou(dets, gts)
            labelled[split] = {'photos': len(gts), 'objects': int(sum(len(g) for g in gts)),
                               'AP50': aps[0.5], 'AP': float(np.mean(list(aps.values()))),
                               'AP30': average_precision(dets, gts, 0.3), 'AP40': average_precision(dets, gts, 0.4),
                               **region_scores(dets, gts, cut), 'misses': misses(dets, gts), 'per_photo': per}
    return counts, labelled


def misses(dets, gts, floor=SCORE_FOR_AP):
    """Where the products a detector misses at IoU 0.5 went, pooled over the regions (detections (N,5),
    truth (M,4) each). `reach`: the share found by some box scoring >= floor (AP50's ceiling). Every product
    left over is put under its best overlap with any such box: `unseen` (IoU < 0.1), `poor` (0.1 to 0.3) or
    `near` (>= 0.3: found, but the box's extent is wrong, or it is already some other product's box); near
    misses are split by that box's area against the product's: `larger` (over 1.5 times: often one box over
    two products), `smaller` (under 1/1.5) and `offset`."""
    out = {'reach': 0.0, 'unseen': 0, 'poor': 0, 'near': 0, 'larger': 0, 'smaller': 0, 'offset': 0}
    found = n_gt = 0
    for d, g in zip(dets, gts):
        d = d[d[:, 4] >= floor]
        n_gt += len(g)
        if not len(g):
            continue
        d, truth, ious = assign(d, g, 0.5)
        taken = np.zeros(len(g), bool)
        taken[truth[truth >= 0]] = True
        found += int(taken.sum())
        for j in np.nonzero(~taken)[0]:
            best = ious[:, j].max() if len(d) else 0.0
            if best < 0.1:
                out['unseen'] += 1
            elif best < 0.3:
                out['poor'] += 1
            else:
                out['near'] += 1
                b = d[int(np.argmax(ious[:, j]))]
                ratio = (b[2] - b[0]) * (b[3] - b[1]) / max(1e-9, (g[j, 2] - g[j, 0]) * (g[j, 3] - g[j, 1]))
                out['larger' if ratio > 1.5 else 'smaller' if ratio < 1 / 1.5 else 'offset'] += 1
    out['reach'] = found / max(1, n_gt)
    return out


def region_scores(dets, gts, cut):
    """Recall and precision at IoU 0.5 of the boxes the app reports (score >= cut), pooled over
    the regions (per region: detections (N,5), truth (M,4)), and the mean count error per region."""
    tp = n_det = n_gt = err = 0
    for d, g in zip(dets, gts):
        d, hit = match(d[d[:, 4] >= cut], g, 0.5)
        tp += int(hit.sum()); n_det += len(d); n_gt += len(g); err += abs(len(d) - len(g))
    return {'recall': tp / max(1, n_gt), 'precision': tp / max(1, n_det), 'count_error': err / len(gts)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--val', default='cache/val', help="held-out generated set, or 'none' for the photos alone")
    ap.add_argument('--photos')
    ap.add_argument('--out', default='runs/eval'); ap.add_argument('--detect-args', default='')
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    extra = a.detect_args.split() if a.detect_args else []
    if '--score-threshold' in extra:  # AP ranks every box down to SCORE_FOR_AP; a higher cut would truncate the curve
        ap.error("--detect-args may not set --score-threshold: AP ranks boxes down to %s, counts use the model's own cut" % SCORE_FOR_AP)
    cut = app_threshold(extra)
    report = {'app_threshold': cut}
    if a.val != 'none':
        report['generated'] = evaluate_generated(os.path.abspath(a.val), a.out, extra, cut)
        print(json.dumps(report['generated'], indent=1), flush=True)
    if a.photos:
        report['photos'], labelled = evaluate_photos(os.path.abspath(a.photos), a.out, extra, cut)
        print(json.dumps(report['photos'], indent=1))
        if labelled:
            report['labelled_photos'] = labelled  # {'dev': ..., 'test': ...}
            print(json.dumps(labelled, indent=1))
    with open(os.path.join(a.out, 'report.json'), 'w') as fh:
        json.dump(report, fh, indent=1)


if __name__ == '__main__':
    main()
