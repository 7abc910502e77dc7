// The detector's default score cut comes from the model file's own metadata (export.py writes it), so a
// model handed over through SHELF_DETECTOR_MODEL brings the cut chosen with its weights.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import protobuf from 'protobufjs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createDetector, defaultModelPath, modelScoreThreshold } from '../../main/server/recognition/detector/index.js';
import { readModelMetadata } from '../../main/server/recognition/model-metadata.js';

// ModelProto's metadata_props (field 14), to write test files the way onnx.save does.
const Entry = new protobuf.Type('Entry').add(new protobuf.Field('key', 1, 'string')).add(new protobuf.Field('value', 2, 'string'));
const Meta = new protobuf.Type('Meta').add(new protobuf.Field('props', 14, 'Entry', 'repeated'));
new protobuf.Root().add(Entry).add(Meta);
const metadataBytes = (entries: Record<string, string>) =>
  Buffer.from(Meta.encode({ props: Object.entries(entries).map(([key, value]) => ({ key, value })) }).finish());

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'score-threshold-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("the model's own score threshold", () => {
  it('is read from the shipped model, next to how it was made', async () => {
    const meta = await readModelMetadata(defaultModelPath());
    expect(meta.arch).toBe('mnv2');
    expect(Number(meta.score_threshold)).toBeGreaterThan(0);
    expect(await modelScoreThreshold(defaultModelPath())).toBe(Number(meta.score_threshold));
  });

  it('is the default of a detector, and a caller may still set another', async () => {
    const shipped = await modelScoreThreshold(defaultModelPath());
    const d = await createDetector();
    const strict = await createDetector({ scoreThreshold: 0.6 });
    try {
      expect(d.scoreThreshold).toBe(shipped);
      expect(strict.scoreThreshold).toBe(0.6);
      const fixture = fileURLToPath(new URL('../fixtures/detector/shelf-960x720.jpg', import.meta.url));
      const [all, sure] = [await d.detect(fixture), await strict.detect(fixture)];
      expect(Math.min(...all.boxes.map((b) => b.score))).toBeGreaterThanOrEqual(shipped);
      expect(Math.min(...sure.boxes.map((b) => b.score))).toBeGreaterThanOrEqual(0.6);
      expect(sure.boxes.length).toBeLessThan(all.boxes.length);
    } finally {
      await Promise.all([d.close(), strict.close()]);
    }
  });

  it('falls back to 0.3 for a model that names none', async () => {
    const file = path.join(tmp, 'plain.onnx');
    writeFileSync(file, metadataBytes({ arch: 'small', steps: '100' }));
    expect(await modelScoreThreshold(file)).toBe(0.3);
  });

  it('follows the metadata of a model given instead of the shipped one', async () => {
    // The shipped graph with its score_threshold entry replaced: a later field 14 entry with the same
    // key wins when the entries are read into a map, as protobuf appends repeated fields.
    const file = path.join(tmp, 'retuned.onnx');
    copyFileSync(defaultModelPath(), file);
    writeFileSync(file, Buffer.concat([readFileSync(file), metadataBytes({ score_threshold: '0.45' })]));
    expect(await modelScoreThreshold(file)).toBe(0.45);
    const d = await createDetector({ modelPath: file });
    try {
      expect(d.scoreThreshold).toBe(0.45);
    } finally {
      await d.close();
    }
  });

  it('refuses a model whose threshold is not a score', async () => {
    for (const bad of ['', 'high', '1.5', '0', '-0.2']) {
      const file = path.join(tmp, `bad-${bad || 'empty'}.onnx`);
      writeFileSync(file, metadataBytes({ score_threshold: bad }));
      await expect(modelScoreThreshold(file)).rejects.toThrow(/score_threshold metadata .* is not a number between 0 and 1/);
    }
    // A loadable graph with such an entry: the detector refuses it rather than guess a cut.
    const file = path.join(tmp, 'bad-graph.onnx');
    writeFileSync(file, Buffer.concat([readFileSync(defaultModelPath()), metadataBytes({ score_threshold: 'high' })]));
    await expect(createDetector({ modelPath: file })).rejects.toThrow(/"high" is not a number between 0 and 1/);
    const overridden = await createDetector({ modelPath: file, scoreThreshold: 0.4 });
    expect(overridden.scoreThreshold).toBe(0.4);
    await overridden.close();
  });

  it('refuses a file that is not a model', async () => {
    const file = path.join(tmp, 'garbage.onnx');
    writeFileSync(file, Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f]));
    await expect(readModelMetadata(file)).rejects.toThrow();
  });
});

describe("the model's own input size", () => {
  it('is read from the shipped model, and the caller can still choose', async () => {
    const meta = await readModelMetadata(defaultModelPath());
    expect(Number(meta.input_size)).toBe(1152);
    const d = await createDetector();
    const wide = await createDetector({ inputSize: 1280 });
    try {
      expect(d.inputSize).toBe(1152);
      expect(wide.inputSize).toBe(1280);
      // A photo larger than both is resized to each: boxes come back in its own pixels either way.
      const photo = await sharp({ create: { width: 2000, height: 1500, channels: 3, background: '#808080' } }).jpeg().toBuffer();
      expect((await d.detect(photo)).width).toBe(2000);
    } finally {
      await d.close();
      await wide.close();
    }
  });

  it('follows the metadata of a model given instead, and refuses one that is not a size', async () => {
    const file = path.join(tmp, 'resized.onnx');
    writeFileSync(file, Buffer.concat([readFileSync(defaultModelPath()), metadataBytes({ input_size: '960' })]));
    const d = await createDetector({ modelPath: file });
    try {
      expect(d.inputSize).toBe(960);
    } finally {
      await d.close();
    }
    for (const bad of ['', 'big', '1152.5', '16', '9000']) {
      const badFile = path.join(tmp, `bad-size-${bad || 'empty'}.onnx`);
      writeFileSync(badFile, Buffer.concat([readFileSync(defaultModelPath()), metadataBytes({ input_size: bad })]));
      await expect(createDetector({ modelPath: badFile })).rejects.toThrow(/input_size metadata .* is not a whole number of pixels/);
    }
  });
});
