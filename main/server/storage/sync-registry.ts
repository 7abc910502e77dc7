// The one list of what syncs. Each entity is the name the outbox uses (storage/transaction.ts
// `changed(entity, ...)`, which takes only these names), its table, and who owns it:
// - 'central': master data. The central is the only writer; laptops pull it and never push it.
// - 'device': created on a laptop and owned by the device that pushed it first. Pushed up; pulled
//   by supervisors, by the owner when someone else (a supervisor) changed it, and, for the records
//   that name a visit (`visit`), by the visit's owner when another device made or changed them.
// Order matters: parents before children, so a batch applies inserts in this order (deletes in the
// reverse order) without breaking a foreign key, and the import applies its entities in this order.
// Adding an entity is one line here (docs/ARCHITECTURE.md, "Adding a synced record").
import type { Database } from './schema.js';

export type Owner = 'central' | 'device';

/** One entity's line, checked against its table's row type (storage/schema.ts). */
type Declaration = {
  [T in keyof Database]: {
    entity: string;
    table: T;
    owner: Owner;
    /**
     * Columns a supervisor may change on a record another device owns (an acknowledgement, a KPI
     * edit); absent: only the owner may change it.
     */
    supervisorColumns?: readonly (keyof Database[T] & string)[];
    /**
     * Columns each instance computes for itself (a reference image's descriptor, from its photo with
     * this instance's models): never sent, and cleared when the record arrives so they are recomputed.
     */
    localColumns?: readonly (keyof Database[T] & string)[];
    /**
     * The column that leads to the visit a record belongs to: `visit_id` names it, `scene_id` names a
     * scene of it. Such a record made or changed by another device (a supervisor's review, the
     * reports and KPI values it produced) is pulled by the visit's owner too, read-only there: the
     * central accepts changes to it only from the device that made it.
     */
    visit?: Extract<keyof Database[T], 'visit_id' | 'scene_id'>;
    /**
     * Master data: the path segments of its API routes under /api/v1.5/ and the Data API
     * (/api/data/v1.0, v1.1, v1.5). A laptop that syncs refuses writes to them (sync/plugin.ts).
     */
    routes?: readonly string[];
    /** Master data served under the app's own API (/api/app/v1/): its path segments there, refused alike. */
    appRoutes?: readonly string[];
    /**
     * Master data the import takes (domain/import.ts), under its table's name; a CSV may also name it
     * by its entity name or one of `aliases`. `naturalKey`: the API field that matches an existing
     * record when a row has no id.
     */
    import?: { naturalKey?: string; aliases?: readonly string[] };
  };
}[keyof Database];

export const SYNC_ENTITIES = [
  { entity: 'brand', table: 'brands', owner: 'central', routes: ['brands'], import: {} },
  { entity: 'category', table: 'categories', owner: 'central', routes: ['categories'], import: {} },
  { entity: 'manufacturer', table: 'manufacturers', owner: 'central', routes: ['manufacturers'], import: {} },
  // Its reference images are written under its routes too (/api/v1.5/sku/{id}/images/).
  { entity: 'sku', table: 'skus', owner: 'central', routes: ['sku'], import: { naturalKey: 'cid' } },
  // Its photo is an upload made on the central: pulled by every device with it (central/pull.ts).
  { entity: 'sku_image', table: 'sku_images', owner: 'central', localColumns: ['descriptor'] },
  { entity: 'display', table: 'displays', owner: 'central', routes: ['displays'], import: {} },
  { entity: 'planogram', table: 'planograms', owner: 'central', routes: ['planograms'], import: {} },
  { entity: 'planogram_record', table: 'planogram_records', owner: 'central', routes: ['planogram_records'], import: {} },
  { entity: 'mhl', table: 'mhls', owner: 'central', routes: ['mhl'], import: { aliases: ['musthavelist'] } },
  { entity: 'mhl_record', table: 'mhl_records', owner: 'central', routes: ['mhl_record'], import: {} },
  // Tasks and KPIs have no write routes yet: they arrive by import.
  { entity: 'task', table: 'tasks', owner: 'central', routes: ['tasks'], import: { naturalKey: 'name' } },
  { entity: 'kpi', table: 'kpis', owner: 'central', routes: ['kpi'], import: { naturalKey: 'cid' } },
  // The price list (domain/prices.ts): its API is the app's own, /api/app/v1/prices/.
  { entity: 'price', table: 'price_list', owner: 'central', appRoutes: ['prices'], import: { aliases: ['prices'] } },
  { entity: 'agent', table: 'agents', owner: 'device' },
  { entity: 'visit', table: 'visits', owner: 'device', supervisorColumns: ['is_new', 'moderation', 'updated_at'] },
  { entity: 'upload', table: 'uploads', owner: 'device' },
  { entity: 'scene', table: 'scenes', owner: 'device' },
  // A review's new reports (previous_report: the ones they replace) reach the visit's owner.
  { entity: 'report', table: 'reports', owner: 'device', visit: 'visit_id' },
  // A supervisor's review: owned by the device that saved it, pushed with the visit, pulled by the
  // visit's owner.
  { entity: 'scene_annotation', table: 'scene_annotations', owner: 'device', visit: 'scene_id' },
  { entity: 'annotation_correction', table: 'annotation_corrections', owner: 'device', visit: 'scene_id' },
  // A supervisor's corrections of a photo's price tags (scenes/price-review.ts), like its boxes.
  { entity: 'price_tag_review', table: 'price_tag_reviews', owner: 'device', visit: 'scene_id' },
  { entity: 'kpi_value', table: 'kpi_values', owner: 'device', supervisorColumns: ['value', 'updated_at'], visit: 'visit_id' },
  { entity: 'recognition_error', table: 'recognition_errors', owner: 'device' },
  { entity: 'oos_reason', table: 'oos_reasons', owner: 'device' },
] as const satisfies readonly Declaration[];

type Declared = (typeof SYNC_ENTITIES)[number];
/** The outbox's entity names: `ctx.changed` takes only these. */
export type SyncEntityName = Declared['entity'];
/** The tables that sync. */
export type SyncTable = Declared['table'];
/** The table of entity `E`. */
export type TableOf<E extends SyncEntityName> = Extract<Declared, { entity: E }>['table'];
/** The entities the master-data import takes, by their import name (their table's). */
export type ImportedTable = Extract<Declared, { import: object }>['table'];

/** An entity's line as the sync code reads it. */
export interface SyncEntity {
  entity: SyncEntityName;
  table: SyncTable;
  owner: Owner;
  supervisorColumns?: readonly string[];
  localColumns?: readonly string[];
  visit?: 'visit_id' | 'scene_id';
  routes?: readonly string[];
  appRoutes?: readonly string[];
  import?: { naturalKey?: string; aliases?: readonly string[] };
}

const ENTITIES: readonly SyncEntity[] = SYNC_ENTITIES;

export const SYNC_ENTITY_NAMES: readonly SyncEntityName[] = ENTITIES.map((e) => e.entity);

const byEntity = new Map<string, SyncEntity & { order: number }>(ENTITIES.map((e, i) => [e.entity, { ...e, order: i }]));

/** The entity named `entity` (a name read from the outbox or a request), or undefined. */
export function syncEntity(entity: string): (SyncEntity & { order: number }) | undefined {
  return byEntity.get(entity);
}

export const PUSHED_ENTITIES: readonly SyncEntityName[] = ENTITIES.filter((e) => e.owner === 'device').map((e) => e.entity);

/** The path segments of every master-data write route (sync/plugin.ts refuses them on a synced laptop). */
export const MASTER_ROUTES: readonly string[] = ENTITIES.flatMap((e) => (e.owner === 'central' ? (e.routes ?? []) : []));

/** The path segments of the master-data write routes under /api/app/v1/ (the price list). */
export const MASTER_APP_ROUTES: readonly string[] = ENTITIES.flatMap((e) => (e.owner === 'central' ? (e.appRoutes ?? []) : []));

/** The master-data import's entities, in dependency order (registry order). */
export const IMPORTED: ReadonlyArray<{ key: ImportedTable; entity: SyncEntityName; naturalKey?: string; aliases: readonly string[] }> = ENTITIES.flatMap((e) =>
  e.import ? [{ key: e.table as ImportedTable, entity: e.entity, naturalKey: e.import.naturalKey, aliases: e.import.aliases ?? [] }] : [],
);
