import { describe, expect, it } from 'vitest';
import type { Report } from '../api/types';
import { currentReports, pendingCount, realogramsByScene } from './visitReports';

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

describe('realogramsByScene', () => {
  it('keeps the newest REALOGRAM of each scene, oldest scene first', () => {
    const r = (id: string, scene: string, created: string, type: Report['report_type'] = 'REALOGRAM') => ({
      ...report(id, type, 'READY', created),
      scene,
    });
    const picked = realogramsByScene([
      r('s2-old', 's2', '2026-01-01T12:00:00Z'),
      r('s1', 's1', '2026-01-01T10:00:00Z'),
      r('s2-new', 's2', '2026-01-01T13:00:00Z'),
      r('fc', 's1', '2026-01-01T14:00:00Z', 'FACING_COUNT'),
    ]);
    expect(picked.map((x) => x.id)).toEqual(['s1', 's2-new']);
  });

  it('keeps showing the READY one while a newer one of the scene is computed', () => {
    const picked = realogramsByScene([
      { ...report('ready', 'REALOGRAM', 'READY', '2026-01-01T10:00:00Z'), scene: 's1' },
      { ...report('again', 'REALOGRAM', 'NOT_READY', '2026-01-01T11:00:00Z'), scene: 's1' },
      { ...report('first', 'REALOGRAM', 'NOT_READY', '2026-01-01T12:00:00Z'), scene: 's2' },
    ]);
    expect(picked.map((x) => x.id)).toEqual(['ready', 'first']);
  });
});
