// The detector's public API (see detector.ts for the contract).
export { createDetector, defaultModelPath, DetectorInputError, modelScoreThreshold } from './detector.js';
export type { Box, Detection, Detector, DetectorInput, DetectorOptions } from './detector.js';
