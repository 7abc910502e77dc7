// Planogram compliance: the expected grid beside what was found, positions coloured by status, and
// the actions that would make the shelf follow the planogram. A missing product can be given an
// out-of-stock reason from here.
import type { CompliancePosition, PlanogramCompliance, Sku } from '../../api/types';
import { SkuPicture } from '../../components/SkuPicture';
import { complianceGrid, describeAction, percent, STATUS_LABEL, statusCounts } from './complianceGrid';

export function ComplianceView({
  report,
  skuById,
  onOutOfStock,
}: {
  report: PlanogramCompliance;
  skuById: Map<string, Sku>;
  onOutOfStock(sku: string): void;
}) {
  const grid = complianceGrid(report.positions);
  const counts = statusCounts(report.positions);
  const name = (id: string | null) => (id ? (skuById.get(id)?.name ?? id) : 'Unknown product');
  const cell = (p: CompliancePosition, side: 'expected' | 'found', index: number) => {
    const found = p.found_sku_ids[0] ?? null;
    const sku = side === 'expected' ? p.sku_id : found;
    // An extra with no SKU is an unidentified product; an empty place shows "nothing".
    const label = sku ? name(sku) : p.status === 'extra' ? 'Unknown product' : 'nothing';
    const facings = side === 'expected' ? p.expected_facings : p.found_facings;
    return (
      <li
        key={`${side}-${p.planogram_record ?? `extra-${index}`}`}
        className={`compliance-cell status-${p.status}`}
        aria-label={
          side === 'expected'
            ? `${name(p.sku_id)}: expected ${p.expected_facings}, ${STATUS_LABEL[p.status]}`
            : `${label}: found ${p.found_facings}`
        }
        style={{ flexGrow: Math.max(1, p.expected_facings) }}
      >
        {sku ? <SkuPicture sku={{ id: sku, name: name(sku) }} size="small" /> : <span className="sku-picture sku-picture-small sku-picture-none">—</span>}
        <span className="cell-name">{label}</span>
        <span className="cell-facings">×{facings}</span>
        {side === 'expected' && <span className="cell-status">{STATUS_LABEL[p.status]}</span>}
        {/* Fewer facings than planned, for whatever reason: an out-of-stock reason may explain it. */}
        {side === 'expected' && p.sku_id && p.found_facings < p.expected_facings && (
          <button type="button" className="link" onClick={() => onOutOfStock(p.sku_id!)} aria-label={`Out-of-stock reason for ${name(p.sku_id)}`}>
            Out of stock…
          </button>
        )}
      </li>
    );
  };
  const side = (which: 'expected' | 'found', title: string) => (
    <section className="compliance-side" aria-label={title}>
      <h4>{title}</h4>
      {grid.map((rack, r) => (
        <div className="compliance-rack" key={r}>
          {grid.length > 1 && <span className="muted">Rack {r + 1}</span>}
          {rack.map((shelf, s) => (
            <ul className="compliance-shelf" key={s} aria-label={`${title}, rack ${r + 1} shelf ${s + 1}`}>
              {/* The expected side shows the planogram; products found off-plan appear on the found side. */}
              {shelf.filter((p) => which === 'found' || p.status !== 'extra').map((p, i) => cell(p, which, i))}
            </ul>
          ))}
        </div>
      ))}
    </section>
  );
  return (
    <div className="compliance">
      <p className="kpi-line">
        <strong aria-label="Compliance score">{percent(report.compliance)}</strong> compliant: {report.correct_faces} of{' '}
        {report.expected_faces} faces correctly placed.
      </p>
      <ul className="status-legend" aria-label="Positions by status">
        {(Object.keys(counts) as Array<keyof typeof counts>).map((k) => (
          <li key={k} className={`status-${k}`}>
            {STATUS_LABEL[k]}: {counts[k]}
          </li>
        ))}
      </ul>
      <div className="compliance-grids">
        {side('expected', 'Expected')}
        {side('found', 'Found')}
      </div>
      {report.extra.length > 0 && (
        <p>
          Not in the planogram:{' '}
          {report.extra.map((e) => `${name(e.sku_id)} ×${e.count}`).join(', ')}
        </p>
      )}
      <h4>Actions</h4>
      {report.actions.length === 0 ? (
        <p className="state state-empty">Nothing to do: the shelf follows the planogram.</p>
      ) : (
        <ol className="actions-list" aria-label="Actions required">
          {report.actions.map((a, i) => (
            <li key={i} className={`action-${a.type}`}>
              {describeAction(a, name, report.positions)}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
