// /api/v1.5/planograms/: full CRUD; deleting a planogram deletes its records.
import { planograms } from '../../domain/displays.js';
import { DisplayBoundCreate, DisplayBoundItem, DisplayBoundUpdate } from '../../schemas/master-data.js';
import { crudRoutes } from '../crud.js';

export default crudRoutes({
  path: '/planograms/',
  def: planograms,
  tag: 'planograms',
  item: DisplayBoundItem,
  createBody: DisplayBoundCreate,
  updateBody: DisplayBoundUpdate,
  methods: ['list', 'create', 'get', 'put', 'patch', 'delete'],
});
