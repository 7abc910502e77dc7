// /api/v1.5/displays/: full CRUD.
import { displays } from '../../domain/displays.js';
import { DisplayCreate, DisplayItem, DisplayUpdate } from '../../schemas/master-data.js';
import { crudRoutes } from '../crud.js';

export default crudRoutes({
  path: '/displays/',
  def: displays,
  tag: 'displays',
  item: DisplayItem,
  createBody: DisplayCreate,
  updateBody: DisplayUpdate,
  methods: ['list', 'create', 'get', 'put', 'patch', 'delete'],
});
