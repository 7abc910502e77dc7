"""Export a trained ShelfNet checkpoint to ONNX (dynamic height/width), plus a reference input/output set
so the export can be checked against PyTorch through onnxruntime-node (check_export.mjs): there is no
onnxruntime for Python here.

Usage: python3 export.py runs/r1/final.pt ../shelf-detector.onnx [--check-dir runs/r1/check]
       python3 export.py runs/soup.pt:3 runs/g4/snap-489.pt:2 ../shelf-detector.onnx --check-dir runs/check-e --score-threshold 0.25
Several checkpoints (each CKPT[:WEIGHT], weight 1 by default) export one graph that runs them all on the
input and averages their heads with those weights (model.ShelfEnsemble); it has the same inputs and outputs.
A member may also be an exported detector (FILE.onnx[:WEIGHT], rebuilt by onnx_import.py): an ensemble's
networks join with their own weights scaled to WEIGHT, so a new network can be added to the shipped model:
       python3 export.py ../shelf-detector.onnx:2 runs/c1/final.pt:1 runs/e1.onnx --score-threshold 0.25
--score-threshold records the score cut chosen with these weights (on the labelled real photos) in the
model's metadata; the app's detector and evaluate.py take it as their default (0.3 where a model has none).
--input-size does the same for the long side of the first pass's input (1280 where a model has none):
       python3 export.py runs/w.pt ../shelf-detector.onnx --score-threshold 0.25 --input-size 1152
"""
import argparse

import torch

from model import ShelfEnsemble, build
from onnx_export import export_onnx, write_check_cases
from onnx_import import load_detector


def load(spec):
    """'path.pt[:weight]' or 'path.onnx[:weight]' -> [(network in eval mode, checkpoint dict, weight, path)]:
    one entry, or one per network of an exported ensemble, their weights summing to `weight`."""
    path, sep, weight = spec.rpartition(':')
    if not sep or not weight.replace('.', '', 1).isdigit():
        path, weight = spec, '1'
    if path.endswith('.onnx'):
        model, info = load_detector(path)
        nets = list(model.members) if isinstance(model, ShelfEnsemble) else [model]
        total = sum(info['weights'])
        return [(net, {'arch': arch}, float(weight) * w / total, f'{path}#{i}')
                for i, (net, arch, w) in enumerate(zip(nets, info['archs'], info['weights']))]
    state = torch.load(path, map_location='cpu')
    model = build(state.get('arch', 'small'))
    model.load_state_dict(state['model']); model.eval()
    return [(model, state, float(weight), path)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('ckpts', nargs='+', metavar='CKPT[:WEIGHT]'); ap.add_argument('out'); ap.add_argument('--check-dir')
    ap.add_argument('--score-threshold', type=float, help="the app's default score cut for these weights")
    ap.add_argument('--input-size', type=int, help="the long side of the app's first-pass input for these weights "
                    '(metadata input_size; the app uses 1280 without it)')
    a = ap.parse_args()
    torch.set_num_threads(2)
    members = [m for s in a.ckpts for m in load(s)]
    if len(members) == 1:
        model, state, _, _ = members[0]
        metadata = {'steps': state.get('step', ''), 'arch': state.get('arch', 'small')}
    else:
        model = ShelfEnsemble([m for m, _, _, _ in members], [w for _, _, w, _ in members]).eval()
        metadata = {'arch': 'ensemble of ' + ', '.join(f"{s.get('arch', 'small')} {p} x{w:g}" for _, s, w, p in members)}
    # What the file finds: the shelf detector and the price-tag detector share inputs and outputs, and the app's
    # model store (recognition/model-store.ts, findsPriceTags) refuses one installed as the other.
    metadata['finds'] = 'price tags' if 'mnv2-tags' in str(metadata['arch']) else 'products'
    if a.score_threshold is not None:
        if not 0 < a.score_threshold < 1:
            ap.error('--score-threshold must lie between 0 and 1')
        metadata['score_threshold'] = a.score_threshold
    if a.input_size is not None:
        if not 32 <= a.input_size <= 8192:
            ap.error('--input-size must lie between 32 and 8192')
        metadata['input_size'] = a.input_size
    x = torch.rand(1, 3, 640, 640) * 255
    names = ['heatmap', 'size', 'offset']
    export_onnx(model, x, a.out, ['image'], names,
                {'image': {2: 'height', 3: 'width'}, **{n: {2: 'h', 3: 'w'} for n in names}}, metadata)
    if a.check_dir:
        # Two sizes, one non-square, to exercise the dynamic axes.
        g = torch.Generator().manual_seed(0)
        write_check_cases(model, [torch.rand(1, 3, h, w, generator=g) * 255 for h, w in [(640, 640), (384, 512)]], names, a.check_dir)

if __name__ == '__main__':
    main()
