// The shipped detector's version as the app reports it (see modelVersion in ../model-files.ts).
import { modelVersion as versionOf, modelVersionAsync as versionOfAsync } from '../model-files.js';
import { defaultModelPath } from './model-path.js';

/** `shelf-detector sha256:0123456789ab`, or null when no model file is found. */
export function modelVersion(modelPath?: string): string | null {
  return versionOf(() => modelPath ?? defaultModelPath());
}

/** modelVersion without holding the event loop while the file is hashed. */
export function modelVersionAsync(modelPath?: string): Promise<string | null> {
  return versionOfAsync(() => modelPath ?? defaultModelPath());
}
