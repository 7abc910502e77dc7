"""A minimal reader of TFLite model files (FlatBuffers, schema v3): the tensors, their constant data and
the operators of the first subgraph, which is all the pretrained-backbone port needs.

Written from the public schema (tensorflow/lite/schema/schema.fbs) on plain `struct` reads, so neither
TensorFlow nor a FlatBuffers package is needed: a table is an int32 back-offset to its vtable, the vtable a
list of uint16 field offsets; vectors, strings and sub-tables are uint32 forward offsets.
"""
import struct
from dataclasses import dataclass, field

import numpy as np

# schema.fbs enum values used here
BUILTIN_OPS = {0: 'ADD', 1: 'AVERAGE_POOL_2D', 2: 'CONCATENATION', 3: 'CONV_2D', 4: 'DEPTHWISE_CONV_2D',
               6: 'DEQUANTIZE', 14: 'LOGISTIC', 17: 'MAX_POOL_2D', 18: 'MUL', 19: 'RELU', 21: 'RELU6',
               22: 'RESHAPE', 28: 'TANH', 32: 'CUSTOM', 34: 'PAD'}
TENSOR_TYPES = {0: np.float32, 1: np.float16, 2: np.int32, 3: np.uint8, 4: np.int64, 9: np.int8}
ACTIVATIONS = {0: None, 1: 'RELU', 2: 'RELU_N1_TO_1', 3: 'RELU6'}
PADDINGS = {0: 'SAME', 1: 'VALID'}


class _Table:
    def __init__(self, buf, pos):
        self.buf, self.pos = buf, pos
        vt = pos - struct.unpack_from('<i', buf, pos)[0]
        vt_size = struct.unpack_from('<H', buf, vt)[0]
        self._fields = [struct.unpack_from('<H', buf, vt + 4 + 2 * i)[0] for i in range((vt_size - 4) // 2)]

    def _at(self, i):
        return self.pos + self._fields[i] if i < len(self._fields) and self._fields[i] else None

    def scalar(self, i, fmt, default=0):
        p = self._at(i)
        return default if p is None else struct.unpack_from('<' + fmt, self.buf, p)[0]

    def _target(self, i):
        p = self._at(i)
        return None if p is None else p + struct.unpack_from('<I', self.buf, p)[0]

    def table(self, i):
        t = self._target(i)
        return None if t is None else _Table(self.buf, t)

    def vector(self, i, fmt):
        """Scalars of a vector field as a numpy array (fmt a numpy dtype string)."""
        t = self._target(i)
        if t is None:
            return np.zeros(0, fmt)
        n = struct.unpack_from('<I', self.buf, t)[0]
        return np.frombuffer(self.buf, dtype=np.dtype(fmt).newbyteorder('<'), count=n, offset=t + 4)

    def tables(self, i):
        t = self._target(i)
        if t is None:
            return []
        n = struct.unpack_from('<I', self.buf, t)[0]
        return [_Table(self.buf, t + 4 + 4 * k + struct.unpack_from('<I', self.buf, t + 4 + 4 * k)[0]) for k in range(n)]

    def string(self, i):
        t = self._target(i)
        if t is None:
            return None
        n = struct.unpack_from('<I', self.buf, t)[0]
        return bytes(self.buf[t + 4:t + 4 + n]).decode()


@dataclass
class Tensor:
    name: str
    shape: tuple
    dtype: type
    data: np.ndarray = None  # constant tensors only


@dataclass
class Op:
    kind: str
    inputs: list
    outputs: list
    options: dict = field(default_factory=dict)


def _options(kind, t):
    if t is None:
        return {}
    if kind == 'CONV_2D':  # Conv2DOptions: padding, stride_w, stride_h, activation, dilation_w, dilation_h
        return {'padding': PADDINGS[t.scalar(0, 'b')], 'stride': (t.scalar(2, 'i'), t.scalar(1, 'i')),
                'activation': ACTIVATIONS[t.scalar(3, 'b')], 'dilation': (t.scalar(5, 'i', 1), t.scalar(4, 'i', 1))}
    if kind == 'DEPTHWISE_CONV_2D':  # padding, stride_w, stride_h, depth_multiplier, activation, dilation_w, dilation_h
        return {'padding': PADDINGS[t.scalar(0, 'b')], 'stride': (t.scalar(2, 'i'), t.scalar(1, 'i')),
                'depth_multiplier': t.scalar(3, 'i', 1), 'activation': ACTIVATIONS[t.scalar(4, 'b')],
                'dilation': (t.scalar(6, 'i', 1), t.scalar(5, 'i', 1))}
    if kind == 'CONCATENATION':
        return {'axis': t.scalar(0, 'i'), 'activation': ACTIVATIONS[t.scalar(1, 'b')]}
    if kind in ('ADD', 'MUL'):
        return {'activation': ACTIVATIONS[t.scalar(0, 'b')]}
    return {}


class Model:
    """The first subgraph of a .tflite file: `tensors` (constant ones carry `data`, fp16 as stored),
    `ops` in execution order, `inputs` and `outputs` (tensor indices)."""

    def __init__(self, data):
        buf = memoryview(bytes(data))
        if bytes(buf[4:8]) != b'TFL3':
            raise ValueError('not a TFLite model (no TFL3 identifier)')
        root = _Table(buf, struct.unpack_from('<I', buf, 0)[0])
        codes = []
        for c in root.tables(1):  # OperatorCode: deprecated_builtin_code (byte), ..., builtin_code (int32)
            codes.append(max(c.scalar(0, 'b'), c.scalar(3, 'i')))
        buffers = [b.vector(0, 'u1') for b in root.tables(4)]
        sub = root.tables(2)[0]
        self.tensors = []
        for t in sub.tables(0):  # Tensor: shape, type, buffer, name
            dtype = TENSOR_TYPES[t.scalar(1, 'b')]
            shape = tuple(int(s) for s in t.vector(0, 'i4'))
            raw = buffers[t.scalar(2, 'I')]
            data = np.frombuffer(raw.tobytes(), dtype=np.dtype(dtype).newbyteorder('<')).reshape(shape) if len(raw) else None
            self.tensors.append(Tensor(t.string(3), shape, dtype, data))
        self.ops = []
        for o in sub.tables(3):  # Operator: opcode_index, inputs, outputs, builtin_options_type, builtin_options
            kind = BUILTIN_OPS.get(codes[o.scalar(0, 'I')], f'OP{codes[o.scalar(0, "I")]}')
            self.ops.append(Op(kind, [int(i) for i in o.vector(1, 'i4')], [int(i) for i in o.vector(2, 'i4')],
                               _options(kind, o.table(4))))
        self.inputs = [int(i) for i in sub.vector(1, 'i4')]
        self.outputs = [int(i) for i in sub.vector(2, 'i4')]
