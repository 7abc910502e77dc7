// /api/v1.5/visits/: list, create (answers the visit), read, PUT, PATCH. Updates mark the visit new
// again for Data API readers.
import { createVisit, updateVisit, visits } from '../../domain/visits.js';
import { VisitInput, VisitItem } from '../../schemas/visits.js';
import { crudRoutes } from '../crud.js';

export default crudRoutes({
  path: '/visits/',
  def: visits,
  tag: 'visits',
  item: VisitItem,
  createBody: VisitInput,
  updateBody: VisitInput,
  methods: ['list', 'create', 'get', 'put', 'patch'],
  createResponse: 'record',
  // The visits screen opens newest first.
  firstOrdering: '-started_date',
  create: createVisit,
  update: updateVisit,
});
