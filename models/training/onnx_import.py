"""Rebuild a PyTorch ShelfNet (or ShelfEnsemble) from an exported detector ONNX file, so a model can be
fine-tuned from what a laptop actually runs: the shipped model's checkpoints (runs/*.pt) are not in the
repository, and an installed model may come from anywhere.

The export folds every BatchNorm into the convolution before it (eval mode), so the folded weights go
into the convolution and its BatchNorm becomes the identity plus the folded bias (mean 0, variance
1 - eps, scale 1). That BatchNorm must stay in eval mode while fine-tuning (freeze_batchnorm): batch
statistics of a few crops would replace the statistics the fold baked in.

Usage (a check): python3 onnx_import.py ../shelf-detector.onnx --check-dir runs/import-check
                 node check_export.mjs ../shelf-detector.onnx runs/import-check
"""
import argparse

import onnx
import torch
import torch.nn as nn
from onnx import numpy_helper

from model import ARCHS, ShelfEnsemble, ShelfNet
from onnx_export import write_check_cases

CONVS_PER_NET = 22  # ShelfNet's convolutions, in the order forward() runs them


class NotShelfNet(ValueError):
    pass


def conv_order(net):
    """ShelfNet's Conv2d modules in the order forward() calls them: the order the ONNX graph lists them."""
    seen = []
    hooks = [m.register_forward_hook(lambda mod, i, o: seen.append(mod)) for m in net.modules() if isinstance(m, nn.Conv2d)]
    with torch.no_grad():
        net.eval()(torch.zeros(1, 3, 64, 64))
    for h in hooks:
        h.remove()
    return seen


def batchnorm_after(net):
    """{conv: the BatchNorm right after it} for the convolutions ShelfNet builds without a bias."""
    out = {}
    for seq in net.modules():
        if isinstance(seq, nn.Sequential):
            kids = list(seq)
            for a, b in zip(kids, kids[1:]):
                if isinstance(a, nn.Conv2d) and isinstance(b, nn.BatchNorm2d):
                    out[a] = b
    return out


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
        raise NotShelfNet(f'found {len(weights)} member weights for {members} networks')
    return weights


def load_detector(path):
    """ONNX detector file -> (model in eval mode, {'metadata': {...}, 'weights': [...], 'archs': [...]})."""
    m = onnx.load(path)
    g = m.graph
    inits = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    consts = {}
    for n in g.node:
        if n.op_type == 'Constant':
            for a in n.attribute:
                if a.name == 'value':
                    consts[n.output[0]] = numpy_helper.to_array(a.t)
    convs = [n for n in g.node if n.op_type == 'Conv']
    if not convs or len(convs) % CONVS_PER_NET:
        raise NotShelfNet(f'{path}: {len(convs)} convolutions, not a ShelfNet or an ensemble of them')
    nets, archs = [], []
    for k in range(len(convs) // CONVS_PER_NET):
        nodes = convs[k * CONVS_PER_NET:(k + 1) * CONVS_PER_NET]
        first = inits[nodes[0].input[1]].shape[0]
        arch = next((a for a, (w, _) in ARCHS.items() if w[0] == first), None)
        if arch is None:
            raise NotShelfNet(f'{path}: network {k} starts with {first} channels, no known arch')
        net = ShelfNet(arch)
        bns = batchnorm_after(net)
        for node, conv in zip(nodes, conv_order(net)):
            w = torch.from_numpy(inits[node.input[1]].copy())
            if tuple(w.shape) != tuple(conv.weight.shape):
                raise NotShelfNet(f'{path}: network {k}: weight {tuple(w.shape)} where {arch} has {tuple(conv.weight.shape)}')
            b = torch.from_numpy(inits[node.input[2]].copy()) if len(node.input) > 2 else torch.zeros(w.shape[0])
            with torch.no_grad():
                conv.weight.copy_(w)
                if conv.bias is not None:
                    conv.bias.copy_(b)
                else:  # the fold: its BatchNorm becomes "+ bias"
                    bn = bns[conv]
                    bn.weight.fill_(1); bn.bias.copy_(b)
                    bn.running_mean.zero_(); bn.running_var.fill_(1 - bn.eps)
        nets.append(net.eval()); archs.append(arch)
    weights = ensemble_weights(g, consts, len(nets))
    model = nets[0] if len(nets) == 1 else ShelfEnsemble(nets, weights)
    return model.eval(), {'metadata': {p.key: p.value for p in m.metadata_props}, 'weights': weights, 'archs': archs}


def freeze_batchnorm(model):
    """Keeps every BatchNorm on its imported (folded) statistics after model.train()."""
    for mod in model.modules():
        if isinstance(mod, nn.BatchNorm2d):
            mod.eval()
    return model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('onnx'); ap.add_argument('--check-dir', required=True)
    a = ap.parse_args()
    torch.set_num_threads(2)
    model, info = load_detector(a.onnx)
    print(f"{a.onnx}: {', '.join(info['archs'])}, weights {', '.join(f'{w:g}' for w in info['weights'])}")
    gen = torch.Generator().manual_seed(0)
    write_check_cases(model, [torch.rand(1, 3, h, w, generator=gen) * 255 for h, w in [(640, 640), (384, 512)]],
                      ['heatmap', 'size', 'offset'], a.check_dir)


if __name__ == '__main__':
    main()
