// Shelf detector figures (run by `npm run bench`, after the build): onnxruntime latency of one 640x640
// inference with 2 threads, whole `detect` of a 12 MP phone photo (decode, EXIF rotation, resize,
// inference, decoding), and the process's peak RSS.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import * as ort from 'onnxruntime-node';
import sharp from 'sharp';

import { createDetector, defaultModelPath } from '../dist/main/server/recognition/detector/index.js';

const THREADS = 2;
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return `median ${q(0.5).toFixed(1)} ms, p90 ${q(0.9).toFixed(1)} ms, min ${s[0].toFixed(1)} ms (n=${s.length})`;
};

// 1. Raw inference, 640x640.
const session = await ort.InferenceSession.create(defaultModelPath(), {
  intraOpNumThreads: THREADS,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
  enableMemPattern: false, // as the app's detector (detector/detector.ts)
});
const input = new Float32Array(3 * 640 * 640).map(() => Math.random() * 255);
const feeds = { image: new ort.Tensor('float32', input, [1, 3, 640, 640]) };
for (let i = 0; i < 3; i++) await session.run(feeds);
const inf = [];
for (let i = 0; i < 20; i++) {
  const t = performance.now();
  await session.run(feeds);
  inf.push(performance.now() - t);
}
await session.release();
console.log(`inference 640x640, ${THREADS} threads: ${stats(inf)}`);

// 2. Whole detect of a 12 MP photo (4032x3024 stored sideways with EXIF orientation 6, as phones do).
const tmp = mkdtempSync(path.join(os.tmpdir(), 'detector-bench-'));
const photos = '../shared/data/shelf-photos';
const source = existsSync(photos)
  ? path.join(photos, readdirSync(photos).filter((f) => f.endsWith('.jpg')).sort()[0])
  : 'test/fixtures/detector/shelf-960x720.jpg';
const photo = path.join(tmp, 'photo-12mp.jpg');
await sharp(source).resize(3024, 4032, { fit: 'fill' }).rotate(-90).withMetadata({ orientation: 6 }).jpeg({ quality: 90 }).toFile(photo);
const detector = await createDetector({ threads: THREADS });
const whole = [];
let boxes = 0;
for (let i = 0; i < 6; i++) {
  const r = await detector.detect(photo);
  if (i > 0) whole.push(r.ms);
  boxes = r.boxes.length;
}
console.log(`detect 12 MP photo (3024x4032 displayed, from ${path.basename(source)}): ${stats(whole)}, ${boxes} boxes`);

const peakMB = () => (process.resourceUsage().maxRSS / 1024).toFixed(0);
console.log(`peak RSS after the 12 MP photo: ${peakMB()} MB`);

// 3. A 12 MP photo of many small products (the generated test shelf, 4 x 4 times): it takes the zoomed
// pass, the largest input the detector runs (in bands, detector/bands.ts), so the peak RSS below covers it.
const fixture = 'test/fixtures/detector/shelf-960x720.jpg';
const tiles = [];
for (let y = 0; y < 4; y++) for (let x = 0; x < 4; x++) tiles.push({ input: fixture, left: x * 960, top: y * 720 });
const crowded = path.join(tmp, 'crowded-12mp.jpg');
await sharp({ create: { width: 3840, height: 2880, channels: 3, background: '#808080' } }).composite(tiles).jpeg({ quality: 90 }).toFile(crowded);
const zoomed = [];
for (let i = 0; i < 4; i++) {
  const r = await detector.detect(crowded);
  if (i > 0) zoomed.push(r.ms);
  boxes = r.boxes.length;
}
console.log(`detect 11 MP photo of small products (3840x2880, the test shelf 4 x 4, zoomed pass): ${stats(zoomed)}, ${boxes} boxes`);
await detector.close();
rmSync(tmp, { recursive: true, force: true });
console.log(`peak RSS, the photo of small products included: ${peakMB()} MB`);
