// A visit's reports as the screen reads them: polled while any is computing, with what is requested,
// pending, failed, and each type's body once READY.
import { useEffect } from 'react';
import { REPORT_TYPES, type Report, type ReportType } from '../../api/types';
import { useSession } from '../../stores/session';
import { skuDirectory } from '../../stores/skuDirectory';
import { pendingCount, visitReportsStore } from '../../stores/visitReports';
import { skusNamed } from './reportSkus';

export function useVisitReports(id: string) {
  const api = useSession((s) => s.api);
  const { reports: byType, all, loaded, error } = visitReportsStore();
  useEffect(() => visitReportsStore.getState().watch(api, id), [api, id]);
  // The SKUs the reports name are asked for the moment the reports arrive, not once the page has
  // rendered them with their ids: the names are what the first rows wait for.
  useEffect(() => visitReportsStore.subscribe((s) => skuDirectory.getState().request(api, skusNamed(s.all, []))), [api]);

  const requested = REPORT_TYPES.filter((t) => byType[t]);
  /** A report's body once it is READY, else null. */
  function ready<J>(t: ReportType): J | null {
    return byType[t]?.status === 'READY' ? (byType[t] as Report<J>).json : null;
  }
  return {
    byType,
    all,
    loaded,
    error,
    requested,
    pending: pendingCount(byType),
    failed: requested.filter((t) => byType[t]?.status === 'ERROR').length,
    ready,
  };
}

export type VisitReports = ReturnType<typeof useVisitReports>;
