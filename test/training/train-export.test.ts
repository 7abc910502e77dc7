// train.py's checkpoints and resume, and export.py's ONNX checked against PyTorch through the app's own
// runtime: the "checkpoints and resume" and "export ... checked against PyTorch's outputs".
// A few steps on a tiny generated set, not training: nothing here asks the network to learn.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { modelScoreThreshold } from '../../main/server/recognition/detector/index.js';
import { readModelMetadata } from '../../main/server/recognition/model-metadata.js';
import { runPython, TRAINING } from './python.js';

let tmp: string;
let data: string;
let run: string;
const train = (...extra: string[]) =>
  runPython(['train.py', '--data', data, '--run', run, '--batch', '2', '--size', '128', '--threads', '1',
    '--workers', '0', '--log-every', '1', ...extra]);
const STATE = `
import json, sys, torch
s = torch.load(sys.argv[1], map_location='cpu')
print(json.dumps({'step': s['step'], 'arch': s.get('arch'), 'has_opt': 'opt' in s,
                  'hm_sum': float(s['model']['hm.weight'].sum())}))
`;
const state = (file: string) => JSON.parse(runPython(['-c', STATE, file]));

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'train-export-'));
  data = path.join(tmp, 'scenes');
  run = path.join(tmp, 'run');
  runPython(['generator.py', data, '--count', '2', '--seed', '3', '--style', '2', '--procedural-only', '--size', '320x240']);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('train.py', () => {
  it('pauses with a checkpoint, resumes where it stopped, and writes final.pt when its budget is spent', () => {
    // --stop-after ends the session long before the 0.15-minute schedule does.
    const first = train('--minutes', '0.15', '--stop-after', '0.01');
    expect(first).toMatch(/paused at step (\d+)/);
    const paused = Number(/paused at step (\d+)/.exec(first)![1]);
    const ck = state(path.join(run, 'last.pt'));
    expect(ck).toMatchObject({ step: paused, arch: 'small', has_opt: true });
    expect(existsSync(path.join(run, 'final.pt'))).toBe(false);

    const second = train('--minutes', '0.15');
    expect(second).toContain(`resumed at step ${paused}`);
    const steps = second.match(/^step (\d+)/gm)!.map((l) => Number(l.slice(5)));
    expect(steps[0]).toBe(paused + 1); // the step count goes on, not from 0
    expect(second).toMatch(/done: \d+ steps/);
    const done = state(path.join(run, 'final.pt'));
    expect(done.step).toBeGreaterThan(paused);
    expect(done.hm_sum).not.toBe(ck.hm_sum); // it trained on from the checkpoint's weights
  });

  it('refuses to resume a checkpoint of another width', () => {
    expect(() => train('--minutes', '0.15', '--arch', 'wide')).toThrow(/holds arch small/);
  });
});

describe('export.py', () => {
  beforeAll(() => {
    if (!existsSync(path.join(run, 'final.pt'))) train('--minutes', '0.05');
  });

  it("writes an ONNX graph whose outputs match PyTorch's through onnxruntime-node", () => {
    const onnx = path.join(tmp, 'one.onnx');
    const check = path.join(tmp, 'check-one');
    runPython(['export.py', path.join(run, 'final.pt'), onnx, '--check-dir', check]);
    const r = spawnSync(process.execPath, [path.join(TRAINING, 'check_export.mjs'), onnx, check], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('export matches PyTorch');
    expect(r.stdout).toMatch(/case 1 1x3x384x512 heatmap/); // the non-square case ran
  });

  it('exports an ensemble with its score cut in the metadata, which the app then uses', async () => {
    const onnx = path.join(tmp, 'pair.onnx');
    const check = path.join(tmp, 'check-pair');
    const ck = path.join(run, 'final.pt');
    runPython(['export.py', `${ck}:3`, `${ck}:2`, onnx, '--check-dir', check, '--score-threshold', '0.35']);
    const r = spawnSync(process.execPath, [path.join(TRAINING, 'check_export.mjs'), onnx, check], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const meta = await readModelMetadata(onnx);
    expect(meta.arch).toMatch(/^ensemble of small .*final\.pt x3, small .*final\.pt x2$/);
    expect(await modelScoreThreshold(onnx)).toBe(0.35);
  });

  it('refuses a score cut that is not a score', () => {
    expect(() => runPython(['export.py', path.join(run, 'final.pt'), path.join(tmp, 'bad.onnx'), '--score-threshold', '1.5']))
      .toThrow(/--score-threshold must lie between 0 and 1/);
  });
});

// the detector on the pretrained MobileNetV2 (model.MobileShelfNet). A few steps only: what is
// checked is the path (pretrained start, frozen then unfrozen backbone, export the app loads), not learning.
describe('train.py --arch mnv2 and its export', () => {
  let mrun: string;
  const BACKBONE = `
import json, sys, torch
from pretrained_backbone import load_state_dict
s = torch.load(sys.argv[1], map_location='cpu')['model']
pre = load_state_dict()
same = [torch.equal(s['backbone.' + k], v) for k, v in pre.items()]
print(json.dumps({'same': sum(same), 'total': len(same), 'hm_sum': float(s['hm.weight'].sum())}))
`;
  const backbone = (file: string) => JSON.parse(runPython(['-c', BACKBONE, file]));
  const trainM = (out: string, ...extra: string[]) =>
    runPython(['train.py', '--data', data, '--run', out, '--arch', 'mnv2', '--batch', '2', '--size', '128', '--threads', '1',
      '--workers', '0', '--log-every', '1', '--minutes', '0.05', ...extra]);

  beforeAll(() => {
    mrun = path.join(tmp, 'mnv2');
    runPython(['pretrained_backbone.py']); // fetches the package once (pretrained-backbone.test.ts checks it)
  }, 300_000);

  it('starts from the pretrained backbone and keeps it fixed under --freeze -1, then trains it under --freeze 0', () => {
    expect(trainM(path.join(mrun, 'a'), '--freeze', '-1')).toMatch(/done: \d+ steps/);
    const a = backbone(path.join(mrun, 'a/final.pt'));
    expect(a.total).toBe(2 * (1 + 2 + 16 * 3)); // stem, the first block's 2 convolutions, 16 blocks of 3; weight and bias each
    expect(a.same).toBe(a.total);
    trainM(path.join(mrun, 'b'), '--freeze', '0', '--init', path.join(mrun, 'a/final.pt'), '--backbone-lr', '0.5');
    const b = backbone(path.join(mrun, 'b/final.pt'));
    expect(b.same).toBeLessThan(b.total / 2);
    expect(b.hm_sum).not.toBe(a.hm_sum);
  }, 120_000);

  it("continues the price-tag model from onnx_import.py --save-pt's file (no onnx package needed), its folded BatchNorms held", () => {
    const init = path.join(tmp, 'shipped-tags.pt');
    runPython(['onnx_import.py', path.resolve('models/price-tag-detector.onnx'), '--save-pt', init]);
    const tagRun = (out: string, from: string) =>
      runPython(['train.py', '--data', data, '--run', out, '--arch', 'mnv2-tags', '--target', 'tags', '--freeze', '6', '--batch', '2',
        '--size', '128', '--threads', '1', '--workers', '0', '--log-every', '1', '--minutes', '5', '--max-steps', '2', '--init', from]);
    const BN = `
import json, sys, torch
a = torch.load(sys.argv[1], map_location='cpu'); b = torch.load(sys.argv[2], map_location='cpu')
keys = [k for k in a['model'] if k.endswith('running_mean') or k.endswith('running_var')]
print(json.dumps({'bn': len(keys), 'bn_same': sum(torch.equal(a['model'][k], b['model'][k]) for k in keys),
                  'hm_moved': not torch.equal(a['model']['hm.weight'], b['model']['hm.weight']), 'held': b.get('folded_bn')}))`;
    expect(tagRun(path.join(mrun, 'tags-held'), init)).toMatch(/done: 2 steps/);
    const held = JSON.parse(runPython(['-c', BN, init, path.join(mrun, 'tags-held/last.pt')]));
    expect(held.bn).toBe(4); // the neck's two BatchNorms (the ported backbone has none)
    expect(held.bn_same).toBe(held.bn); // batch statistics would undo the fold
    expect(held.hm_moved).toBe(true);
    expect(held.held).toBe(true); // and a resume keeps holding them
    // The same file without its folded_bn mark is an ordinary start: the statistics then move with the batches.
    const plain = path.join(tmp, 'plain-tags.pt');
    runPython(['-c', `import sys, torch; s = torch.load(sys.argv[1]); s.pop('folded_bn'); torch.save(s, sys.argv[2])`, init, plain]);
    tagRun(path.join(mrun, 'tags-plain'), plain);
    const moved = JSON.parse(runPython(['-c', BN, init, path.join(mrun, 'tags-plain/last.pt')]));
    expect(moved.bn_same).toBeLessThan(moved.bn);
  }, 180_000);

  it('exports a graph that matches PyTorch at any size of multiples of 32, which the app then runs', async () => {
    const onnx = path.join(tmp, 'mnv2.onnx');
    const check = path.join(tmp, 'check-mnv2');
    runPython(['export.py', path.join(mrun, 'b/final.pt'), onnx, '--check-dir', check, '--score-threshold', '0.3']);
    // TensorFlow's SAME padding is asymmetric: pads traced from the shape would break the 384x512 case.
    const r = spawnSync(process.execPath, [path.join(TRAINING, 'check_export.mjs'), onnx, check], { encoding: 'utf8' });
    expect(r.status, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toMatch(/case 1 1x3x384x512 heatmap/);
    expect((await readModelMetadata(onnx)).arch).toBe('mnv2');
    const cli = spawnSync(process.execPath, ['dist/main/cli/detect.js', '--json', '--model', onnx, 'test/fixtures/detector/shelf-960x720.jpg'],
      { encoding: 'utf8' });
    expect(cli.status, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout.trim().split('\n')[0])).toHaveProperty('boxes');
    // finetune.py starts from the ONNX file itself: onnx_import.py must rebuild this network too.
    const imported = path.join(tmp, 'import-mnv2');
    expect(runPython(['onnx_import.py', onnx, '--check-dir', imported])).toMatch(/mnv2, weights 1/);
    const again = spawnSync(process.execPath, [path.join(TRAINING, 'check_export.mjs'), onnx, imported], { encoding: 'utf8' });
    expect(again.status, again.stderr + again.stdout).toBe(0);
  }, 120_000);

  it('joins an exported ensemble: its networks keep their weights, scaled, beside the new one', async () => {
    // The ensemble as a laptop has it (an ONNX file, no checkpoints), then that file plus this network.
    const pair = path.join(tmp, 'pair-for-join.onnx');
    // (Two different networks: the exporter shares the initializers of identical ones, which no real
    // ensemble has and onnx_import.py does not take apart.)
    runPython(['export.py', `${path.join(run, 'final.pt')}:3`, `${path.join(mrun, 'a/final.pt')}:1`, pair]);
    const joined = path.join(tmp, 'joined.onnx');
    const check = path.join(tmp, 'check-joined');
    runPython(['export.py', `${pair}:2`, `${path.join(mrun, 'b/final.pt')}:1`, joined, '--check-dir', check, '--score-threshold', '0.25']);
    const r = spawnSync(process.execPath, [path.join(TRAINING, 'check_export.mjs'), joined, check], { encoding: 'utf8' });
    expect(r.status, r.stderr + r.stdout).toBe(0);
    // 3:1 of the pair scaled to 2 -> 1.5 and 0.5; the new network 1.
    expect((await readModelMetadata(joined)).arch).toMatch(/^ensemble of small .*#0 x1\.5, mnv2 .*#1 x0\.5, mnv2 .*final\.pt x1$/);
    expect(runPython(['onnx_import.py', joined, '--check-dir', path.join(tmp, 'import-joined')])).toMatch(/small, mnv2, mnv2, weights 0\.5, 0\.166667, 0\.333333/);
    // Three exports and an import of real networks: about 40 s alone, over 120 s on a loaded 2-core machine.
  }, 300_000);
});
