// /api/data/v1.0/tasks/ (tasks have no write endpoint: they arrive by master-data import).
import { dataTasks } from '../../domain/data-api.js';
import { DataTask } from '../../schemas/data-api.js';
import { dataReadRoutes } from './read-only.js';

export default dataReadRoutes({ path: '/tasks/', view: dataTasks, item: DataTask });
