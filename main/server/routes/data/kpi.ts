// /api/data/v1.0/kpi/
import { dataKpis } from '../../domain/data-api.js';
import { DataKpi } from '../../schemas/data-api.js';
import { dataReadRoutes } from './read-only.js';

export default dataReadRoutes({ path: '/kpi/', view: dataKpis, item: DataKpi });
