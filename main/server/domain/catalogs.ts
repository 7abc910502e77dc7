// Brands, categories and manufacturers: the three v1.5 catalogs, identical but for their table.
import type { EntityTable, ResourceDef } from './resource.js';

const catalog = (names: Extract<EntityTable, { entity: 'brand' | 'category' | 'manufacturer' }>, label: string): ResourceDef => ({
  ...names,
  label,
  fields: { name: { column: 'name' } },
  list: { search: ['name', 'id'], ordering: ['id', 'name'] },
});

export const brands = catalog({ entity: 'brand', table: 'brands' }, 'brand');
export const categories = catalog({ entity: 'category', table: 'categories' }, 'category');
export const manufacturers = catalog({ entity: 'manufacturer', table: 'manufacturers' }, 'manufacturer');
