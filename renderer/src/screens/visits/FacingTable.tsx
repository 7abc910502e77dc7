// Facing counts per product, one table for the visit's report and for a reviewer's corrected counts.
// With `before`, each count says what it was, and products the corrections removed stay listed at 0.
import type { SkuColours } from './skuColours';

export interface FacingRow {
  sku_id: string | null;
  count: number;
}

export function FacingTable({
  label,
  rows,
  nameOf,
  colourOf,
  before,
}: {
  label: string;
  rows: readonly FacingRow[];
  nameOf: (sku: string | null) => string;
  colourOf: SkuColours;
  before?: ReadonlyMap<string | null, number>;
}) {
  const gone = before ? [...before].filter(([sku]) => !rows.some((r) => r.sku_id === sku)).map(([sku_id]) => ({ sku_id, count: 0 })) : [];
  return (
    <table aria-label={label}>
      <thead>
        <tr>
          <th scope="col">Product</th>
          <th scope="col">Facings</th>
        </tr>
      </thead>
      <tbody>
        {[...rows, ...gone].map((r) => {
          const was = before?.get(r.sku_id) ?? 0;
          return (
            <tr key={r.sku_id ?? 'unknown'}>
              <td>
                <span className="swatch" style={{ background: colourOf(r.sku_id) }} aria-hidden="true" /> {nameOf(r.sku_id)}
              </td>
              <td>
                {r.count}
                {before && was !== r.count && <span className="muted"> (was {was})</span>}
              </td>
            </tr>
          );
        })}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row">Total</th>
          <td>{rows.reduce((n, r) => n + r.count, 0)}</td>
        </tr>
      </tfoot>
    </table>
  );
}
