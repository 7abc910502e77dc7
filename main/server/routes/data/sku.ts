// /api/data/v1.0/sku/
import { dataSkus } from '../../domain/data-api.js';
import { DataSku } from '../../schemas/data-api.js';
import { dataReadRoutes } from './read-only.js';

export default dataReadRoutes({ path: '/sku/', view: dataSkus, item: DataSku });
