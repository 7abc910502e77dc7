// The pretrained backbone: pretrained_backbone.py fetches the pinned @mediapipe/objectron package
// with npm pack, checks its checksum, cuts the TFLite SSD out of the packed assets and ports its MobileNetV2
// to PyTorch. The port is proved against tflite_reference.py, which executes the flatbuffer's own graph op by
// op in NumPy: the stride 4/8/16/32 feature maps of real photos must agree.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CROPS, GROCERY } from '../recognition/fixtures.js';
import { runPython, TRAINING } from './python.js';

const TARBALL = 'mediapipe-objectron-0.4.1675468480.tgz';
const IMAGES = [
  path.join(GROCERY, 'train/Packages/Juice/Bravo-Apple-Juice/Bravo-Apple-Juice_001.jpg'),
  path.join(CROPS, 'sprite_pet/retail15.jpg'),
  path.resolve('test/fixtures/detector/shelf-960x720.jpg'),
];
let tmp: string;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'pretrained-'));
  // Fetches the package into the training cache (git-ignored) once; later runs reuse it.
  runPython(['pretrained_backbone.py']);
}, 300_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('pretrained_backbone.py', () => {
  it('ports MobileNetV2 so its feature maps match the TFLite graph run op by op', () => {
    for (const size of ['320x256', '224x288']) {
      const out = runPython(['pretrained_backbone.py', '--check', ...IMAGES, '--size', size]);
      const report = JSON.parse(out.trim().split('\n').at(-1)!);
      expect(report.images).toHaveLength(3);
      for (const img of report.images) {
        expect(Object.keys(img.max_abs_diff).sort()).toEqual(['16', '32', '4', '8']);
        for (const stride of ['4', '8', '16', '32']) {
          // Maps reach tens; float32 summation order alone differs by ~1e-5.
          expect(img.max_abs_value[stride]).toBeGreaterThan(1);
          expect(img.max_abs_diff[stride]).toBeLessThan(1e-3);
        }
      }
      expect(report.worst_relative).toBeLessThan(1e-5);
    }
  }, 120_000);

  it('refuses a package whose checksum is not the pinned one', () => {
    const cache = path.join(tmp, 'cache');
    mkdirSync(cache);
    const bytes = readFileSync(path.join(TRAINING, 'cache/objectron', TARBALL));
    bytes[bytes.length - 100] ^= 0xff;
    writeFileSync(path.join(cache, TARBALL), bytes);
    expect(() => runPython(['pretrained_backbone.py', '--cache', cache])).toThrow(/sha256 [0-9a-f]{64}, expected fc3e37b3/);
    copyFileSync(path.join(TRAINING, 'cache/objectron', TARBALL), path.join(cache, TARBALL));
    expect(runPython(['pretrained_backbone.py', '--cache', cache])).toContain(path.join(cache, 'mobilenet_v2.pt'));
  }, 120_000);

  it('average.py --pretrained-backbone moves only the backbone back toward the ported weights', () => {
    // Two mnv2 networks with different random FPNs and heads and perturbed backbones, as two fine-tuned
    // checkpoints of one lineage would be; then the average and the interpolation checked tensor by tensor.
    const a = path.join(tmp, 'a.pt'), b = path.join(tmp, 'b.pt'), out = path.join(tmp, 'out.pt');
    runPython(['-c', `
import torch
from model import build
from pretrained_backbone import load_state_dict
for seed, p in ((1, ${JSON.stringify(a)}), (2, ${JSON.stringify(b)})):
    torch.manual_seed(seed); m = build('mnv2'); m.backbone.load_state_dict(load_state_dict())
    with torch.no_grad():
        for t in m.backbone.parameters(): t.add_(torch.randn_like(t) * 0.01)
    torch.save({'model': m.state_dict(), 'arch': 'mnv2', 'step': seed}, p)
`]);
    expect(runPython(['average.py', out, a, b, '--pretrained-backbone', '0.25'])).toContain('backbone 0.25 of the way');
    const report = runPython(['-c', `
import json, torch
from pretrained_backbone import load_state_dict
a, b, o = (torch.load(p)['model'] for p in (${JSON.stringify(a)}, ${JSON.stringify(b)}, ${JSON.stringify(out)}))
pre = load_state_dict()
bb = max(((0.75 * (a[k] + b[k]) / 2 + 0.25 * pre[k[9:]]) - o[k]).abs().max().item() for k in o if k.startswith('backbone.'))
rest = max(((a[k] + b[k]) / 2 - o[k]).abs().max().item() for k in o if not k.startswith('backbone.') and o[k].is_floating_point())
moved = max((a[k] - o[k]).abs().max().item() for k in o if k.startswith('backbone.'))
print(json.dumps({'backbone': bb, 'rest': rest, 'moved': moved, 'backbone_tensors': sum(k.startswith('backbone.') for k in o)}))
`]);
    const r = JSON.parse(report.trim().split('\n').at(-1)!);
    expect(r.backbone_tensors).toBe(102);
    expect(r.backbone).toBeLessThan(1e-6);
    expect(r.rest).toBeLessThan(1e-6);
    expect(r.moved).toBeGreaterThan(1e-3); // the output is not simply the first checkpoint
    expect(() => runPython(['average.py', out, a, '--pretrained-backbone', '1.5'])).toThrow(/fraction from 0 to 1/);
  }, 120_000);
});
