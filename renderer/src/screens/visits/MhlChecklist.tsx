// The must-have check: how much of the list is on the shelf, and each product present or missing (a
// missing one can be given an out-of-stock reason).
import type { MhlCompliance, MhlRecord } from '../../api/types';
import { percent } from './complianceGrid';

export function MhlChecklist({
  report,
  records,
  nameOf,
  onOutOfStock,
}: {
  report: MhlCompliance;
  /** The records of the list the report checked. */
  records: readonly MhlRecord[];
  nameOf(sku: string | null): string;
  onOutOfStock(sku: string): void;
}) {
  return (
    <>
      <p className="kpi-line">
        <strong>{percent(report.compliance)}</strong> of the must-have products are on the shelf.
      </p>
      <ul className="mhl-checklist" aria-label="Must-have checklist">
        {report.records.map((r) => {
          const record = records.find((m) => m.id === r.mhl_record_id);
          const label = record?.name ?? nameOf(record?.sku ?? null) ?? r.mhl_record_id;
          return (
            <li key={r.mhl_record_id} className={r.compliant ? 'mhl-ok' : 'mhl-missing'}>
              <span aria-hidden="true">{r.compliant ? '✔' : '✘'}</span> {label}: {r.compliant ? `present${r.found_sku_id ? ` (${nameOf(r.found_sku_id)})` : ''}` : 'missing'}
              {!r.compliant && record?.sku && (
                <button type="button" className="link" onClick={() => onOutOfStock(record.sku!)} aria-label={`Out-of-stock reason for ${label}`}>
                  Out of stock…
                </button>
              )}
            </li>
          );
        })}
      </ul>
    </>
  );
}
