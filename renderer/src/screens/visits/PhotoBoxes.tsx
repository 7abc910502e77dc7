// One photo of the visit with the products found on it: a box per product in its SKU's colour,
// unknown products dashed and marked "?", details of a box on hover, focus or click.
import { useEffect, useState } from 'react';
import { getUpload } from '../../api/endpoints';
import { describeError } from '../../api/errors';
import type { Annotation, RealogramImage, Sku, Upload } from '../../api/types';
import { ApiImage } from '../../components/ApiImage';
import { ErrorMessage } from '../../components/StateMessage';
import { useSession } from '../../stores/session';
import { boxRect, UNKNOWN_COLOUR, type SkuColours } from './skuColours';

export function PhotoBoxes({
  photo,
  index,
  skuById,
  colourOf,
  onReportError,
}: {
  photo: RealogramImage;
  index: number;
  skuById: Map<string, Sku>;
  colourOf: SkuColours;
  onReportError(annotation: Annotation, image: string): void;
}) {
  const api = useSession((s) => s.api);
  const [upload, setUpload] = useState<Upload | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [active, setActive] = useState<number | null>(null);
  const [pinned, setPinned] = useState<number | null>(null);
  useEffect(() => {
    getUpload(api, photo.image).then(setUpload, (e) => setError(describeError(e)));
  }, [api, photo.image]);

  const shown = pinned ?? active;
  const annotation = shown !== null ? photo.annotations[shown] : null;
  const nameOf = (a: Annotation) => (a.sku_id ? (skuById.get(a.sku_id)?.name ?? a.name ?? a.sku_id) : 'Unknown product');
  const stroke = Math.max(2, Math.round(Math.max(photo.width, photo.height) / 300));
  // A bay's product seen in several photos is counted in one: its other views are drawn dotted.
  const repeats = photo.annotations.filter((a) => a.counted === false && a.facing !== undefined).length;
  // A box cut by this photo's edge where another photo shows the place whole, with no product there.
  const passed = photo.annotations.filter((a) => a.counted === false && a.facing === undefined).length;
  const why = (a: Annotation) => (a.counted !== false ? '' : a.facing !== undefined ? ', counted in another photo' : ', not counted: another photo shows this place whole, with no product');

  return (
    <figure className="photo-boxes">
      <figcaption>
        Photo {index + 1}: {photo.annotations.length} products found,{' '}
        {photo.annotations.filter((a) => a.sku_id === null).length} unknown
        {repeats > 0 && `, ${repeats} counted in another photo of the bay`}
        {passed > 0 && `, ${passed} cut by the photo's edge not counted (another photo shows the place whole, with no product)`}
      </figcaption>
      {error && <ErrorMessage message={error} />}
      {/* Fills the column, but no taller than most of the window; the boxes scale with the photo. */}
      <div className="photo-stage" style={{ maxWidth: `min(100%, calc(70vh * ${photo.width / Math.max(1, photo.height)}))` }}>
        {upload ? <ApiImage src={upload.url} alt={`Shelf photo ${index + 1}`} /> : <span className="image-loading" />}
        <svg
          viewBox={`0 0 ${photo.width} ${photo.height}`}
          preserveAspectRatio="none"
          role="group"
          aria-label={`Products found on photo ${index + 1}`}
        >
          {/* Each shelf comes as the box around its products: drawn as the line along its bottom. */}
          {photo.shelf_annotations.map((s, i) => (
            <line key={`s${i}`} x1={s.x1} y1={s.y2} x2={s.x2} y2={s.y2} className="shelf-line" strokeWidth={stroke * 1.5} />
          ))}
          {photo.annotations.map((a, i) => {
            const r = boxRect(a);
            const colour = colourOf(a.sku_id);
            return (
              <g
                key={i}
                role="button"
                tabIndex={0}
                aria-label={`${nameOf(a)}, score ${a.score.toFixed(2)}${why(a)}`}
                aria-pressed={pinned === i}
                className={`box${a.sku_id === null ? ' box-unknown' : ''}${a.counted === false ? ' box-repeat' : ''}${shown === i ? ' box-active' : ''}`}
                onMouseEnter={() => setActive(i)}
                onMouseLeave={() => setActive(null)}
                onFocus={() => setActive(i)}
                onBlur={() => setActive(null)}
                onClick={() => setPinned(pinned === i ? null : i)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' || e.key === ' ') {
                    e.preventDefault();
                    setPinned(pinned === i ? null : i);
                  }
                }}
              >
                <rect
                  {...r}
                  fill={colour}
                  fillOpacity={shown === i ? 0.3 : 0.08}
                  stroke={colour}
                  strokeWidth={stroke}
                  strokeDasharray={a.counted === false ? `${stroke} ${stroke * 2}` : a.sku_id === null ? `${stroke * 3} ${stroke * 2}` : undefined}
                />
                {a.sku_id === null && (
                  <text x={a.x} y={a.y} fontSize={Math.min(a.w, a.h) * 0.5} textAnchor="middle" dominantBaseline="central" fill={UNKNOWN_COLOUR}>
                    ?
                  </text>
                )}
              </g>
            );
          })}
        </svg>
      </div>
      <div className="box-detail" role="region" aria-label="Selected product" aria-live="polite">
        {annotation ? (
          <>
            <span className="swatch" style={{ background: colourOf(annotation.sku_id) }} aria-hidden="true" />
            <strong>{nameOf(annotation)}</strong>
            <span>
              detection {annotation.score.toFixed(2)}
              {annotation.sku_score !== null && annotation.sku_score !== undefined && `, match ${annotation.sku_score.toFixed(2)}`}
              {annotation.shelf_index !== null && annotation.shelf_index !== undefined && `, shelf ${annotation.shelf_index + 1}`}
            </span>
            <button type="button" onClick={() => onReportError(annotation, photo.image)}>
              Report recognition error
            </button>
          </>
        ) : (
          <span className="muted">Point at a box, or focus it with Tab, to see the product.</span>
        )}
      </div>
    </figure>
  );
}
