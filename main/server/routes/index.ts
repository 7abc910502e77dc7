// Registers every route plugin under its API prefix, one line per resource family.
import type { FastifyInstance } from 'fastify';
import v15Brands from './v1_5/brands.js';
import v15Categories from './v1_5/categories.js';
import v15Manufacturers from './v1_5/manufacturers.js';
import v15Sku from './v1_5/sku.js';
import v15Displays from './v1_5/displays.js';
import v15Planograms from './v1_5/planograms.js';
import v15PlanogramRecords from './v1_5/planogram-records.js';
import v15Mhl from './v1_5/mhl.js';
import v15MhlRecords from './v1_5/mhl-records.js';
import v15Visits from './v1_5/visits.js';
import dataTasks from './data/tasks.js';
import dataVisits from './data/visits.js';
import dataCategories from './data/categories.js';
import dataBrands from './data/brands.js';
import dataKpi from './data/kpi.js';
import dataSku from './data/sku.js';
import dataMdImportStatus from './data/md-import-status.js';
import appImport from './app/import.js';
import appKeys from './app/keys.js';
import appInfo from './app/info.js';
import appAgents from './app/agents.js';
import appDevices from './app/devices.js';
import appSync from './app/sync.js';
import appSyncModels from './app/sync-models.js';
import appSyncPhotos from './app/sync-photos.js';
import v15Uploads from './v1_5/uploads.js';
import v15SkuImages from './v1_5/sku-images.js';
import v15Recognize from './v1_5/recognize.js';
import v15Reports from './v1_5/reports.js';
import v15SceneMessages from './v1_5/scene-messages.js';
import v15Annotations from './v1_5/annotations.js';
import v15PriceTags from './v1_5/price-tags.js';
import v15PhotoOverlap from './v1_5/photo-overlap.js';
import appWebhookDeliveries from './app/webhook-deliveries.js';
import appPhotoQuality from './app/photo-quality.js';
import appOverview from './app/overview.js';
import appPrices from './app/prices.js';

export const V15_PREFIX = '/api/v1.5';
export const DATA_PREFIX = '/api/data/v1.0';
export const APP_PREFIX = '/api/app/v1';

export async function registerRoutes(app: FastifyInstance): Promise<void> {
  // Image Recognition API v1.5: catalogs and master data
  await app.register(v15Brands, { prefix: V15_PREFIX });
  await app.register(v15Categories, { prefix: V15_PREFIX });
  await app.register(v15Manufacturers, { prefix: V15_PREFIX });
  await app.register(v15Sku, { prefix: V15_PREFIX });
  await app.register(v15Displays, { prefix: V15_PREFIX });
  await app.register(v15Planograms, { prefix: V15_PREFIX });
  await app.register(v15PlanogramRecords, { prefix: V15_PREFIX });
  await app.register(v15Mhl, { prefix: V15_PREFIX });
  await app.register(v15MhlRecords, { prefix: V15_PREFIX });
  await app.register(v15Visits, { prefix: V15_PREFIX });

  // Data API v1.0
  for (const plugin of [dataTasks, dataVisits, dataCategories, dataBrands, dataKpi, dataSku, dataMdImportStatus]) {
    await app.register(plugin, { prefix: DATA_PREFIX });
  }

  // The interface's other spellings of some addresses (section 9): by-id MHL and planogram-record
  // calls under /api/data/v1.5, the KPI example under /api/data/v1.1. Same handlers, same auth.
  await app.register(v15Mhl, { prefix: '/api/data/v1.5' });
  await app.register(v15PlanogramRecords, { prefix: '/api/data/v1.5' });
  await app.register(dataKpi, { prefix: '/api/data/v1.1' });

  // The app's own endpoints
  for (const plugin of [appImport, appKeys, appInfo, appAgents, appPrices]) await app.register(plugin, { prefix: APP_PREFIX });

  // Sync (docs/sync.md): devices and the protocol everywhere; photos and models are served by the central.
  for (const plugin of [appDevices, appSync]) await app.register(plugin, { prefix: APP_PREFIX });
  if (app.serverConfig.role === 'central') {
    await app.register(appSyncPhotos, { prefix: APP_PREFIX });
    await app.register(appSyncModels, { prefix: APP_PREFIX });
  }

  // The scene: uploads, reference images, /recognize, reports, messages, review, webhooks
  for (const plugin of [v15Uploads, v15PhotoOverlap, v15SkuImages, v15Recognize, v15Reports, v15SceneMessages, v15Annotations, v15PriceTags]) {
    await app.register(plugin, { prefix: V15_PREFIX });
  }
  await app.register(appWebhookDeliveries, { prefix: APP_PREFIX });
  await app.register(appPhotoQuality, { prefix: APP_PREFIX });
  await app.register(appOverview, { prefix: APP_PREFIX });
}
