// The bay of the scene under review: its joined photos side by side in the bay's order (left to right,
// row by row), each with its boxes, every merged facing marked by one number in each photo that shows
// it, so the reviewer sees which boxes are one product counted once. A click selects a box: the photo
// below shows it, and a change of its product (or "Not a product") applies to the merged facing, in
// every photo of it (reviewStore.ts). Photos not joined are named with the reason, counted on their own.
import { useEffect, useState } from 'react';
import { getUpload } from '../../../api/endpoints';
import type { Upload } from '../../../api/types';
import { ApiImage } from '../../../components/ApiImage';
import { useSession } from '../../../stores/session';
import { boxRect, type SkuColours } from '../skuColours';
import { acceptKey, photoKey, type EditPhoto, type ReviewStore, type SceneBay } from './reviewStore';

/** Joined photos in the bay's reading order: rows by the mapped centre's height, left to right in each. */
export function bayOrder(bay: SceneBay, photos: readonly EditPhoto[]): EditPhoto[] {
  const centre = new Map(
    bay.photos.flatMap((p) => {
      const photo = photos.find((x) => x.image === p.image);
      if (!p.joined || !p.transform || !photo) return [];
      const [a, b, c, d, e, f, g, h, i] = p.transform;
      const [x, y] = [photo.width / 2, photo.height / 2];
      const w = g * x + h * y + i;
      return [[p.image, { x: (a * x + b * y + c) / w, y: (d * x + e * y + f) / w, h: photo.height }] as const];
    }),
  );
  const joined = photos.filter((p) => centre.has(p.image));
  const rowHeight = Math.max(1, Math.min(...joined.map((p) => centre.get(p.image)!.h)) * 0.5);
  return joined.sort((p, q) => {
    const [a, b] = [centre.get(p.image)!, centre.get(q.image)!];
    return Math.round(a.y / rowHeight) - Math.round(b.y / rowHeight) || a.x - b.x;
  });
}

function BayPhoto({ store, photo, number, nameOf, colourOf }: { store: ReviewStore; photo: EditPhoto; number: number; nameOf(sku: string | null): string; colourOf: SkuColours }) {
  const api = useSession((s) => s.api);
  const key = photoKey(photo.scene, photo.image);
  const facingOf = store((s) => s.facingOf);
  const selected = store((s) => s.selected);
  const [upload, setUpload] = useState<Upload | null>(null);
  useEffect(() => {
    getUpload(api, photo.image).then(setUpload, () => setUpload(null));
  }, [api, photo.image]);
  const selectedFacing = selected ? facingOf[acceptKey(selected)] : undefined;
  const label = Math.max(photo.width, photo.height) / 40;
  return (
    <figure className="bay-photo">
      <div className="bay-photo-stage" style={{ aspectRatio: `${photo.width} / ${photo.height}` }}>
        {upload && <ApiImage src={upload.url} alt={`Shelf photo ${number} in the bay`} draggable={false} />}
        <svg viewBox={`0 0 ${photo.width} ${photo.height}`} role="group" aria-label={`Bay: photo ${number}`}>
          {photo.boxes.map((b) => {
            const facing = facingOf[acceptKey({ photo: key, box: b.id })];
            const mark = facing ? `F${facing.index + 1}` : 'new';
            const twice = facing !== undefined && facing.views.length > 1;
            const isSelected = (selected?.photo === key && selected.box === b.id) || (selectedFacing !== undefined && selectedFacing === facing);
            const r = boxRect(b);
            return (
              <g
                key={b.id}
                role="button"
                aria-label={`Facing ${mark}: ${nameOf(b.sku_id)}${twice ? `, seen in ${facing.views.length} photos, counted once` : ''}`}
                aria-pressed={isSelected}
                className={`box${isSelected ? ' box-active' : ''}`}
                onClick={() => store.getState().select({ photo: key, box: b.id })}
              >
                <rect {...r} fill={colourOf(b.sku_id)} fillOpacity={isSelected ? 0.4 : 0.12} stroke={colourOf(b.sku_id)} strokeWidth={twice ? 4 : 2} strokeDasharray={twice ? '10 5' : undefined} />
                {twice && (
                  <text x={r.x + 3} y={r.y + label} fontSize={label} fill="#fff" stroke="#000" strokeWidth={label / 10}>
                    {mark}
                  </text>
                )}
              </g>
            );
          })}
        </svg>
      </div>
      <figcaption>Photo {number}</figcaption>
    </figure>
  );
}

export function ReviewBay({
  store,
  scene,
  photos,
  nameOf,
  colourOf,
}: {
  store: ReviewStore;
  scene: string;
  photos: readonly EditPhoto[];
  nameOf(sku: string | null): string;
  colourOf: SkuColours;
}) {
  const bay = store((s) => s.bays[scene]);
  if (!bay) return null;
  const mine = photos.filter((p) => p.scene === scene);
  const ordered = bayOrder(bay, mine);
  const number = (p: EditPhoto) => photos.indexOf(p) + 1;
  const shared = bay.facings.filter((f) => f.views.length > 1).length;
  const notJoined = bay.photos.filter((p) => !p.joined);
  return (
    <section className="review-bay" aria-label="The bay">
      <p className="muted">
        Photos {ordered.map(number).join(', ')} were joined into one bay of {bay.facings.length} products; {shared} seen in two photos or more are
        marked with the same number in each (dashed) and counted once. A change to one of them applies to every photo that shows it.
      </p>
      <div className="bay-strip">
        {ordered.map((p) => (
          <BayPhoto key={p.image} store={store} photo={p} number={number(p)} nameOf={nameOf} colourOf={colourOf} />
        ))}
      </div>
      {notJoined.map((p) => (
        <p key={p.image} className="state state-warning" role="note">
          {p.message ?? 'A photo could not be joined to the bay.'} It is counted on its own.
        </p>
      ))}
    </section>
  );
}
