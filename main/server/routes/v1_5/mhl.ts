// /api/v1.5/mhl/: must-have lists, full CRUD; the by-id GET adds `musthavelist`. Deleting an MHL
// deletes its records.
import { mhls } from '../../domain/displays.js';
import { DisplayBoundCreate, DisplayBoundItem, DisplayBoundUpdate, MhlDetail } from '../../schemas/master-data.js';
import { crudRoutes } from '../crud.js';

const route = crudRoutes({
  path: '/mhl/',
  def: mhls,
  tag: 'mhl',
  item: DisplayBoundItem,
  createBody: DisplayBoundCreate,
  updateBody: DisplayBoundUpdate,
  methods: ['list', 'create', 'get', 'put', 'patch', 'delete'],
  detailItem: MhlDetail,
  detail: (record) => ({ ...record, musthavelist: record.id }),
});
export default route;
