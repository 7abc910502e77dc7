import { useEffect, useState, type ImgHTMLAttributes } from 'react';

/** A picture held in the browser (a photo not uploaded yet), shown from a blob: URL. */
export function BlobImage({ blob, alt, ...rest }: { blob: Blob; alt: string } & ImgHTMLAttributes<HTMLImageElement>) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    const u = URL.createObjectURL(blob);
    setUrl(u);
    return () => URL.revokeObjectURL(u);
  }, [blob]);
  return url ? <img src={url} alt={alt} {...rest} /> : null;
}
