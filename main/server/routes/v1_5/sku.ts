// /api/v1.5/sku/: list (filters, search, ordering: domain/skus.ts), create (answers the created SKU), read, PUT, PATCH.
import { skus } from '../../domain/skus.js';
import { SkuCreate, SkuItem, SkuUpdate } from '../../schemas/skus.js';
import { crudRoutes } from '../crud.js';

export default crudRoutes({
  path: '/sku/',
  def: skus,
  tag: 'sku',
  item: SkuItem,
  createBody: SkuCreate,
  updateBody: SkuUpdate,
  methods: ['list', 'create', 'get', 'put', 'patch'],
  createResponse: 'record',
});
