"""Executes a TFLite graph op by op in NumPy (float32, NHWC, as the TFLite reference kernels do): the
independent reference the PyTorch port of the pretrained backbone is checked against
(pretrained_backbone.py --check). It follows the flatbuffer's own operator list, tensor indices, strides and
padding modes; nothing here knows MobileNetV2.

Only the ops the Objectron SSD uses: DEQUANTIZE, CONV_2D, DEPTHWISE_CONV_2D, ADD, RESHAPE, CONCATENATION.
"""
import numpy as np


def _same_pads(size, k, stride, dilation):
    """TensorFlow's SAME padding: the total is split with the odd pixel after (bottom/right)."""
    out = -(-size // stride)
    total = max((out - 1) * stride + (k - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2, out


def _activate(x, act):
    if act == 'RELU6':
        return np.clip(x, 0, 6)
    if act == 'RELU':
        return np.maximum(x, 0)
    if act is None:
        return x
    raise NotImplementedError(act)


def _windows(x, kh, kw, opt):
    """Yields (dy, dx, strided view of padded x) for each kernel tap, and the output size."""
    n, h, w, c = x.shape
    (sh, sw), (dh, dw) = opt['stride'], opt['dilation']
    if opt['padding'] == 'SAME':
        t, b, oh = _same_pads(h, kh, sh, dh)
        l, r, ow = _same_pads(w, kw, sw, dw)
        x = np.pad(x, ((0, 0), (t, b), (l, r), (0, 0)))
    else:
        oh, ow = (h - (kh - 1) * dh - 1) // sh + 1, (w - (kw - 1) * dw - 1) // sw + 1
    taps = [(dy, dx, x[:, dy * dh:dy * dh + sh * (oh - 1) + 1:sh, dx * dw:dx * dw + sw * (ow - 1) + 1:sw, :])
            for dy in range(kh) for dx in range(kw)]
    return taps, (n, oh, ow)


def conv2d(x, w, b, opt):
    """x [N,H,W,I], w [O,kh,kw,I] (TFLite's layout), b [O]."""
    o, kh, kw, _ = w.shape
    taps, (n, oh, ow) = _windows(x, kh, kw, opt)
    y = np.zeros((n, oh, ow, o), np.float32)
    for dy, dx, v in taps:
        y += v @ w[:, dy, dx, :].T
    return _activate(y + b, opt['activation'])


def depthwise_conv2d(x, w, b, opt):
    """x [N,H,W,C], w [1,kh,kw,C*multiplier] (TFLite's layout), b [C*multiplier]."""
    _, kh, kw, co = w.shape
    if opt['depth_multiplier'] != 1 or co != x.shape[3]:
        raise NotImplementedError('depth multiplier other than 1')
    taps, (n, oh, ow) = _windows(x, kh, kw, opt)
    y = np.zeros((n, oh, ow, co), np.float32)
    for dy, dx, v in taps:
        y += v * w[0, dy, dx, :]
    return _activate(y + b, opt['activation'])


def run(model, image, keep=None):
    """Runs `model` (tflite.Model) on `image` (NHWC float32, already normalised as the graph expects).
    Returns {tensor index: value} for the graph outputs, or only for the tensor indices in `keep` (the run
    then stops as soon as it has them)."""
    want = set(model.outputs if keep is None else keep)
    vals = {i: t.data.astype(np.float32) if t.dtype in (np.float16, np.float32) else t.data
            for i, t in enumerate(model.tensors) if t.data is not None}
    vals[model.inputs[0]] = image.astype(np.float32)
    for op in model.ops:
        a = [vals[i] if i >= 0 else None for i in op.inputs]
        if op.kind == 'DEQUANTIZE':
            y = a[0].astype(np.float32)
        elif op.kind == 'CONV_2D':
            y = conv2d(a[0], a[1], a[2], op.options)
        elif op.kind == 'DEPTHWISE_CONV_2D':
            y = depthwise_conv2d(a[0], a[1], a[2], op.options)
        elif op.kind == 'ADD':
            y = _activate(a[0] + a[1], op.options['activation'])
        elif op.kind == 'RESHAPE':
            y = a[0].reshape(a[1] if len(a) > 1 and a[1] is not None else model.tensors[op.outputs[0]].shape)
        elif op.kind == 'CONCATENATION':
            y = _activate(np.concatenate(a, axis=op.options['axis']), op.options['activation'])
        else:
            raise NotImplementedError(op.kind)
        vals[op.outputs[0]] = y
        if want.issubset(vals):
            break
    return {i: vals[i] for i in want}
