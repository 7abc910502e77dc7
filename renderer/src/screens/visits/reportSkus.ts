// The SKUs a visit's screen names: those its reports mention and those of its must-have records. The
// screen asks the server for these by id, never for the catalog.
import type { FacingCount, MhlCompliance, MhlRecord, PlanogramCompliance, PriceComplianceBody, PriceTagsImage, Realogram, Report, ShareOfSpace } from '../../api/types';

export function skusNamed(reports: readonly Report[], mhlRecords: readonly MhlRecord[]): string[] {
  const ids = new Set<string>();
  const add = (id: string | null | undefined) => void (id && ids.add(id));
  for (const r of reports) {
    if (r.status !== 'READY' || !r.json) continue;
    switch (r.report_type) {
      case 'REALOGRAM':
        for (const photo of r.json as Realogram) for (const a of photo.annotations) add(a.sku_id);
        break;
      case 'FACING_COUNT':
      case 'SHARE_OF_SPACE':
        for (const f of r.json as FacingCount | ShareOfSpace) add(f.sku_id);
        break;
      case 'PLANOGRAM_COMPLIANCE': {
        const c = r.json as PlanogramCompliance;
        for (const p of c.positions) [p.sku_id, ...p.found_sku_ids].forEach(add);
        for (const e of c.extra) add(e.sku_id);
        for (const a of c.actions) add(a.sku_id);
        break;
      }
      case 'MHL_COMPLIANCE':
        for (const m of (r.json as MhlCompliance).records) add(m.found_sku_id);
        break;
      case 'PRICE_COMPLIANCE':
        for (const s of (r.json as PriceComplianceBody).skus) add(s.sku_id);
        break;
      case 'PRICE_TAGS':
        for (const photo of r.json as PriceTagsImage[]) for (const t of photo.tags) add(t.sku_id);
        break;
    }
  }
  for (const m of mhlRecords) [m.sku, m.sku1, m.sku2, m.sku3, m.sku4, m.sku5, m.sku6].forEach(add);
  return [...ids];
}
