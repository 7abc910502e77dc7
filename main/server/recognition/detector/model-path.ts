// The shipped detector model (see models/MODEL_CARD.md); SHELF_DETECTOR_MODEL overrides it.
import { findModelFile } from '../model-files.js';

export const MODEL_FILE = 'shelf-detector.onnx';

export function defaultModelPath(): string {
  return findModelFile(MODEL_FILE, 'SHELF_DETECTOR_MODEL');
}
