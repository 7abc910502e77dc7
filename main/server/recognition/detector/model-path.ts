// The shipped detector model (see models/MODEL_CARD.md), or the file a setting names instead
// (SHELF_DETECTOR_MODEL, read once by config/config.ts or the detect CLI).
import { findModelFile } from '../model-files.js';

export const MODEL_FILE = 'shelf-detector.onnx';

export function defaultModelPath(override?: string | null): string {
  return findModelFile(MODEL_FILE, override);
}
