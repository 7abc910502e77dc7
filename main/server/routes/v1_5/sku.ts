// /api/v1.5/sku/: list (filter `?cid=`), create (answers the created SKU), read, PUT, PATCH.
import { Type } from 'typebox';
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
  filters: { cid: { field: 'cid', schema: Type.String({ maxLength: 255, description: 'SKUs whose customer id equals this' }) } },
});
