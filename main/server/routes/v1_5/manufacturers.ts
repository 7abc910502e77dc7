// /api/v1.5/manufacturers/: list, create, read, PUT, PATCH (the interface lists no DELETE for catalogs).
import { manufacturers } from '../../domain/catalogs.js';
import { CatalogCreate, CatalogItem, CatalogUpdate } from '../../schemas/catalogs.js';
import { crudRoutes } from '../crud.js';

export default crudRoutes({
  path: '/manufacturers/',
  def: manufacturers,
  tag: 'manufacturers',
  item: CatalogItem,
  createBody: CatalogCreate,
  updateBody: CatalogUpdate,
  methods: ['list', 'create', 'get', 'put', 'patch'],
});
