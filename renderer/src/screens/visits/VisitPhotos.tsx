// The visit's photos: with the products found on them once recognised, as taken until then.
import type { Annotation, DataVisit, Report, Sku } from '../../api/types';
import { ApiImage } from '../../components/ApiImage';
import { BayPicture } from './BayPicture';
import { PhotoBoxes } from './PhotoBoxes';
import { ReportStatus } from './ReportStatus';
import type { SkuColours } from './skuColours';
import { bayNotices, type ScenePhoto } from './visitPhotos';

/** The photos by scene, each with its number among the visit's photos. */
function scenesOf(photos: readonly ScenePhoto[]) {
  const out: { scene: string | null; items: { photo: ScenePhoto['photo']; index: number }[] }[] = [];
  photos.forEach(({ photo, scene }, index) => {
    const last = out.at(-1);
    if (last && last.scene === scene) last.items.push({ photo, index });
    else out.push({ scene, items: [{ photo, index }] });
  });
  return out;
}

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
      {/* A scene of several photos is one bay: say which photos were joined and, in words, which not. */}
      {bayNotices(photos).map((n) => (
        <div key={n.scene ?? ''} className="bay-notice">
          {n.joined.length > 1 && (
            <p className="muted">
              Photos {n.joined.join(', ')} were joined into one bay: a product seen in two photos is counted once (its other views are dotted).
            </p>
          )}
          {n.notJoined.map((m) => (
            <p key={m} role="alert" className="bay-not-joined">
              {m} It is counted on its own.
            </p>
          ))}
        </div>
      ))}
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
      {scenesOf(photos).map(({ scene, items }) => {
        const boxes = (some: typeof items) =>
          some.map(({ photo, index }) => (
            <PhotoBoxes
              key={`${scene}-${photo.image}`}
              photo={photo}
              index={index}
              skuById={skuById}
              colourOf={colourOf}
              onReportError={(annotation, image) => onReportError({ annotation, image, scene })}
            />
          ));
        const joined = items.filter(({ photo }) => photo.joined === true);
        if (joined.length < 2) return boxes(items);
        // A bay: one picture with each facing once; its photos, with every view, a click away. A photo
        // not joined is counted on its own and stays in view.
        return (
          <div key={`bay-${scene}`} className="bay-scene">
            <BayPicture photos={items.map((x) => x.photo)} numbers={items.map((x) => x.index + 1)} skuById={skuById} colourOf={colourOf} />
            <details className="bay-single-photos">
              <summary>The single photos of the bay ({joined.length})</summary>
              {boxes(joined)}
            </details>
            {boxes(items.filter(({ photo }) => photo.joined !== true))}
          </div>
        );
      })}
    </section>
  );
}
