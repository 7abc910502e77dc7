"""Average the weights of several checkpoints of one lineage (a "model soup", Wortsman et al. 2022).

Usage: python3 average.py OUT.pt CKPT.pt [CKPT.pt ...] [--pretrained-backbone ALPHA]
The checkpoints must share an architecture and descend from one another by fine-tuning (snapshots of a run
and the run it started from); averaging unrelated networks gives noise. Every floating-point tensor is
averaged, BatchNorm's running statistics included; integer buffers (BatchNorm's batch counter) are taken
from the first. OUT.pt loads like a run's final.pt (`export.py OUT.pt ...`, `train.py --init OUT.pt`).

A checkpoint named N times counts N times (2 : 1 weights by naming the first twice).

--pretrained-backbone ALPHA (mnv2 networks): then moves the backbone a fraction ALPHA of the way back to
the weights it was fine-tuned from, the ported Open Images MobileNetV2 (pretrained_backbone.py); the FPN
and heads stay as averaged. WiSE-FT's interpolation toward the pretrained start, for the backbone only:
the FPN and heads have no pretrained start (phase A trained them from random).

Why: on the labelled real photos, single snapshots of a run swing by up to 0.1 AP50 from one to the next,
and their average scored above each of them; a network averaged with its own continuation scored above
both; and moving that average's backbone 0.1 to 0.15 of the way back to the pretrained weights raised dev
AP50 again, 0.753 to 0.776-0.781 (models/RESEARCH_LOG.md, "Fourth session").
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


def toward_pretrained(checkpoint, alpha):
    """The checkpoint with its backbone moved `alpha` of the way to the ported pretrained backbone."""
    if not 0 <= alpha <= 1:
        raise SystemExit(f'--pretrained-backbone takes a fraction from 0 to 1, not {alpha}')
    from model import MOBILE_ARCHS
    if checkpoint['arch'] not in MOBILE_ARCHS:
        raise SystemExit(f"--pretrained-backbone needs a MobileNetV2 network, not arch {checkpoint['arch']}")
    from pretrained_backbone import load_state_dict
    state = dict(checkpoint['model'])
    for k, v in load_state_dict().items():
        mine = state['backbone.' + k]
        state['backbone.' + k] = ((1 - alpha) * mine.double() + alpha * v.double()).to(mine.dtype)
    return {**checkpoint, 'model': state, 'step': f"{checkpoint['step']}, backbone {alpha} of the way to the pretrained"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('out'); ap.add_argument('checkpoints', nargs='+')
    ap.add_argument('--pretrained-backbone', type=float, metavar='ALPHA',
                    help='move the backbone this fraction of the way back to the pretrained weights')
    a = ap.parse_args()
    out = average(a.checkpoints)
    if a.pretrained_backbone is not None:
        out = toward_pretrained(out, a.pretrained_backbone)
    torch.save(out, a.out)
    print(f'{a.out}: average of {len(a.checkpoints)} checkpoints' +
          (f', backbone {a.pretrained_backbone} of the way to the pretrained' if a.pretrained_backbone is not None else ''))


if __name__ == '__main__':
    main()
