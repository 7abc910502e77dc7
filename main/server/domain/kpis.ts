// KPIs (Data API): read-only over HTTP, written by the master-data import; visits carry their values.
import type { ResourceDef } from './resource.js';

export const kpis: ResourceDef = {
  table: 'kpis',
  entity: 'kpi',
  label: 'kpi',
  fields: { cid: { column: 'cid' }, name: { column: 'name' }, units: { column: 'units' } },
};
