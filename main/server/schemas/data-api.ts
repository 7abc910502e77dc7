// Data API v1.0 records (section 2.6 of the interface): integer ids of this instance.
import { Type } from 'typebox';
import { DateTime, Nullable, PageQueryProperties } from './common.js';

export const DataCatalog = Type.Object({ id: Type.Integer(), name: Type.String() });

export const DataTask = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  short_description: Nullable(Type.String()),
  long_description: Nullable(Type.String()),
  is_enabled: Type.Boolean(),
  is_required: Type.Boolean(),
});

export const DataKpi = Type.Object({ id: Type.Integer(), cid: Nullable(Type.String()), name: Type.String(), units: Nullable(Type.String()) });

export const DataSku = Type.Object({
  id: Type.Integer(),
  cid: Nullable(Type.String()),
  name: Type.String(),
  category_id: Nullable(Type.String({ description: 'Data API id of the category' })),
  brand_id: Nullable(Type.String({ description: 'Data API id of the brand' })),
  manufacturer_id: Nullable(Type.String({ description: 'Data API id of the manufacturer' })),
  size_x_mm: Nullable(Type.Number()),
  size_y_mm: Nullable(Type.Number()),
  size_z_mm: Nullable(Type.Number()),
  attributes: Nullable(Type.Record(Type.String(), Type.String())),
});

const visitListFields = {
  id: Type.Integer(),
  cid: Type.String({ description: 'The v1.5 visit id' }),
  name: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  is_new: Type.Boolean(),
};
export const DataVisit = Type.Object(visitListFields);
const Box = { x: Type.Number(), y: Type.Number(), w: Type.Number(), h: Type.Number() };
/** A recognised scene in a visit's detail, as the real service shows them (agent_id is ours). */
export const DataVisitScene = Type.Object({
  id: Type.String(),
  agent_id: Nullable(Type.String({ description: 'The agent that sent the scene (/recognize metadata.agent_id)' })),
  images: Type.Array(
    Type.Object({
      id: Type.String(),
      original_url: Nullable(Type.String()),
      annotations: Type.Array(Type.Object({ sku_id: Nullable(Type.String()), ...Box }, { description: 'x, y: box centre in image pixels' })),
      shelf_annotations: Type.Array(Type.Object({ x1: Type.Number(), y1: Type.Number(), x2: Type.Number(), y2: Type.Number() })),
    }),
  ),
  facing_counts: Type.Array(Type.Object({ sku_id: Nullable(Type.String()), count: Type.Integer() })),
});
export const DataVisitDetail = Type.Object({
  ...visitListFields,
  agent_id: Nullable(Type.String()),
  store_id: Nullable(Type.String()),
  started_date: Nullable(Type.String()),
  is_closed: Type.Boolean(),
  closed_at: Nullable(Type.String()),
  kpi_values: Type.Array(
    Type.Object({ kpi: Type.Integer(), category: Nullable(Type.Integer()), value: Type.Number(), updated_at: Type.String() }),
  ),
  scenes: Type.Array(DataVisitScene, { description: 'Recognised scenes of the visit' }),
});

export const DataVisitQuery = Type.Object({
  ...PageQueryProperties,
  is_new: Type.Optional(Type.Boolean({ description: 'Only new (true, the default) or only acknowledged (false) visits' })),
  cid: Type.Optional(Type.String({ maxLength: 255 })),
  agent: Type.Optional(Type.String({ maxLength: 255 })),
  datetime_gte: Type.Optional(DateTime),
});

export const KpiValueBody = Type.Object({
  kpi: Type.Integer({ minimum: 1, description: 'Data API id of the KPI' }),
  value: Type.Number(),
  category: Type.Integer({ minimum: 1, description: 'Data API id of the category' }),
});
export const KpiValueResult = Type.Object({ visit: Type.Integer(), kpi: Type.Integer(), category: Type.Integer(), value: Type.Number() });

export const ImportStatus = Type.Object({ last_import_datetime: Nullable(Type.String({ format: 'date-time' })) });
