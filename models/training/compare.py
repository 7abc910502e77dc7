"""Two evaluate.py reports side by side on the hand-labelled regions: is a difference more than noise?

Usage: python3 compare.py runs/eval-A/report.json runs/eval-B/report.json [--boot 10000] [--seed 0]

For each split (dev, test) it prints, per photo, the AP50 of A and of B and their difference; then the
object-weighted mean of the per-photo differences, with a 90% interval from a paired bootstrap over the
photos (photos drawn with replacement, both models scored on the same draw), and how many photos B wins,
loses and ties. The last line is the same as JSON.

Why: the regions hold 19 photos each, and whole photos are what vary (a steep shelf, a blurred one): a
model chosen on dev by +0.02 AP50 has lost 0.01 on test (models/RESEARCH_LOG.md, "Fifth session"). The
interval says how large a change must be before it is a change, on these photos.

The weighted mean of per-photo AP50s is not the pooled AP50 evaluate.py reports (that ranks all the
boxes of a split together), but it moves with it, and its bootstrap needs only the reports.
"""
import argparse
import json

import numpy as np


def paired(a, b, boot=10000, seed=0):
    """a, b: evaluate.py's per_photo dicts of one split -> dict of the per-photo and summary figures."""
    names = sorted(set(a) & set(b))
    if not names:
        raise SystemExit('the two reports share no labelled photo')
    w = np.array([a[n]['objects'] for n in names], np.float64)
    d = np.array([b[n]['AP50'] - a[n]['AP50'] for n in names])
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(names), (boot, len(names)))
    means = (d[idx] * w[idx]).sum(1) / w[idx].sum(1)
    lo, hi = np.quantile(means, [0.05, 0.95])
    return {
        'photos': len(names),
        'per_photo': {n: [round(a[n]['AP50'], 3), round(b[n]['AP50'], 3)] for n in names},
        'mean_difference': float((d * w).sum() / w.sum()),
        'interval_90': [float(lo), float(hi)],
        'wins': int((d > 0.005).sum()), 'losses': int((d < -0.005).sum()), 'ties': int((abs(d) <= 0.005).sum()),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('a'); ap.add_argument('b')
    ap.add_argument('--boot', type=int, default=10000); ap.add_argument('--seed', type=int, default=0)
    args = ap.parse_args()
    reports = []
    for p in (args.a, args.b):
        with open(p) as fh:
            r = json.load(fh)
        if 'labelled_photos' not in r:
            raise SystemExit(f'{p} has no labelled regions: run evaluate.py with --photos')
        reports.append(r['labelled_photos'])
    out = {}
    for split in sorted(set(reports[0]) & set(reports[1])):
        r = paired(reports[0][split]['per_photo'], reports[1][split]['per_photo'], args.boot, args.seed)
        for n, (x, y) in r['per_photo'].items():
            print(f'{split} {n}: {x:.3f} -> {y:.3f} ({y - x:+.3f})')
        lo, hi = r['interval_90']
        print(f"{split}: B - A = {r['mean_difference']:+.3f} AP50 per photo (90% interval {lo:+.3f} to {hi:+.3f}); "
              f"B wins {r['wins']}, loses {r['losses']}, ties {r['ties']} of {r['photos']} photos")
        out[split] = {k: v for k, v in r.items() if k != 'per_photo'}
    print(json.dumps(out))


if __name__ == '__main__':
    main()
