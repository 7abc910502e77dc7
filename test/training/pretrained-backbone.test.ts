// The pretrained backbone (issue 25): pretrained_backbone.py fetches the pinned @mediapipe/objectron package
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
});
