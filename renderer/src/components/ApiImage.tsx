import { useEffect, useState, type ImgHTMLAttributes } from 'react';
import { authorizedImageUrl } from '../api/imageFetch';
import { useSession } from '../stores/session';

/** An image served by the API (uploads, reference images, panoramas). */
export function ApiImage({ src, alt, ...rest }: { src: string; alt: string } & ImgHTMLAttributes<HTMLImageElement>) {
  const api = useSession((s) => s.api);
  const [url, setUrl] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    setFailed(false);
    authorizedImageUrl(api, src).then(
      (u) => live && setUrl(u),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [api, src]);
  if (failed) return <span className="image-missing" role="img" aria-label={`${alt} (could not be loaded)`} />;
  if (!url) return <span className="image-loading" role="img" aria-label={`${alt} (loading)`} />;
  return <img src={url} alt={alt} {...rest} />;
}

/**
 * The part of an API image inside `crop` (displayed pixels), e.g. a reference learnt from a box of a
 * shelf photo: drawn once into a canvas, shown as an ordinary image.
 */
export function ApiImageCrop({ src, alt, crop, ...rest }: { src: string; alt: string; crop: { x: number; y: number; w: number; h: number } } & ImgHTMLAttributes<HTMLImageElement>) {
  const api = useSession((s) => s.api);
  const [url, setUrl] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    setFailed(false);
    authorizedImageUrl(api, src)
      .then(async (u) => {
        const img = new Image();
        img.src = u;
        await img.decode();
        const canvas = document.createElement('canvas');
        canvas.width = crop.w;
        canvas.height = crop.h;
        canvas.getContext('2d')!.drawImage(img, crop.x, crop.y, crop.w, crop.h, 0, 0, crop.w, crop.h);
        return canvas.toDataURL('image/jpeg', 0.9);
      })
      .then(
        (u) => live && setUrl(u),
        () => live && setFailed(true),
      );
    return () => {
      live = false;
    };
  }, [api, src, crop.x, crop.y, crop.w, crop.h]);
  if (failed) return <span className="image-missing" role="img" aria-label={`${alt} (could not be loaded)`} />;
  if (!url) return <span className="image-loading" role="img" aria-label={`${alt} (loading)`} />;
  return <img src={url} alt={alt} {...rest} />;
}
