// /api/v1.5/planogram_records/: full CRUD.
import { planogramRecords } from '../../domain/displays.js';
import { PlanogramRecordCreate, PlanogramRecordItem, PlanogramRecordUpdate } from '../../schemas/master-data.js';
import { crudRoutes } from '../crud.js';

export default crudRoutes({
  path: '/planogram_records/',
  def: planogramRecords,
  tag: 'planogram_records',
  item: PlanogramRecordItem,
  createBody: PlanogramRecordCreate,
  updateBody: PlanogramRecordUpdate,
  methods: ['list', 'create', 'get', 'put', 'patch', 'delete'],
});
