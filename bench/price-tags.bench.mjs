// Price-tag detector figures (models/MODEL_CARD-price-tags.md; `npm run bench -- price-tags`, after the
// build): tag recall and precision at IoU 0.5 (and 0.3: hand-drawn boxes of small labels are loose) on
//  1. held-out generated scenes' tags of 10 px and more (styles 8, 7 and 6, seeds never trained on; drawn on first use into
//     models/training/cache/tags/held-out-8, -7 and -6 by generator.py, which needs Debian's python3-opencv),
//  2. the real shelf photos' hand-labelled tags (bench/prices.labels.json: every tag inside each photo's
//     `regions` is labelled, so recall counts those and precision the boxes centred inside a region;
//     photos in ../shared/data/shelf-photos, evaluation only, skipped where absent),
// and the time of detectPriceTags on a 12 MP photo's decoded pixels, as the pipeline calls it.
// PRICE_TAG_MODEL=FILE scores another model file; BENCH_TAGS_SCORE=0.2 another score cut; BENCH_TAGS_CUTS=0.2,0.3,0.4
// several cuts from one pass (boxes found at the lowest, kept per cut by score: the same boxes a run at that cut
// finds, as peaks and the greedy NMS above a cut do not depend on the boxes below it); BENCH_TAGS_INPUT=1280 another
// input size; BENCH_TAGS_SETS=8,7 some of the generated sets only.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import sharp from 'sharp';

import { closePriceTagDetector, configurePriceTagDetector, detectPriceTags, priceTagModelPath } from '../dist/main/server/recognition/prices/tag-detector.js';
import { greedyMatches, iou } from './box-overlap.mjs';

const python = process.env.PYTHON ?? '/usr/bin/python3';
const training = path.resolve('models/training');
const sets = [
  { dir: 'cache/tags/held-out-8', style: 8, seed: 993, count: 30 },
  { dir: 'cache/tags/held-out-7', style: 7, seed: 991, count: 30 },
  { dir: 'cache/tags/held-out-6', style: 6, seed: 992, count: 30 },
].filter((s) => !process.env.BENCH_TAGS_SETS || process.env.BENCH_TAGS_SETS.split(',').includes(String(s.style)));
const cuts = process.env.BENCH_TAGS_CUTS ? process.env.BENCH_TAGS_CUTS.split(',').map(Number) : [null];
const photos = path.resolve('../shared/data/shelf-photos');
const MIN_TAG_SIDE = 10;
const labelsFile = process.env.PRICE_TAG_LABELS ?? 'bench/prices.labels.json';

await configurePriceTagDetector({
  modelPath: process.env.PRICE_TAG_MODEL || undefined,
  scoreThreshold: cuts[0] !== null ? Math.min(...cuts) : process.env.BENCH_TAGS_SCORE ? Number(process.env.BENCH_TAGS_SCORE) : undefined,
  inputSize: process.env.BENCH_TAGS_INPUT ? Number(process.env.BENCH_TAGS_INPUT) : undefined,
});
console.log(`model ${priceTagModelPath()}`);

async function rawOf(file) {
  const { data, info } = await sharp(file).rotate().removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

/** Per cut (null: the model's own), the row of one image: counts of tags, boxes and matches. */
function rowsOf(truth, found) {
  return cuts.map((cut) => {
    const kept = cut === null ? found : found.filter((b) => b.score >= cut);
    return { truth: truth.length, found: kept.length, tp50: greedyMatches(truth, kept, 0.5), tp30: greedyMatches(truth, kept, 0.3) };
  });
}

function reportCuts(name, perImage) {
  cuts.forEach((cut, k) => report(cut === null ? name : `${name} [cut ${cut}]`, perImage.map((r) => r[k])));
}

function report(name, rows) {
  const sum = (k) => rows.reduce((s, r) => s + r[k], 0);
  const truth = sum('truth');
  const found = sum('found');
  const f = (v) => v.toFixed(3);
  console.log(
    `${name}: ${rows.length} images, ${truth} tags, ${found} boxes | IoU 0.5 recall ${f(sum('tp50') / Math.max(1, truth))} precision ${f(sum('tp50') / Math.max(1, found))}` +
      ` | IoU 0.3 recall ${f(sum('tp30') / Math.max(1, truth))} precision ${f(sum('tp30') / Math.max(1, found))}`,
  );
}

// 1. Held-out generated scenes.
const probe = spawnSync(python, ['-c', 'import cv2, numpy'], { encoding: 'utf8' });
if (probe.status !== 0) {
  console.log(`generated scenes: skipped (${python} with OpenCV and NumPy draws them)`);
} else {
  for (const set of sets) {
    const dir = path.join(training, set.dir);
    const have = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')).length : 0;
    if (have < set.count) {
      console.log(`generating ${set.count} held-out scenes into ${dir} (once)...`);
      const g = spawnSync(python, ['generator.py', set.dir, '--count', String(set.count), '--seed', String(set.seed), '--style', String(set.style)], { cwd: training, stdio: 'inherit' });
      if (g.status !== 0) process.exit(1);
    }
    const rows = [];
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.json')).sort().slice(0, set.count)) {
      const scene = JSON.parse(readFileSync(path.join(dir, f), 'utf8'));
      const all = scene.tags.map(([x1, y1, x2, y2]) => ({ x1, y1, x2, y2 }));
      // Tags under MIN_TAG_SIDE px (far shots of dense rails) carry no readable price: neither hits nor misses.
      const truth = all.filter((t) => Math.min(t.x2 - t.x1, t.y2 - t.y1) >= MIN_TAG_SIDE);
      const tiny = all.filter((t) => Math.min(t.x2 - t.x1, t.y2 - t.y1) < MIN_TAG_SIDE);
      // Hanging price signs are neither hits nor misses either (generator.py): boxes centred on one are not counted.
      const signs = scene.signs.map(([x1, y1, x2, y2]) => ({ x1, y1, x2, y2 }));
      const found = (await detectPriceTags(await rawOf(path.join(dir, f.replace('.json', '.jpg'))))).filter((b) => {
        const cx = (b.x1 + b.x2) / 2;
        const cy = (b.y1 + b.y2) / 2;
        return !signs.some((s) => cx >= s.x1 && cx <= s.x2 && cy >= s.y1 && cy <= s.y2) && !tiny.some((t) => iou(t, b) >= 0.3);
      });
      rows.push(rowsOf(truth, found));
    }
    reportCuts(`held-out style ${set.style} (seed ${set.seed})`, rows);
  }
}

// 2. Real photos' hand-labelled tags.
if (!existsSync(photos) || !existsSync(labelsFile)) {
  console.log(`real photos: skipped (${existsSync(photos) ? labelsFile : photos} not found)`);
} else {
  const labels = JSON.parse(readFileSync(labelsFile, 'utf8'));
  const rows = [];
  for (const p of labels.photos) {
    const file = path.join(photos, p.image);
    if (!existsSync(file)) continue;
    const inside = (b) => {
      const cx = (b.x1 + b.x2) / 2;
      const cy = (b.y1 + b.y2) / 2;
      return p.regions.some(([x1, y1, x2, y2]) => cx >= x1 && cx <= x2 && cy >= y1 && cy <= y2);
    };
    const truth = p.tags.map(({ x1, y1, x2, y2 }) => ({ x1, y1, x2, y2 }));
    const found = (await detectPriceTags(await rawOf(file))).filter(inside);
    const perCut = rowsOf(truth, found);
    if (process.env.BENCH_TAGS_VERBOSE) for (const [k, row] of perCut.entries()) console.log(`  ${p.image}${cuts[k] === null ? '' : ` [cut ${cuts[k]}]`}: ${row.truth} tags, ${row.found} boxes, ${row.tp50} / ${row.tp30} found at IoU 0.5 / 0.3`);
    rows.push(perCut);
  }
  reportCuts(`real photos (${labelsFile})`, rows);
}

// 3. Time on a 12 MP photo's decoded pixels (4032x3024), as the pipeline hands them over.
const source = existsSync(photos) ? path.join(photos, readdirSync(photos).filter((f) => f.endsWith('.jpg')).sort()[0]) : path.join('test/fixtures/detector/shelf-960x720.jpg');
const { data, info } = await sharp(source).resize(4032, 3024, { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true });
const photo12 = { data, width: info.width, height: info.height, channels: info.channels };
await detectPriceTags(photo12);
const times = [];
const cpu = [];
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  const c = process.cpuUsage();
  await detectPriceTags(photo12);
  times.push(performance.now() - t);
  const used = process.cpuUsage(c);
  cpu.push((used.user + used.system) / 1000);
}
times.sort((a, b) => a - b);
cpu.sort((a, b) => a - b);
// CPU time (user + system of the process, the onnxruntime threads included) stands when a loaded machine skews the wall time.
console.log(`detectPriceTags, 12 MP decoded photo: median ${times[2].toFixed(0)} ms, min ${times[0].toFixed(0)} ms wall; CPU time median ${cpu[2].toFixed(0)} ms (n=5, 2 threads; load ${os.loadavg()[0].toFixed(1)})`);
await closePriceTagDetector();
