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
