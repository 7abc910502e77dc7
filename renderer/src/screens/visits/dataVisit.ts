// The Data API's view of a v1.5 visit (its `cid` is the v1.5 id): the "new" flag, acknowledgement
// and KPI values live there.
import type { ApiClient } from '../../api/client';
import { getDataVisit, listDataVisits } from '../../api/endpoints';
import type { DataVisit, KpiValue } from '../../api/types';

export async function findDataVisit(api: ApiClient, visit: string): Promise<DataVisit | null> {
  // The real service lists only new visits unless told otherwise; ask for both.
  for (const query of [{ cid: visit }, { cid: visit, is_new: 'false' }, { cid: visit, is_new: 'true' }]) {
    const found = (await listDataVisits(api, query)).find((v) => v.cid === visit);
    if (found) return getDataVisit(api, found.id).catch(() => found);
  }
  return null;
}

/** KPI values of a Data API visit (its detail carries them). */
export function kpiValuesOf(visit: DataVisit | null): KpiValue[] {
  return visit?.kpi_values ?? [];
}
