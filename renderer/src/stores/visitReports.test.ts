import { describe, expect, it } from 'vitest';
import type { Report } from '../api/types';
import { currentReports, pendingCount } from './visitReports';

const report = (id: string, type: Report['report_type'], status: Report['status'], created: string): Report => ({
  id,
  report_type: type,
  status,
  created_date: created,
  updated_date: created,
  visit: 'v',
  previous_report: null,
  json: null,
  error: null,
});

describe('currentReports', () => {
  it('keeps the newest report of each type', () => {
    const current = currentReports([
      report('a', 'FACING_COUNT', 'READY', '2026-01-01T10:00:00Z'),
      report('b', 'FACING_COUNT', 'NOT_READY', '2026-01-01T11:00:00Z'),
      report('c', 'PANORAMA', 'ERROR', '2026-01-01T09:00:00Z'),
    ]);
    expect(current.FACING_COUNT?.id).toBe('b');
    expect(current.PANORAMA?.id).toBe('c');
    expect(pendingCount(current)).toBe(1);
    expect(pendingCount({})).toBe(0);
  });
});
