// A model's digest for /info is computed off the main thread (recognition/model-files.ts): the event
// loop stays free to answer requests while a fresh server hashes its models.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, expect, it } from 'vitest';
import { modelDigestAsync } from '../../main/server/recognition/model-files.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'model-digest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('hashes a model without holding the main thread, and gets the same digest', async () => {
  // Large enough that hashing it dwarfs what starting a worker costs the main thread (a few ms, 22 ms
  // once under CI's full parallel load, when 64 MB took 39 ms inline): 256 MB, one random MB doubled.
  const bytes = Buffer.alloc(256 << 20);
  randomBytes(1 << 20).copy(bytes);
  for (let filled = 1 << 20; filled < bytes.length; filled <<= 1) bytes.copy(bytes, filled, 0, filled);
  const file = path.join(dir, 'big.onnx');
  writeFileSync(file, bytes);
  // What hashing it on the main thread takes here, now.
  let t = performance.now();
  const expected = createHash('sha256').update(bytes).digest('hex');
  const inline = performance.now() - t;

  const before = performance.eventLoopUtilization();
  t = performance.now();
  const digest = await modelDigestAsync(file);
  const used = performance.eventLoopUtilization(before);
  expect(digest).toBe(expected);
  // The main thread's busy time while it ran: hashed there, at least the inline time (a chunk at a
  // time or not); off it, a copy of the bytes.
  expect(used.active).toBeLessThan(inline / 2);
  // Asked again: kept.
  expect(await modelDigestAsync(file)).toBe(expected);
});

it('hashes several files asked for at once, each to its own digest, and refuses a missing one alone', async () => {
  const a = path.join(dir, 'a.onnx');
  const b = path.join(dir, 'b.onnx');
  writeFileSync(a, 'model a');
  writeFileSync(b, 'model b');
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  const [da, missing, db] = await Promise.allSettled([modelDigestAsync(a), modelDigestAsync(path.join(dir, 'none.onnx')), modelDigestAsync(b)]);
  expect(da).toEqual({ status: 'fulfilled', value: sha('model a') });
  expect(db).toEqual({ status: 'fulfilled', value: sha('model b') });
  expect(missing.status).toBe('rejected');
});
