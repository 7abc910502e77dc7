// One photo under review: the picture with its boxes drawn on an SVG laid over it, both moved by one CSS
// transform (zoom with the wheel or the buttons, pan by dragging the background), so a 12 MP photo is
// decoded once and zooming only recomposes it. The selected box can be dragged or resized by its
// corners; in draw mode a drag on the photo draws a new box. Edits go to the review store on release.
import { useEffect, useState, type MutableRefObject } from 'react';
import { getUpload } from '../../../api/endpoints';
import { describeError } from '../../../api/errors';
import type { PriceTagItem, Upload } from '../../../api/types';

type DrawnTag = Pick<PriceTagItem, 'index' | 'x1' | 'y1' | 'x2' | 'y2' | 'price'>;
import { ApiImage } from '../../../components/ApiImage';
import { ErrorMessage } from '../../../components/StateMessage';
import { useSession } from '../../../stores/session';
import { boxRect, type SkuColours } from '../skuColours';
import { ReviewBox } from './ReviewBox';
import { acceptKey, photoKey, type EditBox, type EditPhoto, type ReviewStore } from './reviewStore';
import { spanned, usePhotoDrag } from './usePhotoDrag';
import { usePhotoView, type ZoomControl } from './usePhotoView';
import type { View } from './view';

export function ReviewPhoto({
  store,
  photo,
  index,
  view,
  onView,
  zoomControl,
  drawing,
  onDrawn,
  nameOf,
  colourOf,
  priceTags = [],
}: {
  store: ReviewStore;
  photo: EditPhoto;
  index: number;
  view: View | null;
  onView(view: View): void;
  zoomControl: MutableRefObject<ZoomControl | null>;
  drawing: boolean;
  onDrawn(): void;
  nameOf(sku: string | null, box?: EditBox): string;
  colourOf: SkuColours;
  /** The photo's price tags, drawn for reference under the boxes (not editable here). */
  priceTags?: readonly DrawnTag[];
}) {
  const api = useSession((s) => s.api);
  const key = photoKey(photo.scene, photo.image);
  const selected = store((s) => (s.selected?.photo === key ? s.selected.box : null));
  const accepted = store((s) => s.accepted);
  const [upload, setUpload] = useState<Upload | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    getUpload(api, photo.image).then(setUpload, (e) => setError(describeError(e)));
  }, [api, photo.image]);
  const { viewport, toPhoto } = usePhotoView({ photo, view, onView, zoomControl, selected });
  const { drag, start, onPointerMove, onPointerUp, cancel, shown } = usePhotoDrag({ store, photoKey: key, boxes: photo.boxes, viewport, toPhoto, onView, onDrawn });

  const handle = 9 / (view?.scale ?? 1);
  const unknownCount = photo.boxes.filter((b) => b.sku_id === null).length;

  return (
    <figure className="review-photo">
      <figcaption>
        Photo {index + 1}: {photo.boxes.length} boxes, {unknownCount} without a product
      </figcaption>
      {error && <ErrorMessage message={error} />}
      <div
        ref={viewport}
        className={`review-viewport${drawing ? ' review-drawing' : ''}${drag?.kind === 'pan' ? ' review-panning' : ''}`}
        onPointerDown={(e) => {
          if (!view) return;
          if (drawing && e.button === 0) {
            const p = toPhoto(e);
            start(e, { kind: 'draw', from: p, to: p });
          } else start(e, { kind: 'pan', x: e.clientX, y: e.clientY, view });
        }}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={cancel}
      >
        <div
          className="review-stage"
          style={{ width: photo.width, height: photo.height, transform: view ? `translate(${view.x}px, ${view.y}px) scale(${view.scale})` : 'scale(0)' }}
        >
          {upload ? <ApiImage src={upload.url} alt={`Shelf photo ${index + 1}`} draggable={false} /> : <span className="image-loading" />}
          <svg viewBox={`0 0 ${photo.width} ${photo.height}`} role="group" aria-label={`Boxes on photo ${index + 1}`}>
            {priceTags.length > 0 && (
              <g className="review-price-tags" role="group" aria-label={`Price tags on photo ${index + 1}`} pointerEvents="none">
                {priceTags.map((t) => (
                  <g key={t.index} role="img" aria-label={`Tag ${t.index + 1}: ${t.price ?? 'unreadable'}`}>
                    <rect x={t.x1} y={t.y1} width={t.x2 - t.x1} height={t.y2 - t.y1} />
                    <text x={t.x1} y={t.y2 + (t.y2 - t.y1) * 0.8} fontSize={Math.max(12, (t.y2 - t.y1) * 0.7)}>
                      {t.price ?? '?'}
                    </text>
                  </g>
                ))}
              </g>
            )}
            {/* The selected box is drawn last, over its neighbours, so its corners can always be grabbed. */}
            {photo.boxes
              .map((b, i) => [b, i] as const)
              .sort(([a], [b]) => Number(a.id === selected) - Number(b.id === selected))
              .map(([b, i]) => (
                <ReviewBox
                  key={b.id}
                  box={b}
                  index={i}
                  rect={shown(b)}
                  name={nameOf(b.sku_id, b)}
                  colour={colourOf(b.sku_id)}
                  selected={selected === b.id}
                  accepted={!!accepted[acceptKey({ photo: key, box: b.id })]}
                  drawing={drawing}
                  handle={handle}
                  onPointerDown={(e) => {
                    if (drawing || e.button !== 0) return;
                    store.getState().select({ photo: key, box: b.id });
                    const p = toPhoto(e);
                    start(e, { kind: 'move', box: b.id, from: p, start: { x: b.x, y: b.y, w: b.w, h: b.h }, rect: { x: b.x, y: b.y, w: b.w, h: b.h } });
                  }}
                  onResize={(e, anchor) => start(e, { kind: 'resize', box: b.id, anchor, rect: { x: b.x, y: b.y, w: b.w, h: b.h } })}
                />
              ))}
            {drag?.kind === 'draw' && <rect className="box-drawing" {...boxRect(spanned(drag.from, drag.to))} />}
          </svg>
        </div>
      </div>
    </figure>
  );
}
