// Unsaved planogram edits, kept per planogram so a reload or a crash does not lose an afternoon's
// work in the editor. Cleared when the planogram is saved or the edits are discarded.
import type { Layout } from '../screens/displays/planogramModel';
import { db } from './database';

const key = (planogram: string) => `planogram-draft:${planogram}`;

export async function loadPlanogramDraft(planogram: string): Promise<Layout | null> {
  const stored = await db.preferences.get(key(planogram));
  return (stored?.value as Layout | undefined) ?? null;
}

export async function savePlanogramDraft(planogram: string, layout: Layout): Promise<void> {
  await db.preferences.put({ key: key(planogram), value: layout });
}

export async function clearPlanogramDraft(planogram: string): Promise<void> {
  await db.preferences.delete(key(planogram));
}
