// /api/data/v1.0/brands/ (and /brand/{id}/, the interface's other spelling).
import { dataBrands } from '../../domain/data-api.js';
import { DataCatalog } from '../../schemas/data-api.js';
import { dataReadRoutes } from './read-only.js';

export default dataReadRoutes({ path: '/brands/', view: dataBrands, item: DataCatalog, detailAliases: ['/brand/'] });
