// The laptop's side of model distribution (docs/sync.md, "Models"): when the central offers a detector
// whose checksum differs from the one installed here (and that did not fail here before), it is
// downloaded, its checksum verified, checked and installed (recognition/model-store.ts); the
// recognition worker takes it up from its next job and keeps the previous one to fall back to.
import { createHash } from 'node:crypto';
import { mkdir, open, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { ModelError, installModel, modelsDir, readModelChoice } from '../recognition/model-store.js';
import { PROTOCOL_HEADER, SYNC_PROTOCOL_VERSION, type OfferedModelsBody } from '../schemas/sync.js';

export class ModelTransfer {
  constructor(private readonly dataDir: string) {}

  /** Installs the central's detector when it is new here; resolves with its version, or null when nothing changed. */
  async pull(central: string, deviceKey: string): Promise<string | null> {
    const headers = { authorization: `Token ${deviceKey}`, [PROTOCOL_HEADER]: String(SYNC_PROTOCOL_VERSION) };
    const res = await fetch(`${central}/api/app/v1/sync/models/`, { headers, signal: AbortSignal.timeout(60_000) });
    if (!res.ok) throw new Error(`models: the central answered ${res.status}`);
    const offered = ((await res.json()) as OfferedModelsBody).detector;
    if (!offered) return null;
    const here = readModelChoice(this.dataDir);
    if (here.current?.sha256 === offered.sha256 || here.refused.includes(offered.sha256)) return null;

    await mkdir(modelsDir(this.dataDir), { recursive: true });
    const tmp = path.join(modelsDir(this.dataDir), `incoming-${offered.sha256.slice(0, 16)}.onnx`);
    try {
      const file = await fetch(`${central}/api/app/v1/sync/models/detector/${offered.sha256}/`, { headers, signal: AbortSignal.timeout(600_000) });
      if (!file.ok || !file.body) throw new Error(`models: the central answered ${file.status} for the detector file`);
      const out = (await open(tmp, 'w')).createWriteStream();
      const hash = createHash('sha256');
      await pipeline(Readable.fromWeb(file.body as WebReadableStream), async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          hash.update(chunk);
          yield chunk;
        }
      }, out);
      if (hash.digest('hex') !== offered.sha256) throw new Error('models: the detector file received does not match its checksum; it will be fetched again');
      await installModel(this.dataDir, tmp, { version: offered.version, expectedSha256: offered.sha256 });
      return offered.version;
    } catch (error) {
      // A model that does not load here is refused for good (installModel noted it): sync goes on.
      if (error instanceof ModelError) return null;
      throw error;
    } finally {
      await rm(tmp, { force: true });
    }
  }
}
