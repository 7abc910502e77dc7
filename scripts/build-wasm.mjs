// Assembles the project's WebAssembly text files (main/**/*.wat) into the .wasm files committed beside
// them, with wabt's wat2wasm (a dev dependency only: the app loads the .wasm). `npm run build:wasm`;
// test/recognition/local-features.test.ts checks that the committed .wasm is what its .wat assembles to.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import wabt from 'wabt';

/** The .wasm bytes of one .wat file. */
export async function assemble(watPath) {
  const w = await wabt();
  const module = w.parseWat(path.basename(watPath), readFileSync(watPath, 'utf8'));
  try {
    module.validate();
    return Buffer.from(module.toBinary({ log: false, write_debug_names: false }).buffer);
  } finally {
    module.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const entry of readdirSync('main', { recursive: true })) {
    if (!entry.endsWith('.wat')) continue;
    const wat = path.join('main', entry);
    const out = wat.replace(/\.wat$/, '.wasm');
    writeFileSync(out, await assemble(wat));
    console.log(`${wat} -> ${out}`);
  }
}
