// Brands, categories and manufacturers: the three v1.5 catalogs, identical but for their table.
import type { ResourceDef } from './resource.js';

const catalog = (table: ResourceDef['table'], entity: string, label: string): ResourceDef => ({
  table,
  entity,
  label,
  fields: { name: { column: 'name' } },
  list: { search: ['name', 'id'], ordering: ['id', 'name'] },
});

export const brands = catalog('brands', 'brand', 'brand');
export const categories = catalog('categories', 'category', 'category');
export const manufacturers = catalog('manufacturers', 'manufacturer', 'manufacturer');
