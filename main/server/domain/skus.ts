// SKUs (v1.5 shape: {id, cid, ean13, image, name, brand, category, manufacturer, size_*_mm, attributes}).
import type { ResourceDef } from './resource.js';
import { reclassifySkus } from './overview/projection.js';

export const skus: ResourceDef = {
  table: 'skus',
  entity: 'sku',
  label: 'sku',
  fields: {
    cid: { column: 'cid' },
    ean13: { column: 'ean13' },
    image: { column: 'image' },
    name: { column: 'name' },
    brand: { column: 'brand_id', ref: 'brands' },
    category: { column: 'category_id', ref: 'categories' },
    manufacturer: { column: 'manufacturer_id', ref: 'manufacturers' },
    size_x_mm: { column: 'size_x_mm' },
    size_y_mm: { column: 'size_y_mm' },
    size_z_mm: { column: 'size_z_mm' },
    attributes: { column: 'attributes', kind: 'json' },
  },
  list: {
    filters: {
      cid: { field: 'cid' },
      ean13: { field: 'ean13' },
      brand: { field: 'brand' },
      category: { field: 'category' },
      manufacturer: { field: 'manufacturer' },
    },
    search: ['name', 'cid', 'ean13', 'id'],
    ordering: ['id', 'name', 'cid', 'ean13', 'brand', 'category', 'manufacturer'],
  },
  // An SKU created (a visit's reports may name it before it arrives), moved to another brand or
  // category, renamed or deleted counts under its brand and category as they now are in the overview.
  afterWrite: reclassifySkus,
};
