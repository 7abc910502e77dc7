// A visit as its reviewer sees it: each photo with the products found, facing counts, planogram
// compliance, the must-have checklist, the panorama and KPI values, and once reviewed (here or on a
// supervisor's laptop, then synced) who reviewed it and what the review changed. Reports appear as they become
// ready; errors in them can be reported back, and the visit acknowledged. Only what the reports name
// is fetched: their SKUs by id, the records of their must-have list, their KPIs by id.
import { useCallback, useMemo, useState } from 'react';
import type { Annotation, FacingCount, MhlCompliance, Panorama, PlanogramCompliance, PriceComplianceBody, PriceTagsImage, ShareOfSpace } from '../../api/types';
import { ErrorMessage, Loading } from '../../components/StateMessage';
import { mayLeave } from '../../navigation/leaveGuard';
import { useSkus } from '../../stores/skuDirectory';
import { visitReportsStore } from '../../stores/visitReports';
import { ComplianceView } from './ComplianceView';
import { kpiValuesOf } from './dataVisit';
import { MhlChecklist } from './MhlChecklist';
import { PanoramaView } from './PanoramaView';
import { ReportProgress } from './ReportProgress';
import { ReportSection } from './ReportStatus';
import { skusNamed } from './reportSkus';
import { ReviewOutcome } from './ReviewOutcome';
import { ReviewPanel } from './review/ReviewPanel';
import { PriceTagPhotos } from './review/PriceTagReview';
import { PriceComplianceView } from './PriceComplianceView';
import { skuColours } from './skuColours';
import { useKpiDefinitions } from './useKpiDefinitions';
import { useMustHaveRecords } from './useMustHaveRecords';
import { useDataVisit, useVisit } from './useVisit';
import { useVisitReports } from './useVisitReports';
import { useVisitScene } from './useVisitScene';
import { OosReasonDialog, RecognitionErrorDialog } from './VisitFeedback';
import { FacingCounts, KpiValues, ShareOfSpaceTable } from './VisitFigures';
import { VisitHeader } from './VisitHeader';
import { photosOf, reviewScenesOf } from './visitPhotos';
import { VisitPhotos } from './VisitPhotos';
import { VisitPhotoQuality } from './VisitPhotoQuality';

export function VisitScreen({ id }: { id: string }) {
  const { visit, loadError, reload } = useVisit(id);
  const reports = useVisitReports(id);
  const { dataVisit, acknowledge } = useDataVisit(id, reports.pending);
  const mhl = reports.ready<MhlCompliance>('MHL_COMPLIANCE');
  const mhlRecords = useMustHaveRecords(mhl?.musthavelist ?? null);
  const skuById = useSkus(useMemo(() => skusNamed(reports.all, mhlRecords), [reports.all, mhlRecords]));
  const scene = useVisitScene(id, reports.byType, dataVisit);
  const kpis = kpiValuesOf(dataVisit);
  const kpiDefinitions = useKpiDefinitions(kpis);
  const [notice, setNotice] = useState<string | null>(null);
  const [boxError, setBoxError] = useState<{ annotation: Annotation; image: string; scene: string | null } | null>(null);
  const [oos, setOos] = useState<string | null>(null);
  // The scenes being reviewed, fixed when review starts: a scene recognised meanwhile must not reload
  // the panel (and drop unsaved corrections).
  const [reviewing, setReviewing] = useState<string[] | null>(null);
  const onReviewSaved = useCallback((message: string) => {
    setNotice(message);
    void visitReportsStore.getState().refresh();
  }, []);
  const name = (sku: string | null) => (sku ? (skuById.get(sku)?.name ?? sku) : 'Unknown products');
  const closeDialog = (close: () => void) => (done: string | null) => {
    close();
    if (done) setNotice(done);
  };

  if (loadError) return <ErrorMessage message={loadError} onRetry={reload} />;
  if (!visit) return <Loading what="visit" />;

  const photos = photosOf(reports.all, scene);
  const reviewScenes = reviewScenesOf(reports.all);
  const facings = reports.ready<FacingCount>('FACING_COUNT');
  const compliance = reports.ready<PlanogramCompliance>('PLANOGRAM_COMPLIANCE');
  const panorama = reports.ready<Panorama>('PANORAMA');
  const priceCompliance = reports.ready<PriceComplianceBody>('PRICE_COMPLIANCE');
  const priceTags = reports.ready<PriceTagsImage[]>('PRICE_TAGS');
  const colourOf = skuColours([...photos.flatMap(({ photo }) => photo.annotations.map((a) => a.sku_id)), ...(facings ?? []).map((f) => f.sku_id)]);
  const { byType } = reports;

  return (
    <section aria-labelledby="visit-title" className="visit-screen">
      <VisitHeader
        visit={visit}
        dataVisit={dataVisit}
        notice={notice}
        onAcknowledge={async () => {
          await acknowledge();
          setNotice('Visit acknowledged.');
        }}
      />
      <ReportProgress reports={reports} />

      {reviewing ? (
        <section aria-labelledby="review-title" className="visit-review">
          <h3 id="review-title">Review boxes</h3>
          <ReviewPanel scenes={reviewing} onSaved={onReviewSaved} onClose={() => mayLeave() && setReviewing(null)} />
        </section>
      ) : (
        <div className="visit-grid">
          <VisitPhotos
            photos={photos}
            report={byType.REALOGRAM}
            dataVisit={dataVisit}
            skuById={skuById}
            colourOf={colourOf}
            onReview={reviewScenes.length > 0 ? () => setReviewing(reviewScenes) : null}
            onReportError={setBoxError}
          />
          <div className="visit-side">
            <VisitPhotoQuality visit={id} pending={reports.pending} />
            <FacingCounts report={byType.FACING_COUNT} facings={facings} nameOf={name} colourOf={colourOf} />
            <ShareOfSpaceTable share={reports.ready<ShareOfSpace>('SHARE_OF_SPACE')} nameOf={name} />
            <KpiValues kpis={kpis} definitions={kpiDefinitions} pending={reports.pending > 0} />
          </div>
        </div>
      )}

      {!reviewing && <ReviewOutcome reports={reports.all} moderation={visit.moderation} nameOf={name} colourOf={colourOf} />}

      <ReportSection id="compliance-title" title="Planogram compliance" type="PLANOGRAM_COMPLIANCE" report={byType.PLANOGRAM_COMPLIANCE}>
        {compliance && <ComplianceView report={compliance} skuById={skuById} onOutOfStock={setOos} />}
      </ReportSection>
      <ReportSection id="mhl-check-title" title="Must-have list" type="MHL_COMPLIANCE" report={byType.MHL_COMPLIANCE}>
        {mhl && <MhlChecklist report={mhl} records={mhlRecords} nameOf={name} onOutOfStock={setOos} />}
      </ReportSection>
      <ReportSection id="price-compliance-title" title="Price compliance" type="PRICE_COMPLIANCE" report={byType.PRICE_COMPLIANCE}>
        {priceCompliance && <PriceComplianceView report={priceCompliance} nameOf={name} />}
      </ReportSection>
      <ReportSection id="price-tags-title" title="Price tags" type="PRICE_TAGS" report={byType.PRICE_TAGS}>
        {priceTags && (
          <PriceTagPhotos photos={priceTags} compliance={priceCompliance} scene={byType.PRICE_TAGS?.scene ?? null} nameOf={name} onSaved={onReviewSaved} />
        )}
      </ReportSection>
      <ReportSection id="panorama-title" title="Panorama" type="PANORAMA" report={byType.PANORAMA}>
        {panorama && <PanoramaView panorama={panorama} />}
      </ReportSection>

      {boxError && (
        <RecognitionErrorDialog
          scene={boxError.scene}
          annotation={boxError.annotation}
          image={boxError.image}
          skuById={skuById}
          onClose={closeDialog(() => setBoxError(null))}
        />
      )}
      {oos && <OosReasonDialog scene={scene} sku={oos} skuName={name(oos)} onClose={closeDialog(() => setOos(null))} />}
    </section>
  );
}
