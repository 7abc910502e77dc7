// Makes a fresh clone ready, so the README's two commands work with nothing run before them:
// `npm start` and `npm test` run this first. Only Node's built-ins here: node_modules may not exist yet.
// - npm packages: installed (`npm ci`) when any pinned dependency is missing or at another version;
//   otherwise nothing is done (a second run costs milliseconds).
// - with --test, the system packages the tests use, as CI installs them: Debian's Chromium (browser
//   tests), PostgreSQL's server binaries (the central-instance test), Ceph's RADOS gateway (the
//   central's S3-compatible bucket, scripts/s3-server.mjs), Python with OpenCV, NumPy,
//   PyTorch and ONNX and the DejaVu fonts (the training tools' tests); apt-get installs what is missing when this runs as
//   root, otherwise it says what to install.
// - with --bench, the system packages the benchmarks use besides those: wrk (the load generator) and
//   the DRF baseline (Django, Django REST framework, gunicorn), so `npm run bench` measures its
//   baseline in the same run instead of refusing.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const forBench = process.argv.includes('--bench');
const forTests = forBench || process.argv.includes('--test');
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
process.chdir(root);

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status === 0;
}

function missingPackages() {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
  const wanted = { ...pkg.dependencies, ...pkg.devDependencies };
  return Object.entries(wanted).filter(([name, version]) => {
    const file = path.join('node_modules', name, 'package.json');
    return !existsSync(file) || JSON.parse(readFileSync(file, 'utf8')).version !== version;
  }).map(([name]) => name);
}

const missing = missingPackages();
if (missing.length > 0) {
  console.log(`Installing the npm packages (${missing.length} missing or changed, e.g. ${missing.slice(0, 3).join(', ')})...`);
  // The tests never open Electron's window: its 100 MB binary is only fetched for `npm start`.
  const env = forTests ? { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' } : {};
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const ok =
    run(npm, ['ci', '--no-audit', '--no-fund'], env) ||
    // Where Electron's download is blocked, the app still runs headless (npm start says so).
    run(npm, ['ci', '--no-audit', '--no-fund'], { ELECTRON_SKIP_BINARY_DOWNLOAD: '1' });
  if (!ok) {
    console.error('npm ci failed: see above.');
    process.exit(1);
  }
}

if (forTests && process.platform === 'linux') {
  const python = (code) => spawnSync('/usr/bin/python3', ['-c', code], { stdio: 'ignore' }).status === 0;
  const need = [];
  if (!existsSync('/usr/bin/chromium')) need.push('chromium');
  // The tests' own finder (built-ins only), so setup and the tests agree on which versions count.
  const { installedPgBins } = await import('./pg-cluster.mjs');
  if (installedPgBins().length === 0) need.push('postgresql');
  // The S3-compatible server of the central-with-a-bucket tests (scripts/s3-server.mjs): Ceph's RADOS gateway.
  const { cephInstalled } = await import('./s3-server.mjs');
  if (!cephInstalled()) need.push('radosgw', 'ceph-mon', 'ceph-osd');
  if (!python('import cv2, numpy')) need.push('python3-opencv', 'python3-numpy');
  if (!python('import torch')) need.push('python3-torch');
  if (!python('import onnx')) need.push('python3-onnx');
  // The type of generator.py's style 9 labels (models/training/glyph_atlas.py renders them with OpenCV's freetype).
  if (!existsSync('/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf')) need.push('fonts-dejavu-core', 'fonts-dejavu-extra');
  if (forBench) {
    if (!existsSync('/usr/bin/wrk')) need.push('wrk');
    if (!python('import django, rest_framework')) need.push('python3-django', 'python3-djangorestframework');
    if (!existsSync('/usr/bin/gunicorn')) need.push('gunicorn');
  }
  if (need.length > 0) {
    const isRoot = process.getuid?.() === 0;
    if (isRoot && existsSync('/usr/bin/apt-get')) {
      console.log(`Installing system packages for the ${forBench ? 'benchmarks' : 'tests'}: ${need.join(' ')}`);
      const env = { DEBIAN_FRONTEND: 'noninteractive' };
      if (!run('apt-get', ['update', '-qq'], env) || !run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...need], env)) {
        console.error('apt-get could not install them: the tests that need them will fail.');
      }
    } else {
      console.log(`Some tests need system packages that are missing: sudo apt-get install --no-install-recommends ${need.join(' ')}`);
    }
  }
}
