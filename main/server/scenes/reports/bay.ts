// How a scene's photos were joined into one bay, as the report bodies that are objects carry it
// (PLANOGRAM_COMPLIANCE, MHL_COMPLIANCE, PANORAMA; REALOGRAM says it per photo).
import type { SceneAnalysis } from '../../recognition/analysis.js';
import type { BayBody } from './bodies.js';

export function bayBody(analysis: SceneAnalysis): BayBody | null {
  const bay = analysis.bay;
  if (!bay) return null;
  return {
    width: bay.width,
    height: bay.height,
    joined: bay.photos.filter((p) => p.joined).map((p) => p.image),
    not_joined: bay.photos.filter((p) => !p.joined).map((p) => ({ image: p.image, reason: p.reason ?? 'no_overlap', message: p.message ?? '' })),
  };
}
