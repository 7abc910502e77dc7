// The Data API v1.0 projection: the same records as v1.5, addressed by their per-instance integer
// `data_id`. References between Data API records (an SKU's category_id, brand_id) use the Data API ids
// too, as strings (the interface types them string; its examples show numbers).
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from '../storage/schema.js';
import { NotFoundError } from './errors.js';
import type { ListResult, Page } from './resource.js';

type Row = Record<string, any>;
type AnyDb = Kysely<any>;

export interface DataView {
  table: keyof Database;
  label: string;
  /** Columns (and joins) to read; rows then go through present(). */
  select(db: AnyDb): SelectQueryBuilder<any, any, any>;
  present(row: Row): Row;
}

const catalog = (table: 'brands' | 'categories', label: string): DataView => ({
  table,
  label,
  select: (db) => db.selectFrom(table).select(['data_id', 'name']),
  present: (r) => ({ id: r.data_id, name: r.name }),
});

export const dataBrands = catalog('brands', 'brand');
export const dataCategories = catalog('categories', 'category');

const idString = (v: unknown) => (v === null || v === undefined ? null : String(v));

export const dataSkus: DataView = {
  table: 'skus',
  label: 'sku',
  select: (db) =>
    db
      .selectFrom('skus')
      .leftJoin('categories', 'categories.id', 'skus.category_id')
      .leftJoin('brands', 'brands.id', 'skus.brand_id')
      .leftJoin('manufacturers', 'manufacturers.id', 'skus.manufacturer_id')
      .select([
        'skus.data_id', 'skus.cid', 'skus.name', 'skus.size_x_mm', 'skus.size_y_mm', 'skus.size_z_mm', 'skus.attributes',
        'categories.data_id as category_data_id', 'brands.data_id as brand_data_id', 'manufacturers.data_id as manufacturer_data_id',
      ]),
  present: (r) => ({
    id: r.data_id,
    cid: r.cid,
    name: r.name,
    category_id: idString(r.category_data_id),
    brand_id: idString(r.brand_data_id),
    manufacturer_id: idString(r.manufacturer_data_id),
    size_x_mm: r.size_x_mm,
    size_y_mm: r.size_y_mm,
    size_z_mm: r.size_z_mm,
    attributes: r.attributes === null ? null : JSON.parse(r.attributes),
  }),
};

export const dataTasks: DataView = {
  table: 'tasks',
  label: 'task',
  select: (db) => db.selectFrom('tasks').selectAll(),
  present: (r) => ({
    id: r.data_id,
    name: r.name,
    short_description: r.short_description,
    long_description: r.long_description,
    is_enabled: r.is_enabled === 1,
    is_required: r.is_required === 1,
  }),
};

export const dataKpis: DataView = {
  table: 'kpis',
  label: 'kpi',
  select: (db) => db.selectFrom('kpis').select(['data_id', 'cid', 'name', 'units']),
  present: (r) => ({ id: r.data_id, cid: r.cid, name: r.name, units: r.units }),
};

export async function listData(db: Kysely<Database>, view: DataView, page: Page): Promise<ListResult<Row>> {
  const [{ n }] = await (db as AnyDb).selectFrom(view.table).select((eb) => eb.fn.countAll().as('n')).execute();
  const rows = await view.select(db as AnyDb).orderBy(`${view.table}.data_id`).limit(page.limit).offset(page.offset).execute();
  return { count: Number(n), results: rows.map(view.present) };
}

export async function getData(db: Kysely<Database>, view: DataView, dataId: number): Promise<Row> {
  const row = await view.select(db as AnyDb).where(`${view.table}.data_id`, '=', dataId).executeTakeFirst();
  if (!row) throw new NotFoundError(view.label);
  return view.present(row);
}

/** GET /md_import_status/: when the last master-data import finished (null if never). */
export async function lastImport(db: Kysely<Database>): Promise<string | null> {
  const row = await db.selectFrom('imports').select('finished_at').orderBy('data_id', 'desc').limit(1).executeTakeFirst();
  return row?.finished_at ?? null;
}
