"""Weights out of an exported ONNX file into the PyTorch network that exported it, for fine-tuning a model
from what the app runs (no training checkpoint ships with it): the detector (onnx_import.py) and the
product embedder (embedder/finetune.py).

The export folds every BatchNorm into the convolution before it (eval mode), so the folded weights go
into the convolution and its BatchNorm becomes the identity plus the folded bias (mean 0, variance
1 - eps, scale 1). That BatchNorm must stay in eval mode while fine-tuning (freeze_batchnorm): batch
statistics of a few crops would replace the statistics the fold baked in.
"""
import onnx
import torch
import torch.nn as nn
from onnx import numpy_helper


class UnknownGraph(ValueError):
    """The file is not a network this importer knows (its graph does not match the PyTorch model)."""


def conv_order(net, side=64):
    """The net's Conv2d modules in the order forward() calls them: the order the ONNX graph lists them."""
    seen = []
    hooks = [m.register_forward_hook(lambda mod, i, o: seen.append(mod)) for m in net.modules() if isinstance(m, nn.Conv2d)]
    with torch.no_grad():
        net.eval()(torch.zeros(1, 3, side, side))
    for h in hooks:
        h.remove()
    return seen


def batchnorm_after(net):
    """{conv: the BatchNorm right after it} for the convolutions built without a bias (conv + BN + ReLU)."""
    out = {}
    for seq in net.modules():
        if isinstance(seq, nn.Sequential):
            kids = list(seq)
            for a, b in zip(kids, kids[1:]):
                if isinstance(a, nn.Conv2d) and isinstance(b, nn.BatchNorm2d):
                    out[a] = b
    return out


def load_folded_convs(net, nodes, inits, where, side=64):
    """Copies the ONNX Conv `nodes` (export order) into `net`'s convolutions; where a BatchNorm follows a
    convolution, the fold's bias goes into it (the BatchNorm becomes the identity plus that bias)."""
    convs = conv_order(net, side)
    if len(nodes) != len(convs):
        raise UnknownGraph(f'{where}: {len(nodes)} convolutions where the network has {len(convs)}')
    bns = batchnorm_after(net)
    for node, conv in zip(nodes, convs):
        w = torch.from_numpy(inits[node.input[1]].copy())
        if tuple(w.shape) != tuple(conv.weight.shape):
            raise UnknownGraph(f'{where}: weight {tuple(w.shape)} where the network has {tuple(conv.weight.shape)}')
        b = torch.from_numpy(inits[node.input[2]].copy()) if len(node.input) > 2 else torch.zeros(w.shape[0])
        with torch.no_grad():
            conv.weight.copy_(w)
            if conv.bias is not None:
                conv.bias.copy_(b)
            else:
                bn = bns[conv]
                bn.weight.fill_(1); bn.bias.copy_(b)
                bn.running_mean.zero_(); bn.running_var.fill_(1 - bn.eps)


def read_graph(path):
    """(onnx model, {initializer name: array}, {Constant output: array})."""
    m = onnx.load(path)
    inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    consts = {}
    for n in m.graph.node:
        if n.op_type == 'Constant':
            for a in n.attribute:
                if a.name == 'value':
                    consts[n.output[0]] = numpy_helper.to_array(a.t)
    return m, inits, consts


def freeze_batchnorm(model):
    """Keeps every BatchNorm on its imported (folded) statistics after model.train()."""
    for mod in model.modules():
        if isinstance(mod, nn.BatchNorm2d):
            mod.eval()
    return model
