"""Export a trained ShelfNet checkpoint to ONNX (dynamic height/width), plus a reference input/output set
so the export can be checked against PyTorch through onnxruntime-node (check_export.mjs): there is no
onnxruntime for Python here.

Usage: python3 export.py runs/r1/final.pt ../shelf-detector.onnx [--check-dir runs/r1/check]
"""
import argparse
import json
import os

import numpy as np
import torch

from model import ShelfNet


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('ckpt'); ap.add_argument('out'); ap.add_argument('--check-dir')
    a = ap.parse_args()
    torch.set_num_threads(2)
    model = ShelfNet()
    state = torch.load(a.ckpt, map_location='cpu')
    model.load_state_dict(state['model']); model.eval()
    x = torch.rand(1, 3, 640, 640) * 255
    torch.onnx.export(model, x, a.out, input_names=['image'], output_names=['heatmap', 'size', 'offset'],
                      dynamic_axes={'image': {2: 'height', 3: 'width'}, 'heatmap': {2: 'h', 3: 'w'},
                                    'size': {2: 'h', 3: 'w'}, 'offset': {2: 'h', 3: 'w'}},
                      opset_version=13, do_constant_folding=True)
    import onnx
    m = onnx.load(a.out)
    onnx.checker.check_model(m)
    m.metadata_props.add(key='steps', value=str(state.get('step', '')))
    onnx.save(m, a.out)
    print(f'{a.out}: {os.path.getsize(a.out) / 1e6:.2f} MB, step {state.get("step")}')
    if a.check_dir:
        # Two sizes, one non-square, to exercise the dynamic axes.
        os.makedirs(a.check_dir, exist_ok=True)
        g = torch.Generator().manual_seed(0)
        cases = []
        for k, (h, w) in enumerate([(640, 640), (384, 512)]):
            inp = torch.rand(1, 3, h, w, generator=g) * 255
            with torch.no_grad():
                outs = model(inp)
            names = ['image', 'heatmap', 'size', 'offset']
            for n, t in zip(names, (inp,) + tuple(outs)):
                t.numpy().astype(np.float32).tofile(os.path.join(a.check_dir, f'{k}-{n}.f32'))
            cases.append({'index': k, 'shape': [1, 3, h, w], 'outputs': {n: list(t.shape) for n, t in zip(names[1:], outs)}})
        with open(os.path.join(a.check_dir, 'cases.json'), 'w') as fh:
            json.dump(cases, fh)


if __name__ == '__main__':
    main()
