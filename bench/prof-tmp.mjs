import sharp from 'sharp';
import path from 'node:path';
import { readdirSync, writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import { createDetector } from '../dist/main/server/recognition/detector/index.js';
import { Identifier, PIPELINE_IDENTIFIER } from '../dist/main/server/recognition/identification/identifier.js';
import { analyzeScene, matchingGray } from '../dist/main/server/recognition/pipeline.js';
import { registerBay } from '../dist/main/server/recognition/bay/register.js';
import { loadOpenCv } from '../dist/main/server/recognition/opencv.js';
const DIR = '/work/shared/data/shelf-photos';
const names = readdirSync(DIR).filter((f) => f.endsWith('.jpg')).sort();
const tmp = mkdtempSync(path.join(os.tmpdir(), 'prof-'));
const { data, info } = await sharp(path.join(DIR, names[0])).rotate().resize(5400, 5400, { fit: 'inside' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
const files = [];
for (const [k, v] of [0, 0.22, 0.44].entries()) {
  const top = Math.round(v * info.height), h = Math.round(0.5618 * info.height);
  const f = path.join(tmp, `b${k}.jpg`);
  writeFileSync(f, await sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } }).extract({ left: 0, top, width: info.width, height: Math.min(h, info.height - top) }).modulate({ brightness: 1 + k * 0.05 }).jpeg({ quality: 90 }).toBuffer());
  files.push(f);
}
const detector = await createDetector();
const a = await analyzeScene(files.map((p, k) => ({ id: `big-${k}`, path: p })), { detector, identifier: new Identifier(PIPELINE_IDENTIFIER) });
await detector.close();
console.log('sizes', a.images.map((i) => `${i.width}x${i.height} ${i.products.length} boxes`).join(', '), 'joined', a.bay.photos.map((p) => p.joined));
const raws = [];
for (const f of files) { const { data, info } = await sharp(f).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true }); raws.push({ data, width: info.width, height: info.height, channels: 3 }); }
const cv = await loadOpenCv();
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
for (let run = 0; run < 3; run++) {
  let c0 = cpu();
  const grays = [];
  for (const raw of raws) grays.push(await matchingGray(raw));
  const tg = cpu() - c0;
  c0 = cpu();
  const bay = registerBay(cv, a.images.map((img, k) => ({ image: img.image, width: img.width, height: img.height, ...grays[k], boxes: img.products })));
  const tr = cpu() - c0;
  console.log(`gray ${(tg / 3).toFixed(0)} ms/photo, register ${(tr / 3).toFixed(0)} ms/photo, total ${((tg + tr) / 3).toFixed(0)}; joined ${bay.photos.filter((p) => p.joined).length}; timings ${JSON.stringify(globalThis.__bayProf ?? {})}`);
  globalThis.__bayProf = {};
}
