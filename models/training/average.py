"""Average the weights of several checkpoints of one lineage (a "model soup", Wortsman et al. 2022).

Usage: python3 average.py OUT.pt CKPT.pt [CKPT.pt ...]
The checkpoints must share an architecture and descend from one another by fine-tuning (snapshots of a run
and the run it started from); averaging unrelated networks gives noise. Every floating-point tensor is
averaged, BatchNorm's running statistics included; integer buffers (BatchNorm's batch counter) are taken
from the first. OUT.pt loads like a run's final.pt (`export.py OUT.pt ...`, `train.py --init OUT.pt`).

Why: on the labelled real photos, single snapshots of a run swing by up to 0.1 AP50 from one to the next,
and their average scored above each of them (models/MODEL_CARD.md).
"""
import argparse

import torch


def average(paths):
    states = [torch.load(p, map_location='cpu') for p in paths]
    archs = {s.get('arch', 'small') for s in states}
    if len(archs) != 1:
        raise SystemExit(f'the checkpoints have different architectures: {sorted(archs)}')
    first = states[0]['model']
    for p, s in zip(paths, states):
        if s['model'].keys() != first.keys() or any(s['model'][k].shape != v.shape for k, v in first.items()):
            raise SystemExit(f'{p} does not have the same tensors as {paths[0]}')
    out = {}
    for k, v in first.items():
        if v.is_floating_point():
            out[k] = (sum(s['model'][k].double() for s in states) / len(states)).to(v.dtype)
        else:
            out[k] = v.clone()
    return {'model': out, 'arch': archs.pop(), 'step': 'average of ' + ', '.join(paths)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('out'); ap.add_argument('checkpoints', nargs='+')
    a = ap.parse_args()
    torch.save(average(a.checkpoints), a.out)
    print(f'{a.out}: average of {len(a.checkpoints)} checkpoints')


if __name__ == '__main__':
    main()
