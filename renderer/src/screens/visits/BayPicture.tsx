// A scene's bay as one picture: its joined photos drawn in the bay's frame (each by its photo -> bay
// transform from REALOGRAM; the slight perspective of a hand-held shot is left out, the boxes are
// placed exactly), every merged facing once in its SKU's colour, and the bay's counts. The single photos,
// with each view of a facing, are a click away below it.
import { useEffect, useState } from 'react';
import { getUpload } from '../../api/endpoints';
import { authorizedImageUrl } from '../../api/imageFetch';
import type { RealogramImage, Sku } from '../../api/types';
import { useSession } from '../../stores/session';
import { countBoxes } from './review/reviewStore';
import { boxRect, type SkuColours } from './skuColours';

type Joined = RealogramImage & { transform: number[] };

function corners(p: Joined): { x: number; y: number }[] {
  const [a, b, c, d, e, f, g, h, i] = p.transform;
  return [
    [0, 0],
    [p.width, 0],
    [0, p.height],
    [p.width, p.height],
  ].map(([x, y]) => {
    const w = g * x + h * y + i;
    return { x: (a * x + b * y + c) / w, y: (d * x + e * y + f) / w };
  });
}

/** The photo's blob URL, fetched with the session's token. */
function usePhotoUrl(image: string): string | null {
  const api = useSession((s) => s.api);
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    getUpload(api, image)
      .then((u) => authorizedImageUrl(api, u.url))
      .then(
        (u) => live && setUrl(u),
        () => undefined,
      );
    return () => {
      live = false;
    };
  }, [api, image]);
  return url;
}

function BayImage({ photo }: { photo: Joined }) {
  const url = usePhotoUrl(photo.image);
  if (!url) return null;
  const [a, b, c, d, e, f, , , i] = photo.transform;
  // The affine part of the homography (a shelf photo's perspective part is small).
  return <image href={url} width={photo.width} height={photo.height} transform={`matrix(${a / i} ${d / i} ${b / i} ${e / i} ${c / i} ${f / i})`} preserveAspectRatio="none" />;
}

export function BayPicture({ photos, numbers, skuById, colourOf }: { photos: readonly RealogramImage[]; numbers: readonly number[]; skuById: Map<string, Sku>; colourOf: SkuColours }) {
  const joined = photos.filter((p): p is Joined => p.joined === true && Array.isArray(p.transform) && p.transform.length === 9);
  if (joined.length < 2) return null;
  const all = joined.flatMap(corners);
  const width = Math.max(...all.map((p) => p.x));
  const height = Math.max(...all.map((p) => p.y));
  const facings = joined.flatMap((p) => p.annotations.filter((a) => a.counted === true && a.bay_x !== undefined));
  const counts = countBoxes(facings);
  const name = (sku: string | null) => (sku ? (skuById.get(sku)?.name ?? sku) : 'Unknown products');
  const stroke = Math.max(2, Math.round(Math.max(width, height) / 400));
  return (
    <figure className="bay-picture">
      <figcaption>
        The bay of photos {photos.map((p, k) => (p.joined ? numbers[k] : null)).filter((n) => n !== null).join(', ')}: {facings.length} products, each counted once
      </figcaption>
      <div className="bay-picture-stage" style={{ maxWidth: `min(100%, calc(60vh * ${width / Math.max(1, height)}))` }}>
        <svg viewBox={`0 0 ${width} ${height}`} role="group" aria-label="Products of the bay">
          <rect width={width} height={height} fill="#222" />
          {joined.map((p) => (
            <BayImage key={p.image} photo={p} />
          ))}
          {facings.map((a, k) => {
            const r = boxRect({ x: a.bay_x!, y: a.bay_y!, w: a.bay_w!, h: a.bay_h! });
            return (
              <rect key={k} {...r} role="img" aria-label={name(a.sku_id)} fill={colourOf(a.sku_id)} fillOpacity={0.12} stroke={colourOf(a.sku_id)} strokeWidth={stroke}
                strokeDasharray={a.sku_id === null ? `${stroke * 3} ${stroke * 2}` : undefined} />
            );
          })}
        </svg>
      </div>
      <ul className="bay-counts" aria-label="Counts of the bay">
        {counts.map((c) => (
          <li key={c.sku_id ?? ''}>
            <span className="swatch" style={{ background: colourOf(c.sku_id) }} aria-hidden="true" /> {name(c.sku_id)}: {c.count}
          </li>
        ))}
      </ul>
    </figure>
  );
}
