// The one list of what syncs. Each entity is the name the outbox uses (storage/transaction.ts
// `changed(entity, ...)`), its table, and who owns it:
// - 'central': master data. The central is the only writer; laptops pull it and never push it.
// - 'device': created on a laptop and owned by the device that pushed it first. Pushed up; pulled
//   by supervisors, and by the owner when someone else (a supervisor) changed it.
// Order matters: parents before children, so a batch applies inserts in this order (deletes in the
// reverse order) without breaking a foreign key. Adding an entity is one line here.
export type Owner = 'central' | 'device';

export interface SyncEntity {
  entity: string;
  table: string;
  owner: Owner;
  /**
   * Columns a supervisor may change on a record another device owns (an acknowledgement, a KPI
   * edit); absent: only the owner may change it.
   */
  supervisorColumns?: readonly string[];
  /**
   * Columns each instance computes for itself (a reference image's descriptor, from its photo with
   * this instance's models): never sent, and cleared when the record arrives so they are recomputed.
   */
  localColumns?: readonly string[];
}

export const SYNC_ENTITIES: readonly SyncEntity[] = [
  { entity: 'brand', table: 'brands', owner: 'central' },
  { entity: 'category', table: 'categories', owner: 'central' },
  { entity: 'manufacturer', table: 'manufacturers', owner: 'central' },
  { entity: 'sku', table: 'skus', owner: 'central' },
  // Its photo is an upload made on the central: pulled by every device with it (central/pull.ts).
  { entity: 'sku_image', table: 'sku_images', owner: 'central', localColumns: ['descriptor'] },
  { entity: 'display', table: 'displays', owner: 'central' },
  { entity: 'planogram', table: 'planograms', owner: 'central' },
  { entity: 'planogram_record', table: 'planogram_records', owner: 'central' },
  { entity: 'mhl', table: 'mhls', owner: 'central' },
  { entity: 'mhl_record', table: 'mhl_records', owner: 'central' },
  { entity: 'task', table: 'tasks', owner: 'central' },
  { entity: 'kpi', table: 'kpis', owner: 'central' },
  { entity: 'agent', table: 'agents', owner: 'device' },
  { entity: 'visit', table: 'visits', owner: 'device', supervisorColumns: ['is_new', 'moderation', 'updated_at'] },
  { entity: 'upload', table: 'uploads', owner: 'device' },
  { entity: 'scene', table: 'scenes', owner: 'device' },
  { entity: 'report', table: 'reports', owner: 'device' },
  // A supervisor's review (issue 23): owned by the device that saved it, pushed with the visit.
  { entity: 'scene_annotation', table: 'scene_annotations', owner: 'device' },
  { entity: 'annotation_correction', table: 'annotation_corrections', owner: 'device' },
  { entity: 'kpi_value', table: 'kpi_values', owner: 'device', supervisorColumns: ['value', 'updated_at'] },
  { entity: 'recognition_error', table: 'recognition_errors', owner: 'device' },
  { entity: 'oos_reason', table: 'oos_reasons', owner: 'device' },
];

const byEntity = new Map(SYNC_ENTITIES.map((e, i) => [e.entity, { ...e, order: i }]));

export function syncEntity(entity: string): (SyncEntity & { order: number }) | undefined {
  return byEntity.get(entity);
}

export const PUSHED_ENTITIES = SYNC_ENTITIES.filter((e) => e.owner === 'device').map((e) => e.entity);
export const MASTER_ENTITIES = SYNC_ENTITIES.filter((e) => e.owner === 'central').map((e) => e.entity);
