// A visit's reports, polled while any is still being computed, so results appear on screen as they
// become ready with no refresh button.
import { create } from 'zustand';
import type { ApiClient } from '../api/client';
import { listReports } from '../api/endpoints';
import { describeError } from '../api/errors';
import type { Report, ReportType } from '../api/types';

/** The newest report of each type (a force_update or a second scene supersedes older ones). */
export function currentReports(reports: readonly Report[]): Partial<Record<ReportType, Report>> {
  const out: Partial<Record<ReportType, Report>> = {};
  for (const r of reports) {
    const seen = out[r.report_type];
    if (!seen || r.created_date > seen.created_date || (r.created_date === seen.created_date && r.id > seen.id))
      out[r.report_type] = r;
  }
  return out;
}

/**
 * The newest REALOGRAM of each scene, oldest scene first: a visit may hold several scenes. A READY one
 * wins over a newer one still being computed (a saved review recomputes it), so the photos stay shown.
 */
export function realogramsByScene(reports: readonly Report[]): Report[] {
  const latest = new Map<string, Report>();
  const rank = (r: Report) => (r.status === 'READY' ? 1 : 0);
  for (const r of reports) {
    if (r.report_type !== 'REALOGRAM') continue;
    const key = r.scene ?? r.id;
    const seen = latest.get(key);
    if (!seen || rank(r) > rank(seen) || (rank(r) === rank(seen) && r.created_date > seen.created_date)) latest.set(key, r);
  }
  return [...latest.values()].sort((a, b) => a.created_date.localeCompare(b.created_date));
}

export function pendingCount(reports: Partial<Record<ReportType, Report>>): number {
  return Object.values(reports).filter((r) => r?.status === 'NOT_READY').length;
}

export interface VisitReportsState {
  visit: string | null;
  reports: Partial<Record<ReportType, Report>>;
  /** Every report of the visit, all scenes. */
  all: Report[];
  loaded: boolean;
  error: string | null;
  watch(api: ApiClient, visit: string): () => void;
  refresh(): Promise<void>;
}

export interface PollTiming {
  /** Delay while a report is still NOT_READY. */
  busyMs: number;
  /** Delay once all are settled (a later recognition may add reports to the visit). */
  idleMs: number;
}

export function createVisitReportsStore(timing: PollTiming = { busyMs: 1000, idleMs: 15000 }) {
  let generation = 0;
  let current: { api: ApiClient; visit: string } | null = null;
  return create<VisitReportsState>()((set, get) => {
    async function fetchOnce(api: ApiClient, visit: string, gen: number) {
      try {
        const all = await listReports(api, { visit });
        if (gen !== generation) return;
        // The list may not filter by visit; keep only this visit's reports either way.
        const mine = all.filter((r) => r.visit === visit);
        set({ reports: currentReports(mine), all: mine, loaded: true, error: null });
      } catch (e) {
        if (gen === generation) set({ error: describeError(e), loaded: true });
      }
    }
    return {
      visit: null,
      reports: {},
      all: [],
      loaded: false,
      error: null,
      watch(api, visit) {
        const gen = ++generation;
        current = { api, visit };
        set({ visit, reports: {}, all: [], loaded: false, error: null });
        let timer: ReturnType<typeof setTimeout> | undefined;
        const loop = async () => {
          await fetchOnce(api, visit, gen);
          if (gen !== generation) return;
          const busy = pendingCount(get().reports) > 0 || !!get().error;
          timer = setTimeout(loop, busy ? timing.busyMs : timing.idleMs);
        };
        void loop();
        return () => {
          if (gen === generation) generation++;
          if (timer) clearTimeout(timer);
        };
      },
      async refresh() {
        if (current) await fetchOnce(current.api, current.visit, generation);
      },
    };
  });
}

export const visitReportsStore = createVisitReportsStore();
