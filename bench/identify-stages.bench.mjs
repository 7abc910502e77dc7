// Identification of the two 12 MP bench photos (recognition-scene.mjs) without the server: the
// pipeline's identifyBoxes over the detector's boxes, with the bench's catalog, timed per photo (wall,
// and CPU of the whole process). Given several built trees (`node bench/identify-stages.bench.mjs
// /copy/of/base/dist dist dist:1`), each is loaded in this process and run in turn, round after round,
// so a loaded machine weighs on them alike; their answers (SKU, score, every suggestion) must be
// identical, or it fails. A tree is `path` or `path:threads` (identification threads beside the
// calling one; the same tree may be given with several counts). Detection runs once, with the first
// tree's detector: only identification is compared.
// Env: IDENTIFY_BENCH_ROUNDS (default 5), SHARED_DATA.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import sharp from 'sharp';
import { DATA, composedShelfPhoto, realShelfPhoto } from './recognition-scene.mjs';

const rounds = Number(process.env.IDENTIFY_BENCH_ROUNDS ?? 5);
const trees = (process.argv.length > 2 ? process.argv.slice(2) : ['dist']).map((arg) => {
  const [dir, threads = '0'] = arg.split(':');
  return { dist: path.resolve(dir), threads: Number(threads), label: arg };
});
const load = (dist, file) => import(pathToFileURL(path.join(dist, 'main/server/recognition', file)).href);

// The catalog of recognition-scene.mjs's addCatalog, read from the same files.
const crops = path.join(DATA, 'sku-crops');
const refFiles = [];
for (const sku of readdirSync(crops).filter((d) => !d.includes('.') && d !== 'LICENSE')) {
  for (const f of readdirSync(path.join(crops, sku)).sort().slice(0, 3)) refFiles.push({ sku, file: path.join(crops, sku, f) });
}
const iconic = path.join(DATA, 'grocery-store-dataset/dataset/iconic-images-and-descriptions/Packages');
for (const group of readdirSync(iconic)) {
  for (const cls of readdirSync(path.join(iconic, group))) {
    const file = readdirSync(path.join(iconic, group, cls)).find((f) => f.endsWith('_Iconic.jpg'));
    refFiles.push({ sku: cls, file: path.join(iconic, group, cls, file) });
  }
}

for (const tree of trees) {
  const { dist } = tree;
  const [{ describeProduct }, { Identifier, PIPELINE_IDENTIFIER }, pipeline, { IdentifyPool }] = await Promise.all([
    load(dist, 'identification/describe.js'),
    load(dist, 'identification/identifier.js'),
    load(dist, 'pipeline.js'),
    load(dist, 'identification/pool.js'),
  ]);
  const identifier = new Identifier(PIPELINE_IDENTIFIER);
  for (const [i, r] of refFiles.entries()) identifier.add({ id: `ref${i}`, skuId: r.sku, descriptor: await describeProduct(r.file, null) });
  Object.assign(tree, { identifier, pipeline, pool: tree.threads > 0 ? new IdentifyPool(tree.threads) : undefined });
}

const { createDetector } = await import(pathToFileURL(path.join(trees[0].dist, 'main/server/recognition/detector/index.js')).href);
const detector = await createDetector({ threads: 1 });
const photos = [];
for (const p of [await realShelfPhoto(), await composedShelfPhoto()]) {
  const { data, info } = await sharp(p.bytes).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const raw = { data, width: info.width, height: info.height, channels: info.channels };
  const boxes = trees[0].pipeline.dropNestedBoxes((await detector.detect(raw)).boxes);
  photos.push({ label: p.label, raw, boxes });
}
await detector.close();

// The whole process's CPU (sharp's and onnxruntime's threads included; identification threads too).
const processCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const wall = trees.map(() => photos.map(() => []));
const cpu = trees.map(() => photos.map(() => []));
const answers = trees.map(() => photos.map(() => undefined));
console.log(`${trees.length} trees, ${rounds} rounds, load average ${(await import('node:os')).loadavg().map((l) => l.toFixed(1)).join(' ')}`);
// Round 0 warms each tree up (JIT, opencv.js, onnxruntime) and is not counted.
for (let round = 0; round <= rounds; round++) {
  for (const [p, photo] of photos.entries()) {
    for (const [t, tree] of trees.entries()) {
      const c0 = processCpuMs();
      const t0 = performance.now();
      const ids = await tree.pipeline.identifyBoxes(photo.raw, photo.boxes, tree.identifier, undefined, tree.pool);
      if (round > 0) {
        wall[t][p].push(performance.now() - t0);
        cpu[t][p].push(processCpuMs() - c0);
      }
      const json = JSON.stringify(ids);
      if (answers[t][p] === undefined) answers[t][p] = json;
      else if (answers[t][p] !== json) throw new Error(`${tree.dist}: ${photo.label}: the answer changed between rounds`);
    }
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [p, photo] of photos.entries()) {
  const ids = JSON.parse(answers[0][p]);
  console.log(`--- ${photo.label}: ${photo.boxes.length} boxes, ${ids.filter((b) => b.sku_id !== null).length} identified`);
  for (const [t, tree] of trees.entries()) {
    const same = answers[t][p] === answers[0][p] ? 'same answer' : 'DIFFERENT ANSWER';
    console.log(
      `${tree.label}: identify wall median ${median(wall[t][p]).toFixed(0)} ms (${wall[t][p].map((x) => x.toFixed(0)).join(' ')}), ` +
        `CPU of the process median ${median(cpu[t][p]).toFixed(0)} ms (${cpu[t][p].map((x) => x.toFixed(0)).join(' ')}) | ${same}`,
    );
  }
}
for (const tree of trees) await tree.pool?.close();
if (answers.some((a) => a.some((x, p) => x !== answers[0][p]))) {
  console.error('the trees answered differently');
  process.exitCode = 1;
}
