// Detector accuracy on the held-out generated set (target: AP50 >= 0.95): COCO-style AP,
// AP50, AP75 and mean absolute count error, measured by models/training/evaluate.py through the app's
// own detect CLI; then AP50, recall and precision on the hand-labelled regions of the real shelf photos
// (models/training/real-labels, its dev and test splits; photos in ../shared/data/shelf-photos, skipped
// where that is absent).
// The generated sets (seeds never trained on) are drawn on first use into models/training/cache/val,
// val2 .. val6 (git-ignored) by the current generator; it needs Debian's python3 with OpenCV and NumPy
// (python3-opencv), otherwise this bench says so and skips.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const python = process.env.PYTHON ?? '/usr/bin/python3';
const training = path.resolve('models/training');
const count = Number(process.env.BENCH_DETECTOR_VAL_COUNT ?? 200);
// One list of the held-out sets (style, seed, folder), shared with test/training/generator.test.ts.
const sets = JSON.parse(readFileSync(path.join(training, 'held-out-sets.json'), 'utf8')).map((set) => ({
  ...set,
  name: `style ${set.style} (seed ${set.seed})`,
  count: set.maxScenes === undefined ? count : Math.min(count, set.maxScenes),
}));

const probe = spawnSync(python, ['-c', 'import cv2, numpy'], { encoding: 'utf8' });
if (probe.status !== 0) {
  console.log(`skipped: ${python} with OpenCV and NumPy is needed to generate and score the held-out set`);
  process.exit(0);
}
if (!existsSync('dist/main/cli/detect.js')) {
  console.error('build first (npm run bench builds)');
  process.exit(1);
}
/** Runs evaluate.py with these arguments and returns the report it writes. */
function evaluate(args, out) {
  const r = spawnSync(python, ['evaluate.py', ...args, '--out', out], { cwd: training, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) {
    process.stderr.write(r.stderr);
    process.exit(1);
  }
  return JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8'));
}

for (const set of sets) {
  const dir = path.join(training, set.dir);
  const n = set.count;
  const have = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')).length : 0;
  if (have < n) {
    console.log(`generating ${n} held-out scenes into ${dir} (once)...`);
    const g = spawnSync(python, ['generator.py', set.dir, '--count', String(n), '--seed', String(set.seed), '--style', String(set.style), '--workers', '2'], { cwd: training, stdio: 'inherit' });
    if (g.status !== 0) process.exit(1);
  }
  const report = evaluate(['--val', set.dir], path.join(training, 'runs', 'bench-eval'));
  const g = report.generated;
  const f = (v) => (typeof v === 'number' ? v.toFixed(3) : String(v));
  console.log(`held-out ${set.name}: ${g.images} images, ${g.objects} products | AP ${f(g.AP)} | AP50 ${f(g.AP50)} (target 0.95; ${f(g.AP50_app_threshold)} from the boxes above the app's ${report.app_threshold}) | AP75 ${f(g.AP75)} | mean abs count error ${f(g.count_mae)}`);
}

const photos = path.resolve('../shared/data/shelf-photos');
if (!existsSync(photos)) {
  console.log(`real photos: skipped (${photos} not found)`);
} else {
  const out = path.join(training, 'runs', 'bench-eval-photos');
  const report = evaluate(['--val', 'none', '--photos', photos], out);
  const counts = Object.values(report.photos).map((p) => p.count);
  const f = (v) => v.toFixed(3);
  console.log(`real photos: ${counts.length} photos, mean ${(counts.reduce((a, b) => a + b, 0) / counts.length).toFixed(0)} boxes per photo (overlays in ${out})`);
  // dev: the regions models were chosen on; test: other regions of the same photos, for confirming a choice.
  for (const [split, l] of Object.entries(report.labelled_photos ?? {})) {
    console.log(`real photos, hand-labelled regions (${split}): ${l.photos} photos, ${l.objects} products | AP50 ${f(l.AP50)} (at IoU 0.4 ${f(l.AP40)}; ${f(l.misses.reach)} found by some box) | AP ${f(l.AP)} | recall ${f(l.recall)} precision ${f(l.precision)} at the app's ${report.app_threshold} | mean abs count error ${l.count_error.toFixed(1)} per region`);
  }
}
