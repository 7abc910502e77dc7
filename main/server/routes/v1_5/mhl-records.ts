// /api/v1.5/mhl_record/: records of must-have lists, full CRUD. A record is met when any of sku,
// sku1..sku6 is on the shelf.
import { mhlRecords } from '../../domain/displays.js';
import { MhlRecordCreate, MhlRecordItem, MhlRecordUpdate } from '../../schemas/master-data.js';
import { crudRoutes } from '../crud.js';

export default crudRoutes({
  path: '/mhl_record/',
  def: mhlRecords,
  tag: 'mhl_record',
  item: MhlRecordItem,
  createBody: MhlRecordCreate,
  updateBody: MhlRecordUpdate,
  methods: ['list', 'create', 'get', 'put', 'patch', 'delete'],
});
