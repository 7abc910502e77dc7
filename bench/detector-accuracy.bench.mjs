// Detector accuracy on the held-out generated set (the AP50 >= 0.95 target): COCO-style AP,
// AP50, AP75 and mean absolute count error, measured by models/training/evaluate.py through the app's
// own detect CLI. The sets (seeds never trained on) are generated on first use into
// models/training/cache/val, val2 and val3 (git-ignored) by the current generator; it needs Debian's python3 with OpenCV and NumPy
// (python3-opencv), otherwise this bench says so and skips.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

const python = process.env.PYTHON ?? '/usr/bin/python3';
const training = path.resolve('models/training');
const count = Number(process.env.BENCH_DETECTOR_VAL_COUNT ?? 200);
const sets = [
  { name: 'style 1 (seed 999)', dir: 'cache/val', seed: 999, style: 1 },
  { name: 'style 2 (seed 998)', dir: 'cache/val2', seed: 998, style: 2 },
  // Rows seen from above, drinks bottles, wire fronts: what the real photos show (models/MODEL_CARD.md).
  { name: 'style 3 (seed 996)', dir: 'cache/val3', seed: 996, style: 3, count: Math.min(count, 100) },
];

const probe = spawnSync(python, ['-c', 'import cv2, numpy'], { encoding: 'utf8' });
if (probe.status !== 0) {
  console.log(`skipped: ${python} with OpenCV and NumPy is needed to generate and score the held-out set`);
  process.exit(0);
}
if (!existsSync('dist/main/cli/detect.js')) {
  console.error('build first (npm run bench builds)');
  process.exit(1);
}
for (const set of sets) {
  const dir = path.join(training, set.dir);
  const n = set.count ?? count;
  const have = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')).length : 0;
  if (have < n) {
    console.log(`generating ${n} held-out scenes into ${dir} (once)...`);
    const g = spawnSync(python, ['generator.py', set.dir, '--count', String(n), '--seed', String(set.seed), '--style', String(set.style), '--workers', '2'], { cwd: training, stdio: 'inherit' });
    if (g.status !== 0) process.exit(1);
  }
  const out = path.join(training, 'runs', 'bench-eval');
  const r = spawnSync(python, ['evaluate.py', '--val', set.dir, '--out', out], { cwd: training, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) {
    process.stderr.write(r.stderr);
    process.exit(1);
  }
  const g = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'), r.stdout.lastIndexOf('}') + 1));
  const f = (v) => (typeof v === 'number' ? v.toFixed(3) : String(v));
  console.log(`held-out ${set.name}: ${g.images} images, ${g.objects} products | AP ${f(g.AP)} | AP50 ${f(g.AP50)} (target 0.95; ${f(g.AP50_app_threshold)} from the boxes above the app's 0.3) | AP75 ${f(g.AP75)} | mean abs count error ${f(g.count_mae)}`);
}
