// /api/v1.5/categories/: list, create, read, PUT, PATCH (the interface lists no DELETE for catalogs).
import { categories } from '../../domain/catalogs.js';
import { CatalogCreate, CatalogItem, CatalogUpdate } from '../../schemas/catalogs.js';
import { crudRoutes } from '../crud.js';

export default crudRoutes({
  path: '/categories/',
  def: categories,
  tag: 'categories',
  item: CatalogItem,
  createBody: CatalogCreate,
  updateBody: CatalogUpdate,
  methods: ['list', 'create', 'get', 'put', 'patch'],
});
