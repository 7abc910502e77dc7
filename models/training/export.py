"""Export a trained ShelfNet checkpoint to ONNX (dynamic height/width), plus a reference input/output set
so the export can be checked against PyTorch through onnxruntime-node (check_export.mjs): there is no
onnxruntime for Python here.

Usage: python3 export.py runs/r1/final.pt ../shelf-detector.onnx [--check-dir runs/r1/check]
"""
import argparse

import torch

from model import ShelfNet
from onnx_export import export_onnx, write_check_cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('ckpt'); ap.add_argument('out'); ap.add_argument('--check-dir')
    a = ap.parse_args()
    torch.set_num_threads(2)
    state = torch.load(a.ckpt, map_location='cpu')
    model = ShelfNet(state.get('arch', 'small'))
    model.load_state_dict(state['model']); model.eval()
    x = torch.rand(1, 3, 640, 640) * 255
    names = ['heatmap', 'size', 'offset']
    export_onnx(model, x, a.out, ['image'], names,
                {'image': {2: 'height', 3: 'width'}, **{n: {2: 'h', 3: 'w'} for n in names}},
                {'steps': state.get('step', ''), 'arch': state.get('arch', 'small')})
    if a.check_dir:
        # Two sizes, one non-square, to exercise the dynamic axes.
        g = torch.Generator().manual_seed(0)
        write_check_cases(model, [torch.rand(1, 3, h, w, generator=g) * 255 for h, w in [(640, 640), (384, 512)]], names, a.check_dir)

if __name__ == '__main__':
    main()
