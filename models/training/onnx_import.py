"""Rebuild a PyTorch ShelfNet, MobileShelfNet (or ShelfEnsemble) from an exported detector ONNX file, so a model can be
fine-tuned from what a laptop actually runs: the shipped model's checkpoints (runs/*.pt) are not in the
repository, and an installed model may come from anywhere. How the weights come back: onnx_weights.py.

Usage (a check): python3 onnx_import.py ../shelf-detector.onnx --check-dir runs/import-check
                 node check_export.mjs ../shelf-detector.onnx runs/import-check
"""
import argparse

import torch

from model import ARCHS, MOBILE_ARCHS, ShelfEnsemble, build
from onnx_export import write_check_cases
from onnx_weights import UnknownGraph, load_folded_convs, read_graph

CONVS_PER_NET = 22  # ShelfNet's convolutions, in the order forward() runs them
MOBILE_CONVS = 60  # MobileShelfNet's: 51 in the MobileNetV2 backbone, 9 in the FPN and heads


def network_at(convs, i, inits):
    """(arch, number of convolutions) of the network whose first convolution is convs[i]: MobileShelfNet
    starts with MobileNetV2's 3x3 stem to 32 channels followed by a depthwise one; ShelfNet's widths by
    their first convolution's channels."""
    first = inits[convs[i].input[1]].shape
    second = inits[convs[i + 1].input[1]].shape if i + 1 < len(convs) else None
    if first[0] == 32 and second is not None and second[1] == 1 and i + MOBILE_CONVS <= len(convs):
        return next(iter(MOBILE_ARCHS)), MOBILE_CONVS
    arch = next((a for a, (w, _) in ARCHS.items() if w[0] == first[0]), None)
    return arch, CONVS_PER_NET


def ensemble_weights(graph, consts, members):
    """The heatmap weights of an ensemble: the constants its graph multiplies each member's sigmoid by."""
    sigmoids = {n.output[0] for n in graph.node if n.op_type == 'Sigmoid'}
    weights = []
    for n in graph.node:
        if n.op_type == 'Mul' and n.input[0] in sigmoids and n.input[1] in consts:
            weights.append(float(consts[n.input[1]]))
    if members == 1:
        return [1.0]
    if len(weights) != members:
        raise UnknownGraph(f'found {len(weights)} member weights for {members} networks')
    return weights


def load_detector(path):
    """ONNX detector file -> (model in eval mode, {'metadata': {...}, 'weights': [...], 'archs': [...]})."""
    m, inits, consts = read_graph(path)
    convs = [n for n in m.graph.node if n.op_type == 'Conv']
    metadata = {p.key: p.value for p in m.metadata_props}
    if metadata.get('arch') == 'mnv2-tags':  # the price-tag detector: one MobileTagNet, known by its metadata
        net = build('mnv2-tags')
        load_folded_convs(net, convs, inits, f'{path}: mnv2-tags')
        return net.eval(), {'metadata': metadata, 'weights': [1.0], 'archs': ['mnv2-tags']}
    nets, archs, i = [], [], 0
    while i < len(convs):
        arch, n = network_at(convs, i, inits)
        if arch is None or i + n > len(convs):
            raise UnknownGraph(f'{path}: {len(convs)} convolutions, network {len(nets)} is no ShelfNet or MobileShelfNet')
        net = build(arch)
        load_folded_convs(net, convs[i:i + n], inits, f'{path}: network {len(nets)} ({arch})')
        nets.append(net.eval()); archs.append(arch); i += n
    if not nets:
        raise UnknownGraph(f'{path}: no convolutions')
    weights = ensemble_weights(m.graph, consts, len(nets))
    model = nets[0] if len(nets) == 1 else ShelfEnsemble(nets, weights)
    return model.eval(), {'metadata': {p.key: p.value for p in m.metadata_props}, 'weights': weights, 'archs': archs}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('onnx'); ap.add_argument('--check-dir')
    ap.add_argument('--save-pt', help='also write the weights as a train.py checkpoint (train.py --init FILE continues '
                    'from them, its BatchNorms held on their folded statistics, where the onnx package is missing)')
    a = ap.parse_args()
    if not a.check_dir and not a.save_pt:
        ap.error('--check-dir or --save-pt')
    torch.set_num_threads(2)
    model, info = load_detector(a.onnx)
    print(f"{a.onnx}: {', '.join(info['archs'])}, weights {', '.join(f'{w:g}' for w in info['weights'])}")
    if a.save_pt:
        torch.save({'model': model.state_dict(), 'arch': info['archs'][0], 'folded_bn': True}, a.save_pt)
        if not a.check_dir:
            return
    gen = torch.Generator().manual_seed(0)
    write_check_cases(model, [torch.rand(1, 3, h, w, generator=gen) * 255 for h, w in [(640, 640), (384, 512)]],
                      ['heatmap', 'size', 'offset'], a.check_dir)


if __name__ == '__main__':
    main()
