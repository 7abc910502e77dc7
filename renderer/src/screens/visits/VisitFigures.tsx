// The visit's figures beside its photos: facing counts, share of space and KPI values.
import type { FacingCount, Kpi, KpiValue, Report, ShareOfSpace } from '../../api/types';
import { Empty } from '../../components/StateMessage';
import { percent } from './complianceGrid';
import { FacingTable } from './FacingTable';
import { ReportStatus } from './ReportStatus';
import type { SkuColours } from './skuColours';

type NameOf = (sku: string | null) => string;

export function FacingCounts({
  report,
  facings,
  nameOf,
  colourOf,
}: {
  /** The FACING_COUNT report, for its state. */
  report: Report | undefined;
  facings: FacingCount | null;
  nameOf: NameOf;
  colourOf: SkuColours;
}) {
  return (
    <section aria-labelledby="facings-title">
      <h3 id="facings-title">Facing counts</h3>
      <ReportStatus type="FACING_COUNT" report={report} />
      {facings &&
        (facings.length === 0 ? (
          <Empty>No products found.</Empty>
        ) : (
          <FacingTable label="Facing counts" rows={facings} nameOf={nameOf} colourOf={colourOf} />
        ))}
    </section>
  );
}

export function ShareOfSpaceTable({ share, nameOf }: { share: ShareOfSpace | null; nameOf: NameOf }) {
  if (!share || share.length === 0) return null;
  return (
    <section aria-labelledby="share-title">
      <h3 id="share-title">Share of space</h3>
      <table aria-label="Share of space">
        <thead>
          <tr>
            <th scope="col">Product</th>
            <th scope="col">Of count</th>
            <th scope="col">Of width</th>
          </tr>
        </thead>
        <tbody>
          {share.map((s) => (
            <tr key={s.sku_id ?? 'unknown'}>
              <td>{nameOf(s.sku_id)}</td>
              <td>{percent(s.share_of_count)}</td>
              <td>{percent(s.share_of_space)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function KpiValues({ kpis, definitions, pending }: { kpis: readonly KpiValue[]; definitions: Record<string, Kpi>; pending: boolean }) {
  return (
    <section aria-labelledby="kpi-title">
      <h3 id="kpi-title">KPI values</h3>
      {kpis.length === 0 ? (
        <p className="muted">{pending ? 'KPI values follow the reports.' : 'No KPI values for this visit.'}</p>
      ) : (
        <table aria-label="KPI values">
          <tbody>
            {kpis.map((k, i) => {
              const definition = definitions[String(k.kpi)];
              return (
                <tr key={i}>
                  <th scope="row">{definition?.name ?? `KPI ${k.kpi}`}</th>
                  <td>
                    {Math.round(k.value * 1000) / 1000} {definition?.units ?? ''}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
