// The visit record, and its Data API twin: the acknowledgement, the scenes and the KPI values live there.
import { useCallback, useEffect, useState } from 'react';
import { acknowledgeVisit, getOne } from '../../api/endpoints';
import { describeError } from '../../api/errors';
import type { DataVisit, Visit } from '../../api/types';
import { useSession } from '../../stores/session';
import { findDataVisit } from './dataVisit';

export function useVisit(id: string) {
  const api = useSession((s) => s.api);
  const [visit, setVisit] = useState<Visit | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const reload = useCallback(() => {
    setLoadError(null);
    getOne(api, 'visits', id).then(setVisit, (e) => setLoadError(describeError(e)));
  }, [api, id]);
  useEffect(reload, [reload]);
  return { visit, loadError, reload };
}

/**
 * The Data API's visit. KPI values (and KPIs themselves, the first time) are computed with the reports:
 * it is read again whenever a report settles, i.e. whenever `pending` changes.
 */
export function useDataVisit(id: string, pending: number) {
  const api = useSession((s) => s.api);
  const [dataVisit, setDataVisit] = useState<DataVisit | null>(null);
  useEffect(() => {
    findDataVisit(api, id).then(setDataVisit, () => undefined);
  }, [api, id, pending]);
  /** Marks the visit seen, then reads it again; throws what the server answered. */
  const acknowledge = async () => {
    if (!dataVisit) return;
    await acknowledgeVisit(api, dataVisit.id);
    setDataVisit(await findDataVisit(api, id));
  };
  return { dataVisit, acknowledge };
}
