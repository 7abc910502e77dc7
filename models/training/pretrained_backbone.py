"""The pretrained backbone: MobileNetV2-1.0 from MediaPipe Objectron's SSD, a training-time input only.

The npm package @mediapipe/objectron (Apache-2.0) packs, inside objectron_solution_packed_assets.data, a
TFLite SSD-MobileNetV2 (fp16 weights) trained on Open Images V4 (annotations CC BY 4.0, images CC BY 2.0)
to find the objects Objectron then lifts to 3D. This script
  1. fetches the pinned package with `npm pack` into cache/objectron/ (git-ignored) and checks its sha256,
  2. cuts the .tflite out of the packed .data (offsets from the emscripten loader's file list) and checks it,
  3. maps the graph's convolutions onto mobilenet_v2.MobileNetV2 by following the graph's data flow and
     writes the fp16 weights, widened to fp32, as a PyTorch state dict (cache/objectron/mobilenet_v2.pt),
  4. with --check, runs a few images through the port and through tflite_reference (the flatbuffer's own
     graph executed op by op in NumPy) and prints the largest difference of the stride 4/8/16/32 maps.
Nothing of it enters the repository or the app: the detector trained from it is exported as usual.

Usage: python3 pretrained_backbone.py [--check IMAGE...] [--cache DIR]   (prints the state dict's path)
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

import numpy as np
import torch

import tflite
import tflite_reference
from mobilenet_v2 import TAPS, MobileNetV2

PACKAGE = '@mediapipe/objectron@0.4.1675468480'
TARBALL = 'mediapipe-objectron-0.4.1675468480.tgz'
TARBALL_SHA256 = 'fc3e37b326b05e8f596099c90b3e0931b05a56cd3160b9ac450b621794bac94c'
TFLITE_NAME = 'object_detection_ssd_mobilenetv2_oidv4_fp16.tflite'
TFLITE_SHA256 = 'd0a5255bf8c4f5a0bc4240741a76c41d5e939f7655078f945f50ab53a9375da6'
CACHE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'cache', 'objectron')


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def fetch_tflite(cache=CACHE):
    """The SSD's .tflite bytes, from the pinned npm package (fetched once into `cache`), checksums verified."""
    os.makedirs(cache, exist_ok=True)
    tgz = os.path.join(cache, TARBALL)
    if not os.path.exists(tgz):
        # Packed into a private folder, then moved: two processes fetching at once never read half a file.
        with tempfile.TemporaryDirectory(dir=cache) as tmp:
            subprocess.run(['npm', 'pack', PACKAGE, '--pack-destination', tmp, '--silent'], check=True,
                           stdout=subprocess.DEVNULL)
            os.replace(os.path.join(tmp, TARBALL), tgz)
    with open(tgz, 'rb') as fh:
        got = sha256(fh.read())
    if got != TARBALL_SHA256:
        raise RuntimeError(f'{tgz}: sha256 {got}, expected {TARBALL_SHA256} (delete it to fetch again)')
    with tarfile.open(tgz) as tar:
        loader = tar.extractfile('package/objectron_solution_packed_assets_loader.js').read().decode()
        packed = tar.extractfile('package/objectron_solution_packed_assets.data').read()
    # The emscripten file packager's loader lists each file as {"filename": ..., "start": ..., "end": ...}.
    m = re.search(r'"filename":\s*"[^"]*/' + re.escape(TFLITE_NAME) + r'",\s*"start":\s*(\d+),\s*"end":\s*(\d+)', loader)
    if not m:
        raise RuntimeError(f'{TFLITE_NAME} not listed in the package loader')
    data = packed[int(m.group(1)):int(m.group(2))]
    if sha256(data) != TFLITE_SHA256:
        raise RuntimeError(f'{TFLITE_NAME}: sha256 {sha256(data)}, expected {TFLITE_SHA256}')
    return data


def _consumer(model, tensor, kinds, weight_shape=None):
    """The one op of `kinds` reading `tensor` as its first input (and with this weight shape, if given)."""
    found = [o for o in model.ops if o.kind in kinds and o.inputs and o.inputs[0] == tensor
             and (weight_shape is None or model.tensors[o.inputs[1]].shape == weight_shape)]
    if len(found) != 1:
        raise RuntimeError(f'{len(found)} {kinds} ops read tensor {tensor} ({model.tensors[tensor].name})')
    return found[0]


def _constant(model, index):
    """A constant tensor's fp32 value, looking through the DEQUANTIZE that widens an fp16 weight."""
    t = model.tensors[index]
    if t.data is not None:
        return t.data.astype(np.float32)
    src = [o for o in model.ops if o.kind == 'DEQUANTIZE' and o.outputs[0] == index]
    if len(src) != 1 or model.tensors[src[0].inputs[0]].data is None:
        raise RuntimeError(f'tensor {t.name} is not a constant')
    return model.tensors[src[0].inputs[0]].data.astype(np.float32)


def port(model):
    """tflite.Model -> (MobileNetV2 with its weights, {block index: the graph's tensor index of its output}).

    Walks the graph from its input as the port's forward() does: each convolution must be the single op of its
    kind and weight shape reading the current tensor, with the port's stride, SAME padding and activation."""
    net = MobileNetV2()
    state, taps = {}, {}
    cur = model.inputs[0]

    def conv(module, name, act):
        nonlocal cur
        dw = module.groups > 1
        o, i, kh, kw = module.weight.shape
        shape = (1, kh, kw, o) if dw else (o, kh, kw, i)
        op = _consumer(model, cur, ('DEPTHWISE_CONV_2D',) if dw else ('CONV_2D',), shape)
        opt = op.options
        if opt['padding'] != 'SAME' or opt['stride'] != module.stride or opt['dilation'] != (1, 1) or opt['activation'] != act:
            raise RuntimeError(f'{name}: graph op {opt} differs from the port')
        w = _constant(model, op.inputs[1])
        state[name + '.weight'] = torch.from_numpy(w.transpose(3, 0, 1, 2) if dw else w.transpose(0, 3, 1, 2).copy())
        state[name + '.bias'] = torch.from_numpy(_constant(model, op.inputs[2]))
        cur = op.outputs[0]

    conv(net.stem, 'stem', 'RELU6')
    for k, b in enumerate(net.blocks):
        start = cur
        if b.expand is not None:
            conv(b.expand, f'blocks.{k}.expand', 'RELU6')
        conv(b.depthwise, f'blocks.{k}.depthwise', 'RELU6')
        conv(b.project, f'blocks.{k}.project', None)
        if b.residual:
            adds = [o for o in model.ops if o.kind == 'ADD' and sorted(o.inputs) == sorted([cur, start])]
            if len(adds) != 1 or adds[0].options['activation'] is not None:
                raise RuntimeError(f'block {k}: no plain residual ADD in the graph')
            cur = adds[0].outputs[0]
        if k in TAPS:
            taps[k] = cur
    net.load_state_dict({k: v.contiguous() for k, v in state.items()}, strict=True)
    return net.eval(), taps


def load_state_dict(cache=CACHE):
    """The ported weights (fetching and converting them on first use), for MobileNetV2.load_state_dict."""
    path = os.path.join(cache, 'mobilenet_v2.pt')
    if not os.path.exists(path):
        net, _ = port(tflite.Model(fetch_tflite(cache)))
        tmp = f'{path}.{os.getpid()}.tmp'
        torch.save({'model': net.state_dict(), 'source': PACKAGE + ':' + TFLITE_NAME, 'sha256': TFLITE_SHA256}, tmp)
        os.replace(tmp, path)
    return torch.load(path, map_location='cpu')['model']


def compare(model, net, taps, image):
    """Max abs difference, and the reference maps' largest magnitude, per stride: port vs reference on one
    HxWx3 uint8 RGB image (sides multiples of 32)."""
    x = image.astype(np.float32)[None] / 127.5 - 1
    ref = tflite_reference.run(model, x, keep=taps.values())
    with torch.no_grad():
        ours = net.features(torch.from_numpy(x.transpose(0, 3, 1, 2).copy()))
    out = {}
    for (k, t), f in zip(sorted(taps.items()), ours):
        r = ref[t].transpose(0, 3, 1, 2)
        if r.shape != tuple(f.shape):
            raise RuntimeError(f'stride {TAPS[k]}: reference {r.shape}, port {tuple(f.shape)}')
        out[TAPS[k]] = (float(np.abs(r - f.numpy()).max()), float(np.abs(r).max()))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--check', nargs='*', metavar='IMAGE', help='compare the port with the reference on these images')
    ap.add_argument('--size', default='320x256', help='WxH the check images are resized to (multiples of 32)')
    ap.add_argument('--cache', default=CACHE, help='where the package and the converted weights are kept')
    ap.add_argument('--tolerance', type=float, default=1e-3, help='largest allowed difference, relative to the map\'s largest value')
    a = ap.parse_args()
    torch.set_num_threads(2)
    state = load_state_dict(a.cache)
    print(os.path.join(a.cache, 'mobilenet_v2.pt'))
    if a.check is None:
        return
    import cv2
    model = tflite.Model(fetch_tflite(a.cache))
    net, taps = port(model)
    for k, v in state.items():  # the cached file is what the port gives
        assert torch.equal(v, net.state_dict()[k]), k
    w, h = (int(v) for v in a.size.split('x'))
    worst = 0.0
    report = []
    for path in a.check:
        img = cv2.imread(path)
        if img is None:
            sys.exit(f'cannot read {path}')
        img = cv2.cvtColor(cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2RGB)
        diffs = compare(model, net, taps, img)
        for stride, (d, scale) in diffs.items():
            worst = max(worst, d / scale)
        report.append({'image': os.path.basename(path), 'size': [h, w],
                       'max_abs_diff': {s: d for s, (d, _) in diffs.items()},
                       'max_abs_value': {s: m for s, (_, m) in diffs.items()}})
    print(json.dumps({'images': report, 'worst_relative': worst}))
    if worst > a.tolerance:
        sys.exit(f'port differs from the reference: {worst:.2e} of the largest value')


if __name__ == '__main__':
    main()
