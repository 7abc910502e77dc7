// /api/app/v1/prices/: the price list (issue 45), full CRUD with the list's filters, search and
// ordering. Master data: a laptop that syncs refuses writes here (storage/sync-registry.ts); files
// arrive by the import (POST /api/app/v1/import/, entity `prices`).
import { prices } from '../../domain/prices.js';
import { PriceCreate, PriceItem, PriceUpdate } from '../../schemas/prices.js';
import { crudRoutes } from '../crud.js';

export default crudRoutes({
  path: '/prices/',
  def: prices,
  tag: 'app: prices',
  item: PriceItem,
  createBody: PriceCreate,
  updateBody: PriceUpdate,
  methods: ['list', 'create', 'get', 'put', 'patch', 'delete'],
  createResponse: 'record',
  firstOrdering: false,
});
