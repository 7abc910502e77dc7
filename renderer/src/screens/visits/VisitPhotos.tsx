// The visit's photos: with the products found on them once recognised, as taken until then.
import type { Annotation, DataVisit, Report, Sku } from '../../api/types';
import { ApiImage } from '../../components/ApiImage';
import { PhotoBoxes } from './PhotoBoxes';
import { ReportStatus } from './ReportStatus';
import type { SkuColours } from './skuColours';
import type { ScenePhoto } from './visitPhotos';

export function VisitPhotos({
  photos,
  report,
  dataVisit,
  skuById,
  colourOf,
  onReview,
  onReportError,
}: {
  photos: readonly ScenePhoto[];
  /** The REALOGRAM report, for its state. */
  report: Report | undefined;
  dataVisit: DataVisit | null;
  skuById: Map<string, Sku>;
  colourOf: SkuColours;
  /** Starts review mode; absent while there is nothing to review. */
  onReview: (() => void) | null;
  onReportError(error: { annotation: Annotation; image: string; scene: string | null }): void;
}) {
  return (
    <section aria-labelledby="photos-title" className="visit-photos">
      <header className="screen-header">
        <h3 id="photos-title">Photos</h3>
        {onReview && (
          <button type="button" className="primary" onClick={onReview}>
            Review boxes
          </button>
        )}
      </header>
      <ReportStatus type="REALOGRAM" report={report} />
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
      {photos.map(({ photo, scene }, i) => (
        <PhotoBoxes
          key={`${scene}-${photo.image}`}
          photo={photo}
          index={i}
          skuById={skuById}
          colourOf={colourOf}
          onReportError={(annotation, image) => onReportError({ annotation, image, scene })}
        />
      ))}
    </section>
  );
}
