import { useEffect, useRef, useState } from 'react';
import type { Sku } from '../api/types';
import { useSession } from '../stores/session';
import { skuPicturesStore } from '../stores/skuPictures';
import { ApiImage } from './ApiImage';

/**
 * The SKU's first reference image, or its initials when it has none. Looked up once the picture comes
 * into view: a table or palette of many SKUs asks only for the pictures on screen, so the rows' own
 * data is not queued behind them.
 */
export function SkuPicture({ sku, size }: { sku: Pick<Sku, 'id' | 'name'>; size: 'small' | 'cell' }) {
  const api = useSession((s) => s.api);
  const url = skuPicturesStore((s) => s.urls[sku.id]);
  const placeholder = useRef<HTMLSpanElement>(null);
  const [visible, setVisible] = useState(typeof IntersectionObserver === 'undefined');
  useEffect(() => {
    const element = placeholder.current;
    if (visible || !element) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) setVisible(true);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [visible, url]);
  useEffect(() => {
    if (visible) skuPicturesStore.getState().request(api, sku.id);
  }, [api, sku.id, visible]);
  if (url) return <ApiImage className={`sku-picture sku-picture-${size}`} src={url} alt={sku.name} />;
  return (
    <span ref={placeholder} className={`sku-picture sku-picture-${size} sku-picture-none`} aria-hidden="true">
      {sku.name.slice(0, 2).toUpperCase()}
    </span>
  );
}
