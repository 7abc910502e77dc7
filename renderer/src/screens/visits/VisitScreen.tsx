// A visit as its reviewer sees it: each photo with the products found, facing counts, planogram
// compliance, the must-have checklist, the panorama and KPI values. Reports appear as they become
// ready; errors in them can be reported back, and the visit acknowledged. Only what the reports name
// is fetched: their SKUs by id, the records of their must-have list, their KPIs by id.
import { useCallback, useEffect, useMemo, useState } from 'react';
import { acknowledgeVisit, getKpi, getOne, listAll } from '../../api/endpoints';
import { describeError } from '../../api/errors';
import {
  REPORT_TYPES,
  type Annotation,
  type DataVisit,
  type FacingCount,
  type Kpi,
  type MhlCompliance,
  type MhlRecord,
  type Panorama,
  type PlanogramCompliance,
  type Realogram,
  type Report,
  type ReportType,
  type ShareOfSpace,
  type Visit,
} from '../../api/types';
import { ApiImage } from '../../components/ApiImage';
import { Empty, ErrorMessage, Loading } from '../../components/StateMessage';
import { db } from '../../db/database';
import { hrefFor } from '../../navigation/routes';
import { useSession } from '../../stores/session';
import { skuDirectory, useSkus } from '../../stores/skuDirectory';
import { pendingCount, realogramsByScene, visitReportsStore } from '../../stores/visitReports';
import { percent } from './complianceGrid';
import { REPORT_LABEL } from './reportLabels';
import { ComplianceView } from './ComplianceView';
import { findDataVisit, kpiValuesOf } from './dataVisit';
import { skusNamed } from './reportSkus';
import { PhotoBoxes } from './PhotoBoxes';
import { skuColours } from './skuColours';
import { OosReasonDialog, RecognitionErrorDialog } from './VisitFeedback';
import { mayLeave } from '../../navigation/leaveGuard';
import { ReviewPanel } from './review/ReviewPanel';
import { FacingTable } from './FacingTable';


export function VisitScreen({ id }: { id: string }) {
  const api = useSession((s) => s.api);
  const [visit, setVisit] = useState<Visit | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [dataVisit, setDataVisit] = useState<DataVisit | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [ackError, setAckError] = useState<string | null>(null);
  const [boxError, setBoxError] = useState<{ annotation: Annotation; image: string; scene: string | null } | null>(null);
  const [oos, setOos] = useState<string | null>(null);
  const [knownScene, setKnownScene] = useState<string | null>(null);
  const [kpiDefinitions, setKpiDefinitions] = useState<Record<string, Kpi>>({});
  const [mhlRecords, setMhlRecords] = useState<MhlRecord[]>([]);
  // The scenes being reviewed, fixed when review starts: a scene recognised meanwhile must not reload
  // the panel (and drop unsaved corrections).
  const [reviewing, setReviewing] = useState<string[] | null>(null);
  const { reports, all: allReports, loaded, error: reportsError } = visitReportsStore();
  const skuById = useSkus(useMemo(() => skusNamed(allReports, mhlRecords), [allReports, mhlRecords]));

  const load = useCallback(() => {
    setLoadError(null);
    getOne(api, 'visits', id).then(setVisit, (e) => setLoadError(describeError(e)));
  }, [api, id]);
  useEffect(load, [load]);
  useEffect(() => visitReportsStore.getState().watch(api, id), [api, id]);
  // The SKUs the reports name are asked for the moment the reports arrive, not once the page has
  // rendered them with their ids: the names are what the first rows wait for.
  useEffect(() => visitReportsStore.subscribe((s) => skuDirectory.getState().request(api, skusNamed(s.all, []))), [api]);
  useEffect(() => {
    void db.recognitions
      .where('visit')
      .equals(id)
      .sortBy('startedAt')
      .then((r) => setKnownScene(r.at(-1)?.scene ?? null))
      .catch(() => undefined);
  }, [id]);
  const pending = pendingCount(reports);
  // KPI values (and KPIs themselves, the first time) are computed with the reports: read them again
  // whenever a report settles.
  useEffect(() => {
    findDataVisit(api, id).then(setDataVisit, () => undefined);
  }, [api, id, pending]);
  // The KPIs the values refer to, each read once by id.
  const kpiIds = [...new Set(kpiValuesOf(dataVisit).map((k) => String(k.kpi)))].filter((k) => !(k in kpiDefinitions));
  const kpiKey = kpiIds.sort().join(',');
  useEffect(() => {
    for (const kpi of kpiKey ? kpiKey.split(',') : [])
      getKpi(api, kpi).then((d) => setKpiDefinitions((all) => ({ ...all, [kpi]: d })), () => undefined);
  }, [api, kpiKey]);
  // The records of the must-have list the report checked (their names and SKUs), not every list's.
  const mhlId = reports.MHL_COMPLIANCE?.status === 'READY' ? ((reports.MHL_COMPLIANCE.json as MhlCompliance | null)?.musthavelist ?? null) : null;
  useEffect(() => {
    if (!mhlId) return;
    listAll(api, 'mhl_record', { musthavelist: mhlId }).then(setMhlRecords, () => undefined);
  }, [api, mhlId]);

  // The scene errors are reported against: from a report, else the one this computer started, else
  // the newest the Data API lists for the visit.
  const scene =
    (Object.values(reports).find((r) => r?.scene)?.scene as string | undefined) ??
    knownScene ??
    dataVisit?.scenes?.at(-1)?.id ??
    null;
  // Every scene of the visit with a recognition result, oldest first: what review mode corrects.
  const reviewScenes = [...new Set(realogramsByScene(allReports).filter((r) => r.status === 'READY' && r.scene).map((r) => r.scene as string))];
  const onReviewSaved = useCallback(
    (message: string) => {
      setNotice(message);
      void visitReportsStore.getState().refresh();
    },
    [],
  );
  const name = (sku: string | null) => (sku ? (skuById.get(sku)?.name ?? sku) : 'Unknown products');
  const ready = <J,>(t: ReportType) => (reports[t]?.status === 'READY' ? (reports[t] as Report<J>).json : null);

  if (loadError) return <ErrorMessage message={loadError} onRetry={load} />;
  if (!visit) return <Loading what="visit" />;

  // Photos of every scene of the visit, each with the scene its boxes belong to.
  const photos = realogramsByScene(allReports)
    .filter((r) => r.status === 'READY' && r.json)
    .flatMap((r) => (r.json as Realogram).map((photo) => ({ photo, scene: r.scene ?? scene })));
  const facings = ready<FacingCount>('FACING_COUNT');
  const compliance = ready<PlanogramCompliance>('PLANOGRAM_COMPLIANCE');
  const mhl = ready<MhlCompliance>('MHL_COMPLIANCE');
  const panorama = ready<Panorama>('PANORAMA');
  const share = ready<ShareOfSpace>('SHARE_OF_SPACE');
  const requested = REPORT_TYPES.filter((t) => reports[t]);
  const kpis = kpiValuesOf(dataVisit);
  const failed = requested.filter((t) => reports[t]?.status === 'ERROR').length;
  const colourOf = skuColours([
    ...photos.flatMap(({ photo }) => photo.annotations.map((a) => a.sku_id)),
    ...(facings ?? []).map((f) => f.sku_id),
  ]);
  const errorOf = (t: ReportType) =>
    reports[t]?.status === 'ERROR' ? <ErrorMessage message={`${REPORT_LABEL[t]} failed: ${reports[t]?.error ?? 'unknown error'}`} /> : null;
  const waiting = (t: ReportType) =>
    reports[t]?.status === 'NOT_READY' ? (
      <p className="state state-loading" role="status">
        Computing {REPORT_LABEL[t].toLowerCase()}…
      </p>
    ) : null;

  return (
    <section aria-labelledby="visit-title" className="visit-screen">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <a href={hrefFor({ screen: 'visits' })}>Visits</a> / {visit.shop_name || visit.shop || visit.id}
      </nav>
      <header className="screen-header">
        <h2 id="visit-title">Visit {visit.shop_name || visit.shop ? `at ${visit.shop_name || visit.shop}` : visit.id.slice(0, 8)}</h2>
        <span className="muted">
          {visit.agent && `Agent ${visit.agent} · `}
          {visit.started_date && new Date(visit.started_date).toLocaleString()}
        </span>
        {dataVisit &&
          (dataVisit.is_new === false ? (
            <span className="badge badge-ok" role="status">
              Acknowledged
            </span>
          ) : (
            <button
              type="button"
              className="primary"
              onClick={async () => {
                setAckError(null);
                try {
                  await acknowledgeVisit(api, dataVisit.id);
                  setDataVisit(await findDataVisit(api, id));
                  setNotice('Visit acknowledged.');
                } catch (e) {
                  setAckError(describeError(e));
                }
              }}
            >
              Acknowledge visit
            </button>
          ))}
      </header>
      {ackError && <ErrorMessage message={ackError} />}
      {notice && (
        <p role="status" className="form-saved">
          {notice}
        </p>
      )}

      <section aria-label="Recognition progress" className="report-progress">
        {!loaded ? (
          <Loading what="reports" />
        ) : requested.length === 0 ? (
          <Empty>No recognition has been run for this visit.</Empty>
        ) : (
          <>
            <p role="status" aria-live="polite">
              {pending > 0
                ? `Recognition in progress: ${requested.length - pending} of ${requested.length} reports done`
                : failed > 0
                  ? `Recognition finished: ${requested.length - failed} reports ready, ${failed} failed`
                  : 'All reports ready'}
            </p>
            <progress max={requested.length} value={requested.length - pending} aria-label="Reports ready" />
            <ul className="report-chips">
              {requested.map((t) => (
                <li key={t} className={`chip chip-${reports[t]?.status.toLowerCase()}`}>
                  {REPORT_LABEL[t]}: {reports[t]?.status === 'READY' ? 'ready' : reports[t]?.status === 'ERROR' ? 'failed' : 'working…'}
                </li>
              ))}
            </ul>
          </>
        )}
        {reportsError && <ErrorMessage message={`Reports could not be read: ${reportsError}`} />}
      </section>

      {reviewing ? (
        <section aria-labelledby="review-title" className="visit-review">
          <h3 id="review-title">Review boxes</h3>
          <ReviewPanel scenes={reviewing} onSaved={onReviewSaved} onClose={() => mayLeave() && setReviewing(null)} />
        </section>
      ) : (
      <div className="visit-grid">
        <section aria-labelledby="photos-title" className="visit-photos">
          <header className="screen-header">
            <h3 id="photos-title">Photos</h3>
            {reviewScenes.length > 0 && (
              <button type="button" className="primary" onClick={() => setReviewing(reviewScenes)}>
                Review boxes
              </button>
            )}
          </header>
          {errorOf('REALOGRAM')}
          {waiting('REALOGRAM')}
          {/* Until products are found, the photos as taken (the Data API lists them per scene). */}
          {photos.length === 0 &&
            (dataVisit?.scenes ?? [])
              .flatMap((s) => s.images ?? [])
              .filter((img) => img.original_url)
              .map((img, i) => (
                <figure key={img.original_url} className="photo-boxes">
                  <figcaption>Photo {i + 1}</figcaption>
                  <ApiImage className="photo-plain" src={img.original_url!} alt={`Shelf photo ${i + 1}`} />
                </figure>
              ))}
          {photos.map(({ photo, scene: photoScene }, i) => (
            <PhotoBoxes
              key={`${photoScene}-${photo.image}`}
              photo={photo}
              index={i}
              skuById={skuById}
              colourOf={colourOf}
              onReportError={(annotation, image) => setBoxError({ annotation, image, scene: photoScene })}
            />
          ))}
        </section>

        <div className="visit-side">
          <section aria-labelledby="facings-title">
            <h3 id="facings-title">Facing counts</h3>
            {errorOf('FACING_COUNT')}
            {waiting('FACING_COUNT')}
            {facings &&
              (facings.length === 0 ? (
                <Empty>No products found.</Empty>
              ) : (
                <FacingTable label="Facing counts" rows={facings} nameOf={name} colourOf={colourOf} />
              ))}
          </section>

          {share && share.length > 0 && (
            <section aria-labelledby="share-title">
              <h3 id="share-title">Share of space</h3>
              <table aria-label="Share of space">
                <thead>
                  <tr>
                    <th scope="col">Product</th>
                    <th scope="col">Of count</th>
                    <th scope="col">Of width</th>
                  </tr>
                </thead>
                <tbody>
                  {share.map((s) => (
                    <tr key={s.sku_id ?? 'unknown'}>
                      <td>{name(s.sku_id)}</td>
                      <td>{percent(s.share_of_count)}</td>
                      <td>{percent(s.share_of_space)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          )}

          <section aria-labelledby="kpi-title">
            <h3 id="kpi-title">KPI values</h3>
            {kpis.length === 0 ? (
              <p className="muted">{pending > 0 ? 'KPI values follow the reports.' : 'No KPI values for this visit.'}</p>
            ) : (
              <table aria-label="KPI values">
                <tbody>
                  {kpis.map((k, i) => {
                    const definition = kpiDefinitions[String(k.kpi)];
                    return (
                      <tr key={i}>
                        <th scope="row">{definition?.name ?? `KPI ${k.kpi}`}</th>
                        <td>
                          {Math.round(k.value * 1000) / 1000} {definition?.units ?? ''}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            )}
          </section>
        </div>
      </div>
      )}

      {reports.PLANOGRAM_COMPLIANCE && (
        <section aria-labelledby="compliance-title">
          <h3 id="compliance-title">Planogram compliance</h3>
          {errorOf('PLANOGRAM_COMPLIANCE')}
          {waiting('PLANOGRAM_COMPLIANCE')}
          {compliance && <ComplianceView report={compliance} skuById={skuById} onOutOfStock={setOos} />}
        </section>
      )}

      {reports.MHL_COMPLIANCE && (
        <section aria-labelledby="mhl-check-title">
          <h3 id="mhl-check-title">Must-have list</h3>
          {errorOf('MHL_COMPLIANCE')}
          {waiting('MHL_COMPLIANCE')}
          {mhl && (
            <>
              <p className="kpi-line">
                <strong>{percent(mhl.compliance)}</strong> of the must-have products are on the shelf.
              </p>
              <ul className="mhl-checklist" aria-label="Must-have checklist">
                {mhl.records.map((r) => {
                  const record = mhlRecords.find((m) => m.id === r.mhl_record_id);
                  const label = record?.name ?? name(record?.sku ?? null) ?? r.mhl_record_id;
                  return (
                    <li key={r.mhl_record_id} className={r.compliant ? 'mhl-ok' : 'mhl-missing'}>
                      <span aria-hidden="true">{r.compliant ? '✔' : '✘'}</span> {label}: {r.compliant ? `present${r.found_sku_id ? ` (${name(r.found_sku_id)})` : ''}` : 'missing'}
                      {!r.compliant && record?.sku && (
                        <button type="button" className="link" onClick={() => setOos(record.sku!)} aria-label={`Out-of-stock reason for ${label}`}>
                          Out of stock…
                        </button>
                      )}
                    </li>
                  );
                })}
              </ul>
            </>
          )}
        </section>
      )}

      {reports.PANORAMA && (
        <section aria-labelledby="panorama-title">
          <h3 id="panorama-title">Panorama</h3>
          {errorOf('PANORAMA')}
          {waiting('PANORAMA')}
          {panorama && (
            <figure className="panorama">
              <ApiImage src={panorama.url} alt="Panorama of the shelf" />
              <figcaption>
                {panorama.stitched ? `${panorama.images.length} photos stitched` : 'Photos could not be stitched; shown side by side'} ({panorama.width}×
                {panorama.height})
              </figcaption>
            </figure>
          )}
        </section>
      )}

      {boxError && (
        <RecognitionErrorDialog
          scene={boxError.scene}
          annotation={boxError.annotation}
          image={boxError.image}
          skuById={skuById}
          onClose={(done) => {
            setBoxError(null);
            if (done) setNotice(done);
          }}
        />
      )}
      {oos && (
        <OosReasonDialog
          scene={scene}
          sku={oos}
          skuName={name(oos)}
          onClose={(done) => {
            setOos(null);
            if (done) setNotice(done);
          }}
        />
      )}
    </section>
  );
}
