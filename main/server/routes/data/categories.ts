// /api/data/v1.0/categories/
import { dataCategories } from '../../domain/data-api.js';
import { DataCatalog } from '../../schemas/data-api.js';
import { dataReadRoutes } from './read-only.js';

export default dataReadRoutes({ path: '/categories/', view: dataCategories, item: DataCatalog });
