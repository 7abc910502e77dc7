// /api/v1.5/brands/: list, create, read, PUT, PATCH (the interface lists no DELETE for catalogs).
import { brands } from '../../domain/catalogs.js';
import { CatalogCreate, CatalogItem, CatalogUpdate } from '../../schemas/catalogs.js';
import { crudRoutes } from '../crud.js';

export default crudRoutes({
  path: '/brands/',
  def: brands,
  tag: 'brands',
  item: CatalogItem,
  createBody: CatalogCreate,
  updateBody: CatalogUpdate,
  methods: ['list', 'create', 'get', 'put', 'patch'],
});
