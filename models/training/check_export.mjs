// Runs the exported ONNX model through onnxruntime-node on the inputs export.py saved and compares with
// PyTorch's outputs. Usage: node models/training/check_export.mjs MODEL.onnx CHECK_DIR
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';

const [model, dir] = process.argv.slice(2);
const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 2 });
const cases = JSON.parse(readFileSync(path.join(dir, 'cases.json'), 'utf8'));
const read = (k, n) => {
  const b = readFileSync(path.join(dir, `${k}-${n}.f32`));
  return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
};
let worst = 0;
for (const c of cases) {
  const out = await session.run({ image: new ort.Tensor('float32', read(c.index, 'image'), c.shape) });
  for (const name of Object.keys(c.outputs)) {
    const ref = read(c.index, name);
    const got = out[name].data;
    if (got.length !== ref.length) throw new Error(`${name}: ${got.length} values, PyTorch gave ${ref.length}`);
    let maxAbs = 0;
    for (let i = 0; i < ref.length; i++) maxAbs = Math.max(maxAbs, Math.abs(got[i] - ref[i]) / (1 + Math.abs(ref[i])));
    console.log(`case ${c.index} ${c.shape.join('x')} ${name}: max rel diff ${maxAbs.toExponential(2)}`);
    worst = Math.max(worst, maxAbs);
  }
}
if (worst > 1e-3) {
  console.error(`export differs from PyTorch (${worst})`);
  process.exit(1);
}
console.log('export matches PyTorch');
