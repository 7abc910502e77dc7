"""Export a trained ProductNet to ONNX (dynamic batch), plus inputs and PyTorch outputs so that
`node ../check_export.mjs MODEL.onnx CHECK_DIR` can check the export through onnxruntime-node.

Usage: python3 export.py runs/e1/final.pt ../../product-embedder.onnx --check-dir runs/e1/check \
           --golden ../../../test/fixtures/embedder/golden.json

--golden writes PyTorch's embeddings of a few sku-crops photos (resized by OpenCV, as in training), which
the app's test compares with its own (sharp resize, onnxruntime-node): a wrong channel order or layout in
the app's pre-processing fails it. Rewrite it with every new model.
"""
import argparse
import json
import os
import sys

import torch

from model import SIZE, ProductNet

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from onnx_export import export_onnx, write_check_cases  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('ckpt'); ap.add_argument('out'); ap.add_argument('--check-dir'); ap.add_argument('--golden')
    ap.add_argument('--data', default=os.path.join(os.path.dirname(__file__), '../../../../shared/data'))
    a = ap.parse_args()
    model = ProductNet()
    state = torch.load(a.ckpt, map_location='cpu')
    model.load_state_dict(state['model']); model.eval()
    x = torch.rand(2, 3, SIZE, SIZE) * 255
    export_onnx(model, x, a.out, ['image'], ['embedding'], {'image': {0: 'batch'}, 'embedding': {0: 'batch'}},
                {'epochs': state.get('epoch', '')})
    if a.check_dir:
        g = torch.Generator().manual_seed(0)
        write_check_cases(model, [torch.rand(n, 3, SIZE, SIZE, generator=g) * 255 for n in (1, 5)], ['embedding'], a.check_dir)
    if a.golden:
        import cv2
        from data import to_tensor
        files = ['sku-crops/fanta_pet/' + f for f in sorted(os.listdir(os.path.join(a.data, 'sku-crops/fanta_pet')))[:1]]
        files += ['sku-crops/sprite_pet/' + f for f in sorted(os.listdir(os.path.join(a.data, 'sku-crops/sprite_pet')))[:1]]
        files += ['sku-crops/cocacola_can/' + f for f in sorted(os.listdir(os.path.join(a.data, 'sku-crops/cocacola_can')))[:1]]
        out = []
        for f in files:
            img = cv2.resize(cv2.imread(os.path.join(a.data, f)), (SIZE, SIZE), interpolation=cv2.INTER_AREA)
            with torch.no_grad():
                e = model(to_tensor(img)[None])[0]
            out.append({'file': f, 'embedding': [round(float(v), 6) for v in e]})
        os.makedirs(os.path.dirname(a.golden), exist_ok=True)
        with open(a.golden, 'w') as fh:
            json.dump({'model_epochs': state.get('epoch'), 'images': out}, fh)


if __name__ == '__main__':
    main()
