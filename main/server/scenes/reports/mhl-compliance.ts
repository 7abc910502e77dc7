// MHL_COMPLIANCE: a must-have-list record is compliant when its SKU or any of its alternatives
// (sku1..sku6) was found in the scene. Compliance is the compliant fraction (1 for an empty list:
// nothing required is missing).
import type { SceneAnalysis } from '../../recognition/analysis.js';
import { sceneFacings } from '../../recognition/bay/facings.js';
import { bayBody } from './bay.js';
import type { MhlCompliance } from './bodies.js';

export interface MhlRecordInput {
  id: string;
  skus: (string | null)[]; // sku, sku1..sku6 in that order
}

export type { MhlCompliance } from './bodies.js';

export function buildMhlCompliance(analysis: SceneAnalysis, musthavelist: string | null, records: readonly MhlRecordInput[]): MhlCompliance {
  const found = new Set(sceneFacings(analysis).map((p) => p.sku_id).filter((s): s is string => s !== null));
  const out = records.map((r) => {
    const hit = r.skus.find((s) => s !== null && found.has(s)) ?? null;
    return { mhl_record_id: r.id, compliant: hit !== null, found_sku_id: hit };
  });
  const compliant = out.filter((r) => r.compliant).length;
  const bay = bayBody(analysis);
  return { musthavelist, ...(bay ? { bay } : {}), compliance: out.length === 0 ? 1 : Math.round((compliant / out.length) * 10_000) / 10_000, records: out };
}
