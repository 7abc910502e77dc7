// The KPIs a visit's values refer to, each read once by id.
import { useEffect, useState } from 'react';
import { getKpi } from '../../api/endpoints';
import type { Kpi, KpiValue } from '../../api/types';
import { useSession } from '../../stores/session';

export function useKpiDefinitions(values: readonly KpiValue[]): Record<string, Kpi> {
  const api = useSession((s) => s.api);
  const [definitions, setDefinitions] = useState<Record<string, Kpi>>({});
  const missing = [...new Set(values.map((k) => String(k.kpi)))].filter((k) => !(k in definitions));
  const missingKey = missing.sort().join(',');
  useEffect(() => {
    for (const kpi of missingKey ? missingKey.split(',') : [])
      getKpi(api, kpi).then((d) => setDefinitions((all) => ({ ...all, [kpi]: d })), () => undefined);
  }, [api, missingKey]);
  return definitions;
}
