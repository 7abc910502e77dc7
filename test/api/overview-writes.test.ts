// The overview's facts follow a record written through its resource (domain/resource.ts's afterWrite),
// whatever the path: a visit given a new id keeps no facts under the old one, and an SKU renamed to
// another id takes its brand with it.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../main/server/storage/database.js';
import { write } from '../../main/server/storage/transaction.js';
import { createVisit, updateVisit } from '../../main/server/domain/visits.js';
import { deleteRecord } from '../../main/server/domain/resource.js';
import { visits } from '../../main/server/domain/visits.js';

let dir: string;
let store: OpenDatabase;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'overview-writes-'));
  store = await openDatabase(dir);
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const factsOf = async (id: string) =>
  (await store.db.selectFrom('overview_visits').select(['visit_id', 'shop']).where('visit_id', '=', id).execute());

it('a visit renamed to another id keeps no facts under the old id; a deleted one keeps none at all', async () => {
  await write(store.db, (ctx) => createVisit(ctx, { id: 'v-old', shop: 's1', agent: 'a1', started_date: '2026-03-02T10:00:00Z' }));
  expect(await factsOf('v-old')).toEqual([{ visit_id: 'v-old', shop: 's1' }]);
  await write(store.db, (ctx) => updateVisit(ctx, 'v-old', { id: 'v-new', shop: 's2' }));
  expect(await factsOf('v-old')).toEqual([]);
  expect(await factsOf('v-new')).toEqual([{ visit_id: 'v-new', shop: 's2' }]);
  await write(store.db, (ctx) => deleteRecord(ctx, visits, 'v-new'));
  expect(await factsOf('v-new')).toEqual([]);
});
