// The master-data import document: one array per entity, each row validated by the same schema as
// the API's create call (tasks and KPIs, which have no create call, by the schemas here).
import { Type, type TSchema } from 'typebox';
import type { ImportedTable } from '../storage/sync-registry.js';
import { CatalogCreate } from './catalogs.js';
import { Id, Name, Nullable } from './common.js';
import { DisplayBoundCreate, DisplayImport, MhlRecordCreate, PlanogramRecordCreate } from './master-data.js';
import { PriceCreate } from './prices.js';
import { SkuCreate } from './skus.js';

export const TaskImport = Type.Object({
  id: Type.Optional(Id),
  name: Name,
  short_description: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  long_description: Type.Optional(Nullable(Type.String({ maxLength: 100_000 }))),
  is_enabled: Type.Optional(Type.Boolean()),
  is_required: Type.Optional(Type.Boolean()),
});

export const KpiImport = Type.Object({
  id: Type.Optional(Id),
  cid: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  name: Name,
  units: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
});

const rows = (description: string) => Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }), { description }));

// One entry per entity the registry imports (storage/sync-registry.ts), which `satisfies` checks.
export const ImportDocument = Type.Object({
  brands: rows('Brand rows {id?, name}'),
  categories: rows('Category rows {id?, name}'),
  manufacturers: rows('Manufacturer rows {id?, name}'),
  skus: rows('SKU rows as POST /api/v1.5/sku/; matched by id, else by cid'),
  displays: rows('Display rows {id?, name}'),
  planograms: rows('Planogram rows {id?, name, display?, records?: [planogram records without `planogram`]}'),
  planogram_records: rows('Planogram record rows as POST /api/v1.5/planogram_records/'),
  mhls: rows('Must-have list rows {id?, name, display?, records?: [MHL records without `musthavelist`]}'),
  mhl_records: rows('MHL record rows as POST /api/v1.5/mhl_record/'),
  tasks: rows('Task rows {id?, name, short_description?, long_description?, is_enabled?, is_required?}; matched by id, else by name'),
  kpis: rows('KPI rows {id?, cid?, name, units?}; matched by id, else by cid'),
  price_list: rows('Price rows as POST /api/app/v1/prices/ {id?, sku, price: "1.99", currency, shop?, valid_from, valid_to?}; the whole list is refused when a price is negative, not a number, of an unknown SKU, or overlaps another of the same SKU, shop and currency'),
} satisfies Record<ImportedTable, TSchema>);

export const ImportSummary = Type.Object({
  created: Type.Record(Type.String(), Type.Integer()),
  updated: Type.Record(Type.String(), Type.Integer()),
  finished_at: Type.String({ format: 'date-time' }),
});

export const ImportRowSchemas = {
  brands: CatalogCreate,
  categories: CatalogCreate,
  manufacturers: CatalogCreate,
  skus: SkuCreate,
  displays: DisplayImport,
  planograms: DisplayBoundCreate,
  planogram_records: PlanogramRecordCreate,
  mhls: DisplayBoundCreate,
  mhl_records: MhlRecordCreate,
  tasks: TaskImport,
  kpis: KpiImport,
  price_list: PriceCreate,
} satisfies Record<ImportedTable, TSchema>;
