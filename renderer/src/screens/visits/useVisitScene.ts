// The scene errors and out-of-stock reasons are reported against: from a report, else the one this
// computer started, else the newest the Data API lists for the visit.
import { useEffect, useState } from 'react';
import type { DataVisit, Report, ReportType } from '../../api/types';
import { databaseIfExists } from '../../db/lazyDatabase';

export function useVisitScene(id: string, byType: Partial<Record<ReportType, Report>>, dataVisit: DataVisit | null): string | null {
  const [knownScene, setKnownScene] = useState<string | null>(null);
  useEffect(() => {
    void databaseIfExists()
      .then((db) => db?.recognitions.where('visit').equals(id).sortBy('startedAt') ?? [])
      .then((r) => setKnownScene(r.at(-1)?.scene ?? null))
      .catch(() => undefined);
  }, [id]);
  return (Object.values(byType).find((r) => r?.scene)?.scene as string | undefined) ?? knownScene ?? dataVisit?.scenes?.at(-1)?.id ?? null;
}
