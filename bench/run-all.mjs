// `npm run bench`: runs every bench/*.bench.mjs in turn (or those whose names contain an argument);
// each prints its own figures. A bench that cannot measure what it is for (a missing tool) exits
// non-zero, and so does this run: a green run never hides a bench that printed nothing.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const only = process.argv.slice(2);
const files = readdirSync('bench')
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
if (files.length === 0) {
  console.error(`no bench matches ${only.join(' ')} (bench/*.bench.mjs)`);
  process.exit(1);
}
let failed = 0;
for (const f of files) {
  console.log(`\n=== bench/${f}`);
  const r = spawnSync(process.execPath, ['--expose-gc', `bench/${f}`], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`bench/${f} FAILED (exit ${r.status ?? r.signal})`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);
