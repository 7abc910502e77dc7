// Photo quality checks on data (run by `npm run bench -- quality`, after the build): a labelled set made
// from the real shelf photos of ../shared/data/shelf-photos (evaluation only: read here, never
// committed) with controlled defects, each photo's untouched original beside them. Thresholds are
// chosen on one half of the photos (even places in name order) and the figures reported on the other
// half: per check, the recall on photos given its defect and the false alarms on untouched photos.
// Each photo gets QUALITY_DRAWS (default 3) independent draws of every defect. Then the perspective
// check's resolution (square photos warped to fixed far-side heights), the exam's shelf scenes as more
// untouched photos for the pixel checks, and the time of every check on a 12 MP photo: the pixel checks
// (decode included) and the box checks.
//
// Defects (seeded, severity drawn in a range per photo): focus blur, motion blur, under and over
// exposure, a glare patch, rotation 5-20 degrees, perspective (one side of the bay farther away),
// downscale (too far: the photo shrunk and mirrored around, so products are small everywhere), a
// crop into the middle (too close: products cut at top and bottom), a crop of one side (the bay end
// cut), a re-encoded copy (duplicate) and two overlapping parts of one photo (overlap).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';

import {
  DEFAULT_THRESHOLDS,
  edgeRoom,
  estimateOverlap,
  hashDistance,
  judgeBoxes,
  judgePixels,
  measurePhoto,
  productSizeOf,
  sideRoom,
} from '../dist/main/server/domain/photo-checks.js';
import { createDetector } from '../dist/main/server/recognition/detector/index.js';

const DIR = process.env.SHARED_DATA ? path.join(process.env.SHARED_DATA, 'shelf-photos') : '../shared/data/shelf-photos';
if (!existsSync(DIR)) {
  console.log(`no ${DIR}: the quality bench needs the shared shelf photos`);
  process.exit(0);
}
/** Photos shot at an angle already (looked at one by one): they are perspective defects as taken. */
const OBLIQUE = new Set(['test_1079', 'test_1175', 'test_1234', 'test_1896', 'test_636', 'test_957']);
/** Photos out of focus as taken (looked at at full size): blur defects already. */
const BLURRED = new Set(['test_256']);
const WORK = 2048; // defects are made at this long side: the checks measure at 1024 whatever the input

// QUALITY_SEED=<n>: other draws of the defects' severities (and crops), to see how much the figures move.
// QUALITY_DRAWS=<k> (default 3): each photo gets k independent draws of every defect, so each check is
// judged on k times as many defective photos (19 photos make a coarse set: one photo is 0.11 of a
// half). Draw 0 uses the streams the bench always used, so its defects are those of earlier runs.
const SEED = Number(process.env.QUALITY_SEED ?? 43);
const DRAWS = Math.max(1, Number(process.env.QUALITY_DRAWS ?? 3));
const stream = (start) => {
  let s = start;
  return () => ((s = (s * 16807) % 2147483647) / 2147483647);
};
const streams = Array.from({ length: DRAWS }, (_, d) => {
  const s = d === 0 ? SEED : SEED + 7919 * d;
  return [stream(s), stream(s * 101)];
});
let activeDraw = 0;
let drawn = []; // the values drawn for the defect being made (its severity, recorded with its row)
const rnd = () => streams[activeDraw][0]();
const rnd2 = () => streams[activeDraw][1]();
const between = (a, b) => {
  const v = a + (b - a) * rnd();
  drawn.push(Math.round(v * 1000) / 1000);
  return v;
};

const files = readdirSync(DIR).filter((f) => f.endsWith('.jpg')).sort();
const base = async (f) => sharp(path.join(DIR, f)).rotate().resize(WORK, WORK, { fit: 'inside' }).toBuffer();
const jpeg = (s) => s.jpeg({ quality: 90 }).toBuffer();

/** A perspective warp in plain JavaScript (sharp has none): the `far` side shrinks to `ratio` of the height. */
async function perspective(buf, ratio, farRight) {
  const { data, info } = await sharp(buf).resize(1600, 1600, { fit: 'inside' }).raw().toBuffer({ resolveWithObject: true });
  const { width: w, height: h, channels: c } = info;
  const out = Buffer.alloc(data.length, 96);
  for (let x = 0; x < w; x++) {
    const t = farRight ? x / (w - 1) : 1 - x / (w - 1);
    const colH = h * (1 - t * (1 - ratio));
    const top = (h - colH) / 2;
    const sx = x;
    for (let y = 0; y < h; y++) {
      const sy = Math.round(((y - top) / colH) * (h - 1));
      if (sy < 0 || sy >= h) continue;
      const o = (y * w + x) * c;
      const i = (sy * w + sx) * c;
      for (let k = 0; k < c; k++) out[o + k] = data[i + k];
    }
  }
  return jpeg(sharp(out, { raw: info }));
}

async function rotated(buf, angle) {
  const meta = await sharp(buf).metadata();
  const r = (Math.abs(angle) * Math.PI) / 180;
  const { width: w, height: h } = meta;
  // The largest centred rectangle of the same aspect inside the turned photo: no empty corners.
  const s = 1 / (Math.cos(r) + Math.max(w / h, h / w) * Math.sin(r));
  const turned = await sharp(buf).rotate(angle).toBuffer({ resolveWithObject: true });
  const cw = Math.floor(w * s);
  const ch = Math.floor(h * s);
  return jpeg(sharp(turned.data).extract({ left: Math.floor((turned.info.width - cw) / 2), top: Math.floor((turned.info.height - ch) / 2), width: cw, height: ch }));
}

async function glare(buf, share) {
  const { width: w, height: h } = await sharp(buf).metadata();
  const area = share * w * h;
  const rx = Math.sqrt(area / Math.PI * 1.6);
  const ry = area / Math.PI / rx;
  const cx = between(0.3, 0.7) * w;
  const cy = between(0.3, 0.7) * h;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><defs><radialGradient id="g"><stop offset="0.75" stop-color="#fcfcfa" stop-opacity="1"/><stop offset="1" stop-color="#ffffff" stop-opacity="0"/></radialGradient></defs><ellipse cx="${cx}" cy="${cy}" rx="${rx * 1.15}" ry="${ry * 1.15}" fill="url(#g)"/></svg>`;
  return jpeg(sharp(buf).composite([{ input: Buffer.from(svg) }]));
}

async function motion(buf, length, direction) {
  const n = Math.max(3, Math.round(length) | 1);
  const k = new Array(n * n).fill(0);
  for (let i = 0; i < n; i++) {
    const at = direction === 'h' ? (n >> 1) * n + i : direction === 'v' ? i * n + (n >> 1) : i * n + i;
    k[at] = 1;
  }
  return jpeg(sharp(buf).convolve({ width: n, height: n, kernel: k }));
}

const DEFECTS = {
  focus_blur: { measure: 'sharpness', bad: 'low', skipBlurred: true, make: (b) => jpeg(sharp(b).blur(between(3, 7))) },
  motion_blur: { measure: 'sharpness', bad: 'low', skipBlurred: true, make: (b) => motion(b, between(12, 30), ['h', 'v', 'd'][Math.floor(rnd() * 3)]) },
  under_exposure: { measure: 'brightness', bad: 'low', make: (b) => jpeg(sharp(b).linear(between(0.25, 0.45), 0)) },
  over_exposure: { measure: 'brightness', bad: 'high', make: (b) => jpeg(sharp(b).linear(between(1.5, 2.1), between(30, 70))) },
  glare: { measure: 'glare', bad: 'high', make: (b) => glare(b, between(0.02, 0.06)) },
  rotation: { measure: 'tilt', bad: 'high', skipOblique: true, make: (b) => rotated(b, (rnd() < 0.5 ? -1 : 1) * between(5, 20)) },
  perspective: { measure: 'convergence', bad: 'high', skipOblique: true, make: (b) => perspective(b, between(0.6, 0.8), rnd() < 0.5) },
  downscale: { measure: 'product_size', bad: 'low', boxes: true, make: async (b) => {
    const { width: w, height: h } = await sharp(b).metadata();
    const s = between(0.3, 0.45);
    const sw = Math.round(w * s);
    const sh = Math.round(h * s);
    const small = await sharp(b).resize(sw, sh).toBuffer();
    const l = Math.floor((w - sw) / 2);
    const t = Math.floor((h - sh) / 2);
    return jpeg(sharp(small).extend({ left: l, right: w - sw - l, top: t, bottom: h - sh - t, extendWith: 'mirror' }));
  } },
  // Too close: a crop into the middle, two per photo. A crop that still shows the bay's top or its
  // floor is no too-close photo (the set's photos are of very different framings): it counts only when
  // it cuts the untouched photo's products at both the top and the bottom, by half a product height.
  close_crop: { measure: 'edge_room', bad: 'low', boxes: true, copies: 2, make: async (b, copy) => {
    const { width: w, height: h } = await sharp(b).metadata();
    // The second copy draws from its own stream, so the other defects' draws stay those of one copy.
    const draw = copy === 0 ? rnd : rnd2;
    const s = 0.4 + 0.15 * draw();
    const cw = Math.round(w * s);
    const ch = Math.round(h * s);
    const window = { left: Math.round((w - cw) * draw()), top: Math.round((h - ch) / 2), width: cw, height: ch };
    return { buf: await jpeg(sharp(b).extract(window)), window };
  }, applies: (window, untouched) => {
    if (untouched.length === 0) return false;
    const hs = untouched.map((x) => x.h).sort((p, q) => p - q);
    const half = hs[Math.floor(hs.length / 2)] / 2;
    // The box 5 % in from each end, as the check takes it: a ceiling light or a sign is not the bay's top.
    const k = Math.min(Math.max(1, Math.floor(0.05 * untouched.length)), untouched.length - 1);
    const top = untouched.map((x) => x.y).sort((p, q) => p - q)[k];
    const bottom = untouched.map((x) => x.y + x.h).sort((p, q) => q - p)[k];
    return window.top > top + half && window.top + window.height < bottom - half;
  } },
  // The bay end cut: one side cropped off. Judged per side in its own section below (the side cut off).
  side_crop: { measure: 'side_room', bad: 'low', boxes: true, ownSection: true, make: async (b) => {
    const { width: w, height: h } = await sharp(b).metadata();
    const keep = Math.round(w * between(0.5, 0.7));
    const window = { left: rnd() < 0.5 ? 0 : w - keep, top: 0, width: keep, height: h };
    return { buf: await jpeg(sharp(b).extract(window)), window };
  } },
};

const detector = await createDetector({ threads: 1 });
function sideRooms(boxes, width) {
  const widths = boxes.map((b) => b.w).sort((a, b) => a - b);
  const room = sideRoom(boxes, width, widths.length ? widths[Math.floor(widths.length / 2)] : 0);
  return { side_left: room.left, side_right: room.right };
}
/** The box measures the checks compare: median product height and size, share cut at top/bottom, share of shelves cut at a side. */
// QUALITY_BOX_CACHE=<file>: the detector's answers kept by image digest, so a rerun that only changes how
// the figures are judged skips the detections (the made images are seeded, so their digests repeat).
const boxCache = process.env.QUALITY_BOX_CACHE && existsSync(process.env.QUALITY_BOX_CACHE) ? JSON.parse(readFileSync(process.env.QUALITY_BOX_CACHE, 'utf8')) : {};
async function detectCached(buf) {
  const key = createHash('sha1').update(buf).digest('hex');
  boxCache[key] ??= await detector.detect(buf).then((d) => ({ width: d.width, height: d.height, boxes: d.boxes.map((b) => ({ x1: b.x1, y1: b.y1, x2: b.x2, y2: b.y2 })) }));
  return boxCache[key];
}
async function boxMeasures(buf) {
  const d = await detectCached(buf);
  const boxes = d.boxes.map((b) => ({ x: b.x1, y: b.y1, w: b.x2 - b.x1, h: b.y2 - b.y1 }));
  const size = { width: d.width, height: d.height };
  const never = { ...DEFAULT_THRESHOLDS, min_product_size: 0, max_cut_products: 1, max_side_cut: -1, min_side_room: 0 };
  const issues = judgeBoxes(boxes, size, never);
  const value = (code) => issues.find((i) => i.code === code)?.value ?? 0;
  const heights = boxes.map((b) => b.h / size.height).sort((a, b) => a - b);
  const median = heights.length ? heights[Math.floor(heights.length / 2)] : 0;
  return {
    n: boxes.length,
    boxes,
    size,
    product_height: median,
    product_size: productSizeOf(boxes, size),
    edge_room: edgeRoom(boxes, size.height, median * size.height),
    ...sideRooms(boxes, size.width),
    cut_products: boxes.length ? boxes.filter((b) => b.y <= 0.01 * size.height || b.y + b.h >= 0.99 * size.height).length / boxes.length : 0,
    side_cut: value('bay_end_cut'),
  };
}

async function timeChecks() {
  // Time on a 12 MP photo (3024x4032 displayed, stored sideways with EXIF orientation 6, as phones do).
  const photo12 = await sharp(path.join(DIR, files[0])).rotate().resize(3024, 4032, { fit: 'fill' }).rotate(-90).withMetadata({ orientation: 6 }).jpeg({ quality: 90 }).toBuffer();
  const boxes = (await detector.detect(photo12)).boxes.map((b) => ({ x: b.x1, y: b.y1, w: b.x2 - b.x1, h: b.y2 - b.y1 }));
  // CPU time (user + system, all of the process's threads: libvips decodes on its own) beside the wall
  // time, since the wall time on a shared machine mostly says how busy the other processes are.
  const times = { pixel: [], pixelCpu: [], boxes: [], judge: [], decode: [] };
  for (let i = 0; i < 8; i++) {
    let t = performance.now();
    // The decode alone (what sharp does for measurePhoto), to tell it from the JavaScript passes.
    await sharp(photo12, { limitInputPixels: false }).rotate().resize(1024, 1024, { fit: 'inside', kernel: 'linear' }).toColourspace('srgb').raw().toBuffer();
    times.decode.push(performance.now() - t);
    t = performance.now();
    const cpu = process.cpuUsage();
    const m = await measurePhoto(photo12);
    times.pixel.push(performance.now() - t);
    const used = process.cpuUsage(cpu);
    times.pixelCpu.push((used.user + used.system) / 1000);
    t = performance.now();
    judgePixels(m, DEFAULT_THRESHOLDS);
    times.judge.push(performance.now() - t);
    t = performance.now();
    judgeBoxes(boxes, { width: 3024, height: 4032 }, DEFAULT_THRESHOLDS);
    times.boxes.push(performance.now() - t);
  }
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`time per 12 MP photo (median of 8 after one warm-up included): pixel checks with decode ${med(times.pixel).toFixed(1)} ms ` +
    `(min ${Math.min(...times.pixel).toFixed(1)}; CPU time ${med(times.pixelCpu).toFixed(1)} ms median; decode and resize alone ${med(times.decode).toFixed(1)} ms), judging ${med(times.judge).toFixed(2)} ms, box checks (${boxes.length} boxes) ${med(times.boxes).toFixed(2)} ms`);
  console.log(`load average while measuring: ${os.loadavg().map((l) => l.toFixed(2)).join(', ')} (${os.cpus().length} cores)`);
}

// QUALITY_ONLY=time: only the timing, for a run on a quiet machine without the minute of defect making.
if (process.env.QUALITY_ONLY === 'time') {
  await timeChecks();
  await detector.close();
  process.exit(0);
}

const rows = []; // { photo, half, defect ('none' for untouched), values }
const notApplicable = {}; // defects made but not counted (a crop that cuts no product), per defect
const t0 = performance.now();
for (let i = 0; i < files.length; i++) {
  const f = files[i];
  const name = f.replace('.jpg', '');
  const half = i % 2 === 0 ? 'choose' : 'report';
  const b = await base(f);
  const m = await measurePhoto(path.join(DIR, f));
  const bm = await boxMeasures(b);
  rows.push({ photo: name, half, defect: 'none', values: { ...m, tilt: Math.abs(m.tilt), ...bm } });
  for (let draw = 0; draw < DRAWS; draw++) {
    activeDraw = draw;
    for (const [defect, d] of Object.entries(DEFECTS)) {
      for (let c = 0; c < (d.copies ?? 1); c++) {
        drawn = [];
        const made = await d.make(b, c);
        const severity = drawn;
        const buf = Buffer.isBuffer(made) ? made : made.buf;
        if (d.applies && !d.applies(made.window, bm.boxes)) {
          notApplicable[defect] = (notApplicable[defect] ?? 0) + 1;
          continue;
        }
        const dm = await measurePhoto(buf);
        const values = { ...dm, tilt: Math.abs(dm.tilt) };
        if (d.boxes) Object.assign(values, await boxMeasures(buf));
        rows.push({ photo: name, half, defect, draw, severity, values, window: made.window });
      }
    }
  }
  activeDraw = 0; // what follows (the overlap pairs) draws from the first stream, as it always did
  process.stdout.write(`\r${i + 1}/${files.length} photos`);
}
if (process.env.QUALITY_BOX_CACHE) writeFileSync(process.env.QUALITY_BOX_CACHE, JSON.stringify(boxCache));
// QUALITY_DUMP=<file>: every row's measures and boxes as JSON, to study a check's misses offline.
if (process.env.QUALITY_DUMP) writeFileSync(process.env.QUALITY_DUMP, JSON.stringify(rows.map((r) => ({ ...r, values: { ...r.values, profile: undefined } }))));
process.stdout.write(`\r${files.length} photos, ${Object.keys(DEFECTS).length} defects each, ${DRAWS} draw(s) of each, made and measured in ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);

/**
 * The threshold of one check, chosen on the choice half: the one catching the most defective photos
 * while flagging at most 5 % of the untouched ones, placed halfway (in log scale for sharpness)
 * between the last untouched value it keeps and the next defect value.
 */
function choose(measure, bad, untouched, defective) {
  const allowed = Math.floor(0.05 * untouched.length);
  const u = [...untouched].sort((a, b) => (bad === 'low' ? a - b : b - a));
  const edge = u[allowed]; // the first untouched value that must pass
  const caught = defective.filter((v) => (bad === 'low' ? v < edge : v > edge));
  if (caught.length === 0) return edge;
  const nearest = bad === 'low' ? Math.max(...caught) : Math.min(...caught);
  if (measure === 'sharpness' && edge > 0 && nearest > 0) return Math.sqrt(edge * nearest);
  return (edge + nearest) / 2;
}
const flagged = (v, t, bad) => (bad === 'low' ? v < t : v > t);

console.log(`\nthresholds chosen on ${files.filter((_, i) => i % 2 === 0).length} photos, figures on the other ${files.filter((_, i) => i % 2 === 1).length}`);
console.log(`defect           measure          threshold   recall${DRAWS > 1 ? ` (${DRAWS} draws)` : ''}  false alarms (untouched)`);
const chosen = {};
for (const [defect, d] of Object.entries(DEFECTS)) {
  if (d.ownSection) continue;
  // Photos shot at an angle already are perspective defects as taken: not false alarms of the angle
  // checks, and their shelf edges give no level to measure a rotation against.
  const asTaken = (r) => (d.skipOblique && OBLIQUE.has(r.photo)) || (d.skipBlurred && BLURRED.has(r.photo));
  const clean = (r) => r.defect === 'none' && !asTaken(r);
  const pick = (half, test) => rows.filter((r) => r.half === half && test(r) && !asTaken(r)).map((r) => r.values[d.measure]);
  const key = `${d.measure}:${d.bad}`;
  // Defects judged by one measure (focus and motion blur) share its threshold, chosen on both.
  const sharing = Object.entries(DEFECTS).filter(([, o]) => `${o.measure}:${o.bad}` === key).map(([name]) => name);
  chosen[key] ??= choose(d.measure, d.bad, pick('choose', clean), pick('choose', (r) => sharing.includes(r.defect)));
  const t = chosen[key];
  const defective = pick('report', (r) => r.defect === defect);
  const firstDraw = pick('report', (r) => r.defect === defect && r.draw === 0);
  const untouched = pick('report', clean);
  const hits = defective.filter((v) => flagged(v, t, d.bad)).length;
  const firstHits = firstDraw.filter((v) => flagged(v, t, d.bad)).length;
  const alarms = untouched.filter((v) => flagged(v, t, d.bad)).length;
  console.log(
    `${defect.padEnd(16)} ${d.measure.padEnd(16)} ${(d.bad === 'low' ? '< ' : '> ') + t.toFixed(t < 1 ? 4 : 1).padEnd(9)} ` +
      `${(hits / defective.length).toFixed(2)} (${hits}/${defective.length})`.padEnd(16) +
      `${(alarms / untouched.length).toFixed(2)} (${alarms}/${untouched.length})`.padEnd(26) +
      (DRAWS > 1 ? `first draw: ${firstHits}/${firstDraw.length}` : ''),
  );
  const missed = rows.filter((r) => r.half === 'report' && r.defect === defect && !asTaken(r) && !flagged(r.values[d.measure], t, d.bad));
  if (missed.length) console.log(`  missed: ${missed.map((r) => `${r.photo}#${r.draw} (${r.values[d.measure]}; drawn ${r.severity.join(', ')})`).join('; ')}`);
}
const blurredAsTaken = rows.filter((r) => r.defect === 'none' && BLURRED.has(r.photo));
console.log(`untouched photos out of focus as taken (by eye): blur flagged ${blurredAsTaken.filter((r) => r.values.sharpness < chosen['sharpness:low']).length}/${blurredAsTaken.length}`);
const oblique = rows.filter((r) => r.half === 'report' && r.defect === 'none' && OBLIQUE.has(r.photo));
const tConv = chosen['convergence:high'];
console.log(`untouched photos shot at an angle (by eye), report half: perspective flagged ${oblique.filter((r) => r.values.convergence > tConv).length}/${oblique.length}`);

// Every untouched photo, every pixel check at once, at the chosen thresholds.
const tAll = {
  ...DEFAULT_THRESHOLDS,
  min_sharpness: chosen['sharpness:low'],
  min_brightness: chosen['brightness:low'],
  max_brightness: chosen['brightness:high'],
  max_glare: chosen['glare:high'],
  max_tilt: chosen['tilt:high'],
  max_convergence: chosen['convergence:high'],
};
const reportUntouched = rows.filter((r) => r.half === 'report' && r.defect === 'none');
const anyFlag = reportUntouched.filter((r) => judgePixels(r.values, tAll).some((i) => !(['perspective', 'tilt'].includes(i.code) && OBLIQUE.has(r.photo)) && !(i.code === 'blur' && BLURRED.has(r.photo))));
console.log(`untouched photos (report half) with any pixel issue at these thresholds: ${anyFlag.length}/${reportUntouched.length}${anyFlag.length ? ` (${anyFlag.map((r) => `${r.photo}: ${judgePixels(r.values, tAll).map((i) => i.code).join(',')}`).join('; ')})` : ''}`);
// The perspective check's resolution: the photos taken square (both halves; not shot at an angle by
// eye, and not flagged as taken, so the warp is their only perspective) warped to fixed far-side
// heights, and the share flagged at the chosen threshold. Where the flags set in between 0.95 and 0.8
// says how finely the measure tells a mildly oblique photo from a defect (docs/recognition.md).
const levelPhotos = rows.filter((r) => r.defect === 'none' && !OBLIQUE.has(r.photo) && r.values.convergence <= tConv).map((r) => r.photo);
const resolution = {};
for (const name of levelPhotos) {
  const b = await base(`${name}.jpg`);
  for (const ratio of [0.95, 0.9, 0.85, 0.8]) {
    for (const farRight of [false, true]) {
      const c = (await measurePhoto(await perspective(b, ratio, farRight))).convergence;
      (resolution[ratio] ??= []).push({ name, c });
    }
  }
}
console.log(`perspective at fixed far-side heights (${levelPhotos.length} level photos, both sides), flagged at > ${tConv.toFixed(1)}: ` +
  Object.entries(resolution).sort(([a], [b]) => Number(b) - Number(a)).map(([ratio, v]) => {
    const cs = v.map((x) => x.c).sort((a, b) => a - b);
    return `${ratio}: ${cs.filter((c) => c > tConv).length}/${cs.length} (measured ${cs[0]}-${cs.at(-1)}, median ${cs[cs.length >> 1]})`;
  }).join(', '));

// More untouched photos for the pixel checks that do not depend on the photo's size or framing: the 15
// shelf scenes of ../shared/data/shelf-recognition-exam (evaluation only), close views of one to five
// shelves, 453 to 1065 px on the short side, taken level and square (looked at one by one). They serve
// exposure, glare, tilt and perspective; blur only loosely (most are under the 1024 px working size,
// measured at their own size, where the same blur reads sharper); not distance or coverage (crops of a
// shelf or two: too close as framed) nor the size check (most are under 480 px).
const EXAM = process.env.SHARED_DATA ? path.join(process.env.SHARED_DATA, 'shelf-recognition-exam/scenes') : '../shared/data/shelf-recognition-exam/scenes';
if (existsSync(EXAM)) {
  const exam = [];
  for (const f of readdirSync(EXAM).filter((x) => /\.(png|jpe?g)$/.test(x)).sort()) exam.push({ photo: f, values: await measurePhoto(path.join(EXAM, f)) });
  const examChecks = [
    ['blur (loosely)', (v) => v.sharpness < tAll.min_sharpness],
    ['too_dark', (v) => v.brightness < tAll.min_brightness],
    ['too_bright', (v) => v.brightness > tAll.max_brightness],
    ['glare', (v) => v.glare > tAll.max_glare],
    ['tilt', (v) => Math.abs(v.tilt) > tAll.max_tilt],
    ['perspective', (v) => v.convergence > tAll.max_convergence],
  ];
  console.log(`exam scenes (${exam.length} more untouched photos) flagged at the chosen thresholds: ` +
    examChecks.map(([name, test]) => {
      const hit = exam.filter((e) => test(e.values));
      return `${name} ${hit.length}/${exam.length}${hit.length ? ` (${hit.map((e) => e.photo).join(', ')})` : ''}`;
    }).join(', '));
  // The perspective check's false alarms on every untouched photo no threshold was chosen on: the
  // report half's (less those shot at an angle as taken) and the exam scenes (not chosen on for this
  // check). Most of the scenes are close views with few shelf edges, where the measure reads 0.
  const squareReport = rows.filter((r) => r.half === 'report' && r.defect === 'none' && !OBLIQUE.has(r.photo));
  const perspAlarms = [...squareReport.filter((r) => r.values.convergence > tAll.max_convergence).map((r) => r.photo), ...exam.filter((e) => e.values.convergence > tAll.max_convergence).map((e) => e.photo)];
  console.log(`perspective false alarms on the report half's untouched photos and the exam scenes together: ${perspAlarms.length}/${squareReport.length + exam.length}${perspAlarms.length ? ` (${perspAlarms.join(', ')})` : ''}`);
  console.log(`  exam scenes' measures: ${exam.map((e) => `${e.photo} sharp ${e.values.sharpness} bright ${e.values.brightness} glare ${e.values.glare} tilt ${e.values.tilt} conv ${e.values.convergence}`).join('; ')}`);
}

// Too close as the app judges it: any of its rules (product height at its default, the room above or
// below the products at the chosen threshold, the share cut at top and bottom).
const tClose = { ...DEFAULT_THRESHOLDS, min_edge_room: chosen['edge_room:low'] };
const tooClose = (r) => judgeBoxes(r.values.boxes, r.values.size, tClose, { left: false, right: false }).some((i) => i.code === 'too_close');
const closeRows = rows.filter((r) => r.half === 'report' && r.defect === 'close_crop');
const closeAlarms = reportUntouched.filter(tooClose);
console.log(`too close, every rule (height > ${tClose.max_product_height}, room < ${tClose.min_edge_room.toFixed(2)}, cut > ${tClose.max_cut_products}), report half: ` +
  `recall ${closeRows.filter(tooClose).length}/${closeRows.length}, false alarms ${closeAlarms.length}/${reportUntouched.length}${closeAlarms.length ? ` (${closeAlarms.map((r) => r.photo).join(', ')})` : ''}`);
for (const [defect, n] of Object.entries(notApplicable)) console.log(`${defect}: ${n} made but not counted (they cut no products at both ends: not that defect)`);

// The bay end, judged per side of a photo. Most of the set's photos are taken in the middle of long
// bays, so their products already run into the photo's sides: that side's end is cut as taken. The
// sides where the bay's end is in view (its side panel, an upright with another bay beyond, a cooler's
// frame) were looked at one by one; every other side of an untouched photo is a cut end, and so is the
// side a crop cut off. False alarms are ends in view that the check calls cut.
const END_IN_VIEW = {
  test_1094: ['left', 'right'], test_1234: ['left'], test_1479: ['left', 'right'], test_1989: ['left'],
  test_2008: ['left', 'right'], test_256: ['left'], test_636: ['left'], test_799: ['right'],
};
const sides = [];
for (const r of rows) {
  if (r.defect === 'none') {
    for (const side of ['left', 'right']) sides.push({ half: r.half, cut: !END_IN_VIEW[r.photo]?.includes(side), crop: false, room: r.values[`side_${side}`] });
  } else if (r.defect === 'side_crop') {
    const side = r.window.left === 0 ? 'right' : 'left';
    sides.push({ half: r.half, cut: true, crop: true, room: r.values[`side_${side}`] });
  }
}
const pickSides = (half, cut, crop) => sides.filter((x) => x.half === half && x.cut === cut && (crop === undefined || x.crop === crop)).map((x) => x.room);
chosen['side_room:low'] = choose('side_room', 'low', pickSides('choose', false), pickSides('choose', true));
const tSide = chosen['side_room:low'];
const hitsOf = (v) => `${v.filter((x) => x < tSide).length}/${v.length}`;
console.log(`bay end (room beside the products < ${tSide.toFixed(2)} product widths, chosen on the choice half), report half: ` +
  `cut by a crop ${hitsOf(pickSides('report', true, true))}, cut as taken ${hitsOf(pickSides('report', true, false))}, ` +
  `ends in view called cut ${hitsOf(pickSides('report', false))}`);

// Duplicates: a re-encoded, resized, slightly cropped copy of each photo against its original, and
// every pair of different photos.
const hashes = rows.filter((r) => r.defect === 'none').map((r) => ({ photo: r.photo, hash: r.values.hash }));
const copies = [];
for (const f of files) {
  // Sent again after a resize and a recompression, 1 % trimmed off each side (a re-export).
  const img = sharp(path.join(DIR, f)).rotate().resize(1200);
  const { info } = await img.clone().toBuffer({ resolveWithObject: true });
  const copy = await img.extract({ left: 12, top: 12, width: info.width - 24, height: info.height - 24 }).jpeg({ quality: 60 }).toBuffer();
  copies.push((await measurePhoto(copy)).hash);
}
const copyD = hashes.map((h, i) => hashDistance(h.hash, copies[i]));
const pairD = [];
for (let i = 0; i < hashes.length; i++) for (let j = i + 1; j < hashes.length; j++) pairD.push(hashDistance(hashes[i].hash, hashes[j].hash));
// The duplicate threshold: halfway between the copies and the nearest different pair of the choice half.
const chooseIdx = (i) => i % 2 === 0;
const pairsOf = (pick) => {
  const out = [];
  for (let i = 0; i < hashes.length; i++) for (let j = i + 1; j < hashes.length; j++) if (pick(i) && pick(j)) out.push(hashDistance(hashes[i].hash, hashes[j].hash));
  return out;
};
const nearestOther = Math.min(...pairsOf(chooseIdx));
const copiesBelow = copyD.filter((d, i) => chooseIdx(i) && d < nearestOther);
const td = Math.floor((nearestOther + Math.max(...copiesBelow, 0)) / 2);
const reportCopies = copyD.filter((_, i) => !chooseIdx(i));
const reportPairs = pairsOf((i) => !chooseIdx(i));
console.log(`duplicate (hash distance <= ${td}, chosen on the choice half): report half copies found ${reportCopies.filter((d) => d <= td).length}/${reportCopies.length}, ` +
  `different photos taken as copies ${reportPairs.filter((d) => d <= td).length}/${reportPairs.length}`);
console.log(`duplicate (hash distance <= ${td}): copies found ${copyD.filter((d) => d <= td).length}/${copyD.length} (distances ${Math.min(...copyD)}-${Math.max(...copyD)}), ` +
  `different photos taken as copies ${pairD.filter((d) => d <= td).length}/${pairD.length} (nearest ${Math.min(...pairD)})`);

// Overlap: two parts of one photo, the second starting a known share along.
const errors = [];
for (const f of files) {
  const b = await sharp(path.join(DIR, f)).rotate().resize(1600).toBuffer();
  const { width: w, height: h } = await sharp(b).metadata();
  const pw = Math.round(w * 0.6);
  const overlap = between(0.15, 0.6);
  const shift = Math.round(pw * (1 - overlap));
  if (shift + pw > w) continue;
  const a = await measurePhoto(await sharp(b).extract({ left: 0, top: 0, width: pw, height: h }).jpeg().toBuffer());
  const c = await measurePhoto(await sharp(b).extract({ left: shift, top: 0, width: pw, height: h }).jpeg().toBuffer());
  errors.push(Math.abs(estimateOverlap(a.profile, c.profile) - (1 - shift / pw)));
}
errors.sort((a, b) => a - b);
console.log(`overlap of two parts of one photo: median error ${errors[Math.floor(errors.length / 2)].toFixed(3)}, worst ${errors.at(-1).toFixed(3)} (n=${errors.length})`);

await timeChecks();
await detector.close();
