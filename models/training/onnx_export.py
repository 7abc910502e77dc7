"""Shared by the models' export scripts: ONNX export with a check of the graph, and the reference
inputs/outputs that check_export.mjs replays through onnxruntime-node (there is no onnxruntime for
Python here)."""
import json
import os

import numpy as np
import torch


def export_onnx(model, example, out, input_names, output_names, dynamic_axes, metadata):
    torch.onnx.export(model, example, out, input_names=input_names, output_names=output_names,
                      dynamic_axes=dynamic_axes, opset_version=13, do_constant_folding=True)
    import onnx
    m = onnx.load(out)
    onnx.checker.check_model(m)
    for k, v in metadata.items():
        m.metadata_props.add(key=k, value=str(v))
    onnx.save(m, out)
    print(f'{out}: {os.path.getsize(out) / 1e6:.2f} MB, ' + ', '.join(f'{k} {v}' for k, v in metadata.items()))


def write_check_cases(model, inputs, output_names, check_dir):
    """Runs `model` on each input (input name 'image') and saves inputs, outputs and cases.json."""
    os.makedirs(check_dir, exist_ok=True)
    cases = []
    for k, inp in enumerate(inputs):
        with torch.no_grad():
            outs = model(inp)
        outs = outs if isinstance(outs, (tuple, list)) else (outs,)
        for n, t in zip(['image'] + output_names, (inp,) + tuple(outs)):
            t.numpy().astype(np.float32).tofile(os.path.join(check_dir, f'{k}-{n}.f32'))
        cases.append({'index': k, 'shape': list(inp.shape), 'outputs': {n: list(t.shape) for n, t in zip(output_names, outs)}})
    with open(os.path.join(check_dir, 'cases.json'), 'w') as fh:
        json.dump(cases, fh)
