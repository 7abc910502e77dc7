// The shipped detector's version as the app reports it (About box, Settings, /api/app/v1/info/): the
// model file's name and the start of its SHA-256, so two builds with different weights never report the
// same version, and support can tell exactly which weights a laptop runs.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultModelPath } from './model-path.js';

const cached = new Map<string, string>();

/** `shelf-detector sha256:0123456789ab` (of the detector unless `modelPath` names another model), or null when no model file is found. */
export function modelVersion(modelPath?: string): string | null {
  let file: string;
  try {
    file = modelPath ?? defaultModelPath();
  } catch {
    return null;
  }
  const known = cached.get(file);
  if (known) return known;
  try {
    const digest = createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 12);
    const version = `${path.basename(file, '.onnx')} sha256:${digest}`;
    cached.set(file, version);
    return version;
  } catch {
    return null;
  }
}
