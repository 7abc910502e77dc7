// The laptop's side of model distribution (docs/sync.md, "Models"): when the central offers a detector,
// an embedder or a price-tag model whose checksum differs from the one installed here (and that did not fail here before), it is
// downloaded, its checksum verified, checked and installed (recognition/model-store.ts); the
// recognition worker takes it up from its next job and keeps the previous one to fall back to.
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { ModelError, installModel, modelsDir, readModelChoice, type ModelKind } from '../recognition/model-store.js';
import { downloadVerified } from './download.js';
import { PROTOCOL_HEADER, SYNC_PROTOCOL_VERSION, type OfferedModelsBody } from '../schemas/sync.js';

export class ModelTransfer {
  constructor(private readonly dataDir: string) {}

  /** Installs each model the central offers that is new here; resolves with the versions installed. */
  async pull(central: string, deviceKey: string): Promise<string[]> {
    const headers = { authorization: `Token ${deviceKey}`, [PROTOCOL_HEADER]: String(SYNC_PROTOCOL_VERSION) };
    const res = await fetch(`${central}/api/app/v1/sync/models/`, { headers, signal: AbortSignal.timeout(60_000) });
    if (!res.ok) throw new Error(`models: the central answered ${res.status}`);
    const offered = (await res.json()) as OfferedModelsBody;
    const installed: string[] = [];
    for (const kind of ['detector', 'embedder', 'tags'] as const) {
      const model = offered[kind];
      if (!model) continue;
      const version = await this.take(central, headers, kind, model);
      if (version) installed.push(version);
    }
    return installed;
  }

  private async take(central: string, headers: Record<string, string>, kind: ModelKind, offered: { version: string; sha256: string }): Promise<string | null> {
    const here = readModelChoice(this.dataDir, kind);
    if (here.current?.sha256 === offered.sha256 || here.refused.includes(offered.sha256)) return null;
    await mkdir(modelsDir(this.dataDir), { recursive: true });
    const tmp = path.join(modelsDir(this.dataDir), `incoming-${kind}-${offered.sha256.slice(0, 16)}.onnx`);
    try {
      const file = await fetch(`${central}/api/app/v1/sync/models/${kind}/${offered.sha256}/`, { headers, signal: AbortSignal.timeout(600_000) });
      if (!file.ok || !file.body) throw new Error(`models: the central answered ${file.status} for the ${kind} file`);
      await downloadVerified(file.body, tmp, offered.sha256, `the ${kind} model`);
      await installModel(this.dataDir, tmp, { kind, version: offered.version, expectedSha256: offered.sha256 });
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
