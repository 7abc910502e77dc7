// SKU identification accuracy on the Grocery Store Dataset's packaged goods (31 classes): each test
// photo is identified against (a) the iconic packshot of each class, (b) 3 train photos per class.
// Prints top-1 / top-5 and time per query. IDENT_BENCH_EVERY=N uses every Nth test photo (quick runs).
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = process.env.IDENT_BENCH_DIST ?? 'dist';
const { describeProduct } = await import(path.resolve(root, 'main/server/recognition/identification/describe.js'));
const { Identifier } = await import(path.resolve(root, 'main/server/recognition/identification/identifier.js'));
const { setShippedEmbedder } = await import(path.resolve(root, 'main/server/recognition/identification/embedding.js'));
// SHELF_EMBEDDER_MODEL=FILE measures another embedder (one finetune.py wrote), as the app would use it.
setShippedEmbedder(process.env.SHELF_EMBEDDER_MODEL || null);

const data = path.resolve(process.env.SHARED_DATA ?? '../shared/data', 'grocery-store-dataset/dataset');
const every = Number(process.env.IDENT_BENCH_EVERY ?? 1);
const classes = readFileSync(path.join(data, 'classes.csv'), 'utf8')
  .trim().split('\n').slice(1).map((l) => l.split(','))
  .filter((c) => c[4].includes('/Packages/'))
  .map((c) => ({ name: c[0], id: c[1], iconic: c[4] }));
// IDENT_BENCH_CLASSES=odd keeps the classes with an odd id: those an embedder trained with
// --holdout-packages never saw (SHELF_EMBEDDER_MODEL points the app at such a model).
const classIds = new Set(classes.map((c) => c.id).filter((id) => process.env.IDENT_BENCH_CLASSES !== 'odd' || Number(id) % 2 === 1));
const list = (f) => readFileSync(path.join(data, f), 'utf8').trim().split('\n')
  .map((l) => l.split(',').map((s) => s.trim())).filter(([p, id]) => classIds.has(id) && p.includes('Packages/'));
const train = list('train.txt');
// IDENT_BENCH_SPLIT=val.txt tunes on the val split and keeps the test split for the figures.
const test = list(process.env.IDENT_BENCH_SPLIT ?? 'test.txt').filter((_, i) => i % every === 0);

async function run(label, refs) {
  const ident = new Identifier(process.env.IDENT_BENCH_SHORTLIST ? { shortlist: Number(process.env.IDENT_BENCH_SHORTLIST) } : {});
  let t = performance.now();
  for (const [i, r] of refs.entries()) ident.add({ id: String(i), skuId: r.id, descriptor: await describeProduct(path.join(data, r.file)) });
  const refMs = (performance.now() - t) / refs.length;
  let top1 = 0;
  let top5 = 0;
  let unknown = 0;
  t = performance.now();
  for (const [file, id] of test) {
    const res = await ident.identify(await describeProduct(path.join(data, file)));
    const ranks = res.candidates.map((c) => c.skuId);
    if (ranks[0] === id) top1++;
    if (ranks.slice(0, 5).includes(id)) top5++;
    if (res.skuId === null) unknown++;
  }
  const qMs = (performance.now() - t) / test.length;
  console.log(
    `${label}: ${test.length} queries, ${classIds.size} classes, ${refs.length} references | top-1 ${(100 * top1 / test.length).toFixed(1)}% | top-5 ${(100 * top5 / test.length).toFixed(1)}% | ` +
      `called unknown ${(100 * unknown / test.length).toFixed(1)}% | ${refMs.toFixed(1)} ms/reference, ${qMs.toFixed(1)} ms/query`,
  );
}

await run('iconic packshot', classes.filter((c) => classIds.has(c.id)).map((c) => ({ id: c.id, file: c.iconic.replace(/^\//, '') })));
const three = [];
for (const c of classes.filter((c) => classIds.has(c.id))) for (const [file] of train.filter(([, id]) => id === c.id).slice(0, 3)) three.push({ id: c.id, file });
await run('3 train photos', three);
