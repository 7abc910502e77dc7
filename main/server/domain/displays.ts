// Displays, and the planograms and must-have lists tied to them. A planogram or MHL names the display
// it is for (`display`); the display's current planogram and MHL (`planogram`, `musthavelist`) are an
// explicit choice stored on the display, and when none is chosen, the newest one tied to it. That rule
// lives in currentOf() alone: the display API, its list filters, and every report read it from there.
import type { AliasableExpression, ExpressionBuilder, Kysely } from 'kysely';
import type { Database } from '../storage/schema.js';
import type { ResourceDef } from './resource.js';

type Choice = { table: 'planograms' | 'mhls'; column: 'planogram_id' | 'mhl_id' };
const PLANOGRAM: Choice = { table: 'planograms', column: 'planogram_id' };
const MHL: Choice = { table: 'mhls', column: 'mhl_id' };

/**
 * The display's current planogram or MHL, as an expression over the outer `displays` row: the chosen
 * one, else the newest (latest created) one whose `display` is this display.
 */
function currentOf(eb: ExpressionBuilder<any, any>, c: Choice): AliasableExpression<string | null> {
  const newest = eb
    .selectFrom(c.table)
    .select(`${c.table}.id`)
    .whereRef(`${c.table}.display_id`, '=', 'displays.id')
    .orderBy(`${c.table}.data_id`, 'desc')
    .limit(1);
  return eb.fn.coalesce(eb.ref(`displays.${c.column}`), newest) as AliasableExpression<string | null>;
}

export interface DisplayPlan {
  planogram: string | null;
  musthavelist: string | null;
}

/** The planogram and MHL a display currently uses (reports score against these); undefined: no such display. */
export async function displayPlan(db: Kysely<Database>, displayId: string): Promise<DisplayPlan | undefined> {
  const row = await (db as Kysely<any>)
    .selectFrom('displays')
    .select((eb) => [currentOf(eb, PLANOGRAM).as('planogram'), currentOf(eb, MHL).as('musthavelist')])
    .where('displays.id', '=', displayId)
    .executeTakeFirst();
  return row as DisplayPlan | undefined;
}

export const displays: ResourceDef = {
  table: 'displays',
  entity: 'display',
  label: 'display',
  fields: {
    name: { column: 'name' },
    // Written as the choice (null: back to the default), read as the current one.
    planogram: { column: 'planogram_id', ref: 'planograms', read: (eb) => currentOf(eb, PLANOGRAM) },
    musthavelist: { column: 'mhl_id', ref: 'mhls', read: (eb) => currentOf(eb, MHL) },
  },
  list: {
    filters: { planogram: { field: 'planogram' }, musthavelist: { field: 'musthavelist' } },
    search: ['name', 'id'],
    ordering: ['id', 'name', 'planogram', 'musthavelist'],
  },
};

/** Planograms and MHLs: filtered by display, searched and sorted by name. */
const displayBoundList = { filters: { display: { field: 'display' } }, search: ['name', 'id'], ordering: ['id', 'name', 'display'] };

export const planograms: ResourceDef = {
  table: 'planograms',
  entity: 'planogram',
  label: 'planogram',
  fields: { name: { column: 'name' }, display: { column: 'display_id', ref: 'displays' } },
  list: displayBoundList,
};

export const planogramRecords: ResourceDef = {
  table: 'planogram_records',
  entity: 'planogram_record',
  label: 'planogram record',
  fields: {
    rack_index: { column: 'rack_index' },
    shelf_index: { column: 'shelf_index' },
    product_index: { column: 'product_index' },
    facing_x: { column: 'facing_x' },
    facing_y: { column: 'facing_y' },
    width: { column: 'width' },
    height: { column: 'height' },
    planogram: { column: 'planogram_id', ref: 'planograms' },
    sku: { column: 'sku_id', ref: 'skus' },
  },
  defaults: { facing_x: 1, facing_y: 1 },
  timestamps: true,
  list: {
    filters: { planogram: { field: 'planogram' }, sku: { field: 'sku' }, rack_index: { field: 'rack_index' }, shelf_index: { field: 'shelf_index' } },
    ordering: ['rack_index', 'shelf_index', 'product_index', 'sku'],
  },
};

export const mhls: ResourceDef = {
  table: 'mhls',
  entity: 'mhl',
  label: 'must have list',
  fields: { name: { column: 'name' }, display: { column: 'display_id', ref: 'displays' } },
  list: displayBoundList,
};

export const mhlRecords: ResourceDef = {
  table: 'mhl_records',
  entity: 'mhl_record',
  label: 'must have list record',
  fields: {
    name: { column: 'name' },
    musthavelist: { column: 'mhl_id', ref: 'mhls' },
    sku: { column: 'sku_id', ref: 'skus' },
    ...Object.fromEntries([1, 2, 3, 4, 5, 6].map((i) => [`sku${i}`, { column: `sku${i}_id`, ref: 'skus' as const }])),
  },
  list: {
    filters: { musthavelist: { field: 'musthavelist' }, sku: { field: 'sku' } },
    search: ['name'],
    ordering: ['name', 'sku'],
  },
};
