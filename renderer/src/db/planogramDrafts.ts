// Unsaved planogram edits, kept per planogram so a reload or a crash does not lose an afternoon's
// work in the editor. Cleared when the planogram is saved or the edits are discarded.
import type { Layout } from '../screens/displays/planogramModel';
import { database, databaseIfExists } from './lazyDatabase';

const key = (planogram: string) => `planogram-draft:${planogram}`;

export async function loadPlanogramDraft(planogram: string): Promise<Layout | null> {
  const stored = await (await databaseIfExists())?.preferences.get(key(planogram));
  return (stored?.value as Layout | undefined) ?? null;
}

export async function savePlanogramDraft(planogram: string, layout: Layout): Promise<void> {
  await (await database()).preferences.put({ key: key(planogram), value: layout });
}

export async function clearPlanogramDraft(planogram: string): Promise<void> {
  await (await database()).preferences.delete(key(planogram));
}
