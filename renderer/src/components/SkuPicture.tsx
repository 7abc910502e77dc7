import { useEffect } from 'react';
import type { Sku } from '../api/types';
import { useSession } from '../stores/session';
import { skuPicturesStore } from '../stores/skuPictures';
import { ApiImage } from './ApiImage';

/** The SKU's first reference image, or its initials when it has none. */
export function SkuPicture({ sku, size }: { sku: Pick<Sku, 'id' | 'name'>; size: 'small' | 'cell' }) {
  const api = useSession((s) => s.api);
  const url = skuPicturesStore((s) => s.urls[sku.id]);
  useEffect(() => {
    skuPicturesStore.getState().request(api, sku.id);
  }, [api, sku.id]);
  if (url) return <ApiImage className={`sku-picture sku-picture-${size}`} src={url} alt={sku.name} />;
  return (
    <span className={`sku-picture sku-picture-${size} sku-picture-none`} aria-hidden="true">
      {sku.name.slice(0, 2).toUpperCase()}
    </span>
  );
}
