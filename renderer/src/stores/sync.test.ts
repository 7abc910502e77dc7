import { describe, expect, it } from 'vitest';
import type { SyncStatus } from '../api/types';
import { formatBytes, pollInterval, syncSummary } from './sync';

const base: SyncStatus = {
  state: 'idle',
  message: 'Up to date with the central.',
  central_url: 'http://central',
  pending_records: 0,
  pending_photos: 0,
  pending_photo_bytes: 0,
  progress: null,
  last_success: null,
  last_error: null,
  last_attempt: null,
  next_attempt: null,
  rejections: [],
};

describe('sync status line', () => {
  it('says what waits, in words and sizes', () => {
    expect(syncSummary(base)).toBe('Sync: up to date');
    expect(syncSummary({ ...base, state: 'offline', pending_records: 1, pending_photos: 3, pending_photo_bytes: 14 * 1024 * 1024 })).toBe(
      'Sync: central unreachable, 1 change, 3 photos (14.0 MB) waiting',
    );
    expect(syncSummary({ ...base, state: 'not_configured' })).toBe('Sync: not set up');
    expect(syncSummary(null)).toBe('Sync: …');
  });
  it('polls fast only while something moves', () => {
    expect(pollInterval({ ...base, state: 'syncing' })).toBeLessThan(pollInterval(base));
    expect(pollInterval({ ...base, state: 'not_configured' })).toBeGreaterThan(pollInterval(base));
    expect(formatBytes(2048)).toBe('2 KB');
  });
});
