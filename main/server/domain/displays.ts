// Displays, and the planograms and must-have lists tied to them. A display's `planogram` and
// `musthavelist` are read from the planogram / MHL that names the display (the first, if several),
// so the link is stored once, on the planogram or MHL.
import type { ResourceDef } from './resource.js';

export const displays: ResourceDef = {
  table: 'displays',
  entity: 'display',
  label: 'display',
  fields: { name: { column: 'name' } },
  computed: (eb) => [
    eb.selectFrom('planograms').select('planograms.id').whereRef('planograms.display_id', '=', 'displays.id').orderBy('planograms.data_id').limit(1).as('planogram'),
    eb.selectFrom('mhls').select('mhls.id').whereRef('mhls.display_id', '=', 'displays.id').orderBy('mhls.data_id').limit(1).as('musthavelist'),
  ],
};

export const planograms: ResourceDef = {
  table: 'planograms',
  entity: 'planogram',
  label: 'planogram',
  fields: { name: { column: 'name' }, display: { column: 'display_id', ref: 'displays' } },
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
};

export const mhls: ResourceDef = {
  table: 'mhls',
  entity: 'mhl',
  label: 'must have list',
  fields: { name: { column: 'name' }, display: { column: 'display_id', ref: 'displays' } },
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
};
