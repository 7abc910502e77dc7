// The records of the must-have list a report checked (their names and SKUs), not every list's.
import { useEffect, useState } from 'react';
import { listAll } from '../../api/endpoints';
import type { MhlRecord } from '../../api/types';
import { useSession } from '../../stores/session';

export function useMustHaveRecords(mhlId: string | null): MhlRecord[] {
  const api = useSession((s) => s.api);
  const [records, setRecords] = useState<MhlRecord[]>([]);
  useEffect(() => {
    if (!mhlId) return;
    listAll(api, 'mhl_record', { musthavelist: mhlId }).then(setRecords, () => undefined);
  }, [api, mhlId]);
  return records;
}
