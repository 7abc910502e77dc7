// Every migration, in the order it is applied. Names sort in that order too (Kysely checks it);
// add new ones at the end with the next number.
import type { Migration } from 'kysely';
import { core } from './0001-core.js';
import { recognition } from './0010-recognition.js';
import { agents } from './0011-agents.js';
import { displayChoice } from './0013-display-choice.js';
import { syncTables } from './0014-sync.js';
import { syncUploads } from './0015-sync-uploads.js';
import { finiteNumbers } from './0016-finite-numbers.js';
import { apiKeyRoles } from './0017-api-key-roles.js';
import { review } from './0018-review.js';
import { syncPhotos } from './0019-sync-photos.js';
import { apiKeyVersion } from './0020-api-key-version.js';
import { photoQuality } from './0021-photo-quality.js';
import { screenOrders } from './0022-screen-orders.js';
import { outboxRecords } from './0023-outbox-records.js';
import { reviewReferences } from './0025-review-references.js';
import { overview } from './0026-overview.js';
import { tableVersions } from './0027-table-versions.js';
import { priceList } from './0028-price-list.js';
import { priceTagReviews } from './0029-price-tag-reviews.js';
import { overviewProjection } from './0030-overview-projection.js';
import { overviewPrices } from './0031-overview-prices.js';

export const migrations: Record<string, Migration> = {
  '0001-core': core,
  '0010-recognition': recognition,
  '0011-agents': agents,
  '0013-display-choice': displayChoice,
  '0014-sync': syncTables,
  '0015-sync-uploads': syncUploads,
  '0016-finite-numbers': finiteNumbers,
  '0017-api-key-roles': apiKeyRoles,
  '0018-review': review,
  '0019-sync-photos': syncPhotos,
  '0020-api-key-version': apiKeyVersion,
  '0021-photo-quality': photoQuality,
  '0022-screen-orders': screenOrders,
  '0023-outbox-records': outboxRecords,
  '0025-review-references': reviewReferences,
  '0026-overview': overview,
  '0027-table-versions': tableVersions,
  '0028-price-list': priceList,
  '0029-price-tag-reviews': priceTagReviews,
  '0030-overview-projection': overviewProjection,
  '0031-overview-prices': overviewPrices,
};
