// The shipped detector's version as the app reports it (About box, Settings, /api/app/v1/info/): the
// model file's name and the start of its SHA-256, so two builds with different weights never report the
// same version, and support can tell exactly which weights a laptop runs.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultModelPath } from './model-path.js';

let cached: { file: string; version: string } | undefined;

/** `shelf-detector sha256:0123456789ab`, or null when no model file is found. */
export function modelVersion(modelPath?: string): string | null {
  let file: string;
  try {
    file = modelPath ?? defaultModelPath();
  } catch {
    return null;
  }
  if (cached?.file === file) return cached.version;
  try {
    const digest = createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 12);
    cached = { file, version: `${path.basename(file, '.onnx')} sha256:${digest}` };
    return cached.version;
  } catch {
    return null;
  }
}
