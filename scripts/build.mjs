// Builds everything `serve`, `start` and the packaged app need:
// main (ESM, tsc) -> dist/main, preload (CommonJS: sandboxed preloads cannot be ESM) -> dist/preload,
// renderer (Vite) -> dist/renderer; WebAssembly modules (main/**/*.wasm, assembled from their .wat by
// `npm run build:wasm`) copied beside the JavaScript that loads them.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

function run(cmd, args) {
  const r = spawnSync(cmd, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json']);
for (const entry of readdirSync('main', { recursive: true })) {
  if (!entry.endsWith('.wasm')) continue;
  const out = path.join('dist/main', entry);
  mkdirSync(path.dirname(out), { recursive: true });
  copyFileSync(path.join('main', entry), out);
}
if (existsSync('preload') && existsSync('tsconfig.preload.json')) {
  run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.preload.json']);
  mkdirSync('dist/preload', { recursive: true });
  writeFileSync('dist/preload/package.json', '{"type":"commonjs"}\n');
}
if (existsSync('renderer/vite.config.ts')) {
  run(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--config', 'renderer/vite.config.ts', '--logLevel', 'warn']);
}
