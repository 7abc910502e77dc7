// Paths of the three API families the renderer uses, one function per call it makes.
import type { ApiClient, Query } from './client';
import { ApiError } from './errors';
import type {
  AnnotationsCorrection,
  AnnotationsSavedBody,
  Correction,
  ApiKeyRecord,
  AppInfo,
  DataVisit,
  Display,
  Kpi,
  Mhl,
  MhlRecord,
  NamedRecord,
  Price,
  PriceBody,
  PriceTagsCorrection,
  PriceTagsSavedBody,
  ScenePriceTags,
  Planogram,
  PhotoOverlap,
  PlanogramRecord,
  QualityThresholds,
  RecognizeRequest,
  RecognizeResponse,
  Report,
  SceneAnnotations,
  SceneMessage,
  Sku,
  SkuImage,
  SkuSuggestions,
  SuggestionsBody,
  SyncSettings,
  SyncSettingsBody,
  SyncStatus,
  Upload,
  Visit,
  VisitMarks,
  VisitQuality,
} from './types';

export const V15 = '/api/v1.5';
export const DATA = '/api/data/v1.0';
export const APP = '/api/app/v1';

/** The v1.5 collections with plain CRUD, by their path segment. */
export const COLLECTIONS = {
  brands: 'brands',
  categories: 'categories',
  manufacturers: 'manufacturers',
  sku: 'sku',
  displays: 'displays',
  planograms: 'planograms',
  planogram_records: 'planogram_records',
  mhl: 'mhl',
  mhl_record: 'mhl_record',
  visits: 'visits',
} as const;
export type Collection = keyof typeof COLLECTIONS;

export interface CollectionRecord {
  brands: NamedRecord;
  categories: NamedRecord;
  manufacturers: NamedRecord;
  sku: Sku;
  displays: Display;
  planograms: Planogram;
  planogram_records: PlanogramRecord;
  mhl: Mhl;
  mhl_record: MhlRecord;
  visits: Visit;
}

const item = (c: Collection, id: string) => `${V15}/${COLLECTIONS[c]}/${encodeURIComponent(id)}/`;
const list = (c: Collection) => `${V15}/${COLLECTIONS[c]}/`;

export function listAll<C extends Collection>(api: ApiClient, c: C, query?: Query, signal?: AbortSignal) {
  return api.all<CollectionRecord[C]>(list(c), query, signal);
}

/** One page of a list: `limit`, `offset`, `search`, `ordering` and the collection's filters. */
export function listPage<C extends Collection>(api: ApiClient, c: C, query?: Query, signal?: AbortSignal) {
  return api.page<CollectionRecord[C]>(list(c), query, signal);
}

/** A table's server source over a collection, with fixed filters (`?display=...`). */
export function collectionSource<C extends Collection>(api: ApiClient, c: C, filters: Query = {}, version = 0) {
  return {
    key: `${c}?${JSON.stringify(filters)}`,
    version,
    load: (query: Query, signal: AbortSignal) => listPage(api, c, { ...query, ...filters }, signal),
  };
}

export function getOne<C extends Collection>(api: ApiClient, c: C, id: string, signal?: AbortSignal) {
  return api.get<CollectionRecord[C]>(item(c, id), undefined, signal);
}

export function createOne<C extends Collection>(api: ApiClient, c: C, body: Partial<CollectionRecord[C]>) {
  return api.post<{ result?: string; id?: string } & Partial<CollectionRecord[C]>>(list(c), body);
}

export function updateOne<C extends Collection>(
  api: ApiClient,
  c: C,
  id: string,
  body: Partial<CollectionRecord[C]>,
) {
  return api.patch<CollectionRecord[C]>(item(c, id), body);
}

export function deleteOne(api: ApiClient, c: Collection, id: string) {
  return api.delete(item(c, id));
}

// Uploads and SKU reference images.
export function uploadImage(api: ApiClient, file: Blob, name: string) {
  const form = new FormData();
  form.append('datafile', file, name);
  return api.postForm<Upload>(`${V15}/uploads/`, form);
}

export function getUpload(api: ApiClient, id: string) {
  return api.get<Upload>(`${V15}/uploads/${encodeURIComponent(id)}/`);
}

/** How the photo `next` overlaps `previous` (both uploaded), as the bay's join would find it. */
export function photoOverlap(api: ApiClient, previous: string, next: string) {
  return api.post<PhotoOverlap>(`${V15}/uploads/overlap/`, { previous, next });
}

export function listSkuImages(api: ApiClient, sku: string) {
  return api.all<SkuImage>(`${item('sku', sku)}images/`);
}

/** The first reference image of each of these SKUs that has one: a screen's pictures in one request. */
export function listFirstSkuImages(api: ApiClient, skus: readonly string[]) {
  return api.page<SkuImage>(`${V15}/sku_images/`, { sku__in: skus.join(','), first: true, limit: skus.length });
}

export function addSkuImage(api: ApiClient, sku: string, file: Blob, name: string) {
  const form = new FormData();
  form.append('image', file, name);
  return api.postForm<SkuImage>(`${item('sku', sku)}images/`, form);
}

export function removeSkuImage(api: ApiClient, sku: string, imageId: string) {
  return api.delete(`${item('sku', sku)}images/${encodeURIComponent(imageId)}/`);
}

// Recognition and reports.
export function recognize(api: ApiClient, body: RecognizeRequest) {
  return api.post<RecognizeResponse>(`${V15}/recognize/`, body);
}

export function listReports(api: ApiClient, query: Query) {
  return api.all<Report>(`${V15}/reports/`, query);
}

export function getReport(api: ApiClient, id: string) {
  return api.get<Report>(`${V15}/reports/${encodeURIComponent(id)}/`);
}

export function reportRecognitionError(
  api: ApiClient,
  body: { sku_gid: string; scene: string; message?: string; images?: string[] },
) {
  return api.post<{ recognition_error_id: string }>(`${V15}/recognition_error/`, body);
}

export function listRecognitionErrors(api: ApiClient, scene: string) {
  return api.all<SceneMessage>(`${V15}/recognition_error/`, { scene });
}

// Review: a scene's boxes per photo, and their replacement guarded by each photo's version.
export function getAnnotations(api: ApiClient, scene: string) {
  return api.get<SceneAnnotations>(`${V15}/scenes/${encodeURIComponent(scene)}/annotations/`);
}

/** The saved reviews of a scene's photos, oldest first. */
export function listCorrections(api: ApiClient, scene: string) {
  return api.all<Correction>(`${V15}/scenes/${encodeURIComponent(scene)}/corrections/`);
}

export function saveAnnotations(api: ApiClient, scene: string, body: AnnotationsCorrection) {
  return api.put<AnnotationsSavedBody>(`${V15}/scenes/${encodeURIComponent(scene)}/annotations/`, body);
}

/** The identifier's best SKUs for a box drawn or moved by the reviewer. */
export function suggestSkus(api: ApiClient, scene: string, body: SuggestionsBody, signal?: AbortSignal) {
  return api.request<SkuSuggestions>('POST', `${V15}/scenes/${encodeURIComponent(scene)}/suggestions/`, { json: body, signal });
}

export function recordOosReason(
  api: ApiClient,
  body: { sku_gid: string; scene: string; reason: string; message?: string; images?: string[] },
) {
  return api.post<{ oos_reason_id: string }>(`${V15}/oos_reason/`, body);
}

// Data API: the visit's "new" flag, acknowledgement and KPI values.
export function listDataVisits(api: ApiClient, query: Query) {
  return api.all<DataVisit>(`${DATA}/visits/`, query);
}

export function getDataVisit(api: ApiClient, id: number) {
  return api.get<DataVisit>(`${DATA}/visits/${id}/`);
}

export function acknowledgeVisit(api: ApiClient, id: number) {
  return api.post<unknown>(`${DATA}/visits/${id}/ack/`);
}

export function getKpi(api: ApiClient, id: number | string) {
  return api.get<Kpi>(`${DATA}/kpi/${encodeURIComponent(String(id))}/`);
}

// The app's own endpoints.
export function listKeys(api: ApiClient) {
  return api.all<ApiKeyRecord>(`${APP}/keys/`);
}

export function createKey(api: ApiClient, name: string, role: ApiKeyRecord['role']) {
  return api.post<ApiKeyRecord>(`${APP}/keys/`, { name, role });
}

export function revokeKey(api: ApiClient, id: string) {
  return api.delete(`${APP}/keys/${encodeURIComponent(id)}/`);
}

export function getInfo(api: ApiClient) {
  return api.get<AppInfo>(`${APP}/info/`);
}

export function getSyncStatus(api: ApiClient, signal?: AbortSignal) {
  return api.get<SyncStatus>(`${APP}/sync/status/`, undefined, signal);
}

/** One sync round now; answers the status once it ends. */
export function runSync(api: ApiClient) {
  return api.post<SyncStatus>(`${APP}/sync/run/`);
}

export function getSyncSettings(api: ApiClient) {
  return api.get<SyncSettings>(`${APP}/sync/settings/`);
}

export function saveSyncSettings(api: ApiClient, body: SyncSettingsBody) {
  return api.put<SyncSettings>(`${APP}/sync/settings/`, body);
}

// Photo quality: the checks' thresholds and a visit's photos judged against them.
export function getQualityThresholds(api: ApiClient) {
  return api.get<QualityThresholds>(`${APP}/photo_quality/settings/`);
}
export function saveQualityThresholds(api: ApiClient, body: Partial<QualityThresholds>) {
  return api.patch<QualityThresholds>(`${APP}/photo_quality/settings/`, body);
}
export function getVisitQuality(api: ApiClient, visit: string) {
  return api.get<VisitQuality>(`${APP}/photo_quality/?visit=${encodeURIComponent(visit)}`);
}
export function getVisitMarks(api: ApiClient, visits: readonly string[]) {
  return api.get<VisitMarks>(`${APP}/photo_quality/marks/?visit__in=${visits.map(encodeURIComponent).join(',')}`);
}
export function getVisitsByMark(api: ApiClient, mark: 'fine' | 'check' | 'retake', signal?: AbortSignal) {
  return api.get<{ mark: string; visits: string[] }>(`${APP}/photo_quality/visits/`, { mark }, signal);
}

// The price list (/api/app/v1/prices/) and its import; the review of a scene's price tags.
const PRICES = `${APP}/prices/`;

/** A table's server source over the price list, with fixed filters (`?sku=`, `?shop=`). */
export function priceSource(api: ApiClient, filters: Query = {}, version = 0) {
  return {
    key: `prices?${JSON.stringify(filters)}`,
    version,
    load: (query: Query, signal: AbortSignal) => api.page<Price>(PRICES, { ...query, ...filters }, signal),
  };
}

export function createPrice(api: ApiClient, body: Partial<PriceBody>) {
  return api.post<Price>(PRICES, body);
}

export function updatePrice(api: ApiClient, id: string, body: Partial<PriceBody>) {
  return api.patch<Price>(`${PRICES}${encodeURIComponent(id)}/`, body);
}

export function deletePrice(api: ApiClient, id: string) {
  return api.delete(`${PRICES}${encodeURIComponent(id)}/`);
}

type ImportSummary = { created: Record<string, number>; updated: Record<string, number> };

/**
 * A price-list file through the master-data import, all rows or none: a CSV as it is, a JSON list of
 * rows as the document's `price_list` (a JSON document as it is).
 */
export async function importPriceFile(api: ApiClient, file: Blob, name: string): Promise<ImportSummary> {
  if (!name.toLowerCase().endsWith('.json')) {
    const form = new FormData();
    form.append('entity', 'prices');
    form.append('file', file, name);
    return api.postForm<ImportSummary>(`${APP}/import/`, form);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(await file.text());
  } catch (e) {
    throw new ApiError(400, `Malformed JSON: ${(e as Error).message}`);
  }
  return api.post<ImportSummary>(`${APP}/import/`, Array.isArray(parsed) ? { price_list: parsed } : parsed);
}

export function getPriceTags(api: ApiClient, scene: string) {
  return api.get<ScenePriceTags>(`${V15}/scenes/${encodeURIComponent(scene)}/price_tags/`);
}

export function savePriceTags(api: ApiClient, scene: string, body: PriceTagsCorrection) {
  return api.put<PriceTagsSavedBody>(`${V15}/scenes/${encodeURIComponent(scene)}/price_tags/`, body);
}
