// train.py --distill holds the backbone's maps on unlabelled real photos (the Grocery Store
// Dataset's in-store photos, MIT) to the pretrained Open Images backbone's (distill.py). Checked: the term
// is zero exactly when the backbone is the pretrained one, grows as it moves, trains the backbone alone,
// and the trainer reports it from its first step.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GROCERY } from '../recognition/fixtures.js';
import { runPython } from './python.js';

const PHOTOS = path.join(GROCERY, 'train/Packages/Juice');
let tmp: string;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'distill-'));
  runPython(['pretrained_backbone.py']); // fetches the package once (pretrained-backbone.test.ts checks it)
}, 300_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('distill.py', () => {
  it('gives zero for the pretrained backbone, more the further it moves, and gradients to the backbone only', () => {
    const out = runPython(['-c', `
import json, torch
from distill import FeatureDistiller, RealMosaics
from model import build
from pretrained_backbone import load_state_dict
torch.manual_seed(0)
photos = RealMosaics(${JSON.stringify(PHOTOS)}, 128, seed=1)
real = torch.stack([photos[i] for i in range(3)])
again = photos[1]
d = FeatureDistiller(load_state_dict())
m = build('mnv2'); m.backbone.load_state_dict(load_state_dict())
m = m.to(memory_format=torch.channels_last)
at_start = d.loss(m, real).item()
losses = []
for scale in (0.002, 0.01):
    with torch.no_grad():
        for (k, t), (_, p) in zip(m.backbone.state_dict().items(), load_state_dict().items()):
            t.copy_(p + torch.randn_like(p) * scale * p.abs().mean())
    losses.append(d.loss(m, real).item())
m.zero_grad(); d.loss(m, real).backward()
grads = {n.split('.')[0]: 0.0 for n, _ in m.named_parameters()}
for n, p in m.named_parameters():
    grads[n.split('.')[0]] += 0.0 if p.grad is None else p.grad.abs().sum().item()
print(json.dumps({'shape': list(real.shape), 'dtype': str(real.dtype), 'same_again': torch.equal(again, real[1]),
                  'at_start': at_start, 'moved': losses, 'grads': grads}))
`]);
    const r = JSON.parse(out.trim().split('\n').at(-1)!);
    expect(r.shape).toEqual([3, 3, 128, 128]);
    expect(r.dtype).toBe('torch.uint8');
    expect(r.same_again).toBe(true); // a sample depends on its index and seed only
    expect(r.at_start).toBe(0);
    expect(r.moved[0]).toBeGreaterThan(0);
    expect(r.moved[1]).toBeGreaterThan(r.moved[0] * 2);
    expect(r.grads.backbone).toBeGreaterThan(0);
    for (const [name, g] of Object.entries(r.grads)) if (name !== 'backbone') expect(g, name).toBe(0);
  }, 120_000);

  it('prints the term of saved checkpoints: 0 for the pretrained backbone, above 0 for a moved one', () => {
    const pre = path.join(tmp, 'pre.pt'), moved = path.join(tmp, 'moved.pt');
    runPython(['-c', `
import torch
from model import build
from pretrained_backbone import load_state_dict
torch.manual_seed(0); m = build('mnv2'); m.backbone.load_state_dict(load_state_dict())
torch.save({'model': m.state_dict(), 'arch': 'mnv2'}, ${JSON.stringify(pre)})
with torch.no_grad():
    for t in m.backbone.parameters(): t.add_(torch.randn_like(t) * 0.01)
torch.save({'model': m.state_dict(), 'arch': 'mnv2'}, ${JSON.stringify(moved)})
`]);
    const out = runPython(['distill.py', PHOTOS, pre, moved, '--count', '2', '--size', '128']);
    const terms = new Map(out.trim().split('\n').map((line) => line.split(': ') as [string, string]));
    const term = (file: string) => Number(terms.get(file));
    expect(term(pre)).toBe(0);
    expect(term(moved)).toBeGreaterThan(0.001);
  }, 120_000);

  it('refuses a folder without photos', () => {
    expect(() => runPython(['-c', `from distill import RealMosaics; RealMosaics(${JSON.stringify(tmp)})`])).toThrow(/no \.jpg photos under/);
  });
});

describe('train.py --distill', () => {
  let data: string;
  beforeAll(() => {
    data = path.join(tmp, 'scenes');
    runPython(['generator.py', data, '--count', '2', '--seed', '3', '--style', '2', '--procedural-only', '--size', '320x240']);
  });
  const train = (run: string, ...extra: string[]) =>
    runPython(['train.py', '--data', data, '--run', path.join(tmp, run), '--batch', '2', '--size', '128', '--threads', '1',
      '--workers', '0', '--log-every', '1', '--minutes', '5', '--max-steps', '4', '--distill', PHOTOS, '--distill-batch', '2', ...extra]);

  it('reports the term from the first step: zero at the pretrained start, then above zero as the backbone trains', () => {
    const out = train('mnv2', '--arch', 'mnv2', '--lr', '0.01');
    const dist = [...out.matchAll(/^step \d+ .* dist (\S+)$/gm)].map((m) => Number(m[1]));
    expect(dist.length).toBeGreaterThan(2);
    expect(dist[0]).toBe(0);
    expect(Math.max(...dist.slice(1))).toBeGreaterThan(0);
    expect(out).toMatch(/done: \d+ steps/);
  }, 120_000);

  it('refuses it for a network without the pretrained backbone', () => {
    expect(() => train('small', '--arch', 'small')).toThrow(/--distill needs --arch mnv2/);
  });
});
